//! The callers' default settings: the ones the `metastable` experiment's
//! policies use and `bplab load`'s flags default to, so the model and the
//! live client start from the same numbers.

/// Largest backoff ceiling of an exponential or jittered backoff when none
/// is given, ms.
pub const BACKOFF_CAP_MS: f64 = 2000.0;
/// A retry budget's floor when none is given: tokens per second from the
/// clock.
pub const BUDGET_FLOOR_RPS: f64 = 1.0;
/// A retry budget's most tokens (also held at the start) when none is
/// given.
pub const BUDGET_MAX_TOKENS: f64 = 10.0;
/// Adaptive throttling's counting window when none is given, ms (the SRE
/// book uses two minutes; in the model a window longer than a few seconds
/// remembers the collapse's failures long after the server has drained,
/// and keeps rejecting first tries: `docs/metastable.md` has the numbers).
pub const THROTTLE_WINDOW_MS: f64 = 2000.0;
