//! Post 3: the release timeline and the burst sweep of both gates.

use bplab_core::models::shaping::GateKind;
use bplab_core::{ChartId, ShapingReport};

use crate::Focus;
use crate::common::{BLUE, GREY, ORANGE, RED, fmt_tick};
use crate::legend::Corner;
use crate::plot::{Marker, Plot, Series, XAxis};

/// Offered, token-bucket and leaky-bucket rates per window vs window start.
pub(crate) fn timeline(r: &ShapingReport) -> Plot {
    let mut plot = Plot::new(crate::title(ChartId::ShapingTimeline), "window start (ms)", "rate (rps)");
    let t = &r.timeline;
    let w = f64::from(t.window_ms);
    let pts = |v: &[f64]| -> Vec<(f64, f64)> { v.iter().enumerate().map(|(i, y)| (i as f64 * w, *y)).collect() };
    plot.series = vec![
        Series::new("offered", GREY, pts(&t.offered_rps)),
        Series::new(format!("token bucket (burst {})", t.burst), RED, pts(&t.token_rps)),
        Series::new(format!("leaky bucket (depth {})", t.burst), BLUE, pts(&t.leaky_rps)).dashed(),
    ];
    let rate = r.settings.gate_rate_rps;
    plot.hlines.push(Marker::new(rate, format!("gate rate {} rps", fmt_tick(rate))));
    plot.legend = Corner::UpperRight;
    plot.headroom = 0.3;
    plot
}

/// Goodput and downstream peak per burst size, token vs leaky.
pub(crate) fn burst_sweep(r: &ShapingReport, focus: &Focus) -> Plot {
    let mut plot =
        Plot::new(crate::title(ChartId::ShapingBurstSweep), "burst size (tokens / queue depth)", "rate (rps)");
    let mut bursts: Vec<u32> = Vec::new();
    for row in &r.sweep {
        if !bursts.contains(&row.burst) {
            bursts.push(row.burst);
        }
    }
    let index = |b: u32| bursts.iter().position(|x| *x == b).unwrap_or(0) as f64;
    let pts = |gate: GateKind, peak: bool| -> Vec<(f64, f64)> {
        let rows = r.sweep.iter().filter(|row| row.gate == gate);
        rows.map(|row| (index(row.burst), if peak { row.downstream_peak_rps } else { row.goodput_rps })).collect()
    };
    plot.series = vec![
        Series::new("token goodput", RED, pts(GateKind::TokenBucket, false)).width(5),
        Series::new("leaky goodput", BLUE, pts(GateKind::LeakyBucket, false)),
        Series::new("token downstream peak", ORANGE, pts(GateKind::TokenBucket, true)).dashed(),
        Series::new("leaky downstream peak", GREY, pts(GateKind::LeakyBucket, true)).dashed(),
    ];
    let cap = 1000.0 / f64::from(r.settings.service_ms.max(1));
    plot.hlines.push(Marker::new(cap, format!("capacity {} rps", fmt_tick(cap))));
    if let Some(b) = focus.burst
        && let Some(i) = bursts.iter().position(|x| *x == b)
    {
        plot.vlines.push(Marker::focus(i as f64, format!("burst {b}")));
    }
    plot.x = XAxis::Categories(bursts.iter().map(u32::to_string).collect());
    plot.legend = Corner::UpperLeft;
    plot
}
