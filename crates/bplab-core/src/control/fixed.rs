//! A constant limit N. The lesson derives N as
//! `workers × (budget − service) / service` elsewhere (`calc::limit`); this
//! type only holds it behind the [`Limiter`] trait.

use super::num::{LIMIT_MAX, whole};
use super::{ControlError, Limiter, Sample};

/// Lowest accepted fixed limit (a limit of 0 would admit nothing, ever).
pub const FIXED_LIMIT_MIN: i32 = 1;

/// A validated constant limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FixedConfig {
    limit: i32,
}

impl FixedConfig {
    /// Checks `limit` is in `[1, 2³¹−1]`.
    pub fn new(limit: i32) -> Result<Self, ControlError> {
        Ok(Self { limit: whole("limit", limit, FIXED_LIMIT_MIN, LIMIT_MAX)? })
    }

    /// The limit.
    pub fn limit(&self) -> i32 {
        self.limit
    }
}

/// A limiter that never moves.
#[derive(Clone, Copy, Debug)]
pub struct Fixed {
    limit: i32,
}

impl Fixed {
    /// A limiter holding `cfg`'s limit.
    pub fn new(cfg: &FixedConfig) -> Self {
        Self { limit: cfg.limit }
    }
}

impl Limiter for Fixed {
    fn limit(&self) -> i32 {
        self.limit
    }

    fn update(&mut self, _s: Sample) -> i32 {
        self.limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_n_whatever_happens() {
        let mut f = Fixed::new(&FixedConfig::new(29).unwrap());
        assert_eq!(f.limit(), 29);
        assert_eq!(f.update(Sample::new(1, 1000, true)), 29);
        assert_eq!(f.update(Sample::new(i64::MAX, 0, false)), 29);
        assert_eq!(
            FixedConfig::new(0).unwrap_err().to_string(),
            "limit: '0' is not accepted; expected a whole number from 1 to 2147483647"
        );
    }
}
