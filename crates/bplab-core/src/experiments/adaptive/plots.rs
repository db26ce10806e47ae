//! The race's figures: limit, p99 (against the budget) and delivered
//! answers over time, one line per controller, the deploy marked.

use super::{AdaptiveReport, Bucket, CHARTS, Controller};
use crate::plot::{Marker, Plot, Role, Series, compact};

/// One colour per controller, the same in every figure whichever are raced.
fn role(controller: Controller) -> Role {
    Role::Series(match controller {
        Controller::Gradient2 => 0,
        Controller::Aimd => 1,
        Controller::Codel => 2,
        Controller::Vegas => 4,
        Controller::Gradient => 5,
        Controller::Fixed => 6,
    })
}

fn lines(r: &AdaptiveReport, f: impl Fn(usize, &Bucket) -> Option<f64>) -> Vec<Series> {
    let w = f64::from(r.window_ms);
    r.lanes
        .iter()
        .map(|l| {
            let pts =
                l.out.buckets.iter().enumerate().filter_map(|(i, b)| f(i, b).map(|y| (i as f64 * w, y))).collect();
            Series::new(l.controller.to_string(), role(l.controller), pts)
        })
        .collect()
}

fn with_deploy(mut plot: Plot, r: &AdaptiveReport) -> Plot {
    let (at, k) = r.slowdown;
    plot.vlines.push(Marker::new(f64::from(at), format!("deploy ×{}", compact(k)), Role::Event));
    plot
}

/// The three figures, in the registry's order.
pub(in crate::experiments) fn plots(r: &AdaptiveReport) -> Vec<Plot> {
    // The limit each limiter holds (CoDel has none and is left out).
    let mut limit = Plot::new(CHARTS[0].title, "time_ms", "time (ms)", "limit (requests in the system)");
    limit.series = lines(r, |_, b| (b.limit >= 0).then_some(f64::from(b.limit)));
    limit.series.retain(|s| !s.points.is_empty());

    let mut p99 = Plot::new(CHARTS[1].title, "time_ms", "time (ms)", "p99 of answers (ms)");
    p99.series = lines(r, |_, b| b.p99_ms.map(|p| p as f64));
    p99.hlines.push(Marker::new(f64::from(r.budget_ms), format!("budget {} ms", r.budget_ms), Role::Budget));

    let mut ok = Plot::new(CHARTS[2].title, "time_ms", "time (ms)", "answers per second");
    ok.series = lines(r, |i, b| Some(b.ok as f64 * r.per_second(i)));
    vec![with_deploy(limit, r), with_deploy(p99, r), with_deploy(ok, r)]
}
