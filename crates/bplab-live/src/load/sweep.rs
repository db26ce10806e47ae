//! Running the plan: each rate's requests are spawned at their scheduled
//! times without waiting for earlier answers (open loop); the next rate
//! starts only after every request of the previous one has been answered or
//! given up on. If every request of a rate fails to connect (nothing
//! listens at the target), the sweep stops with [`LiveError::Unreachable`]
//! instead of printing rows of errors.
//!
//! Answers are counted as they arrive (not after the window), so
//! [`sweep_with_progress`] can report a live [`Tick`].

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper::StatusCode;
use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::compare::Prediction;
use crate::error::LiveError;
use crate::load::client::{FetchError, get, get_stats, reset_peak};
use crate::load::tally::{Outcome, Tally, Tick};
use crate::load::timeline::TimelineTally;
use crate::load::{LoadConfig, RateRow, Timeline};
use crate::stats::StatsSnapshot;

/// How often [`sweep_with_progress`] reports a [`Tick`].
pub const TICK: Duration = Duration::from_millis(200);

/// Where and how to send; shared by all request tasks.
#[derive(Debug)]
struct Shot {
    addr: SocketAddr,
    host: String,
    path: String,
    timeout: Duration,
}

/// One request sent at `at`; the outcome and when it happened, µs after `start`.
async fn one(shot: Arc<Shot>, at: Instant, start: Instant) -> (Outcome, u64) {
    let outcome = outcome(&shot, at).await;
    (outcome, u64::try_from(start.elapsed().as_micros()).unwrap_or(u64::MAX))
}

async fn outcome(shot: &Shot, at: Instant) -> Outcome {
    let deadline = at + shot.timeout;
    match tokio::time::timeout_at(deadline, get(shot.addr, &shot.host, &shot.path)).await {
        Err(_) => Outcome::GaveUp,
        Ok(Err(FetchError::Connect(e))) => Outcome::NoConnect(e.kind()),
        Ok(Err(_)) => Outcome::Error,
        Ok(Ok((status, _))) if status.is_success() => {
            Outcome::Ok(u64::try_from(at.elapsed().as_micros()).unwrap_or(u64::MAX))
        }
        Ok(Ok((StatusCode::SERVICE_UNAVAILABLE, _))) => Outcome::Refused,
        Ok(Ok(_)) => Outcome::Error,
    }
}

/// Run every rate of `cfg` in order against the resolved target, calling
/// `on_row` as each row completes (for streaming output). `predictions`
/// is either empty or holds one model prediction per rate, attached to the
/// rows as they are produced.
pub async fn sweep(
    cfg: &LoadConfig,
    predictions: &[Prediction],
    on_row: impl FnMut(&RateRow),
) -> Result<Vec<RateRow>, LiveError> {
    sweep_with_progress(cfg, predictions, on_row, |_| {}).await
}

/// [`sweep`], also calling `on_tick` every [`TICK`] while a rate's window
/// runs and drains (for a live progress line). Sends are never delayed for
/// it: a send that is due goes first.
pub async fn sweep_with_progress(
    cfg: &LoadConfig,
    predictions: &[Prediction],
    mut on_row: impl FnMut(&RateRow),
    mut on_tick: impl FnMut(&Tick),
) -> Result<Vec<RateRow>, LiveError> {
    let addr = cfg.target().resolve(cfg.allow_non_loopback()).await?;
    let plan = cfg.plan()?;
    let shot = Arc::new(Shot {
        addr,
        host: cfg.target().host_header(),
        path: cfg.target().path().to_string(),
        timeout: Duration::from_millis(cfg.client_timeout_ms()),
    });
    let mut rows = Vec::with_capacity(plan.len());
    for (i, (schedule, &rate)) in plan.iter().zip(cfg.rates_rps()).enumerate() {
        let tick = Tick {
            index: i,
            rates: plan.len(),
            rate_rps: rate,
            elapsed_s: 0.0,
            seconds: cfg.seconds(),
            sent: 0,
            planned: schedule.len() as u64,
            ok: 0,
            refused: 0,
            in_flight: 0,
            p99_ms: None,
        };
        let (mut row, no_connect) = run_rate(&shot, tick, schedule, cfg.timeline_ms(), &mut on_tick).await;
        if let Some(kind) = no_connect {
            return Err(LiveError::Unreachable { addr, sent: row.sent, rate_rps: rate, reason: kind.to_string() });
        }
        row.prediction = predictions.get(i).copied();
        on_row(&row);
        rows.push(row);
    }
    Ok(rows)
}

/// Run one rate's window (`tick` holds the rate, the window and the plan
/// size). The second value is the connect error when every request of a
/// non-empty window failed to connect.
async fn run_rate(
    shot: &Arc<Shot>,
    mut tick: Tick,
    schedule: &[f64],
    timeline_ms: Option<u64>,
    on_tick: &mut impl FnMut(&Tick),
) -> (RateRow, Option<std::io::ErrorKind>) {
    let before = reset_peak(shot.addr, &shot.host).await.ok();
    let start = Instant::now();
    let mut tasks = JoinSet::new();
    let mut tally = Tally::new();
    let mut timeline = timeline_ms.map(|ms| TimelineTally::new(ms, tick.seconds));
    // One /stats read as each timeline window ends, for the door's limit.
    let mut polls: JoinSet<(usize, Option<i64>)> = JoinSet::new();
    let mut next_window = timeline.as_ref().map(|t| (0usize, t.len(), t.window_ms()));
    let mut next_send = schedule.iter().map(|&offset_ms| start + Duration::from_secs_f64(offset_ms / 1000.0));
    let mut due = next_send.next();
    let mut next_tick = start;
    let window_end = |(i, _, ms): (usize, usize, u64)| start + Duration::from_millis((i as u64 + 1) * ms);
    loop {
        tokio::select! {
            biased;
            () = tokio::time::sleep_until(due.unwrap_or(start)), if due.is_some() => {
                if let Some(at) = due {
                    tasks.spawn(one(shot.clone(), at, start));
                    if let Some(t) = timeline.as_mut() {
                        t.sent(u64::try_from(at.duration_since(start).as_micros()).unwrap_or(u64::MAX));
                    }
                }
                due = next_send.next();
            }
            joined = tasks.join_next(), if !tasks.is_empty() => {
                let (outcome, at_us) = joined.map_or((Outcome::Error, u64::MAX), |j| j.unwrap_or((Outcome::Error, u64::MAX)));
                tally.record(outcome);
                if let Some(t) = timeline.as_mut() {
                    t.record(at_us, outcome);
                }
            }
            () = tokio::time::sleep_until(next_window.map_or(start, window_end)), if next_window.is_some() => {
                if let Some((i, n, ms)) = next_window {
                    let (addr, host) = (shot.addr, shot.host.clone());
                    polls.spawn(async move { (i, get_stats(addr, &host).await.ok().and_then(|s| s.door.limit)) });
                    next_window = (i + 1 < n).then_some((i + 1, n, ms));
                }
            }
            () = tokio::time::sleep_until(next_tick) => {
                tick.elapsed_s = start.elapsed().as_secs_f64();
                tick.sent = tick.planned - next_send.len() as u64 - u64::from(due.is_some());
                (tick.ok, tick.refused, tick.p99_ms) = (tally.ok, tally.refused, tally.quantile_ms(0.99));
                tick.in_flight = tick.sent.saturating_sub(tally.answered());
                on_tick(&tick);
                next_tick += TICK;
            }
        }
        if due.is_none() && tasks.is_empty() {
            break;
        }
    }
    let after = get_stats(shot.addr, &shot.host).await.ok();
    let timeline = match timeline {
        Some(mut t) => {
            while let Some(joined) = polls.join_next().await {
                if let Ok((i, limit)) = joined {
                    t.limit(i, limit);
                }
            }
            let mut tl = Timeline {
                window_ms: t.window_ms(),
                start_uptime_ms: before.as_ref().map(|b| b.uptime_ms),
                server: before.as_ref().map(|b| b.config.clone()),
                ..Timeline::default()
            };
            (tl.windows, tl.split) = t.finish(tl.deploy_ms());
            Some(tl)
        }
        None => None,
    };
    let seconds = tick.seconds;
    let mut row = RateRow {
        offered_rps: tick.rate_rps,
        sent: schedule.len() as u64,
        ok: tally.ok,
        refused: tally.refused,
        gaveup: tally.gaveup,
        error: tally.error,
        ok_per_sec: tally.ok as f64 / seconds,
        p50_ms: tally.quantile_ms(0.5),
        p99_ms: tally.quantile_ms(0.99),
        done: None,
        lost: None,
        queued: None,
        queued_end: None,
        prediction: None,
        timeline,
    };
    if let (Some(b), Some(a)) = (before, after) {
        apply_server_deltas(&mut row, &b, &a);
    }
    let unreachable = (row.sent > 0 && tally.no_connect == row.sent).then_some(tally.connect_kind).flatten();
    (row, unreachable)
}

/// Fill `done`, `lost` and `queued` from two `/stats` snapshots (see
/// [`RateRow`] for the definitions).
fn apply_server_deltas(row: &mut RateRow, before: &StatsSnapshot, after: &StatsSnapshot) {
    let d = |a: u64, b: u64| a as i64 - b as i64;
    let done = d(after.done, before.done);
    let lost = d(after.arrived, before.arrived)
        - done
        - d(after.refused, before.refused)
        - d(after.present(), before.present());
    row.done = u64::try_from(done).ok();
    row.lost = Some(lost);
    row.queued = Some(after.queued_peak);
    row.queued_end = Some(after.queued);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::StatsConfig;

    fn snap(arrived: u64, done: u64, refused: u64, in_service: u64, queued: u64) -> StatsSnapshot {
        StatsSnapshot {
            config: StatsConfig {
                workers: 1,
                spin_ms: 2,
                wait_ms: 18,
                limit: None,
                max_connections: 10,
                header_read_timeout_ms: 1000,
                door: String::new(),
                controller: Default::default(),
                budget_ms: None,
                slowdown_at_ms: None,
                slowdown_factor: 1.0,
                config_epoch: 0,
            },
            arrived,
            done,
            refused,
            in_service,
            queued,
            queued_peak: queued + 3,
            connections_shed: 0,
            over_cap: 0,
            uptime_ms: 0,
            door: Default::default(),
        }
    }

    #[test]
    fn deltas_conserve() {
        let mut row = RateRow {
            offered_rps: 1.0,
            sent: 0,
            ok: 0,
            refused: 0,
            gaveup: 0,
            error: 0,
            ok_per_sec: 0.0,
            p50_ms: None,
            p99_ms: None,
            done: None,
            lost: None,
            queued: None,
            queued_end: None,
            prediction: None,
            timeline: None,
        };
        // 100 arrived: 60 done, 10 refused, backlog grew from 5 to 35.
        apply_server_deltas(&mut row, &snap(50, 40, 5, 1, 4), &snap(150, 100, 15, 1, 34));
        assert_eq!((row.done, row.lost, row.queued, row.queued_end), (Some(60), Some(0), Some(37), Some(34)));
        apply_server_deltas(&mut row, &snap(0, 0, 0, 0, 0), &snap(10, 5, 0, 0, 0));
        assert_eq!(row.lost, Some(5));
    }
}
