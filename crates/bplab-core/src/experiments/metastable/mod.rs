//! A metastable failure: a short trigger (a load spike or a slowdown) on a
//! server that is stable without it; callers that time out and retry keep
//! it overloaded after the trigger is gone, because the server keeps serving
//! what it queued for callers who already left. Six client policies race on
//! the same arrivals and service times; a phase diagram over trigger size ×
//! length draws where each stays stuck; a search sizes the retries and the
//! budget. The rules are in `docs/metastable.md`.

pub(super) mod explain;
pub mod hooks;
pub mod memo;
mod params;
mod phase;
pub(super) mod plots;
mod policy;
mod presets;
mod sim;

use std::sync::{Arc, Mutex};

use serde::Serialize;

pub use params::{MetastableParams, Trigger};
pub use phase::{Cell, Knob, Sizing};
pub use policy::{BACKOFF_CAP_MS, BUDGET_FLOOR_RPS, BUDGET_MAX_TOKENS, POLICIES, Policy, THROTTLE_WINDOW_MS};
pub use sim::{Backoff, Client, RetryBudget, Throttle, Totals, Window, World, simulate};
pub use phase::boundary;
pub use presets::{PRESETS, Preset};
pub use crate::stochastic::{HEALTHY_SHARE, Rule, Verdict};

use super::{ChartSpec, Estimate, Exec, Experiment, ExperimentId, RunTally, par_map, poisson_bound};
use crate::error::ConfigError;
use crate::params::{Named, ParamSpec, ParamValue, WINDOW_MS};
use crate::statement::RunLog;
use crate::stochastic::ServiceTime;
use params::{AFTER_SECONDS, TRIGGER_SIZES};
use crate::table::{Row, Table, TableSpec};

/// The registry entry.
pub(super) const DEF: Experiment = Experiment {
    id: ExperimentId::Metastable,
    name: "metastable",
    title: "A failure that outlives its trigger",
    post: "Metastable failures (Bronson et al., HotOS 2021; Huang et al., OSDI 2022): retries, budgets and client throttling",
    dir: "metastable",
    lesson: "A short spike pushes a stable server past its callers' timeout; naive retries keep it there after the spike is gone, and only policies that cut the retries while nothing succeeds (a budget, client throttling) let it drain.",
    tables: &TABLES,
    charts: &CHARTS,
    params: MetastableParams::SPECS,
    main_param: "trigger-size",
    window_param: "seconds",
};

/// The six lanes alone: the phase diagram and the sizing search are
/// pending (`None`). The lanes are the full run's runs (every run lasts
/// until `seconds` after the grid's longest trigger, so the grid's
/// parameters stay; only its cells are not run), so the same numbers; the
/// full run takes them from [`memo`] and adds the diagram's cells and the
/// search's steps. At the defaults the lanes are 6 runs of about 100.
pub(super) fn preview(p: &MetastableParams, exec: &dyn Exec) -> Option<MetastableReport> {
    Some(report(p, exec, false))
}

static TABLES: [TableSpec; 4] = [
    TableSpec {
        file: "metastable-timeline.csv",
        golden_sha256: None,
        header: "policy,window_start_ms,first_tries_per_sec,retries_per_sec,goodput_per_sec,late_per_sec,refused_per_sec,throttled_per_sec,in_flight_max",
        title: "Per window and policy: first tries and retries offered, goodput, work served for nobody, refusals, local rejections, most in the system",
    },
    TableSpec {
        file: "metastable-summary.csv",
        golden_sha256: None,
        header: "policy,first_tries,retries,goodput,late,refused,throttled,denied,verdict,recovery_ms",
        title: "Per policy: every try and how it ended, and the recovery after the trigger's end",
    },
    TableSpec {
        file: "metastable-phase.csv",
        golden_sha256: None,
        header: "policy,trigger_size,trigger_ms,verdict,recovery_ms",
        title: "Phase diagram: per policy, trigger size and length, stuck or recovered",
    },
    TableSpec {
        file: "metastable-sizing.csv",
        golden_sha256: None,
        header: "knob,value,verdict,recovery_ms",
        title: "Sizing search at the trigger given: retry counts (naive) and budget ratios tried, in order",
    },
];

static CHARTS: [ChartSpec; 3] = [
    ChartSpec { file: "metastable-goodput.png", title: "Goodput per policy through the trigger" },
    ChartSpec { file: "metastable-offered.png", title: "Tries sent per policy (first tries + retries)" },
    ChartSpec { file: "metastable-phase.png", title: "Phase diagram: smallest trigger size that stays stuck" },
];

/// The same-bytes reference case: a slowdown, two workers, exponential
/// service, jittered backoff in play, seed 5. The native test
/// (`crates/bplab-core/tests/metastable.rs`) and the browser test
/// (`crates/bplab-web/tests/web.rs`) set these in order and hash the CSVs in
/// table order, so x86-64 and wasm32 must give [`PINNED_SHA256`].
pub const PINNED_EDITS: [(&str, &str); 7] = [
    ("trigger", "slowdown"),
    ("trigger-size", "2.5"),
    ("workers", "2"),
    ("service", "exp:40"),
    ("load", "0.72"),
    ("seed", "5"),
    ("seconds", "30"),
];

/// SHA-256 of the CSVs at [`PINNED_EDITS`] (hex).
pub const PINNED_SHA256: &str = "574f40877c0e1c39fee1a455e38c3cdef287bb272db1847950818fcc5be8dbe7";

/// Most cells (sizes × lengths) of the phase diagram.
pub const MAX_CELLS: usize = 64;
/// Retry counts the sizing search tries: 0 up to this (the max-retries range).
pub const MAX_SIZING_RETRIES: u32 = 10;
/// Budget ratios the sizing search tries, in order.
pub const SIZING_RATIOS: [f64; 8] = [0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0];

/// One policy's race.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Lane {
    /// The policy.
    pub policy: Policy,
    /// The timeline.
    pub ticks: Vec<Window>,
    /// Every try.
    pub totals: Totals,
    /// Stuck or recovered.
    pub verdict: Verdict,
}

/// The metastable experiment's result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MetastableReport {
    /// Offered first tries outside the trigger, rps.
    pub load_rps: f64,
    /// Workers × 1000 / mean service, rps.
    pub capacity_rps: f64,
    /// Workers.
    pub workers: u32,
    /// Mean service time, ms.
    pub service_mean_ms: f64,
    /// Service in words.
    pub service_words: String,
    /// Client timeout, ms.
    pub timeout_ms: u32,
    /// Most waiting beyond the workers (`None`: unbounded).
    pub line_limit: Option<u32>,
    /// Spike or slowdown.
    pub trigger: Trigger,
    /// Trigger start, ms.
    pub trigger_at_ms: u32,
    /// Trigger length, ms.
    pub trigger_ms: u32,
    /// Trigger size (×).
    pub trigger_size: f64,
    /// Timeline window, ms.
    pub window_ms: u32,
    /// Run length, ms.
    pub run_ms: f64,
    /// Retries of the retrying policies.
    pub retries: u32,
    /// Their backoff, ms.
    pub backoff_ms: u32,
    /// The budget's ratio.
    pub budget_ratio: f64,
    /// The throttle's K.
    pub throttle_k: f64,
    /// The refusals' Retry-After, ms.
    pub retry_after_ms: u32,
    /// The reading rule.
    pub rule: Rule,
    /// One lane per policy, in [`POLICIES`] order.
    pub lanes: Vec<Lane>,
    /// Phase diagram sizes.
    pub sizes: Vec<f64>,
    /// Phase diagram lengths, ms.
    pub lengths_ms: Vec<u32>,
    /// One cell per policy × size × length (`None` in the preview: not run yet).
    pub phase: Option<Vec<Cell>>,
    /// The sizing search (`None` in the preview: not run yet).
    pub sizing: Option<Sizing>,
    /// The parameters it ran with: the statement checker re-makes its runs
    /// from them with every try kept (not serialized).
    #[serde(skip)]
    pub params: Option<MetastableParams>,
}

impl MetastableReport {
    /// The lane of `policy`.
    pub fn lane(&self, policy: Policy) -> Option<&Lane> {
        self.lanes.iter().find(|l| l.policy == policy)
    }

    /// The phase diagram's cells (none in the preview).
    pub fn cells(&self) -> &[Cell] {
        self.phase.as_deref().unwrap_or_default()
    }
}

/// The last report's setup and its parameters: the page's full run follows
/// its preview with the same parameters, and takes the preview's draws and
/// merged spikes instead of making them again (the same values either way).
/// Kept only for runs of at most [`KEEP_SETUP_ARRIVALS`] first tries, so a
/// large run's draws are not held after it.
static LAST_SETUP: Mutex<Option<(MetastableParams, Arc<Setup>)>> = Mutex::new(None);

/// The most first tries of a setup kept for the next report.
const KEEP_SETUP_ARRIVALS: usize = 1 << 17;

/// The setup of `p`: the last one if it was made for the same parameters.
fn last_setup(p: &MetastableParams) -> Arc<Setup> {
    if let Ok(last) = LAST_SETUP.lock()
        && let Some((q, s)) = last.as_ref()
        && q == p
    {
        return s.clone();
    }
    forget_setup();
    let s = Arc::new(Setup::new(p));
    if s.traffic.base.len() <= KEEP_SETUP_ARRIVALS
        && let Ok(mut last) = LAST_SETUP.lock()
    {
        *last = Some((p.clone(), s.clone()));
    }
    s
}

/// Drops the kept setup ([`memo::clear`] does too, for cold runs in tests).
pub(crate) fn forget_setup() {
    if let Ok(mut last) = LAST_SETUP.lock() {
        *last = None;
    }
}

/// Everything a run needs, derived once from the parameters.
pub(crate) struct Setup {
    svc: ServiceTime,
    capacity_rps: f64,
    run_ms: f64,
    spike: bool,
    traffic: policy::Traffic,
    /// The first tries and work of each spike run so far, by (size's bits,
    /// length): merged once per trigger, not once per run. A report's lanes
    /// and sizing steps all run the chosen trigger (16 runs at the
    /// defaults), and a diagram cell's six policies one trigger each; the
    /// merge copies every arrival of the run (a measurable share of a slider
    /// move: `docs/performance.md`). Bounded by the triggers a report runs
    /// (the grid's cells and the chosen one).
    merged: Mutex<Vec<Merged>>,
}

/// A spike's (size's bits, length) and its merged first tries and work.
type Merged = ((u64, u32), Arc<(Vec<f64>, Vec<f64>)>);

fn refuse(spec: &ParamSpec, value: String, accepted: String) -> ConfigError {
    ConfigError::OutOfRange { param: spec.name, value, accepted }
}

/// Every run's length, ms: until `seconds` after the longest trigger ends.
fn run_ms(p: &MetastableParams) -> f64 {
    f64::from(p.trigger_at_ms) + f64::from(max_len(p)) + p.seconds * 1000.0
}

fn capacity(p: &MetastableParams) -> f64 {
    crate::calc::capacity_rps(p.service.mean_ms(), p.workers)
}

fn first_try_bound(p: &MetastableParams, max_size: f64, max_len: u32) -> u64 {
    let load = p.load * capacity(p);
    let extra = if p.trigger == Trigger::Spike { (max_size - 1.0) * load * f64::from(max_len) / 1000.0 } else { 0.0 };
    poisson_bound(load * run_ms(p) / 1000.0).saturating_add(poisson_bound(extra))
}

fn max_size(p: &MetastableParams) -> f64 {
    p.trigger_sizes.iter().copied().fold(p.trigger_size, f64::max)
}

fn max_len(p: &MetastableParams) -> u32 {
    p.trigger_lengths_ms.iter().copied().fold(p.trigger_ms, u32::max)
}

pub(super) fn check(p: &MetastableParams) -> Result<(Estimate, u64), ConfigError> {
    let run_ms = run_ms(p);
    if !(run_ms <= crate::stochastic::MAX_MS && capacity(p).is_finite()) {
        return Err(refuse(
            &AFTER_SECONDS,
            p.seconds.to_string(),
            "a time that keeps the run (trigger-at-ms + the longest trigger + seconds) within 10^9 ms".into(),
        ));
    }
    // A verdict needs a window that starts after the trigger's end.
    let w = f64::from(p.window_ms);
    let last_end = f64::from(p.trigger_at_ms) + f64::from(max_len(p));
    if (last_end / w).ceil() * w >= run_ms {
        return Err(refuse(
            &WINDOW_MS,
            p.window_ms.to_string(),
            format!(
                "a window that leaves at least one window starting after the trigger's end ({last_end} ms, the longest of trigger-ms and trigger-lengths-ms) and before the run's end ({run_ms} ms)"
            ),
        ));
    }
    let cells = p.trigger_sizes.len() * p.trigger_lengths_ms.len();
    if cells > MAX_CELLS {
        return Err(refuse(
            &TRIGGER_SIZES,
            p.trigger_sizes.show(),
            format!(
                "at most {MAX_CELLS} phase-diagram cells: trigger-sizes × trigger-lengths-ms entries ({} × {} = {cells} given)",
                p.trigger_sizes.len(),
                p.trigger_lengths_ms.len()
            ),
        ));
    }
    let fb = first_try_bound(p, max_size(p), max_len(p));
    let per = fb.saturating_mul(1 + u64::from(p.retries));
    let mut e = Estimate::default();
    e.add(per, (POLICIES.len() * (1 + cells)) as u64);
    for r in 0..=MAX_SIZING_RETRIES {
        e.add(fb.saturating_mul(1 + u64::from(r)), 1);
    }
    e.add(per, SIZING_RATIOS.len() as u64);
    let windows = (run_ms / f64::from(p.window_ms)).ceil() as u64 * POLICIES.len() as u64;
    Ok((e, windows))
}

impl Setup {
    pub(crate) fn new(p: &MetastableParams) -> Setup {
        let svc = p.service;
        let run_ms = run_ms(p);
        let spike = p.trigger == Trigger::Spike;
        let load = p.load * capacity(p);
        // Caps far past any draw (twice a Poisson bound), and independent of
        // the sizes asked for, so a run never hangs on the other runs.
        let base_cap = poisson_bound(load * run_ms / 1000.0).saturating_mul(2).saturating_add(64);
        let layer_cap = poisson_bound(load * f64::from(max_len(p)) / 1000.0).saturating_mul(2).saturating_add(64);
        let traffic = policy::Traffic::draw(
            load,
            svc,
            run_ms,
            p.seed,
            spike.then(|| (f64::from(p.trigger_at_ms), f64::from(max_len(p)), max_size(p))),
            base_cap,
            layer_cap,
        );
        Setup {
            capacity_rps: crate::calc::capacity_rps(svc.mean_ms(), p.workers),
            svc,
            run_ms,
            spike,
            traffic,
            merged: Mutex::new(Vec::new()),
        }
    }

    pub(crate) fn rule(&self, p: &MetastableParams, len_ms: u32) -> Rule {
        Rule {
            window_ms: f64::from(p.window_ms),
            run_ms: self.run_ms,
            end_ms: f64::from(p.trigger_at_ms) + f64::from(len_ms),
            healthy_rps: HEALTHY_SHARE * p.load.min(1.0) * self.capacity_rps,
        }
    }

    /// One run of `client` with a trigger of `size` × lasting `len_ms`: its
    /// timeline (empty unless `ticks`), totals and verdict; a run kept in
    /// [`memo`] is not run again.
    pub(crate) fn run(
        &self,
        p: &MetastableParams,
        client: sim::Client,
        size: f64,
        len_ms: u32,
        ticks: bool,
    ) -> (Vec<Window>, Totals, Verdict) {
        let key = memo::Key::new(p, client, size, len_ms);
        if let Some(kept) = memo::get(&key, ticks) {
            return kept;
        }
        let (timeline, totals, verdict) = self.run_now(p, client, size, len_ms);
        memo::put(key, &timeline, &totals, verdict);
        (if ticks { timeline } else { Vec::new() }, totals, verdict)
    }

    /// The first tries and work of a spike of `size` × `len_ms` from `at_ms`,
    /// merged on its first run (outside the lock: runs on other threads go on).
    fn spike_traffic(&self, at_ms: f64, size: f64, len_ms: u32) -> Arc<(Vec<f64>, Vec<f64>)> {
        let key = (size.to_bits(), len_ms);
        let kept = |m: &[Merged]| m.iter().find(|(k, _)| *k == key).map(|(_, v)| v.clone());
        if let Some(v) = self.merged.lock().ok().and_then(|m| kept(&m)) {
            return v;
        }
        let v = Arc::new(self.traffic.merged(at_ms, size, f64::from(len_ms)));
        if let Ok(mut m) = self.merged.lock() {
            if let Some(first) = kept(&m) {
                return first;
            }
            m.push((key, v.clone()));
        }
        v
    }

    /// The world of a trigger of `size` × lasting `len_ms`, given to `f`.
    fn with_world<R>(&self, p: &MetastableParams, size: f64, len_ms: u32, f: impl FnOnce(sim::World<'_>) -> R) -> R {
        let at = f64::from(p.trigger_at_ms);
        let spiked = self.spike.then(|| self.spike_traffic(at, size, len_ms));
        let (arrivals, work) = match &spiked {
            Some(m) => (m.0.as_slice(), m.1.as_slice()),
            None => (self.traffic.base.as_slice(), self.traffic.base_work.as_slice()),
        };
        f(sim::World {
            arrivals,
            work_ms: work,
            workers: p.workers,
            line_limit: p.door_limit.waiting(),
            timeout_ms: f64::from(p.client_timeout_ms),
            slowdown: (!self.spike).then_some((at, at + f64::from(len_ms), size)),
            retry_after_ms: f64::from(p.retry_after_ms),
            run_ms: self.run_ms,
            window_ms: f64::from(p.window_ms),
            seed: u64::from(p.seed),
        })
    }

    fn run_now(&self, p: &MetastableParams, client: sim::Client, size: f64, len_ms: u32) -> (Vec<Window>, Totals, Verdict) {
        let (ticks, totals) = self.with_world(p, size, len_ms, |w| sim::simulate(w, client));
        let verdict = self.rule(p, len_ms).verdict(&ticks);
        (ticks, totals, verdict)
    }

    /// The run's every try as request records (the deadline is the
    /// caller's timeout), for the statement checker.
    pub(crate) fn log(&self, p: &MetastableParams, client: sim::Client, size: f64, len_ms: u32, key: String) -> RunLog {
        let timeout = f64::from(p.client_timeout_ms);
        let reqs = self
            .with_world(p, size, len_ms, |w| sim::run(w, client))
            .map(|run| super::lesson::explain::runs::records(&run, Some(timeout), |_| true))
            .unwrap_or_default();
        RunLog { reqs, ..RunLog::new(key, self.run_ms) }
    }
}

/// The client of `policy` at the parameters.
pub(crate) fn client_of(p: &MetastableParams, policy: Policy) -> sim::Client {
    policy::client(policy, p.retries, f64::from(p.retry_backoff_ms), p.budget_ratio, p.throttle_k)
}

pub(super) fn run(p: &MetastableParams, exec: &dyn Exec) -> MetastableReport {
    report(p, exec, true)
}

/// The run: the lanes, and the phase diagram and the sizing search when `sweeps`.
fn report(p: &MetastableParams, exec: &dyn Exec, sweeps: bool) -> MetastableReport {
    let kept = last_setup(p);
    let setup: &Setup = &kept;
    let lanes = par_map(exec, &POLICIES, |&policy| {
        let (ticks, totals, verdict) = setup.run(p, client_of(p, policy), p.trigger_size, p.trigger_ms, true);
        Lane { policy, ticks, totals, verdict }
    });
    let phase = sweeps.then(|| phase::diagram(setup, p, exec));
    let sizing = sweeps.then(|| phase::sizing(setup, p));
    MetastableReport {
        load_rps: p.load * setup.capacity_rps,
        capacity_rps: setup.capacity_rps,
        workers: p.workers,
        service_mean_ms: setup.svc.mean_ms(),
        service_words: setup.svc.describe(),
        timeout_ms: p.client_timeout_ms,
        line_limit: p.door_limit.waiting(),
        trigger: p.trigger,
        trigger_at_ms: p.trigger_at_ms,
        trigger_ms: p.trigger_ms,
        trigger_size: p.trigger_size,
        window_ms: p.window_ms,
        run_ms: setup.run_ms,
        retries: p.retries,
        backoff_ms: p.retry_backoff_ms,
        budget_ratio: p.budget_ratio,
        throttle_k: p.throttle_k,
        retry_after_ms: p.retry_after_ms,
        rule: setup.rule(p, p.trigger_ms),
        lanes,
        sizes: p.trigger_sizes.clone(),
        lengths_ms: p.trigger_lengths_ms.clone(),
        phase,
        sizing,
        params: Some(p.clone()),
    }
}

/// The key of a lane's run in the request logs.
pub(super) fn lane_key(policy: Policy) -> String {
    format!("lane/{}", policy.name())
}

/// The key of a lane's run within its window (what happened after its end left out).
pub(super) fn run_key(policy: Policy) -> String {
    format!("lane/{}/run", policy.name())
}

/// The key of a phase-diagram cell's run.
pub(super) fn cell_key(policy: Policy, size: f64, len_ms: u32) -> String {
    format!("cell/{}/{}/{len_ms}", policy.name(), crate::statement::given(size))
}

/// The key of a sizing search's run.
pub(super) fn sizing_key(knob: Knob, value: f64) -> String {
    format!("sizing/{}/{}", knob.name(), crate::statement::given(value))
}

/// Every run the report's explanations name, re-made with every try kept:
/// the lanes, and the phase diagram's cells and the sizing search's runs
/// where the report ran them.
pub(super) fn request_logs(r: &MetastableReport, p: &MetastableParams) -> crate::statement::Logs {
    let setup = Setup::new(p);
    let mut runs: Vec<RunLog> = Vec::new();
    for policy in POLICIES {
        let whole = setup.log(p, client_of(p, policy), p.trigger_size, p.trigger_ms, lane_key(policy));
        runs.push(whole.within(run_key(policy), 0.0, setup.run_ms));
        runs.push(whole);
    }
    for c in r.cells() {
        runs.push(setup.log(p, client_of(p, c.policy), c.size, c.len_ms, cell_key(c.policy, c.size, c.len_ms)));
    }
    for &(knob, value, ..) in r.sizing.iter().flat_map(|s| &s.runs) {
        let client = match knob {
            Knob::Retries => policy::client(Policy::Naive, value as u32, f64::from(p.retry_backoff_ms), p.budget_ratio, p.throttle_k),
            Knob::BudgetRatio => policy::client(Policy::Budget, p.retries, f64::from(p.retry_backoff_ms), value, p.throttle_k),
        };
        runs.push(setup.log(p, client, p.trigger_size, p.trigger_ms, sizing_key(knob, value)));
    }
    crate::statement::Logs { runs }
}

fn opt(v: Option<u64>) -> String {
    v.map_or_else(String::new, |x| x.to_string())
}

fn tally(label: String, t: &Totals) -> RunTally {
    RunTally {
        label,
        arrivals: t.tries(),
        goodput: t.ok,
        late: t.late,
        refused: t.refused + t.throttled,
        unresolved: t.tries().saturating_sub(t.ok + t.late + t.refused + t.throttled),
        pcts: Vec::new(),
        quantiles: None,
    }
}

impl super::Rows for MetastableReport {
    fn tallies(&self) -> Vec<RunTally> {
        let mut v: Vec<RunTally> = self.lanes.iter().map(|l| tally(l.policy.name().to_owned(), &l.totals)).collect();
        v.extend(
            self.cells().iter().map(|c| tally(format!("{} {}× {} ms", c.policy.name(), c.size, c.len_ms), &c.totals)),
        );
        v.extend(self.sizing.iter().flat_map(|s| &s.runs).map(|(knob, value, _, t)| tally(format!("sizing {} {value}", knob.name()), t)));
        v
    }

    fn tables(&self) -> Vec<Table> {
        let w = f64::from(self.window_ms.max(1));
        let mut tl = Table::new(&TABLES[0]);
        for l in &self.lanes {
            for (i, t) in l.ticks.iter().enumerate() {
                let start = i as f64 * w;
                let per_s = 1000.0 / w.min(self.run_ms - start).max(1e-9);
                let r = |n: u64| n as f64 * per_s;
                tl.rows.push(
                    Row::new()
                        .text(l.policy.name())
                        .int(i as u64 * u64::from(self.window_ms))
                        .f1(r(t.first_tries))
                        .f1(r(t.retries))
                        .f1(r(t.ok))
                        .f1(r(t.late))
                        .f1(r(t.refused))
                        .f1(r(t.throttled))
                        .int(t.in_flight_max)
                        .done(),
                );
            }
        }
        let mut sum = Table::new(&TABLES[1]);
        for l in &self.lanes {
            let t = &l.totals;
            sum.rows.push(
                Row::new()
                    .text(l.policy.name())
                    .int(t.first_tries)
                    .int(t.retries)
                    .int(t.ok)
                    .int(t.late)
                    .int(t.refused)
                    .int(t.throttled)
                    .int(t.denied)
                    .text(l.verdict.word())
                    .text(opt(l.verdict.after_ms()))
                    .done(),
            );
        }
        let mut ph = Table::new(&TABLES[2]);
        for c in self.cells() {
            ph.rows.push(
                Row::new()
                    .text(c.policy.name())
                    .text(crate::calc::fmt_num(c.size))
                    .int(c.len_ms)
                    .text(c.verdict.word())
                    .text(opt(c.verdict.after_ms()))
                    .done(),
            );
        }
        let mut sz = Table::new(&TABLES[3]);
        for (knob, value, v, _) in self.sizing.iter().flat_map(|s| &s.runs) {
            sz.rows.push(
                Row::new()
                    .text(knob.name())
                    .text(crate::calc::fmt_num(*value))
                    .text(v.word())
                    .text(opt(v.after_ms()))
                    .done(),
            );
        }
        vec![tl, sum, ph, sz]
    }
}
