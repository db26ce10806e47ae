//! Small pieces every experiment module uses: the largest of a list, rates
//! for display and the Poisson work bound.

use crate::calc::fmt_num;

/// Index of the largest value (the first of ties); `None` when empty.
pub(crate) fn argmax(values: impl IntoIterator<Item = f64>) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (i, v) in values.into_iter().enumerate() {
        if best.is_none_or(|(_, b)| v > b) {
            best = Some((i, v));
        }
    }
    best.map(|(i, _)| i)
}

/// A rate for prose: `"47.62 rps"`.
pub(crate) fn rps(v: f64) -> String {
    format!("{} rps", fmt_num(v))
}

/// Arrivals a Poisson run with `mean` expected arrivals will not pass in
/// practice (mean + 8 standard deviations + 16): the work estimate the caps
/// are compared with.
pub(crate) fn poisson_bound(mean: f64) -> u64 {
    (mean + 8.0 * libm::sqrt(mean) + 16.0).min(u64::MAX as f64) as u64
}

/// The articles' cross-field rule: no request can meet a deadline shorter
/// than one service time.
pub(crate) fn deadline_covers_service(service_ms: u32, deadline_ms: u32) -> Result<(), crate::ConfigError> {
    if deadline_ms < service_ms {
        return Err(crate::ConfigError::DeadlineBelowService { deadline_ms, service_ms });
    }
    Ok(())
}
