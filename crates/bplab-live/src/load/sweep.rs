//! Running the plan: each rate's requests are spawned at their scheduled
//! times without waiting for earlier answers (open loop); the next rate
//! starts only after every request of the previous one has been answered or
//! given up on. If every request of a rate fails to connect (nothing
//! listens at the target), the sweep stops with [`LiveError::Unreachable`]
//! instead of printing rows of errors.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hdrhistogram::Histogram;
use hyper::StatusCode;
use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::compare::Prediction;
use crate::error::LiveError;
use crate::load::client::{FetchError, get, get_stats, reset_peak};
use crate::load::{LoadConfig, RateRow};
use crate::stats::StatsSnapshot;

/// Histogram range: 1 µs ..= 10 min, 3 significant digits.
const HIST_MAX_US: u64 = 600_000_000;

/// How one request ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    /// 2xx, with latency in µs from scheduled send time.
    Ok(u64),
    Refused,
    GaveUp,
    /// The TCP connect failed (counted in `error`).
    NoConnect(std::io::ErrorKind),
    Error,
}

/// Where and how to send; shared by all request tasks.
#[derive(Debug)]
struct Shot {
    addr: SocketAddr,
    host: String,
    path: String,
    timeout: Duration,
}

async fn one(shot: Arc<Shot>, at: Instant) -> Outcome {
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
    mut on_row: impl FnMut(&RateRow),
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
        let (mut row, no_connect) = run_rate(&shot, rate, cfg.seconds(), schedule).await;
        if let Some(kind) = no_connect {
            return Err(LiveError::Unreachable { addr, sent: row.sent, rate_rps: rate, reason: kind.to_string() });
        }
        row.prediction = predictions.get(i).copied();
        on_row(&row);
        rows.push(row);
    }
    Ok(rows)
}

/// Run one rate's window. The second value is the connect error when every
/// request of a non-empty window failed to connect.
async fn run_rate(
    shot: &Arc<Shot>,
    rate_rps: f64,
    seconds: f64,
    schedule: &[f64],
) -> (RateRow, Option<std::io::ErrorKind>) {
    let before = reset_peak(shot.addr, &shot.host).await.ok();
    let start = Instant::now();
    let mut tasks = JoinSet::new();
    for &offset_ms in schedule {
        let at = start + Duration::from_secs_f64(offset_ms / 1000.0);
        tokio::time::sleep_until(at).await;
        tasks.spawn(one(shot.clone(), at));
    }
    let mut hist = Histogram::<u64>::new_with_bounds(1, HIST_MAX_US, 3).ok();
    let (mut ok, mut refused, mut gaveup, mut error) = (0u64, 0u64, 0u64, 0u64);
    let (mut no_connect, mut connect_kind) = (0u64, None);
    while let Some(joined) = tasks.join_next().await {
        match joined.unwrap_or(Outcome::Error) {
            Outcome::Ok(us) => {
                ok += 1;
                if let Some(h) = hist.as_mut() {
                    h.saturating_record(us.clamp(1, HIST_MAX_US));
                }
            }
            Outcome::Refused => refused += 1,
            Outcome::GaveUp => gaveup += 1,
            Outcome::NoConnect(kind) => {
                error += 1;
                no_connect += 1;
                connect_kind.get_or_insert(kind);
            }
            Outcome::Error => error += 1,
        }
    }
    let after = get_stats(shot.addr, &shot.host).await.ok();
    let quantile = |q: f64| hist.as_ref().filter(|h| !h.is_empty()).map(|h| h.value_at_quantile(q) as f64 / 1000.0);
    let mut row = RateRow {
        offered_rps: rate_rps,
        sent: schedule.len() as u64,
        ok,
        refused,
        gaveup,
        error,
        ok_per_sec: ok as f64 / seconds,
        p50_ms: quantile(0.5),
        p99_ms: quantile(0.99),
        done: None,
        lost: None,
        queued: None,
        queued_end: None,
        prediction: None,
    };
    if let (Some(b), Some(a)) = (before, after) {
        apply_server_deltas(&mut row, &b, &a);
    }
    let unreachable = (row.sent > 0 && no_connect == row.sent).then_some(connect_kind).flatten();
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
            },
            arrived,
            done,
            refused,
            in_service,
            queued,
            queued_peak: queued + 3,
            uptime_ms: 0,
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
        };
        // 100 arrived: 60 done, 10 refused, backlog grew from 5 to 35.
        apply_server_deltas(&mut row, &snap(50, 40, 5, 1, 4), &snap(150, 100, 15, 1, 34));
        assert_eq!((row.done, row.lost, row.queued, row.queued_end), (Some(60), Some(0), Some(37), Some(34)));
        apply_server_deltas(&mut row, &snap(0, 0, 0, 0, 0), &snap(10, 5, 0, 0, 0));
        assert_eq!(row.lost, Some(5));
    }
}
