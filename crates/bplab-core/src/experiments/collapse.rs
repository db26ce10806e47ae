//! Post 1 experiment: the offered-load sweep without and with retries.

use serde::Serialize;

use super::scenario::Estimate;
use super::{ChartId, ChartSpec, base_defaults};
use crate::error::ConfigError;
use crate::models::collapse::{self, CollapseRow, CollapseSettings};
use crate::params::{ParamKey, ParamSpec, Params};
use crate::table::{Row, Table, TableSpec};

pub(super) static TABLES: [TableSpec; 1] = [TableSpec {
    file: "bp-post1-collapse-sweep.csv",
    golden_sha256: "965e6578eba2dbb33316af1fa12dc225f99b5b1d05ca6dee2572270b2ab84eeb",
    header: "mode,offered_rps,effective_rps,ideal_goodput_rps,goodput_rps,wasted_pct,p50_ms,p99_ms,avg_queue_depth",
    title: "Offered-load sweep without and with retries",
}];

pub(super) static CHARTS: [ChartSpec; 2] = [
    ChartSpec { id: ChartId::CollapseGoodput, file: "bp-post1-goodput.png", title: "Goodput vs offered load" },
    ChartSpec {
        id: ChartId::CollapseAmplification,
        file: "bp-post1-amplification.png",
        title: "Retry amplification: effective load vs offered",
    },
];

pub(super) fn defaults() -> Params {
    Params { offered_rps: vec![25.0, 50.0, 75.0, 90.0, 100.0, 110.0, 125.0, 150.0, 200.0, 300.0], ..base_defaults() }
}

/// The collapse sweep: every `no-retry` row, then every `retry` row.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CollapseReport {
    /// Settings shared by every row.
    pub settings: CollapseSettings,
    /// Rows without retries, in offered order.
    pub no_retry: Vec<CollapseRow>,
    /// Rows with retries, in offered order.
    pub retry: Vec<CollapseRow>,
}

fn whole_rates(p: &Params) -> Result<Vec<u32>, ConfigError> {
    p.offered_rps
        .iter()
        .map(|&r| {
            if r.fract() == 0.0 && r >= 1.0 {
                Ok(r as u32)
            } else {
                let s = ParamSpec::of(ParamKey::Offered);
                Err(ConfigError::OutOfRange {
                    param: s.name,
                    value: r.to_string(),
                    accepted: format!("whole numbers from 1 to {} (rps) for the collapse sweep", s.max),
                })
            }
        })
        .collect()
}

pub(super) fn check(p: &Params) -> Result<(Estimate, u64), ConfigError> {
    let mut e = Estimate::default();
    let attempts = 1 + u64::from(p.max_retries);
    for r in whole_rates(p)? {
        let first = (f64::from(r) * f64::from(p.duration_ms) / 1000.0).ceil() as u64 + 1;
        e.add(first, 1);
        e.add(first.saturating_mul(attempts), 1);
    }
    Ok((e, 0))
}

fn settings(p: &Params) -> CollapseSettings {
    CollapseSettings {
        service_ms: p.service_ms,
        deadline_ms: p.deadline_ms,
        duration_ms: p.duration_ms,
        queue_capacity: p.queue_capacity,
        max_retries: p.max_retries,
        retry_backoff_ms: p.retry_backoff_ms,
    }
}

pub(super) fn run(p: &Params) -> CollapseReport {
    let s = settings(p);
    let rates = whole_rates(p).unwrap_or_default();
    CollapseReport {
        settings: s,
        no_retry: rates.iter().map(|&r| collapse::run(&s, r, false)).collect(),
        retry: rates.iter().map(|&r| collapse::run(&s, r, true)).collect(),
    }
}

impl CollapseReport {
    /// `bp-post1-collapse-sweep.csv`.
    pub fn tables(&self) -> Vec<Table> {
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
