//! Post 4 experiment: the policies' offered-load sweep and the hangover.

pub(super) mod explain;
pub mod hooks;
mod params;
pub(super) mod plots;

use serde::Serialize;

use super::{
    ChartSpec, Estimate, Exec, Experiment, ExperimentId, RunTally, par_map,
};
use crate::arrivals::Curve;
use crate::error::ConfigError;
use crate::models::shedding::{self, ShedOutcome, ShedPolicy, ShedSettings};
use crate::table::{Row, Table, TableSpec};
pub use params::SheddingParams;

/// The registry entry.
pub(super) const DEF: Experiment = Experiment {
    id: ExperimentId::Shedding,
    name: "shedding",
    title: "Shedding policies",
    post: "Post 4: Load Shedding Strategies",
    dir: "bp-post4",
    lesson: "Which work to abandon: FIFO serves the stale, tail-drop and expiry bound the wait, LIFO serves the fresh and starves the old.",
    tables: &TABLES,
    charts: &CHARTS,
    params: SheddingParams::SPECS,
    main_param: "deadline-ms",
    window_param: "duration-ms",
};

static TABLES: [TableSpec; 2] = [
    TableSpec {
        file: "bp-post4-shed-sweep.csv",
        golden_sha256: Some("bc2ba213029757e0f7a86fd9b940ad35d7d787184b69d563c22b8ca0029e9609"),
        header: "policy,offered_rps,goodput_rps,shed_pct,served_late_pct,p99_served_ms,shed_wait_p50_ms,wasted_pct",
        title: "Four shedding policies across offered load",
    },
    TableSpec {
        file: "bp-post4-hangover.csv",
        golden_sha256: Some("2a2941d8f543cef2b563fab8ec83af554d4ab8378bc459c01ca89b2c9654d775"),
        header: "window_start_ms,fifo_p99_ms,tail_drop_p99_ms,expire_p99_ms,lifo_p99_ms",
        title: "Served p99 per window through repeated bursts (the hangover)",
    },
];

static CHARTS: [ChartSpec; 2] = [
    ChartSpec {
        file: "bp-post4-shed-sweep.png",
        title: "Goodput vs offered load per policy",
    },
    ChartSpec {
        file: "bp-post4-hangover.png",
        title: "Served p99 per window: the hangover",
    },
];

/// Both shedding tables.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct SheddingReport {
    /// Settings (the door bound is B).
    pub settings: ShedSettings,
    /// Per policy (CSV order), one outcome per offered rate.
    pub sweep: Vec<Vec<ShedOutcome>>,
    /// Window width of the hangover, ms.
    pub window_ms: u32,
    /// Per policy, the bursty-curve run with per-window p99.
    pub hangover: Vec<ShedOutcome>,
    /// The parameters it ran with: the statement checker re-runs the models
    /// from them with their log hooks (not serialised).
    #[serde(skip)]
    pub(crate) inputs: SheddingParams,
}

fn curve(p: &SheddingParams) -> Curve {
    Curve::bursty(p.valley_rps, p.valley_ms, p.spike_rps, p.spike_ms)
}

pub(super) fn check(p: &SheddingParams) -> Result<(Estimate, u64), ConfigError> {
    super::deadline_covers_service(p.service_ms, p.deadline_ms)?;
    let mut e = Estimate::default();
    let policies = ShedPolicy::ALL.len() as u64;
    for &r in &p.offered_rps {
        e.add(Curve::flat(r, p.duration_ms).estimate_arrivals(p.duration_ms), policies);
    }
    e.add(curve(p).estimate_arrivals(p.duration_ms), policies);
    Ok((e, u64::from(p.duration_ms / p.window_ms)))
}

/// The full run is cheap: no preview.
pub(super) fn preview(_: &SheddingParams, _: &dyn Exec) -> Option<SheddingReport> {
    None
}

pub(super) fn run(p: &SheddingParams, exec: &dyn Exec) -> SheddingReport {
    let s = ShedSettings {
        service_ms: p.service_ms,
        deadline_ms: p.deadline_ms,
        duration_ms: p.duration_ms,
        bound: crate::calc::budget_value(p.service_ms, p.deadline_ms),
    };
    let flats: Vec<Vec<f64>> =
        par_map(exec, &p.offered_rps, |&r| Curve::flat(r, p.duration_ms).arrivals(p.duration_ms));
    let bursty = curve(p).arrivals(p.duration_ms);
    let windows = (p.duration_ms / p.window_ms) as usize;
    // Every policy at every flat rate (policy-major, as the CSV), then the hangover runs.
    let jobs: Vec<(ShedPolicy, &[f64], usize)> = ShedPolicy::ALL
        .iter()
        .flat_map(|&pol| flats.iter().map(move |a| (pol, a.as_slice(), 0)))
        .chain(ShedPolicy::ALL.iter().map(|&pol| (pol, bursty.as_slice(), windows)))
        .collect();
    let mut out = par_map(exec, &jobs, |&(pol, a, w)| shedding::run(&s, a, pol, p.window_ms, w));
    let hangover = out.split_off(out.len() - ShedPolicy::ALL.len());
    let mut rows = out.into_iter();
    let sweep = ShedPolicy::ALL.iter().map(|_| rows.by_ref().take(flats.len()).collect()).collect();
    SheddingReport { settings: s, sweep, window_ms: p.window_ms, hangover, inputs: p.clone() }
}

impl super::Rows for SheddingReport {
    fn tallies(&self) -> Vec<RunTally> {
        self.sweep
            .iter()
            .flatten()
            .chain(&self.hangover)
            .map(|o| RunTally {
                label: format!("{} at {} rps", o.policy.label(), o.offered_rps),
                arrivals: o.arrivals,
                goodput: o.goodput,
                late: o.late,
                refused: o.shed,
                unresolved: 0,
                pcts: vec![o.shed_pct, o.served_late_pct, o.wasted_pct],
                quantiles: None,
            })
            .collect()
    }

    /// `bp-post4-shed-sweep.csv` and `bp-post4-hangover.csv`.
    fn tables(&self) -> Vec<Table> {
        let mut sweep = Table::new(&TABLES[0]);
        for o in self.sweep.iter().flatten() {
            sweep.rows.push(
                Row::new()
                    .text(o.policy.label())
                    .f1(o.offered_rps)
                    .f1(o.goodput_rps)
                    .f1(o.shed_pct)
                    .f1(o.served_late_pct)
                    .ms(o.p99_served_ms)
                    .ms(o.shed_wait_p50_ms)
                    .f1(o.wasted_pct)
                    .done(),
            );
        }
        let mut hangover = Table::new(&TABLES[1]);
        let windows = self.hangover.first().map_or(0, |o| o.window_p99_ms.len());
        for i in 0..windows {
            let mut row = Row::new().int(i as u64 * u64::from(self.window_ms));
            for o in &self.hangover {
                row = row.ms(o.window_p99_ms[i]);
            }
            hangover.rows.push(row.done());
        }
        vec![sweep, hangover]
    }
}
