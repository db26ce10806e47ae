//! One enum over every limiter, for callers that pick the algorithm at run
//! time (models, page, CLI, live server) without `dyn`: static dispatch keeps
//! an update at a few nanoseconds.

use super::{
    Aimd, AimdConfig, Fixed, FixedConfig, Gradient, Gradient2, Gradient2Config, GradientConfig, Limiter, Sample, Vegas,
    VegasConfig,
};

/// The limiter algorithms, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// A constant limit.
    Fixed,
    /// Loss-based additive increase / multiplicative decrease.
    Aimd,
    /// Delay-based queue estimate.
    Vegas,
    /// Average-latency gradient (the reference library's recommended one).
    Gradient2,
    /// Minimum-latency gradient with probes.
    Gradient,
}

impl Algorithm {
    /// Every algorithm, in this order.
    pub const ALL: [Algorithm; 5] =
        [Algorithm::Fixed, Algorithm::Aimd, Algorithm::Vegas, Algorithm::Gradient2, Algorithm::Gradient];

    /// The lower-case name (`"gradient2"`).
    pub const fn name(self) -> &'static str {
        match self {
            Algorithm::Fixed => "fixed",
            Algorithm::Aimd => "aimd",
            Algorithm::Vegas => "vegas",
            Algorithm::Gradient2 => "gradient2",
            Algorithm::Gradient => "gradient",
        }
    }

    /// The algorithm called `name` (exact, lower case).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|a| a.name() == name)
    }
}

/// A validated config of any algorithm.
#[derive(Clone, Debug, PartialEq)]
pub enum LimiterConfig {
    /// See [`FixedConfig`].
    Fixed(FixedConfig),
    /// See [`AimdConfig`].
    Aimd(AimdConfig),
    /// See [`VegasConfig`].
    Vegas(VegasConfig),
    /// See [`Gradient2Config`].
    Gradient2(Gradient2Config),
    /// See [`GradientConfig`].
    Gradient(GradientConfig),
}

impl LimiterConfig {
    /// Which algorithm this configures.
    pub fn algorithm(&self) -> Algorithm {
        match self {
            Self::Fixed(_) => Algorithm::Fixed,
            Self::Aimd(_) => Algorithm::Aimd,
            Self::Vegas(_) => Algorithm::Vegas,
            Self::Gradient2(_) => Algorithm::Gradient2,
            Self::Gradient(_) => Algorithm::Gradient,
        }
    }

    /// A fresh limiter (initial limit, initial draws).
    pub fn build(&self) -> AnyLimiter {
        match self {
            Self::Fixed(c) => AnyLimiter::Fixed(Fixed::new(c)),
            Self::Aimd(c) => AnyLimiter::Aimd(Aimd::new(c)),
            Self::Vegas(c) => AnyLimiter::Vegas(Vegas::new(c)),
            Self::Gradient2(c) => AnyLimiter::Gradient2(Gradient2::new(c)),
            Self::Gradient(c) => AnyLimiter::Gradient(Gradient::new(c)),
        }
    }
}

/// A limiter of any algorithm.
#[derive(Clone, Debug)]
pub enum AnyLimiter {
    /// See [`Fixed`].
    Fixed(Fixed),
    /// See [`Aimd`].
    Aimd(Aimd),
    /// See [`Vegas`].
    Vegas(Vegas),
    /// See [`Gradient2`].
    Gradient2(Gradient2),
    /// See [`Gradient`].
    Gradient(Gradient),
}

impl Limiter for AnyLimiter {
    fn limit(&self) -> i32 {
        match self {
            Self::Fixed(l) => l.limit(),
            Self::Aimd(l) => l.limit(),
            Self::Vegas(l) => l.limit(),
            Self::Gradient2(l) => l.limit(),
            Self::Gradient(l) => l.limit(),
        }
    }

    fn update(&mut self, s: Sample) -> i32 {
        match self {
            Self::Fixed(l) => l.update(s),
            Self::Aimd(l) => l.update(s),
            Self::Vegas(l) => l.update(s),
            Self::Gradient2(l) => l.update(s),
            Self::Gradient(l) => l.update(s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_dispatch_matches_the_concrete_type() {
        for a in Algorithm::ALL {
            assert_eq!(Algorithm::from_name(a.name()), Some(a));
        }
        assert_eq!(Algorithm::from_name("AIMD"), None);
        let cfg = LimiterConfig::Aimd(AimdConfig::default());
        let (mut any, mut aimd) = (cfg.build(), Aimd::new(&AimdConfig::default()));
        assert_eq!(cfg.algorithm(), Algorithm::Aimd);
        for i in 0..50 {
            let s = Sample::new(1_000_000, i, i % 7 == 0);
            assert_eq!(any.update(s), aimd.update(s));
        }
    }
}
