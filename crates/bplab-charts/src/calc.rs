//! The seed-003 calculator figure: the admission limit against the latency
//! budget, in both conventions, with the current input marked.

use bplab_core::calc::{LimitInput, limit};
use bplab_core::plot::{Marker, Plot, Role, Series, compact};

use crate::ChartError;

/// Title of the [`limit_curve`] figure.
pub const LIMIT_CURVE_TITLE: &str = "Admission limit vs latency budget";

const SAMPLES: u32 = 100;

/// The budget range actually drawn: `budget_range_ms` cut to budgets above
/// the service time and widened to include the current budget. Falls back
/// to `(service, 2 × budget)` when the range is empty or not finite.
fn budget_range(input: &LimitInput, (lo, hi): (f64, f64)) -> (f64, f64) {
    let s = input.service_ms;
    let (lo, hi) = if lo.is_finite() && hi.is_finite() { (lo.min(hi).max(s), hi.max(lo)) } else { (s, s) };
    let (lo, hi) = (lo.min(input.budget_ms), hi.max(input.budget_ms));
    if hi - lo > s * 1e-6 { (lo, hi) } else { (s, input.budget_ms * 2.0) }
}

/// The queue limit `workers × (budget − service) / service` and the
/// in-system bound `workers × budget / service` against the budget over
/// `budget_range_ms` (cut to budgets above the service time and widened to
/// include `input.budget_ms`), the current input's point marked using
/// [`bplab_core::calc::limit`].
///
/// Errors: [`ChartError::Input`] when `input` is invalid (budget not above
/// the service time, out-of-range values).
pub fn limit_curve(input: &LimitInput, budget_range_ms: (f64, f64)) -> Result<Plot, ChartError> {
    let now = limit(*input)?;
    let (lo, hi) = budget_range(input, budget_range_ms);
    let (w, s) = (f64::from(input.workers), input.service_ms);
    let budgets: Vec<f64> = (0..=SAMPLES).map(|i| lo + (hi - lo) * f64::from(i) / f64::from(SAMPLES)).collect();
    let mut plot = Plot::new(LIMIT_CURVE_TITLE, "budget_ms", "latency budget (ms)", "limit (requests)");
    plot.series = vec![
        Series::new("queue limit: workers × (budget − service) / service", Role::Series(0), {
            budgets.iter().map(|&b| (b, w * (b - s) / s)).collect()
        }),
        Series::new(
            "in-system bound: capacity × budget",
            Role::Reference,
            budgets.iter().map(|&b| (b, w * b / s)).collect(),
        )
        .dashed(),
    ];
    let b = input.budget_ms;
    plot.vlines.push(Marker::new(
        b,
        format!("{} ms → queue {} (in system {})", compact(b), now.queue_limit, now.in_system_limit),
        Role::Focus,
    ));
    plot.rings = vec![(b, now.queue_exact), (b, now.in_system_exact)];
    Ok(plot)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_is_sane() {
        let i = LimitInput { workers: 1, budget_ms: 230.0, service_ms: 21.0 };
        assert_eq!(budget_range(&i, (0.0, 500.0)), (21.0, 500.0));
        assert_eq!(budget_range(&i, (300.0, 100.0)), (100.0, 300.0));
        assert_eq!(budget_range(&i, (f64::NAN, 1.0)), (21.0, 230.0));
        assert_eq!(budget_range(&i, (230.0, 230.0)), (21.0, 460.0));
    }
}
