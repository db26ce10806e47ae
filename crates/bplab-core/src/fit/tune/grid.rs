//! The search grid: a few settings of each controller around the fitted
//! service, by `bplab limiter` / `bplab serve` flag names.

use super::{Controller, Point, TuneInput};

fn pt(controller: Controller, settings: &[(&str, String)]) -> (Controller, Vec<(String, String)>) {
    (controller, settings.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect())
}

/// The grid: a few settings of each controller around the fitted service.
/// Its size depends only on the workers and the budget's ratio to the
/// service (at most 24 fixed limits).
pub fn grid(input: &TuneInput) -> Vec<Point> {
    let w = input.workers.max(1);
    let s = input.service.mean_ms();
    let b = input.budget_ms;
    let mut out = Vec::new();
    // Fixed: in-system limits from 1 to twice the deadline-safe bound, at most 24 of them.
    let safe = crate::calc::deadline_safe_queue(w, b.max(s * 1.001), s) + u64::from(w);
    let top = (2 * safe).clamp(2, 100_000);
    let step = top.div_ceil(22).max(1);
    let mut limits: Vec<u64> = (1..=top).step_by(step as usize).collect();
    limits.extend([u64::from(w), safe]);
    limits.sort_unstable();
    limits.dedup();
    for n in limits {
        out.push(pt(Controller::Fixed, &[("initial-limit", n.to_string())]));
    }
    for target in [5, 10, 20, 50] {
        for interval in [50, 100, 200] {
            out.push(pt(
                Controller::Codel,
                &[("target-ms", target.to_string()), ("interval-ms", interval.to_string())],
            ));
        }
    }
    let ms = |x: f64| crate::calc::fmt_num(x.max(0.001));
    for backoff in ["0.5", "0.75", "0.9"] {
        for t in [b / 2.0, b * 0.75, b] {
            out.push(pt(
                Controller::Aimd,
                &[
                    ("initial-limit", w.to_string()),
                    ("min-limit", "1".into()),
                    ("backoff-ratio", backoff.into()),
                    ("timeout-ms", ms(t)),
                ],
            ));
        }
    }
    for alpha in [1, 2, 3, 6] {
        for smoothing in ["1", "0.5"] {
            out.push(pt(
                Controller::Vegas,
                &[
                    ("initial-limit", w.to_string()),
                    ("alpha", alpha.to_string()),
                    ("beta", (2 * alpha).to_string()),
                    ("smoothing", smoothing.into()),
                ],
            ));
        }
    }
    for c in [Controller::Gradient2, Controller::Gradient] {
        for tol in ["1", "1.5", "2"] {
            for q in [1, w] {
                out.push(pt(
                    c,
                    &[
                        ("initial-limit", w.to_string()),
                        ("min-limit", "1".into()),
                        ("rtt-tolerance", tol.into()),
                        ("queue-size", q.to_string()),
                    ],
                ));
            }
        }
    }
    out.dedup();
    out.into_iter().enumerate().map(|(id, (controller, settings))| Point { id, controller, settings }).collect()
}
