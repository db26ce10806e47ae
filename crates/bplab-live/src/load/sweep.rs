//! Running the plan: each rate's requests are spawned at their scheduled
//! times without waiting for earlier answers (open loop); the next rate
//! starts only after every request of the previous one has been answered or
//! given up on. If every request of a rate fails to connect (nothing
//! listens at the target), the sweep stops with [`LiveError::Unreachable`]
//! instead of printing rows of errors.
//!
//! If no request of a rate got an HTTP answer and `/stats` does not answer
//! either, the sweep stops with [`LiveError::NoHttp`] saying whether the
//! target spoke something that is not HTTP, never answered, or closed.
//!
//! Answers are counted as they arrive (not after the window), so
//! [`sweep_with_progress`] can report a live [`Tick`].
//!
//! A stop signal (see [`Stop`]) ends the sending at once; the requests in
//! flight are still awaited (each gives up at its own client timeout), and
//! the rate's row comes back marked `partial`, the last of the sweep.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper::StatusCode;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio::time::Instant;

use std::collections::BinaryHeap;

use bplab_core::stochastic::{ClientState, NoRetry};
use hdrhistogram::Histogram;

use crate::compare::ModelInputs;
use crate::error::LiveError;
use crate::load::cap::SendCap;
use crate::load::client::{FetchError, get, get_stats, reset_peak};
use crate::load::table::ClientCounts;
use crate::load::tally::{Outcome, Tally, Tick};
use crate::load::timeline::TimelineTally;
use crate::load::{LoadConfig, RateRow, Timeline};
use crate::stats::StatsSnapshot;
use crate::timeline_model::{Chain, Earlier};

/// With `--compare`, the model also runs each rate starting this much
/// earlier and later than it did live (ms; a start before the previous
/// rate's last send, or before the state it starts from was observed, is
/// skipped), each with the measured service time and
/// [`SERVICE_SPREAD`] either side of it, so a row whose answer hangs on its
/// phase says so ([`crate::load::PhaseRange`]).
pub const PHASE_SHIFTS_MS: [f64; 5] = [-1000.0, -500.0, 0.0, 500.0, 1000.0];

/// The service time's share either side of the measured p50 the shifted
/// runs also use (the p50 of 30 samples on an idle machine moves about
/// this much between measurements).
pub const SERVICE_SPREAD: f64 = 0.01;

/// The send lag histogram's range, µs (10 min).
const LAG_MAX_US: u64 = 600_000_000;

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

/// Which try of its caller a request is: 0 for the first, and the backoff
/// drawn before it (the core's `prev` for decorrelated jitter).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Try {
    attempt: u32,
    prev_backoff_ms: Option<f64>,
}

/// What one try came back with.
#[derive(Debug, Clone, Copy)]
struct Done {
    outcome: Outcome,
    /// When it happened, µs after `start`.
    at_us: u64,
    /// A 503's `Retry-After`, ms.
    retry_after_ms: Option<f64>,
    try_: Try,
    /// How late the request actually started (its task ran, the connect
    /// began) after its due time `at`, µs: the timer's delay and the
    /// runtime's backlog both count.
    lag_us: u64,
}

/// One request due at `at`: its outcome and when it happened.
async fn one(shot: Arc<Shot>, at: Instant, start: Instant, try_: Try) -> Done {
    let lag_us = u64::try_from(Instant::now().saturating_duration_since(at).as_micros()).unwrap_or(u64::MAX);
    let (outcome, retry_after_ms) = outcome(&shot, at).await;
    let at_us = u64::try_from(start.elapsed().as_micros()).unwrap_or(u64::MAX);
    Done { outcome, at_us, retry_after_ms, try_, lag_us }
}

async fn outcome(shot: &Shot, at: Instant) -> (Outcome, Option<f64>) {
    let deadline = at + shot.timeout;
    match tokio::time::timeout_at(deadline, get(shot.addr, &shot.host, &shot.path)).await {
        Err(_) => (Outcome::GaveUp, None),
        Ok(Err(FetchError::Connect(e))) => (Outcome::NoConnect(e.kind(), e.raw_os_error()), None),
        Ok(Err(FetchError::NotHttp(_))) => (Outcome::NotHttp, None),
        Ok(Err(_)) => (Outcome::Error, None),
        Ok(Ok((status, _, _))) if status.is_success() => {
            (Outcome::Ok(u64::try_from(at.elapsed().as_micros()).unwrap_or(u64::MAX)), None)
        }
        Ok(Ok((StatusCode::SERVICE_UNAVAILABLE, _, ra))) => (Outcome::Refused, ra),
        Ok(Ok((status, _, _))) => (Outcome::OtherStatus(status.as_u16()), None),
    }
}

/// A retry waiting for its time: ordered by (time, order scheduled), so
/// simultaneous retries go first in, first out, as in the engine.
#[derive(Debug, Clone, Copy)]
struct Pending {
    at_us: u64,
    seq: u64,
    try_: Try,
}

impl PartialEq for Pending {
    fn eq(&self, o: &Self) -> bool {
        (self.at_us, self.seq) == (o.at_us, o.seq)
    }
}
impl Eq for Pending {}
impl PartialOrd for Pending {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Pending {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (o.at_us, o.seq).cmp(&(self.at_us, self.seq)) // a min-heap in BinaryHeap
    }
}

/// The callers of one rate's window: the core's [`ClientState`] decides
/// whether each try is sent (throttling), whether and when a failed one
/// is retried (count, backoff, Retry-After, window, budget); this only
/// keeps the counts and the retries waiting for their time.
struct Callers {
    state: Option<ClientState>,
    window_ms: f64,
    pending: BinaryHeap<Pending>,
    seq: u64,
    counts: ClientCounts,
    cap: SendCap,
    /// How late each try started after its due time, µs (see [`Done::lag_us`]).
    lag: Option<Histogram<u64>>,
}

impl Callers {
    fn new(cfg: &LoadConfig, rate_rps: f64, planned: usize) -> Self {
        let p = cfg.policy();
        let state = p.is_active().then(|| p.state(cfg.client_timeout_ms() as f64, cfg.seed()));
        Callers {
            state,
            window_ms: cfg.seconds() * 1000.0,
            pending: BinaryHeap::new(),
            seq: 0,
            counts: ClientCounts::default(),
            cap: SendCap::new(rate_rps, planned as u64),
            lag: Histogram::new_with_bounds(1, LAG_MAX_US, 2).ok(),
        }
    }

    /// The send lag's p99, ms.
    fn lag_p99_ms(&self) -> Option<f64> {
        self.lag.as_ref().filter(|h| !h.is_empty()).map(|h| h.value_at_quantile(0.99) as f64 / 1000.0)
    }

    /// A try at `now_ms` (since the window's start): sent, or rejected
    /// locally by the throttle (final).
    fn send(&mut self, now_ms: f64) -> bool {
        self.state.as_mut().is_none_or(|s| s.send(now_ms))
    }

    /// Try `t` ended at `now_ms` with `outcome`: an on-time answer feeds
    /// the budget and the throttle; a 503, a give-up or a connection error
    /// is a failure its caller may retry (a 503's Retry-After with it).
    /// Returns whether the budget denied the retry.
    fn ended(&mut self, now_ms: f64, outcome: Outcome, retry_after_ms: Option<f64>, t: Try) -> bool {
        let Some(s) = self.state.as_mut() else { return false };
        match outcome {
            Outcome::Ok(_) => {
                s.success(now_ms);
                return false;
            }
            // An answer that is not a refusal (another status, not HTTP) is
            // final: retrying it would get the same.
            Outcome::OtherStatus(_) | Outcome::NotHttp => return false,
            Outcome::Refused | Outcome::GaveUp | Outcome::NoConnect(..) | Outcome::Error => {}
        }
        match s.retry(now_ms, t.attempt, t.prev_backoff_ms, retry_after_ms, self.window_ms) {
            Ok((at_ms, backoff)) => {
                self.seq += 1;
                let try_ = Try { attempt: t.attempt + 1, prev_backoff_ms: Some(backoff) };
                self.pending.push(Pending { at_us: (at_ms * 1000.0).ceil() as u64, seq: self.seq, try_ });
                false
            }
            Err(NoRetry::Denied) => {
                self.counts.denied += 1;
                true
            }
            Err(NoRetry::Exhausted | NoRetry::PastWindow) => false,
        }
    }
}

/// A stop request for a running sweep: a `watch` that turns `true` (the
/// CLI sets it on SIGINT/SIGTERM). [`Stop::never`] never does.
#[derive(Debug, Clone)]
pub struct Stop(watch::Receiver<bool>);

impl Stop {
    /// A stop that follows `rx`.
    pub fn new(rx: watch::Receiver<bool>) -> Self {
        Stop(rx)
    }

    /// A stop that never comes.
    pub fn never() -> Self {
        let (tx, rx) = watch::channel(false);
        // Keep the sender alive for the receiver's lifetime.
        std::mem::forget(tx);
        Stop(rx)
    }

    fn requested(&self) -> bool {
        *self.0.borrow()
    }

    async fn wait(&mut self) {
        if self.0.wait_for(|s| *s).await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// Run every rate of `cfg` in order against the resolved target, calling
/// `on_row` as each row completes (for streaming output). With `model`
/// (`--compare`), each row gets the model's prediction for its window (and
/// its timeline the model's windows), see [`crate::timeline_model`].
pub async fn sweep(
    cfg: &LoadConfig,
    model: Option<&ModelInputs>,
    on_row: impl FnMut(&RateRow),
) -> Result<Vec<RateRow>, LiveError> {
    sweep_with_progress(cfg, model, on_row, |_| {}, Stop::never()).await
}

/// [`sweep`], also calling `on_tick` every [`TICK`] while a rate's window
/// runs and drains (for a live progress line), and stopping early on
/// `stop` (the last row is then marked `partial`). Sends are never delayed
/// for the ticks: a send that is due goes first.
pub async fn sweep_with_progress(
    cfg: &LoadConfig,
    model: Option<&ModelInputs>,
    mut on_row: impl FnMut(&RateRow),
    mut on_tick: impl FnMut(&Tick),
    mut stop: Stop,
) -> Result<Vec<RateRow>, LiveError> {
    let addr = cfg.target().resolve(cfg.allow_non_loopback()).await?;
    let plan = cfg.plan()?;
    let shot = Arc::new(Shot {
        addr,
        host: cfg.target().host_header(),
        path: cfg.target().path().to_string(),
        timeout: Duration::from_millis(cfg.client_timeout_ms()),
    });
    let mut rows: Vec<RateRow> = Vec::with_capacity(plan.len());
    // The rows of the live session the model replays before the next one
    // (indices into `rows` and `plan`): those since the last break.
    let mut chain: Vec<usize> = Vec::new();
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
        if stop.requested() {
            break;
        }
        let callers = Callers::new(cfg, rate, schedule.len());
        let (mut row, verdict) =
            run_rate(&shot, tick, schedule, cfg.timeline_ms(), callers, &mut on_tick, &mut stop).await;
        match verdict {
            Verdict::Answered => {}
            Verdict::NoConnect(reason) => {
                return Err(LiveError::Unreachable { addr, sent: row.sent, rate_rps: rate, reason });
            }
            Verdict::NoHttp(what) => return Err(LiveError::NoHttp { addr, what, sent: row.sent, rate_rps: rate }),
        }
        if chain.last().and_then(|&j| rows.get(j)).is_some_and(|prev| !continues(prev, &row)) {
            chain.clear();
        }
        if let Some(m) = model {
            let earlier: Vec<(&RateRow, &[f64])> =
                chain.iter().filter_map(|&j| Some((rows.get(j)?, plan.get(j)?.as_slice()))).collect();
            attach_model(m, &mut row, &earlier, schedule, cfg.timeline_ms());
            not_comparable(&mut row);
        }
        if row.config_change.is_some() || row.start_uptime_ms.is_none() {
            chain.clear();
        } else {
            chain.push(rows.len());
        }
        let seconds = row_seconds(&row, cfg);
        if let (Some(t), Some(server)) = (row.timeline.as_mut(), row.server.as_ref()) {
            // Capacity from the measured service time with --compare, else
            // from the server's spin + wait.
            let service_ms = model.map_or((server.spin_ms + server.wait_ms) as f64, |m| m.service_for(server));
            let capacity = server.workers as f64 * 1000.0 / service_ms.max(1e-3);
            t.verdicts = crate::load::timeline::judge(t, rate, seconds, capacity);
        }
        on_row(&row);
        let partial = row.partial;
        rows.push(row);
        if partial {
            break;
        }
    }
    Ok(rows)
}

/// Whether `row` continues the live session of `prev` for the model: both
/// windows' starts are known and the configuration stayed the same between.
fn continues(prev: &RateRow, row: &RateRow) -> bool {
    let epoch = |r: &RateRow| r.server.as_ref().map(|s| s.config_epoch);
    prev.config_change.is_none()
        && prev.start_uptime_ms.is_some()
        && row.start_uptime_ms.is_some()
        && epoch(prev).is_some()
        && epoch(prev) == epoch(row)
}

/// Run the model for `row`'s window (unless it is partial or `/config`
/// changed during it) from the server's state observed as it started
/// (`row.start_state`), or, without one, after the `earlier` rows of its
/// session with their schedules, and attach its prediction, windows and
/// notes.
fn attach_model(
    m: &ModelInputs,
    row: &mut RateRow,
    earlier: &[(&RateRow, &[f64])],
    schedule: &[f64],
    timeline_ms: Option<u64>,
) {
    let Some(server) = row.server.clone() else {
        row.model_note = Some("no model: the target's /stats did not answer".to_string());
        return;
    };
    if row.partial {
        row.model_note = Some("no model for the partial row".to_string());
        return;
    }
    if let Some((from, to)) = row.config_change {
        row.model_note = Some(format!(
            "no model for {} rps: POST /config changed the server during the window (config epoch {from} -> {to})",
            crate::load::format_rate(row.offered_rps)
        ));
        return;
    }
    let deploy_ms = deploy_in_window(&server, row.start_uptime_ms);
    let bucket_ms = timeline_ms.unwrap_or(1000);
    let start = earlier.first().map_or(row.start_uptime_ms, |(r, _)| r.start_uptime_ms).unwrap_or(0);
    let since = |r: &RateRow| r.start_uptime_ms.unwrap_or(start).saturating_sub(start) as f64;
    let before: Vec<Earlier<'_>> =
        earlier.iter().map(|&(r, arrivals)| Earlier { arrivals, offset_ms: since(r) }).collect();
    let observed = row.start_state.take();
    // From the state observed as the window started, or (a server that
    // does not report it) by replaying the session's earlier rates.
    let chain = match &observed {
        Some(o) => Chain { start_limit: None, earlier: &[], offset_ms: 0.0, observed: Some(o) },
        None => Chain {
            start_limit: earlier.first().map_or(row.start_limit, |(r, _)| r.start_limit),
            earlier: &before,
            offset_ms: since(row),
            observed: None,
        },
    };
    let outcome = m.run(&server, chain, schedule, deploy_ms, bucket_ms);
    match outcome {
        Ok(run) => {
            row.model_phase = phase_range(m, &server, chain, schedule, deploy_ms, run.prediction.ok_per_sec);
            row.prediction = Some(run.prediction);
            if let Some(t) = row.timeline.as_mut() {
                t.model = Some(run.windows);
            }
        }
        Err(e) => row.model_note = Some(format!("no model: {e}")),
    }
    row.start_state = observed;
}

/// A row whose client fell behind its schedule or capped its retries
/// (see [`crate::load::comparable`]): its note says the model's row cannot
/// be compared with it, and why (the model's figures stay in their columns,
/// marked by the note).
fn not_comparable(row: &mut RateRow) {
    if crate::load::comparable(row) {
        return;
    }
    let Some(p) = row.prediction else { return };
    let mut why = Vec::new();
    if let Some(lag) = row.send_lag_p99_ms.filter(|&l| l > crate::load::MAX_SEND_LAG_P99_MS) {
        why.push(format!("the client fell behind its schedule (send lag p99 {lag:.1} ms)"));
    }
    if let Some(c) = row.client.filter(|c| c.capped > 0) {
        why.push(format!("{} retries were capped", c.capped));
    }
    let p99 = p.p99_ms.map_or_else(|| "-".to_string(), |v| format!("{v:.1}"));
    row.model_note = Some(format!(
        "the model's {:.1} ok/s (p99 {p99} ms) for {} rps cannot be compared with this row: {}; the model sends \
         every try on time",
        p.ok_per_sec,
        crate::load::format_rate(row.offered_rps),
        why.join(" and ")
    ));
}

/// The model's ok/s with this rate's start moved by each of
/// [`PHASE_SHIFTS_MS`] (the deploy stays where it was in server time; the
/// earlier rates, or the observed state, stay as they were: from an
/// observed state only later starts) and the service time at the measured
/// one and [`SERVICE_SPREAD`] either side, with the row's own `own` ok/s.
fn phase_range(
    m: &ModelInputs,
    server: &crate::stats::StatsConfig,
    chain: Chain<'_>,
    schedule: &[f64],
    deploy_ms: Option<i64>,
    own: f64,
) -> Option<crate::load::PhaseRange> {
    // The previous rate's last send, in chain time: no start before it.
    let floor = chain.earlier.last().map_or(0.0, |e| e.offset_ms + e.arrivals.last().copied().unwrap_or(0.0));
    let (mut lo, mut hi, mut first, mut last) = (own, own, 0.0_f64, 0.0_f64);
    let mut any = false;
    for shift in PHASE_SHIFTS_MS {
        let offset_ms = chain.offset_ms + shift;
        if offset_ms < floor {
            continue;
        }
        // Whole milliseconds, as the live offsets are.
        let deploy = deploy_ms.map(|d| d - shift as i64);
        for f in [1.0 - SERVICE_SPREAD, 1.0, 1.0 + SERVICE_SPREAD] {
            if shift == 0.0 && f == 1.0 {
                continue; // the row's own run
            }
            let m = ModelInputs { service_ms: m.service_ms * f, ..*m };
            let Ok(run) = m.run(server, Chain { offset_ms, ..chain }, schedule, deploy, 1000) else { continue };
            let ok = run.prediction.ok_per_sec;
            (lo, hi) = (lo.min(ok), hi.max(ok));
            (first, last) = if any { (first.min(shift), last.max(shift)) } else { (shift, shift) };
            any = true;
        }
    }
    any.then_some(crate::load::PhaseRange {
        min_ok_per_sec: lo,
        max_ok_per_sec: hi,
        shifts_ms: (first, last),
        service_spread: SERVICE_SPREAD,
    })
}

/// The seconds a row's window sent for (shorter when it was interrupted).
fn row_seconds(row: &RateRow, cfg: &LoadConfig) -> f64 {
    if row.partial && row.ok_per_sec > 0.0 { row.ok as f64 / row.ok_per_sec } else { cfg.seconds() }
}

/// Where the deploy falls in a window that started at server uptime
/// `start_uptime_ms`, ms from its start (negative: before it).
fn deploy_in_window(server: &crate::stats::StatsConfig, start_uptime_ms: Option<u64>) -> Option<i64> {
    let at = i64::try_from(server.slowdown_at_ms?).ok()?;
    Some(at - i64::try_from(start_uptime_ms?).ok()?)
}

/// What one rate's answers say about the target.
enum Verdict {
    /// Something answered (or `/stats` did).
    Answered,
    /// Every request failed to connect.
    NoConnect(String),
    /// No HTTP answer at all, and no `/stats`: what the target did instead.
    NoHttp(String),
}

/// A try came back (`None`: its task failed): counted in the tally and the
/// timeline, and (while still sending) handed to the callers, who may
/// schedule its retry.
fn ended(
    done: Option<Done>,
    tally: &mut Tally,
    timeline: &mut Option<TimelineTally>,
    callers: &mut Callers,
    sending: bool,
) {
    let (outcome, at_us) = done.map_or((Outcome::Error, u64::MAX), |d| (d.outcome, d.at_us));
    if let (Some(d), Some(h)) = (done, callers.lag.as_mut()) {
        h.saturating_record(d.lag_us.clamp(1, LAG_MAX_US));
    }
    tally.record(outcome);
    if let Some(t) = timeline.as_mut() {
        t.record(at_us, outcome);
    }
    if let Some(d) = done
        && sending
        && callers.ended(d.at_us as f64 / 1000.0, d.outcome, d.retry_after_ms, d.try_)
        && let Some(t) = timeline.as_mut()
    {
        t.denied(d.at_us);
    }
}

/// A try (first or retry) due at `at`: counted, then rejected locally by
/// the throttle (false) or sent (true).
fn fire(
    shot: &Arc<Shot>,
    start: Instant,
    at: Instant,
    try_: Try,
    callers: &mut Callers,
    tasks: &mut JoinSet<Done>,
    timeline: &mut Option<TimelineTally>,
) -> bool {
    let at_us = u64::try_from(at.duration_since(start).as_micros()).unwrap_or(u64::MAX);
    if try_.attempt > 0 && !callers.cap.allow_retry(at_us) {
        callers.counts.capped += 1;
        return false;
    }
    if let Some(t) = timeline.as_mut() {
        t.attempt(at_us, try_.attempt == 0);
    }
    if try_.attempt == 0 {
        callers.counts.first_tries += 1;
    } else {
        callers.counts.retries += 1;
    }
    if !callers.send(at_us as f64 / 1000.0) {
        callers.counts.rejected += 1;
        if let Some(t) = timeline.as_mut() {
            t.rejected(at_us);
        }
        return false;
    }
    tasks.spawn(one(shot.clone(), at, start, try_));
    callers.cap.sent(at_us);
    if let Some(t) = timeline.as_mut() {
        t.sent(at_us);
    }
    true
}

/// Run one rate's window (`tick` holds the rate, the window and the plan
/// size). The second value is the connect error when every request of a
/// non-empty window failed to connect.
async fn run_rate(
    shot: &Arc<Shot>,
    mut tick: Tick,
    schedule: &[f64],
    timeline_ms: Option<u64>,
    mut callers: Callers,
    on_tick: &mut impl FnMut(&Tick),
    stop: &mut Stop,
) -> (RateRow, Verdict) {
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
    let mut stopped_at: Option<Instant> = None;
    let mut sent = 0u64;
    let window_end = |(i, _, ms): (usize, usize, u64)| start + Duration::from_millis((i as u64 + 1) * ms);
    let first = Try { attempt: 0, prev_backoff_ms: None };
    loop {
        let retry_due = callers.pending.peek().map(|p| start + Duration::from_micros(p.at_us));
        tokio::select! {
            biased;
            () = stop.wait(), if stopped_at.is_none() => {
                // Stop sending; the requests in flight still end (each at
                // its client timeout at the latest).
                let now = Instant::now();
                stopped_at = Some(now);
                due = None;
                next_window = None;
                callers.pending.clear();
                // No windows after the stop: what still comes back goes
                // to the timeline's row after the windows.
                if let Some(t) = timeline.as_mut() {
                    t.stop(u64::try_from(now.duration_since(start).as_micros()).unwrap_or(u64::MAX));
                }
            }
            () = tokio::time::sleep_until(due.unwrap_or(start)), if due.is_some() => {
                if let Some(at) = due
                    && fire(shot, start, at, first, &mut callers, &mut tasks, &mut timeline)
                {
                    sent += 1;
                }
                due = next_send.next();
                // Sends come first (biased): a client behind its schedule
                // still takes in what finished, so it holds only the tries
                // in flight, not every finished one.
                while let Some(j) = tasks.try_join_next() {
                    ended(j.ok(), &mut tally, &mut timeline, &mut callers, stopped_at.is_none());
                }
            }
            () = tokio::time::sleep_until(retry_due.unwrap_or(start)), if retry_due.is_some() => {
                if let (Some(p), Some(at)) = (callers.pending.pop(), retry_due)
                    && fire(shot, start, at, p.try_, &mut callers, &mut tasks, &mut timeline)
                {
                    sent += 1;
                }
                while let Some(j) = tasks.try_join_next() {
                    ended(j.ok(), &mut tally, &mut timeline, &mut callers, stopped_at.is_none());
                }
            }
            joined = tasks.join_next(), if !tasks.is_empty() => {
                let done = joined.and_then(|j| j.ok());
                ended(done, &mut tally, &mut timeline, &mut callers, stopped_at.is_none());
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
                tick.sent = sent;
                (tick.ok, tick.refused, tick.p99_ms) = (tally.ok, tally.refused, tally.quantile_ms(0.99));
                tick.in_flight = tick.sent.saturating_sub(tally.answered());
                on_tick(&tick);
                next_tick += TICK;
            }
        }
        if due.is_none() && tasks.is_empty() && callers.pending.is_empty() {
            break;
        }
    }
    let after = get_stats(shot.addr, &shot.host).await.ok();
    // A partial window: measured over the time it actually sent.
    let seconds = match stopped_at {
        Some(at) => at.duration_since(start).as_secs_f64().clamp(1e-3, tick.seconds),
        None => tick.seconds,
    };
    let timeline = match timeline {
        Some(mut t) => {
            while let Some(joined) = polls.join_next().await {
                if let Ok((i, limit)) = joined {
                    t.limit(i, limit);
                }
            }
            let mut tl = Timeline {
                window_ms: t.window_ms(),
                client: callers.state.is_some(),
                start_uptime_ms: before.as_ref().map(|b| b.uptime_ms),
                server: before.as_ref().map(|b| b.config.clone()),
                ..Timeline::default()
            };
            (tl.windows, tl.after, tl.split) = t.finish(tl.deploy_ms());
            Some(tl)
        }
        None => None,
    };
    let config_change = match (&before, &after) {
        (Some(b), Some(a)) if b.config.config_epoch != a.config.config_epoch => {
            Some((b.config.config_epoch, a.config.config_epoch))
        }
        _ => None,
    };
    let mut row = RateRow {
        offered_rps: tick.rate_rps,
        sent,
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
        partial: stopped_at.is_some(),
        server: before.as_ref().map(|b| b.config.clone()),
        start_uptime_ms: before.as_ref().map(|b| b.uptime_ms),
        start_limit: before.as_ref().and_then(|b| b.door.limit),
        start_state: before.as_ref().and_then(crate::timeline_model::Observed::of),
        config_change,
        model_note: None,
        model_phase: None,
        client: callers.state.is_some().then_some(callers.counts),
        send_lag_p99_ms: callers.lag_p99_ms(),
        statuses: std::mem::take(&mut tally.statuses),
    };
    let stats_answered = after.is_some();
    if let (Some(b), Some(a)) = (before, after) {
        apply_server_deltas(&mut row, &b, &a);
    }
    let verdict = if row.sent > 0 && tally.no_connect == row.sent {
        tally.connect_error.clone().map_or(Verdict::Answered, Verdict::NoConnect)
    } else if row.sent > 0 && tally.http_answers() == 0 && !stats_answered {
        let timeout_ms = shot.timeout.as_millis();
        Verdict::NoHttp(if tally.not_http > 0 {
            format!("does not speak HTTP/1.1 ({} of the answers were not HTTP)", tally.not_http)
        } else if tally.gaveup == row.sent {
            format!("never answers (every request gave up after the {timeout_ms} ms client timeout)")
        } else if let (n @ 1.., Some(why)) = (tally.no_connect, tally.connect_error.as_deref()) {
            // Some connects failed (the client's own open-file limit, say),
            // the rest got nothing: say both.
            format!(
                "never answers ({} gave up after the {timeout_ms} ms client timeout, {n} failed to connect: {why})",
                tally.gaveup
            )
        } else {
            "closes connections without answering".to_string()
        })
    } else {
        Verdict::Answered
    };
    (row, verdict)
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
    use crate::compare::Prediction;
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
                slowdown_for_ms: None,
                retry_after_s: 1,
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
            held: None,
        }
    }

    // N3: a row whose client fell behind its schedule (or capped retries)
    // says so, and its model row says it cannot be compared (the audit's
    // storm: live 12.2 ok/s beside a model 45.2 with no note).
    #[test]
    fn a_row_that_fell_behind_is_not_compared_with_the_model() {
        let p = Prediction { ok_per_sec: 45.2, p99_ms: Some(22.0) };
        let behind = RateRow {
            offered_rps: 2000.0,
            ok_per_sec: 12.2,
            send_lag_p99_ms: Some(812.5),
            prediction: Some(p),
            ..RateRow::default()
        };
        let mut row = behind.clone();
        not_comparable(&mut row);
        assert_eq!(row.prediction, Some(p), "the figures stay, marked by the note");
        assert_eq!(
            row.model_note.as_deref(),
            Some(
                "the model's 45.2 ok/s (p99 22.0 ms) for 2000 rps cannot be compared with this row: the client fell \
                 behind its schedule (send lag p99 812.5 ms); the model sends every try on time"
            )
        );
        assert_eq!(
            crate::load::row_notes(&row),
            ["the client fell behind its schedule at 2000 rps: send lag p99 812.5 ms (above 50 ms); the load \
              offered was not the one planned"]
        );
        let capped = RateRow {
            send_lag_p99_ms: Some(3.0),
            client: Some(ClientCounts { capped: 7, ..ClientCounts::default() }),
            ..behind.clone()
        };
        let mut row = capped.clone();
        not_comparable(&mut row);
        assert!(row.model_note.is_some_and(|n| n.contains(": 7 retries were capped;")));
        // On schedule: the prediction stays, no note.
        let mut row = RateRow { send_lag_p99_ms: Some(3.0), ..behind };
        not_comparable(&mut row);
        assert_eq!((row.prediction, row.model_note.as_deref()), (Some(p), None));
        assert!(crate::load::row_notes(&row).is_empty());
    }

    #[test]
    fn deltas_conserve() {
        let mut row = RateRow { offered_rps: 1.0, ..RateRow::default() };
        // 100 arrived: 60 done, 10 refused, backlog grew from 5 to 35.
        apply_server_deltas(&mut row, &snap(50, 40, 5, 1, 4), &snap(150, 100, 15, 1, 34));
        assert_eq!((row.done, row.lost, row.queued, row.queued_end), (Some(60), Some(0), Some(37), Some(34)));
        apply_server_deltas(&mut row, &snap(0, 0, 0, 0, 0), &snap(10, 5, 0, 0, 0));
        assert_eq!(row.lost, Some(5));
    }

    #[test]
    fn a_row_with_an_observed_state_is_modelled_from_it_not_from_the_replay() {
        let m = ModelInputs {
            service_ms: 21.5,
            measured_work_ms: 20,
            measured_epoch: 0,
            deadline_ms: 2000,
            seconds: 10.0,
            seed: 1,
            policy: crate::load::ClientPolicy::NONE,
        };
        let server = StatsConfig { door: "gradient2".into(), ..snap(0, 0, 0, 0, 0).config };
        let sixty = crate::load::schedule(60.0, 10.0, 1, 100_000);
        let hundred = crate::load::schedule(100.0, 10.0, 1, 100_000);
        let first = RateRow {
            offered_rps: 60.0,
            server: Some(server.clone()),
            start_uptime_ms: Some(1000),
            ..RateRow::default()
        };
        // The live server's state as the 100 rps window started: a line the
        // replay of the 60 rps rate does not have (30 requests, 1.9 s old)
        // and Gradient2 at its floor with a long RTT of 1.5 s.
        let held = (0..30)
            .map(|k| crate::stats::Held {
                age_us: 1_900_000 - k * 10_000,
                in_service_us: (k == 0).then_some(5_000),
                work_us: if k == 0 { 20_000 } else { 0 },
                inflight: 30,
            })
            .collect();
        let observed = crate::timeline_model::Observed {
            limiter: Some(bplab_core::control::LimiterState::Gradient2 {
                estimate: 20.0,
                long_rtt_ns: 1.5e9,
                long_rtt_sum_ns: 1.0e10,
                long_rtt_count: 10,
            }),
            codel: None,
            held,
            uptime_ms: 11_500,
        };
        let row = |state| RateRow {
            offered_rps: 100.0,
            server: Some(server.clone()),
            start_uptime_ms: Some(11_500),
            start_limit: Some(20),
            start_state: state,
            ..RateRow::default()
        };
        let earlier = [(&first, sixty.as_slice())];
        let (mut seen, mut replayed) = (row(Some(observed.clone())), row(None));
        attach_model(&m, &mut seen, &earlier, &hundred, None);
        attach_model(&m, &mut replayed, &earlier, &hundred, None);
        let direct = m
            .run(&server, Chain { observed: Some(&observed), ..Chain::default() }, &hundred, None, 1000)
            .expect("model");
        assert_eq!(seen.prediction, Some(direct.prediction));
        assert_ne!(seen.prediction, replayed.prediction, "the replay would not know the observed line");
        assert_eq!(seen.start_state.as_ref(), Some(&observed), "the row keeps what it was modelled from");
        // Its phase range only starts later than observed (no state before it).
        assert!(seen.model_phase.is_some_and(|p| p.shifts_ms.0 == 0.0), "{:?}", seen.model_phase);
    }

    #[test]
    fn the_phase_range_moves_only_this_rates_start_and_never_before_the_last_send() {
        let server = |limit: &str| StatsConfig {
            limit: Some(10),
            door: limit.into(),
            slowdown_at_ms: Some(10_000),
            slowdown_factor: 3.0,
            ..snap(0, 0, 0, 0, 0).config
        };
        let m = ModelInputs {
            service_ms: 21.5,
            measured_work_ms: 20,
            measured_epoch: 0,
            deadline_ms: 2000,
            seconds: 30.0,
            seed: 1,
            policy: crate::load::ClientPolicy::NONE,
        };
        let sixty = crate::load::schedule(60.0, 30.0, 1, 100_000);
        let hundred = crate::load::schedule(100.0, 30.0, 1, 100_000);
        let last = *sixty.last().unwrap();
        let earlier = [Earlier { arrivals: &sixty, offset_ms: 0.0 }];
        // 100 rps starts 700 ms after the 60 rps rate's last send: the
        // -1000 ms shift would start before it and is skipped.
        let chain = Chain { start_limit: None, earlier: &earlier, offset_ms: (last + 700.0).round(), observed: None };
        let deploy = Some(10_000 - chain.offset_ms as i64);
        let fixed = server("fixed");
        let own = m.run(&fixed, chain, &hundred, deploy, 1000).unwrap().prediction.ok_per_sec;
        let r = phase_range(&m, &fixed, chain, &hundred, deploy, own).unwrap();
        assert_eq!(r.shifts_ms, (-500.0, 1000.0));
        assert_eq!(r.service_spread, SERVICE_SPREAD);
        // A fixed limit serves at capacity whenever the rate starts.
        assert!(r.min_ok_per_sec <= own && own <= r.max_ok_per_sec && !r.sensitive(own, 0.1), "{own} {r:?}");
        // The first rate of a chain has nothing before it: only later starts.
        let first = phase_range(&m, &fixed, Chain::default(), &sixty, Some(10_000), own).unwrap();
        assert_eq!(first.shifts_ms, (0.0, 1000.0));
    }
}
