//! Test helpers for the worked vectors of adaptive.md and codel.md.

use super::{Limiter, Sample};

/// A sample as a spec table row: `(rtt_ms, inflight, dropped 0/1)`.
pub(crate) type In = (f64, i32, i32);

/// Milliseconds (as written in the spec tables) to ns, rounded to the nearest ns.
pub(crate) fn ms(x: f64) -> i64 {
    libm::round(x * 1e6) as i64
}

/// Checks the limit before any sample is `init`, then feeds
/// `(rtt_ms, inflight, dropped 0/1)` rows and returns the limit after each.
pub(crate) fn run(l: &mut impl Limiter, init: i32, rows: &[In]) -> Vec<i32> {
    assert_eq!(l.limit(), init, "limit before any sample");
    rows.iter().map(|&(rtt, inflight, dropped)| l.update(Sample::new(ms(rtt), inflight, dropped == 1))).collect()
}
