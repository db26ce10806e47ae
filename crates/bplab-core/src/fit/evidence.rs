//! The fit's evidence: per-request logs of both sides, computed apart from
//! the fit's own summary figures ([`super::Row`], [`super::LowLoad`]).
//!
//! * `measured/<file>#<index>`: the requests a per-request file holds, as
//!   the reader produced them (send time, latency, status);
//! * `model/<file>#<index>`: the engine re-run at that load with the fitted
//!   server, every request as the engine handled it (the fitted time outside
//!   the server added to each answer's time in the system);
//! * `low-load`: the answered requests sent while no other request of their
//!   file was in flight, recomputed here from the files' requests.
//!
//! Loads a file gives only as a table (Locust, `ab -e`, `bplab load`) have
//! no measured log: their measured side is the table the reader parsed
//! ([`Table`]).

use super::estimate::{MIN_LOW_LOAD, alone};
use super::level::Level;
use super::model::{self, Server};
use super::report::Fit;
use crate::statement::{Logs, Req, RunLog};
use crate::stochastic::{Abandon, Client, Door, Model, Outcome};

/// The key of a load's measured log.
pub fn measured_key(file: &str, index: usize) -> String {
    format!("measured/{file}#{index}")
}

/// The key of a load's model log.
pub fn model_key(file: &str, index: usize) -> String {
    format!("model/{file}#{index}")
}

/// The key of the low-load sample.
pub const LOW_LOAD: &str = "low-load";

/// What a table-only load's file states, as the reader parsed it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Table {
    /// File.
    pub file: String,
    /// Index in it.
    pub index: usize,
    /// Answered requests.
    pub ok: u64,
    /// Refused requests.
    pub refused: u64,
    /// The sending window, ms.
    pub duration_ms: f64,
    /// Median of the answers, as the file states it.
    pub p50_ms: Option<f64>,
    /// p99, as the file states it.
    pub p99_ms: Option<f64>,
}

/// Everything the fit's statements are checked against.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct FitLogs {
    /// Per-request logs, by key.
    pub logs: Logs,
    /// Loads the files give only as tables.
    pub tables: Vec<Table>,
}

impl FitLogs {
    /// The table of a load.
    pub fn table(&self, file: &str, index: usize) -> Option<&Table> {
        self.tables.iter().find(|t| t.file == file && t.index == index)
    }
}

fn measured_log(l: &Level) -> RunLog {
    let mut log = RunLog::new(measured_key(&l.file, l.index), l.duration_ms);
    for r in &l.requests {
        log.reqs.push(if r.ok() {
            Req::answered(r.start_ms, r.start_ms, r.start_ms + r.latency_ms, r.latency_ms, f64::INFINITY)
        } else if r.refused() {
            Req::refused(r.start_ms, f64::INFINITY, 0)
        } else {
            // Sent, let in, never answered as a success (an error or give-up).
            Req::dropped(r.start_ms, f64::INFINITY, 0)
        });
    }
    log
}

/// The engine at `level` with the fitted server, every request logged.
/// The same arrivals, draws, door and client as the fit's own row.
fn model_log(l: &Level, s: &Server) -> Option<RunLog> {
    if !l.has_counts() {
        return None;
    }
    let (times, _) = model::arrivals(l, s);
    let services: Vec<f64> = s.service.draws(s.seed).take(times.len()).collect();
    let window = l.duration_ms.max(times.last().copied().unwrap_or(0.0) + 1.0);
    let client = match l.tool {
        super::Tool::BplabCsv | super::Tool::BplabTimeline => Client::with_timeout(2000.0, Abandon::Served),
        _ => Client::patient(),
    };
    let m = Model { door: Door::line(s.queue_limit), client, ..Model::new(&times, &services, s.workers, window) };
    let run = m.run().ok()?;
    let mut log = RunLog::new(model_key(&l.file, l.index), run.window_ms);
    for r in &run.requests {
        let mut q = match r.outcome {
            Outcome::Ok => {
                let (start, end) = (r.start_ms.unwrap_or(r.arrival_ms), r.end_ms.unwrap_or(r.arrival_ms));
                Req::answered(r.arrival_ms, start, end, end - r.arrival_ms + s.overhead_ms, f64::INFINITY)
            }
            Outcome::Refused | Outcome::Throttled => Req::refused(r.arrival_ms, f64::INFINITY, r.attempt),
            Outcome::Late | Outcome::Dropped | Outcome::Shed => Req::dropped(r.arrival_ms, f64::INFINITY, r.attempt),
        };
        q.attempt = r.attempt;
        log.reqs.push(q);
    }
    Some(log)
}

fn low_load_log(levels: &[Level]) -> RunLog {
    let mut by_load: Vec<&Level> = levels.iter().filter(|l| !l.requests.is_empty()).collect();
    by_load.sort_by(|a, b| a.sent_per_sec().total_cmp(&b.sent_per_sec()));
    let mut log = RunLog::new(LOW_LOAD, 0.0);
    for l in by_load {
        if log.reqs.len() >= MIN_LOW_LOAD {
            break;
        }
        let got = if l.coarse_starts {
            let one = l.mean_ms.is_some_and(|m| (l.ok_per_sec() * m / 1000.0).round() <= 1.0);
            if one { l.requests.iter().filter(|r| r.ok()).map(|r| r.latency_ms).collect() } else { Vec::new() }
        } else {
            alone(l)
        };
        log.reqs.extend(got.into_iter().map(|t| Req::answered(0.0, 0.0, t, t, f64::INFINITY)));
    }
    log
}

/// The evidence for `fit`'s statements: both sides of every load, and the
/// low-load sample. Re-runs the engine once per load.
pub fn logs(fit: &Fit) -> FitLogs {
    let server = Server {
        service: fit.service,
        workers: fit.workers,
        queue_limit: fit.queue_limit,
        overhead_ms: fit.overhead_ms,
        seed: fit.seed,
    };
    let mut out = FitLogs::default();
    for l in &fit.levels {
        if l.requests.is_empty() {
            out.tables.push(Table {
                file: l.file.clone(),
                index: l.index,
                ok: l.ok,
                refused: l.refused,
                duration_ms: l.duration_ms,
                p50_ms: l.p50_ms,
                p99_ms: l.p99_ms,
            });
        } else {
            out.logs.runs.push(measured_log(l));
        }
        if let Some(m) = model_log(l, &server) {
            out.logs.runs.push(m);
        }
    }
    if fit.low_load.requests > 0 {
        out.logs.runs.push(low_load_log(&fit.levels));
    }
    out
}

/// The mean time in the system of a log's answered requests (`None`: none).
pub fn mean_answered_ms(log: &RunLog) -> Option<f64> {
    let t: Vec<f64> = log.reqs.iter().filter_map(|r| r.in_system_ms).collect();
    (!t.is_empty()).then(|| t.iter().sum::<f64>() / t.len() as f64)
}
