//! Post 2 experiment: the limit sweep on a bursty curve and the plateau.

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
use crate::models::admission::{self, AdmissionOutcome, AdmissionSettings, Limit};
use crate::table::{Row, Table, TableSpec};
pub use params::AdmissionParams;

/// The registry entry.
pub(super) const DEF: Experiment = Experiment {
    id: ExperimentId::Admission,
    name: "admission",
    title: "Admission limit",
    post: "Post 2: Admission Control Design",
    dir: "bp-post2",
    lesson: "A concurrency limit of capacity × deadline turns the collapse cliff into a plateau; past it, goodput falls off a cliff.",
    tables: &TABLES,
    charts: &CHARTS,
    params: AdmissionParams::SPECS,
    main_param: "plateau-limit",
    window_param: "duration-ms",
};

static TABLES: [TableSpec; 2] = [
    TableSpec {
        file: "bp-post2-limit-sweep.csv",
        golden_sha256: Some("35cc8107e84c0e60b0a7e2cd2d6476ef720e6892f7874583d81cd10864e05493"),
        header: "admission_limit,offered_rps,goodput_rps,reject_pct,served_late_pct,p99_ms,utilization_pct",
        title: "Goodput, rejection and lateness per admission limit (bursty curve)",
    },
    TableSpec {
        file: "bp-post2-plateau.csv",
        golden_sha256: Some("b0fd5a5518c669cc96a11c01f1026d3797f57e21a507d9927263557d20d3a238"),
        header: "mode,offered_rps,goodput_rps,reject_pct,p99_ms",
        title: "Offered-load sweep without control and with the limit",
    },
];

static CHARTS: [ChartSpec; 2] = [
    ChartSpec {
        file: "bp-post2-limit-sweep.png",
        title: "Goodput and utilization vs admission limit",
    },
    ChartSpec {
        file: "bp-post2-plateau.png",
        title: "Goodput vs offered load: cliff vs plateau",
    },
];

/// Both admission tables.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct AdmissionReport {
    /// Shared settings.
    pub settings: AdmissionSettings,
    /// B = round(capacity × deadline): the in-system bound.
    pub budget: u32,
    /// floor(deadline / service): the deadline-safe in-system bound.
    pub deadline_safe: u32,
    /// One outcome per limit, on the bursty curve, in the order given.
    pub sweep: Vec<AdmissionOutcome>,
    /// Limit of the plateau's admission-limited rows.
    pub plateau_limit: u32,
    /// Flat curves without a limit, in offered order.
    pub no_control: Vec<AdmissionOutcome>,
    /// Flat curves with `plateau_limit`, in offered order.
    pub limited: Vec<AdmissionOutcome>,
    /// The parameters it ran with: the statement checker re-runs the models
    /// from them with their log hooks (not serialised).
    #[serde(skip)]
    pub(crate) inputs: AdmissionParams,
}

pub(super) fn curve(p: &AdmissionParams) -> Curve {
    Curve::bursty(p.valley_rps, p.valley_ms, p.spike_rps, p.spike_ms)
}

pub(super) fn check(p: &AdmissionParams) -> Result<(Estimate, u64), ConfigError> {
    super::deadline_covers_service(p.service_ms, p.deadline_ms)?;
    let mut e = Estimate::default();
    e.add(curve(p).estimate_arrivals(p.duration_ms), p.limits.len() as u64);
    for &r in &p.offered_rps {
        e.add(Curve::flat(r, p.duration_ms).estimate_arrivals(p.duration_ms), 2);
    }
    Ok((e, 0))
}

/// The full run is cheap: no preview.
pub(super) fn preview(_: &AdmissionParams, _: &dyn Exec) -> Option<AdmissionReport> {
    None
}

pub(super) fn run(p: &AdmissionParams, exec: &dyn Exec) -> AdmissionReport {
    let budget = crate::calc::budget_value(p.service_ms, p.deadline_ms);
    let s = AdmissionSettings { service_ms: p.service_ms, deadline_ms: p.deadline_ms, duration_ms: p.duration_ms };
    let bursty = curve(p).arrivals(p.duration_ms);
    let plateau_limit = p.plateau_limit.unwrap_or(budget);
    let flats: Vec<Vec<f64>> =
        par_map(exec, &p.offered_rps, |&r| Curve::flat(r, p.duration_ms).arrivals(p.duration_ms));
    // Every independent run in one batch: the sweep, then both plateau modes.
    let jobs: Vec<(&[f64], Limit)> = p
        .limits
        .iter()
        .map(|&l| (bursty.as_slice(), l))
        .chain(flats.iter().map(|a| (a.as_slice(), Limit::None)))
        .chain(flats.iter().map(|a| (a.as_slice(), Limit::Finite(plateau_limit))))
        .collect();
    let mut out = par_map(exec, &jobs, |&(a, l)| admission::run(&s, a, l)).into_iter();
    let sweep = out.by_ref().take(p.limits.len()).collect();
    let no_control = out.by_ref().take(flats.len()).collect();
    let limited = out.collect();
    AdmissionReport {
        settings: s,
        budget,
        deadline_safe: crate::calc::deadline_safe_bound(p.service_ms, p.deadline_ms),
        sweep,
        plateau_limit,
        no_control,
        limited,
        inputs: p.clone(),
    }
}

impl super::Rows for AdmissionReport {
    fn tallies(&self) -> Vec<RunTally> {
        let runs = self.sweep.iter().map(|o| ("limit sweep", o));
        let runs = runs.chain(self.no_control.iter().map(|o| ("no-control", o)));
        runs.chain(self.limited.iter().map(|o| ("admission-limited", o)))
            .map(|(mode, o)| RunTally {
                label: format!("{mode} {} at {} rps", o.limit.label(), o.offered_rps),
                arrivals: o.arrivals,
                goodput: o.goodput,
                late: o.late,
                refused: o.rejected,
                unresolved: 0,
                pcts: vec![o.reject_pct, o.served_late_pct, o.utilization_pct],
                quantiles: Some((o.p50_ms, o.p99_ms)),
            })
            .collect()
    }

    /// `bp-post2-limit-sweep.csv` and `bp-post2-plateau.csv`.
    fn tables(&self) -> Vec<Table> {
        let mut sweep = Table::new(&TABLES[0]);
        for o in &self.sweep {
            sweep.rows.push(
                Row::new()
                    .text(o.limit.label())
                    .f1(o.offered_rps)
                    .f1(o.goodput_rps)
                    .f1(o.reject_pct)
                    .f1(o.served_late_pct)
                    .ms(o.p99_ms)
                    .f1(o.utilization_pct)
                    .done(),
            );
        }
        let mut plateau = Table::new(&TABLES[1]);
        let modes = self
            .no_control
            .iter()
            .map(|o| ("no-control", o))
            .chain(self.limited.iter().map(|o| ("admission-limited", o)));
        for (mode, o) in modes {
            plateau
                .rows
                .push(Row::new().text(mode).f1(o.offered_rps).f1(o.goodput_rps).f1(o.reject_pct).ms(o.p99_ms).done());
        }
        vec![sweep, plateau]
    }
}
