//! Post 3 experiment: the burst sweep of both gates and the release timeline.

pub(super) mod explain;
pub mod hooks;
mod params;
pub(super) mod plots;

use serde::Serialize;

use super::{
    ChartSpec, Estimate, Exec, Experiment, ExperimentId, RunTally, par_map,
};
use crate::arrivals::Curve;
use crate::calc::capacity_rps;
use crate::error::ConfigError;
use crate::models::shaping::{self, GateKind, ShapingRow, ShapingSettings};
use crate::table::{Row, Table, TableSpec};
pub use params::ShapingParams;

/// The registry entry.
pub(super) const DEF: Experiment = Experiment {
    id: ExperimentId::Shaping,
    name: "shaping",
    title: "Token vs leaky bucket",
    post: "Post 3: Token Bucket vs Leaky Bucket",
    dir: "bp-post3",
    lesson: "Both gates admit the same average; the token bucket passes the burst to the server, the leaky bucket holds it at the gate.",
    tables: &TABLES,
    charts: &CHARTS,
    params: ShapingParams::SPECS,
    main_param: "window-burst",
    window_param: "duration-ms",
};

static TABLES: [TableSpec; 2] = [
    TableSpec {
        file: "bp-post3-burst-sweep.csv",
        golden_sha256: Some("d29c75e9eaa020ba6192686883d30a6366ab7640534847a20d55e339072987c6"),
        header: "limiter,burst_capacity,offered_rps,goodput_rps,reject_pct,served_late_pct,gate_delay_p99_ms,server_wait_p99_ms,downstream_peak_rps",
        title: "Token vs leaky bucket per burst size: where the wait lands and the downstream peak",
    },
    TableSpec {
        file: "bp-post3-shaping.csv",
        golden_sha256: Some("80841498be4d0e0a48076599602ed624b18d23e45dcbd6e880ebd580b7471543"),
        header: "window_start_ms,offered_rps,token_bucket_rps,leaky_bucket_rps",
        title: "Offered and released rate per window",
    },
];

static CHARTS: [ChartSpec; 2] = [
    ChartSpec {
        file: "bp-post3-shaping.png",
        title: "Offered, token-bucket and leaky-bucket rates over time",
    },
    ChartSpec {
        file: "bp-post3-burst-sweep.png",
        title: "Goodput and downstream peak vs burst size",
    },
];

/// Offered and released rates per window.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct Timeline {
    /// Window width, ms.
    pub window_ms: u32,
    /// Burst of the timeline's gates.
    pub burst: u32,
    /// Offered rps per window.
    pub offered_rps: Vec<f64>,
    /// Token-bucket releases, rps per window.
    pub token_rps: Vec<f64>,
    /// Leaky-bucket releases, rps per window.
    pub leaky_rps: Vec<f64>,
}

/// Both shaping tables.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct ShapingReport {
    /// Shared settings.
    pub settings: ShapingSettings,
    /// B = round(capacity × deadline).
    pub budget: u32,
    /// Token rows then leaky rows, one per burst.
    pub sweep: Vec<ShapingRow>,
    /// The release timeline.
    pub timeline: Timeline,
    /// Token then leaky row at the timeline's burst: where the wait lands
    /// and the downstream peak for the burst being looked at.
    pub at_burst: Vec<ShapingRow>,
    /// The most goodput any policy can reach on this curve.
    pub ceiling: Ceiling,
    /// The parameters it ran with: the statement checker re-runs the models
    /// from them with their log hooks (not serialised).
    #[serde(skip)]
    pub(crate) inputs: ShapingParams,
}

/// An upper estimate of the goodput any gate (or none) can reach on the
/// curve: arrivals in a segment faster than capacity can only be served on
/// time during the segment plus one deadline, at capacity; slower segments
/// count in full.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct Ceiling {
    /// Segments (tiles) faster than capacity.
    pub spikes: u64,
    /// Arrivals in those segments.
    pub spike_arrivals: u64,
    /// Of those, at most this many can be served on time:
    /// `Σ min(arrivals, floor((segment + deadline) × capacity / 1000))`.
    pub spike_servable: u64,
    /// Arrivals in segments at or below capacity.
    pub other_arrivals: u64,
    /// `(spike_servable + other_arrivals) / window`, rps.
    pub rps: f64,
}

fn ceiling(p: &ShapingParams, arrivals: &[f64]) -> Ceiling {
    let cap = capacity_rps(f64::from(p.service_ms), 1);
    let mut c = Ceiling { spikes: 0, spike_arrivals: 0, spike_servable: 0, other_arrivals: 0, rps: 0.0 };
    curve(p).for_each_tile(p.duration_ms, |start, end, seg| {
        let n = (arrivals.partition_point(|&t| t < f64::from(end))
            - arrivals.partition_point(|&t| t < f64::from(start))) as u64;
        if seg.rate_rps > cap {
            let servable = (f64::from(end - start + p.deadline_ms) * cap / 1000.0).floor() as u64;
            c.spikes += 1;
            c.spike_arrivals += n;
            c.spike_servable += n.min(servable);
        } else {
            c.other_arrivals += n;
        }
    });
    c.rps = (c.spike_servable + c.other_arrivals) as f64 / (f64::from(p.duration_ms) / 1000.0);
    c
}

pub(super) fn curve(p: &ShapingParams) -> Curve {
    Curve::bursty(p.valley_rps, p.valley_ms, p.spike_rps, p.spike_ms)
}

pub(super) fn check(p: &ShapingParams) -> Result<(Estimate, u64), ConfigError> {
    super::deadline_covers_service(p.service_ms, p.deadline_ms)?;
    let mut e = Estimate::default();
    // Each sweep row, the two timeline gates and the two focus rows replay the curve.
    e.add(curve(p).estimate_arrivals(p.duration_ms), 2 * p.bursts.len() as u64 + 5);
    Ok((e, u64::from(p.duration_ms / p.window_ms)))
}

/// The full run is cheap: no preview.
pub(super) fn preview(_: &ShapingParams, _: &dyn Exec) -> Option<ShapingReport> {
    None
}

pub(super) fn run(p: &ShapingParams, exec: &dyn Exec) -> ShapingReport {
    let s = ShapingSettings {
        service_ms: p.service_ms,
        deadline_ms: p.deadline_ms,
        duration_ms: p.duration_ms,
        gate_rate_rps: p.gate_rate_rps,
    };
    let arrivals = curve(p).arrivals(p.duration_ms);
    let burst = p.window_burst.unwrap_or_else(|| crate::calc::budget_value(p.service_ms, p.deadline_ms));
    // The sweep (token rows, then leaky rows), then both gates at the timeline's burst.
    let jobs: Vec<(GateKind, u32)> = GateKind::ALL
        .iter()
        .flat_map(|&g| p.bursts.iter().map(move |&b| (g, b)))
        .chain(GateKind::ALL.iter().map(|&g| (g, burst)))
        .collect();
    let mut sweep = par_map(exec, &jobs, |&(g, b)| shaping::run(&s, &arrivals, g, b));
    let at_burst = sweep.split_off(sweep.len() - GateKind::ALL.len());
    let windows = (p.duration_ms / p.window_ms) as usize;
    let rates = |times: Vec<f64>| shaping::window_rates(times, p.window_ms, windows);
    let timeline = Timeline {
        window_ms: p.window_ms,
        burst,
        offered_rps: rates(arrivals.clone()),
        token_rps: rates(shaping::releases(&arrivals, GateKind::TokenBucket, p.gate_rate_rps, burst)),
        leaky_rps: rates(shaping::releases(&arrivals, GateKind::LeakyBucket, p.gate_rate_rps, burst)),
    };
    let ceiling = ceiling(p, &arrivals);
    ShapingReport {
        settings: s,
        budget: crate::calc::budget_value(p.service_ms, p.deadline_ms),
        sweep,
        timeline,
        at_burst,
        ceiling,
        inputs: p.clone(),
    }
}

impl super::Rows for ShapingReport {
    fn tallies(&self) -> Vec<RunTally> {
        self.sweep
            .iter()
            .chain(&self.at_burst)
            .map(|r| RunTally {
                label: format!("{} burst {}", r.gate.label(), r.burst),
                arrivals: r.arrivals,
                goodput: r.goodput,
                late: r.late,
                refused: r.rejected,
                unresolved: 0,
                pcts: vec![r.reject_pct, r.served_late_pct],
                quantiles: None,
            })
            .collect()
    }

    /// `bp-post3-burst-sweep.csv` and `bp-post3-shaping.csv`.
    fn tables(&self) -> Vec<Table> {
        let mut sweep = Table::new(&TABLES[0]);
        for r in &self.sweep {
            sweep.rows.push(
                Row::new()
                    .text(r.gate.label())
                    .int(r.burst)
                    .f1(r.offered_rps)
                    .f1(r.goodput_rps)
                    .f1(r.reject_pct)
                    .f1(r.served_late_pct)
                    .ms(r.gate_delay_p99_ms)
                    .ms(r.server_wait_p99_ms)
                    .f1(r.downstream_peak_rps)
                    .done(),
            );
        }
        let mut timeline = Table::new(&TABLES[1]);
        let t = &self.timeline;
        for (i, ((o, tk), lk)) in t.offered_rps.iter().zip(&t.token_rps).zip(&t.leaky_rps).enumerate() {
            timeline.rows.push(Row::new().int(i as u64 * u64::from(t.window_ms)).f1(*o).f1(*tk).f1(*lk).done());
        }
        vec![sweep, timeline]
    }
}
