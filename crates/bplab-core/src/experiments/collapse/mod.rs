//! Post 1 experiment: the offered-load sweep without and with retries.

pub(super) mod explain;
pub mod hooks;
mod params;
pub(super) mod plots;

use serde::Serialize;

use super::{
    ChartSpec, Estimate, Exec, Experiment, ExperimentId, RunTally,
    par_map,
};
use crate::error::ConfigError;
use crate::models::collapse::{self, CollapseRow, CollapseSettings};
use crate::table::{Row, Table, TableSpec};

pub use params::CollapseParams;

/// The registry entry.
pub(super) const DEF: Experiment = Experiment {
    id: ExperimentId::Collapse,
    name: "collapse",
    title: "Collapse and retry storms",
    post: "Post 1: Why Systems Collapse Under Load",
    dir: "bp-post1",
    lesson: "Past capacity an unbounded queue serves requests whose clients already gave up; retries add load, not goodput.",
    tables: &TABLES,
    charts: &CHARTS,
    params: CollapseParams::SPECS,
    main_param: "deadline-ms",
    window_param: "duration-ms",
};

static TABLES: [TableSpec; 1] = [TableSpec {
    file: "bp-post1-collapse-sweep.csv",
    golden_sha256: Some("965e6578eba2dbb33316af1fa12dc225f99b5b1d05ca6dee2572270b2ab84eeb"),
    header: "mode,offered_rps,effective_rps,ideal_goodput_rps,goodput_rps,wasted_pct,p50_ms,p99_ms,avg_queue_depth",
    title: "Offered-load sweep without and with retries",
}];

static CHARTS: [ChartSpec; 2] = [
    ChartSpec { file: "bp-post1-goodput.png", title: "Goodput vs offered load" },
    ChartSpec {
        file: "bp-post1-amplification.png",
        title: "Retry amplification: effective load vs offered",
    },
];

/// The collapse sweep: every `no-retry` row, then every `retry` row.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct CollapseReport {
    /// Settings shared by every row.
    pub settings: CollapseSettings,
    /// Rows without retries, in offered order.
    pub no_retry: Vec<CollapseRow>,
    /// Rows with retries, in offered order.
    pub retry: Vec<CollapseRow>,
}

fn whole_rates(p: &CollapseParams) -> Result<Vec<u32>, ConfigError> {
    p.offered_rps
        .iter()
        .map(|&r| {
            if r.fract() == 0.0 && r >= 1.0 {
                Ok(r as u32)
            } else {
                let s = params::WHOLE_OFFERED;
                Err(ConfigError::OutOfRange {
                    param: s.name,
                    value: r.to_string(),
                    accepted: format!("whole numbers from 1 to {} (rps) for the collapse sweep", s.range.max),
                })
            }
        })
        .collect()
}

pub(super) fn check(p: &CollapseParams) -> Result<(Estimate, u64), ConfigError> {
    super::deadline_covers_service(p.service_ms, p.deadline_ms)?;
    let mut e = Estimate::default();
    let attempts = 1 + u64::from(p.max_retries);
    for r in whole_rates(p)? {
        let first = (f64::from(r) * f64::from(p.duration_ms) / 1000.0).ceil() as u64 + 1;
        e.add(first, 1);
        e.add(first.saturating_mul(attempts), 1);
    }
    Ok((e, 0))
}

fn settings(p: &CollapseParams) -> CollapseSettings {
    CollapseSettings {
        service_ms: p.service_ms,
        deadline_ms: p.deadline_ms,
        duration_ms: p.duration_ms,
        queue_capacity: p.queue_capacity,
        max_retries: p.max_retries,
        retry_backoff_ms: p.retry_backoff_ms,
    }
}

/// The full run is cheap: no preview.
pub(super) fn preview(_: &CollapseParams, _: &dyn Exec) -> Option<CollapseReport> {
    None
}

pub(super) fn run(p: &CollapseParams, exec: &dyn Exec) -> CollapseReport {
    let s = settings(p);
    let rates = whole_rates(p).unwrap_or_default();
    let jobs: Vec<(u32, bool)> =
        [false, true].iter().flat_map(|&retry| rates.iter().map(move |&r| (r, retry))).collect();
    let mut rows = par_map(exec, &jobs, |&(r, retry)| collapse::run(&s, r, retry));
    let retry = rows.split_off(rates.len());
    CollapseReport { settings: s, no_retry: rows, retry }
}

impl super::Rows for CollapseReport {
    fn tallies(&self) -> Vec<RunTally> {
        self.no_retry
            .iter()
            .chain(&self.retry)
            .map(|r| RunTally {
                label: format!("{} {} rps", if r.retry { "retry" } else { "no-retry" }, r.offered_rps),
                arrivals: r.processed,
                goodput: r.goodput,
                late: r.wasted,
                refused: r.rejected,
                unresolved: 0,
                pcts: vec![r.wasted_pct],
                quantiles: Some((r.p50_ms, r.p99_ms)),
            })
            .collect()
    }

    /// `bp-post1-collapse-sweep.csv`.
    fn tables(&self) -> Vec<Table> {
        let mut t = Table::new(&TABLES[0]);
        for r in self.no_retry.iter().chain(&self.retry) {
            t.rows.push(
                Row::new()
                    .text(if r.retry { "retry" } else { "no-retry" })
                    .int(r.offered_rps)
                    .f1(r.effective_rps)
                    .f1(r.ideal_goodput_rps)
                    .f1(r.goodput_rps)
                    .f1(r.wasted_pct)
                    .ms(r.p50_ms)
                    .ms(r.p99_ms)
                    .fixed(r.avg_queue_depth, 2)
                    .done(),
            );
        }
        vec![t]
    }
}
