//! The random streams of a run, all ChaCha8 from the run seed.
//!
//! * **Arrivals** use stream 0, `ChaCha8Rng::seed_from_u64(seed)` exactly as
//!   `bplab load` always has, so the model and the load generator draw the
//!   same send times from the same seed.
//! * **Service times** use stream [`SERVICE_STREAM`] of the same key: an
//!   independent sequence, so changing the service distribution never moves
//!   an arrival, and changing the rate never changes request k's service
//!   time (common random numbers across a sweep).
//! * **Client backoff jitter** uses stream [`CLIENT_STREAM`] and **client
//!   throttling** stream [`THROTTLE_STREAM`]: a client policy never moves
//!   an arrival or a service time, and throttling never moves a jitter draw.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

/// The ChaCha stream number service-time draws use (arrivals use 0).
pub const SERVICE_STREAM: u64 = 1;

/// The stream the client's backoff jitter draws from.
pub const CLIENT_STREAM: u64 = 2;

/// The stream the client's adaptive throttling draws from.
pub const THROTTLE_STREAM: u64 = 3;

/// `2^-53`, the spacing of the uniforms below.
const UNIT: f64 = 1.0 / (1u64 << 53) as f64;

/// The arrival generator for `seed` (stream 0).
pub(crate) fn arrival_rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// The service-time generator for `seed` (stream [`SERVICE_STREAM`]).
pub(crate) fn service_rng(seed: u64) -> ChaCha8Rng {
    stream_rng(seed, SERVICE_STREAM)
}

/// Stream `stream` of the ChaCha8 key `seed_from_u64(seed)`.
pub(crate) fn stream_rng(seed: u64, stream: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(stream);
    rng
}

/// Uniform in `[0, 1)` from the top 53 bits of one `u64` (the load
/// generator's rule; 0 is possible, 1 is not).
pub(crate) fn unit(rng: &mut ChaCha8Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 * UNIT
}

/// `2^-52`, the spacing of [`open_unit`]'s grid.
const OPEN_UNIT: f64 = 1.0 / (1u64 << 52) as f64;

/// Uniform strictly inside `(0, 1)`: the midpoint `(k + 0.5) / 2^52` of the
/// top 52 bits (52, not 53, so `k + 0.5` is exact and the largest value is
/// below 1), so inverse CDFs never see 0 or 1.
pub(crate) fn open_unit(rng: &mut ChaCha8Rng) -> f64 {
    ((rng.next_u64() >> 12) as f64 + 0.5) * OPEN_UNIT
}

/// A unit-mean exponential from `u` in `[0, 1)`: `-ln(1 - u)`, via `libm`.
#[inline]
pub(crate) fn unit_exp(u: f64) -> f64 {
    -libm::log(1.0 - u)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_differ_and_repeat() {
        let a: Vec<u64> = (0..4).map(|_| arrival_rng(5).next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        assert_ne!(arrival_rng(5).next_u64(), service_rng(5).next_u64());
    }

    #[test]
    fn open_unit_is_strictly_inside() {
        let mut r = service_rng(1);
        for _ in 0..1000 {
            let u = open_unit(&mut r);
            assert!(u > 0.0 && u < 1.0);
        }
        assert!(0.5 * OPEN_UNIT > 0.0 && (((1u64 << 52) - 1) as f64 + 0.5) * OPEN_UNIT < 1.0);
    }
}
