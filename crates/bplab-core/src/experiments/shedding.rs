//! Post 4 experiment: the policies' offered-load sweep and the hangover.

use serde::Serialize;

use super::scenario::Estimate;
use super::{ChartId, ChartSpec, base_defaults};
use crate::arrivals::Curve;
use crate::error::ConfigError;
use crate::models::shedding::{self, ShedOutcome, ShedPolicy, ShedSettings};
use crate::params::Params;
use crate::table::{Row, Table, TableSpec};

pub(super) static TABLES: [TableSpec; 2] = [
    TableSpec {
        file: "bp-post4-shed-sweep.csv",
        golden_sha256: "bc2ba213029757e0f7a86fd9b940ad35d7d787184b69d563c22b8ca0029e9609",
        header: "policy,offered_rps,goodput_rps,shed_pct,served_late_pct,p99_served_ms,shed_wait_p50_ms,wasted_pct",
        title: "Four shedding policies across offered load",
    },
    TableSpec {
        file: "bp-post4-hangover.csv",
        golden_sha256: "2a2941d8f543cef2b563fab8ec83af554d4ab8378bc459c01ca89b2c9654d775",
        header: "window_start_ms,fifo_p99_ms,tail_drop_p99_ms,expire_p99_ms,lifo_p99_ms",
        title: "Served p99 per window through repeated bursts (the hangover)",
    },
];

pub(super) static CHARTS: [ChartSpec; 2] = [
    ChartSpec {
        id: ChartId::SheddingSweep,
        file: "bp-post4-shed-sweep.png",
        title: "Goodput vs offered load per policy",
    },
    ChartSpec {
        id: ChartId::SheddingHangover,
        file: "bp-post4-hangover.png",
        title: "Served p99 per window: the hangover",
    },
];

pub(super) fn defaults() -> Params {
    Params { valley_rps: 80.0, valley_ms: 1000, spike_rps: 600.0, spike_ms: 500, ..base_defaults() }
}

/// Both shedding tables.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SheddingReport {
    /// Settings (the door bound is B).
    pub settings: ShedSettings,
    /// Per policy (CSV order), one outcome per offered rate.
    pub sweep: Vec<Vec<ShedOutcome>>,
    /// Window width of the hangover, ms.
    pub window_ms: u32,
    /// Per policy, the bursty-curve run with per-window p99.
    pub hangover: Vec<ShedOutcome>,
}

pub(super) fn check(p: &Params) -> Result<(Estimate, u64), ConfigError> {
    let mut e = Estimate::default();
    let policies = ShedPolicy::ALL.len() as u64;
    for &r in &p.offered_rps {
        e.add(Curve::flat(r, p.duration_ms).estimate_arrivals(p.duration_ms), policies);
    }
    e.add(p.curve().estimate_arrivals(p.duration_ms), policies);
    Ok((e, u64::from(p.duration_ms / p.window_ms)))
}

pub(super) fn run(p: &Params) -> SheddingReport {
    let s = ShedSettings {
        service_ms: p.service_ms,
        deadline_ms: p.deadline_ms,
        duration_ms: p.duration_ms,
        bound: p.budget(),
    };
    let flats: Vec<Vec<f64>> =
        p.offered_rps.iter().map(|&r| Curve::flat(r, p.duration_ms).arrivals(p.duration_ms)).collect();
    let sweep = ShedPolicy::ALL
        .iter()
        .map(|&pol| flats.iter().map(|a| shedding::run(&s, a, pol, p.window_ms, 0)).collect())
        .collect();
    let bursty = p.curve().arrivals(p.duration_ms);
    let windows = (p.duration_ms / p.window_ms) as usize;
    let hangover = ShedPolicy::ALL.iter().map(|&pol| shedding::run(&s, &bursty, pol, p.window_ms, windows)).collect();
    SheddingReport { settings: s, sweep, window_ms: p.window_ms, hangover }
}

impl SheddingReport {
    /// `bp-post4-shed-sweep.csv` and `bp-post4-hangover.csv`.
    pub fn tables(&self) -> Vec<Table> {
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
