//! Post 5 experiment: the protection sweep and the burst windows.

use serde::Serialize;

use super::scenario::Estimate;
use super::{ChartId, ChartSpec, base_defaults};
use crate::arrivals::Curve;
use crate::error::ConfigError;
use crate::models::priority::{self, ClassPolicy, PriorityOutcome, PrioritySettings};
use crate::params::Params;
use crate::table::{Row, Table, TableSpec};

pub(super) static TABLES: [TableSpec; 2] = [
    TableSpec {
        file: "bp-post5-protection.csv",
        golden_sha256: "203c11498ab8bb7c7ed9fdba300e977b5d8864341382af6ec9db495cac108ecc",
        header: "policy,offered_rps,critical_offered_rps,critical_success_pct,background_success_pct,critical_p99_ms,background_p99_ms,critical_slo_met,total_goodput_rps",
        title: "Blind vs priority door across offered load",
    },
    TableSpec {
        file: "bp-post5-slo-burst.csv",
        golden_sha256: "15ae9d057e9bc224882a461eef3a80cdccaa668a13204b0e0f16f92b5cdcd3be",
        header: "window_start_ms,blind_critical_pct,priority_critical_pct,blind_background_pct,priority_background_pct",
        title: "Per-class success per arrival window through repeated bursts",
    },
];

pub(super) static CHARTS: [ChartSpec; 2] = [
    ChartSpec {
        id: ChartId::PriorityProtection,
        file: "bp-post5-protection.png",
        title: "Critical and background success vs offered load",
    },
    ChartSpec {
        id: ChartId::PriorityBurst,
        file: "bp-post5-slo-burst.png",
        title: "Per-class success through the bursts",
    },
];

pub(super) fn defaults() -> Params {
    Params {
        offered_rps: vec![50.0, 100.0, 150.0, 200.0, 300.0, 400.0, 500.0],
        valley_rps: 80.0,
        valley_ms: 1000,
        spike_rps: 360.0,
        spike_ms: 500,
        ..base_defaults()
    }
}

/// Both priority tables.
#[derive(Clone, Debug, PartialEq, Serialize)]
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
}

pub(super) fn check(p: &Params) -> Result<(Estimate, u64), ConfigError> {
    if p.duration_ms <= p.deadline_ms {
        return Err(ConfigError::WindowNotAfterDeadline { duration_ms: p.duration_ms, deadline_ms: p.deadline_ms });
    }
    let mut e = Estimate::default();
    for &r in &p.offered_rps {
        e.add(Curve::flat(r, p.duration_ms).estimate_arrivals(p.duration_ms), 2);
    }
    e.add(p.curve().estimate_arrivals(p.duration_ms), 2);
    Ok((e, u64::from((p.duration_ms - p.deadline_ms) / p.window_ms)))
}

pub(super) fn run(p: &Params) -> PriorityReport {
    let s = PrioritySettings {
        service_ms: p.service_ms,
        deadline_ms: p.deadline_ms,
        duration_ms: p.duration_ms,
        bound: p.budget(),
        critical_share: p.critical_share,
    };
    let flats: Vec<Vec<f64>> =
        p.offered_rps.iter().map(|&r| Curve::flat(r, p.duration_ms).arrivals(p.duration_ms)).collect();
    let protection = ClassPolicy::ALL
        .iter()
        .flat_map(|&pol| flats.iter().map(move |a| (pol, a)))
        .map(|(pol, a)| priority::run(&s, a, pol, p.window_ms, 0))
        .collect();
    let bursty = p.curve().arrivals(p.duration_ms);
    let windows = (p.duration_ms.saturating_sub(p.deadline_ms) / p.window_ms) as usize;
    let burst = ClassPolicy::ALL.iter().map(|&pol| priority::run(&s, &bursty, pol, p.window_ms, windows)).collect();
    PriorityReport {
        settings: s,
        ceiling_rps: p.capacity_rps() / p.critical_share,
        protection,
        window_ms: p.window_ms,
        burst,
    }
}

impl PriorityReport {
    /// `bp-post5-protection.csv` and `bp-post5-slo-burst.csv`.
    pub fn tables(&self) -> Vec<Table> {
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
