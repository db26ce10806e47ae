//! Admission controllers behind one trait: fixed, AIMD, Vegas, Gradient2,
//! Gradient (Netflix concurrency-limits semantics, `adaptive.md`) and
//! request-queue CoDel (folly semantics, `codel.md`).
//!
//! Each limiter is a validated config (`*Config::new(*Params) -> Result`) and
//! a small state type implementing [`Limiter`]: feed it [`Sample`]s one after
//! another, read the limit. Updates are O(1), never panic, and use no clock
//! and no global RNG: random draws (Vegas jitter, Gradient probe offsets) come
//! from [`Draws`], a given list or a seed. Floating point follows Java's
//! binary64 evaluation exactly (Java `Math.min/max` NaN rules, truncating
//! casts), so the limit sequences match the reference library's bit for bit,
//! natively and in wasm.
//!
//! ```
//! use bplab_core::control::{Gradient2, Gradient2Config, Gradient2Params, Limiter, Sample};
//! let mut g = Gradient2::new(&Gradient2Config::new(Gradient2Params::default()).unwrap());
//! assert_eq!(g.limit(), 20);
//! assert_eq!(g.update(Sample::new(10_000_000, 20, false)), 20); // estimate 20.8
//! assert_eq!(g.update(Sample::new(10_000_000, 20, false)), 21);
//! ```
//!
//! [`Codel`] decides per dequeued request instead of holding a limit, so it
//! has its own small API (`overloaded(now_ns, delay_ns)`, `load()`).

mod aimd;
mod any;
mod codel;
mod controller;
mod draws;
mod error;
mod fixed;
mod gradient;
mod gradient2;
mod limiter;
mod num;
mod settings;
mod state;
mod vegas;

#[cfg(test)]
mod props;
#[cfg(test)]
mod vectors;

pub use aimd::{AIMD_BACKOFF_MAX, AIMD_BACKOFF_MIN, Aimd, AimdConfig, AimdParams};
pub use any::{Algorithm, AnyLimiter, LimiterConfig};
pub use codel::{
    CODEL_INTERVAL_MS, CODEL_MS_MAX, CODEL_MS_MIN, CODEL_TARGET_MS, Codel, CodelConfig, truncate_to_whole_ms,
};
pub use controller::Controller;
pub use draws::Draws;
pub use error::ControlError;
pub use fixed::{FIXED_LIMIT_MIN, Fixed, FixedConfig};
pub use gradient::{
    GRADIENT_BACKOFF_MAX, GRADIENT_BACKOFF_MIN, Gradient, GradientConfig, GradientParams, PROBE_DISABLED,
    PROBE_INTERVAL_MIN,
};
pub use gradient2::{Gradient2, Gradient2Config, Gradient2Params, LONG_WINDOW_MAX, LONG_WINDOW_MIN, WARMUP_SAMPLES};
pub use limiter::{Limiter, Sample};
pub use num::{LIMIT_MAX, LIMIT_MIN, RTT_TOLERANCE_MIN, SMOOTHING_MAX, SMOOTHING_MIN, fmt_ns_as_ms, parse_ms_ns};
pub use settings::{INT_ACCEPTED, LIMITER_SETTINGS, limiter_config};
pub use state::{CodelState, LimiterState, MAX_RESUMED_DRAWS};
pub use vegas::{JITTER_MAX, JITTER_MIN, Vegas, VegasConfig, VegasParams};
