//! Java-compatible numerics: `%.Nf` formatting, HdrHistogram percentiles and
//! `java.util.Random`. The reference CSVs were produced by a Java lab; these
//! three pieces are what make the bytes match.

mod format;
mod histogram;
mod java_random;

pub use format::{format_fixed, write_fixed};
pub use histogram::{LatencyHistogram, MAX_LATENCY_MS, percentile_of_values, round_clamp_ms, round_half_up};
pub use java_random::JavaRandom;
