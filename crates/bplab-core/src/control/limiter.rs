//! What a finished request reports ([`Sample`]) and the trait every adaptive
//! limiter implements ([`Limiter`]).

/// What a finished request reports to a limiter. The start time of the
/// reference library's sample is ignored by every algorithm, so it is absent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Sample {
    /// Round-trip time, ns. Realistic values are `>= 1`; Vegas ignores a
    /// sample with `rtt_ns <= 0` (the reference throws), the gradients turn
    /// `rtt_ns == 0` into NaN arithmetic exactly as Java does.
    pub rtt_ns: i64,
    /// Requests in flight when this one started (`>= 0` in practice; any
    /// value is accepted, `2 × inflight` wraps like Java's `int`).
    pub inflight: i32,
    /// The request was dropped (timed out or rejected downstream).
    pub dropped: bool,
}

impl Sample {
    /// A sample of `rtt_ns` ns, `inflight` requests in flight at its start, `dropped`.
    pub const fn new(rtt_ns: i64, inflight: i32, dropped: bool) -> Self {
        Self { rtt_ns, inflight, dropped }
    }
}

/// An adaptive (or fixed) concurrency limiter: reports a limit, learns from
/// samples one after another. Every update is O(1), never panics, and never
/// reads a clock or a global RNG.
pub trait Limiter {
    /// The current limit. Before any sample it is the initial limit,
    /// **not clamped** to `[min, max]` (as in the reference library).
    fn limit(&self) -> i32;

    /// Applies one sample and returns the new limit (also what [`Limiter::limit`]
    /// answers afterwards).
    fn update(&mut self, s: Sample) -> i32;
}
