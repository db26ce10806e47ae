//! Post 5 experiment: the protection sweep and the burst windows.

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
use crate::models::priority::{self, ClassPolicy, PriorityOutcome, PrioritySettings};
use crate::table::{Row, Table, TableSpec};
pub use params::PriorityParams;

/// The registry entry.
pub(super) const DEF: Experiment = Experiment {
    id: ExperimentId::Priority,
    name: "priority",
    title: "Priority protection",
    post: "Post 5: Bounded Systems Architecture and SLO-Driven Load Control",
    dir: "bp-post5",
    lesson: "Letting critical arrivals evict background work keeps critical success at the SLO up to capacity / critical share.",
    tables: &TABLES,
    charts: &CHARTS,
    params: PriorityParams::SPECS,
    main_param: "critical-share",
    window_param: "duration-ms",
};

static TABLES: [TableSpec; 2] = [
    TableSpec {
        file: "bp-post5-protection.csv",
        golden_sha256: Some("203c11498ab8bb7c7ed9fdba300e977b5d8864341382af6ec9db495cac108ecc"),
        header: "policy,offered_rps,critical_offered_rps,critical_success_pct,background_success_pct,critical_p99_ms,background_p99_ms,critical_slo_met,total_goodput_rps",
        title: "Blind vs priority door across offered load",
    },
    TableSpec {
        file: "bp-post5-slo-burst.csv",
        golden_sha256: Some("15ae9d057e9bc224882a461eef3a80cdccaa668a13204b0e0f16f92b5cdcd3be"),
        header: "window_start_ms,blind_critical_pct,priority_critical_pct,blind_background_pct,priority_background_pct",
        title: "Per-class success per arrival window through repeated bursts",
    },
];

static CHARTS: [ChartSpec; 2] = [
    ChartSpec {
        file: "bp-post5-protection.png",
        title: "Critical and background success vs offered load",
    },
    ChartSpec {
        file: "bp-post5-slo-burst.png",
        title: "Per-class success through the bursts",
    },
];

/// Both priority tables.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct PriorityReport {
    /// Settings (the door bound is B).
    pub settings: PrioritySettings,
    /// Nominal feasibility ceiling: capacity / critical share, rps.
    pub ceiling_rps: f64,
    /// Blind rows then priority rows, one per offered rate.
    pub protection: Vec<PriorityOutcome>,
    /// Window width of the burst table, ms.
    pub window_ms: u32,
    /// Blind and priority runs on the bursty curve.
    pub burst: Vec<PriorityOutcome>,
    /// Spike rate of the bursty curve, rps (for the burst-protection condition).
    pub spike_rps: f64,
    /// The parameters it ran with: the statement checker re-runs the models
    /// from them with their log hooks (not serialised).
    #[serde(skip)]
    pub(crate) inputs: PriorityParams,
}

fn curve(p: &PriorityParams) -> Curve {
    Curve::bursty(p.valley_rps, p.valley_ms, p.spike_rps, p.spike_ms)
}

pub(super) fn check(p: &PriorityParams) -> Result<(Estimate, u64), ConfigError> {
    super::deadline_covers_service(p.service_ms, p.deadline_ms)?;
    if p.duration_ms <= p.deadline_ms {
        return Err(ConfigError::WindowNotAfterDeadline { duration_ms: p.duration_ms, deadline_ms: p.deadline_ms });
    }
    let mut e = Estimate::default();
    for &r in &p.offered_rps {
        e.add(Curve::flat(r, p.duration_ms).estimate_arrivals(p.duration_ms), 2);
    }
    e.add(curve(p).estimate_arrivals(p.duration_ms), 2);
    Ok((e, u64::from((p.duration_ms - p.deadline_ms) / p.window_ms)))
}

/// The full run is cheap: no preview.
pub(super) fn preview(_: &PriorityParams, _: &dyn Exec) -> Option<PriorityReport> {
    None
}

pub(super) fn run(p: &PriorityParams, exec: &dyn Exec) -> PriorityReport {
    let s = PrioritySettings {
        service_ms: p.service_ms,
        deadline_ms: p.deadline_ms,
        duration_ms: p.duration_ms,
        bound: crate::calc::budget_value(p.service_ms, p.deadline_ms),
        critical_share: p.critical_share,
    };
    let flats: Vec<Vec<f64>> =
        par_map(exec, &p.offered_rps, |&r| Curve::flat(r, p.duration_ms).arrivals(p.duration_ms));
    let bursty = curve(p).arrivals(p.duration_ms);
    let windows = (p.duration_ms.saturating_sub(p.deadline_ms) / p.window_ms) as usize;
    let jobs: Vec<(ClassPolicy, &[f64], usize)> = ClassPolicy::ALL
        .iter()
        .flat_map(|&pol| flats.iter().map(move |a| (pol, a.as_slice(), 0)))
        .chain(ClassPolicy::ALL.iter().map(|&pol| (pol, bursty.as_slice(), windows)))
        .collect();
    let mut protection = par_map(exec, &jobs, |&(pol, a, w)| priority::run(&s, a, pol, p.window_ms, w));
    let burst = protection.split_off(protection.len() - ClassPolicy::ALL.len());
    PriorityReport {
        settings: s,
        ceiling_rps: crate::calc::capacity_rps(f64::from(p.service_ms), 1) / p.critical_share,
        protection,
        window_ms: p.window_ms,
        burst,
        spike_rps: p.spike_rps,
        inputs: p.clone(),
    }
}

impl super::Rows for PriorityReport {
    fn tallies(&self) -> Vec<RunTally> {
        self.protection
            .iter()
            .chain(&self.burst)
            .map(|o| RunTally {
                label: format!("{} at {} rps", o.policy.label(), o.offered_rps()),
                arrivals: o.arrivals,
                goodput: o.served,
                late: 0,
                refused: o.shed,
                // An arrival reported twice would be counted twice above; make it break conservation.
                unresolved: o.unresolved + o.double_reported,
                pcts: vec![o.critical_success_pct(), o.background_success_pct()],
                quantiles: None,
            })
            .collect()
    }

    /// `bp-post5-protection.csv` and `bp-post5-slo-burst.csv`.
    fn tables(&self) -> Vec<Table> {
        let mut prot = Table::new(&TABLES[0]);
        for o in &self.protection {
            prot.rows.push(
                Row::new()
                    .text(o.policy.label())
                    .f1(o.offered_rps())
                    .f1(o.critical_offered_rps())
                    .f1(o.critical_success_pct())
                    .f1(o.background_success_pct())
                    .ms(o.critical.p99_ms)
                    .ms(o.background.p99_ms)
                    .text(if o.slo_met() { "yes" } else { "no" })
                    .f1(o.total_goodput_rps())
                    .done(),
            );
        }
        let mut burst = Table::new(&TABLES[1]);
        if let [blind, prio] = self.burst.as_slice() {
            for (i, (b, p)) in blind.window_success_pct.iter().zip(&prio.window_success_pct).enumerate() {
                burst
                    .rows
                    .push(Row::new().int(i as u64 * u64::from(self.window_ms)).f1(b.0).f1(p.0).f1(b.1).f1(p.1).done());
            }
        }
        vec![prot, burst]
    }
}
