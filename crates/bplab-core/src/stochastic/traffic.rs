//! Open-loop Poisson arrivals at a constant rate or a piecewise-constant
//! rate schedule, drawn from a seeded ChaCha8 generator.
//!
//! **Constant rate** (the load generator's rule, bit for bit): gaps are
//! `gap_ms = -ln(1 - u) / rate_rps * 1000` with `u` uniform in `[0, 1)` from
//! the top 53 bits of `ChaCha8Rng::seed_from_u64(seed).next_u64()`, and
//! `t += gap`. `ln` is `libm::log`, so native and wasm agree. Every rate of a
//! sweep uses the same seed, so the same unit-exponential draws are scaled
//! by each rate ("common random numbers").
//!
//! **Rate schedule** (time rescaling): the same unit-exponential draw `e`
//! is spent through the schedule's steps. Inside a step of rate `r` the next
//! arrival is at `t + e / r * 1000` if that is before the step ends;
//! otherwise the step consumes `(end - t) * r / 1000` of `e`, `t` moves to
//! the step's end and the remainder is spent in the next step (a step of
//! rate 0 consumes nothing). This is the inverse of the cumulative intensity
//! `Λ(t) = ∫ rate / 1000`, so the arrivals form a Poisson process with that
//! rate function; one draw per arrival, no rejections, and a one-step
//! schedule gives exactly the constant-rate times.

use rand_chacha::ChaCha8Rng;

use super::error::{StochasticError, check};
use super::rng::{arrival_rng, unit, unit_exp};

/// Longest run window and step the engine accepts, ms (about 11.6 days).
pub const MAX_MS: f64 = 1e9;

/// One step of a rate schedule: a constant rate for a duration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    /// Arrivals per second during the step; finite and `>= 0`.
    pub rate_rps: f64,
    /// Length of the step in ms; `1 <= duration_ms <= MAX_MS`.
    pub duration_ms: f64,
}

/// A rate as a function of time: steps played in order from time 0.
///
/// With `repeat` the steps tile (0, 1, …, 0, 1, …) like the bursty
/// valley/spike curve; without it the last step's rate holds after its end.
#[derive(Clone, Debug, PartialEq)]
pub struct RateSchedule {
    /// The steps; validated non-empty.
    pub steps: Vec<Step>,
    /// Tile the steps (true) or hold the last rate (false).
    pub repeat: bool,
}

impl RateSchedule {
    /// One rate for the whole run (the load generator's schedule).
    pub fn constant(rate_rps: f64) -> Self {
        Self { steps: vec![Step { rate_rps, duration_ms: 1.0 }], repeat: false }
    }

    /// Steps played once; the last rate then holds.
    pub fn steps(steps: Vec<Step>) -> Self {
        Self { steps, repeat: false }
    }

    /// The bursty curve of [`crate::arrivals::Curve::bursty`], as Poisson
    /// traffic: `valley_rps` for `valley_ms`, `spike_rps` for `spike_ms`,
    /// repeated.
    pub fn bursty(valley_rps: f64, valley_ms: f64, spike_rps: f64, spike_ms: f64) -> Self {
        Self {
            steps: vec![
                Step { rate_rps: valley_rps, duration_ms: valley_ms },
                Step { rate_rps: spike_rps, duration_ms: spike_ms },
            ],
            repeat: true,
        }
    }

    /// Any demand curve of [`crate::arrivals`], tiled as it is there.
    pub fn from_curve(curve: &crate::arrivals::Curve) -> Self {
        let steps = curve
            .segments
            .iter()
            .map(|s| Step { rate_rps: s.rate_rps, duration_ms: f64::from(s.duration_ms) })
            .collect();
        Self { steps, repeat: true }
    }

    /// Checks every step: rate finite and `>= 0`, duration in `[1, MAX_MS]`,
    /// at least one step.
    pub fn validate(&self) -> Result<(), StochasticError> {
        if self.steps.is_empty() {
            return Err(StochasticError::OutOfRange { param: "steps", value: 0.0, accepted: "at least one step" });
        }
        for s in &self.steps {
            check("rate-rps", s.rate_rps, "finite and >= 0", |r| r.is_finite() && r >= 0.0)?;
            check("duration-ms", s.duration_ms, "from 1 to 1e9 ms", |d| (1.0..=MAX_MS).contains(&d))?;
        }
        Ok(())
    }

    /// The average rate over `[0, window_ms)`, requests per second (the
    /// `offered` column for a schedule). 0 for an invalid schedule.
    pub fn mean_rate_rps(&self, window_ms: f64) -> f64 {
        match self.work(window_ms) {
            Some((expected, _)) if window_ms > 0.0 => expected / window_ms * 1000.0,
            _ => 0.0,
        }
    }

    /// Expected arrivals in `[0, window_ms)` plus the number of step
    /// boundaries crossed (each costs a loop turn even without arrivals),
    /// rounded up: the work estimate the cap is compared with. `None` for an
    /// invalid schedule or window.
    pub fn estimate_work(&self, window_ms: f64) -> Option<u64> {
        let (expected, tiles) = self.work(window_ms)?;
        let total = (expected + tiles).ceil();
        Some(if total >= u64::MAX as f64 { u64::MAX } else { total as u64 })
    }

    /// (expected arrivals, steps visited) in the window, computed per
    /// cycle rather than per tile so a long window costs nothing.
    fn work(&self, window_ms: f64) -> Option<(f64, f64)> {
        if self.validate().is_err() || !(window_ms > 0.0 && window_ms <= MAX_MS) {
            return None;
        }
        let mass = |s: &Step, ms: f64| s.rate_rps * ms / 1000.0;
        let (mut expected, mut tiles, mut t) = (0.0, 0.0, 0.0);
        let mut rest = window_ms;
        if self.repeat {
            let cycle_ms: f64 = self.steps.iter().map(|s| s.duration_ms).sum();
            let cycles = (window_ms / cycle_ms).floor();
            expected = cycles * self.steps.iter().map(|s| mass(s, s.duration_ms)).sum::<f64>();
            tiles = cycles * self.steps.len() as f64;
            t = cycles * cycle_ms;
            rest = window_ms - t;
        }
        let last = self.steps.len() - 1;
        for (i, s) in self.steps.iter().enumerate() {
            if t >= window_ms || rest <= 0.0 {
                break;
            }
            let len = if i == last && !self.repeat { rest } else { s.duration_ms.min(rest) };
            expected += mass(s, len);
            tiles += 1.0;
            t += len;
            rest -= len;
        }
        Some((expected, tiles))
    }

    /// The arrival times in `[0, window_ms)`, ascending, for `seed`. An
    /// invalid schedule or window yields nothing. Lazy: take what you need.
    pub fn arrivals(&self, window_ms: f64, seed: u64) -> ArrivalTimes<'_> {
        let ok = self.validate().is_ok() && window_ms > 0.0 && window_ms <= MAX_MS;
        let mut it = ArrivalTimes {
            steps: &self.steps,
            repeat: self.repeat,
            rng: arrival_rng(seed),
            window_ms,
            t: 0.0,
            step: 0,
            step_end: 0.0,
            finished: !ok,
        };
        it.step_end = it.end_of(0, 0.0);
        it
    }

    /// All arrival times in `[0, window_ms)`, or an error before allocating
    /// when the work estimate exceeds `cap`, or when the draw overshoots it.
    pub fn generate(&self, window_ms: f64, seed: u64, cap: u64) -> Result<Vec<f64>, StochasticError> {
        self.validate()?;
        check("window-ms", window_ms, "from 1 to 1e9 ms", |w| (1.0..=MAX_MS).contains(&w))?;
        let estimated = self.estimate_work(window_ms).unwrap_or(u64::MAX);
        if estimated > cap {
            return Err(StochasticError::TooManyArrivals { estimated, cap });
        }
        let limit = usize::try_from(cap).unwrap_or(usize::MAX);
        let mut out = Vec::with_capacity(usize::try_from(estimated).unwrap_or(0).min(limit));
        for t in self.arrivals(window_ms, seed) {
            if out.len() >= limit {
                return Err(StochasticError::TooManyArrivals { estimated: cap.saturating_add(1), cap });
            }
            out.push(t);
        }
        Ok(out)
    }
}

/// Iterator over the arrival times of a [`RateSchedule`] (see the module
/// docs for the draw rule). Ends at the window.
#[derive(Clone, Debug)]
pub struct ArrivalTimes<'a> {
    steps: &'a [Step],
    repeat: bool,
    rng: ChaCha8Rng,
    window_ms: f64,
    t: f64,
    step: usize,
    step_end: f64,
    finished: bool,
}

impl ArrivalTimes<'_> {
    /// End of step `i` starting at `start`; infinite for a held last step.
    fn end_of(&self, i: usize, start: f64) -> f64 {
        match self.steps.get(i) {
            Some(_) if i + 1 == self.steps.len() && !self.repeat => f64::INFINITY,
            Some(s) => start + s.duration_ms,
            None => f64::INFINITY,
        }
    }

    fn rate(&self) -> f64 {
        self.steps.get(self.step).map_or(0.0, |s| s.rate_rps)
    }
}

impl Iterator for ArrivalTimes<'_> {
    type Item = f64;

    fn next(&mut self) -> Option<f64> {
        if self.finished {
            return None;
        }
        let mut e = unit_exp(unit(&mut self.rng));
        loop {
            let rate = self.rate();
            if rate > 0.0 {
                let candidate = self.t + e / rate * 1000.0;
                if candidate < self.step_end {
                    self.t = candidate;
                    break;
                }
                e = (e - (self.step_end - self.t) * rate / 1000.0).max(0.0);
            }
            if self.step_end >= self.window_ms {
                self.finished = true;
                return None;
            }
            self.t = self.step_end;
            self.step = if self.step + 1 < self.steps.len() { self.step + 1 } else { 0 };
            self.step_end = self.end_of(self.step, self.t);
        }
        if self.t >= self.window_ms {
            self.finished = true;
            return None;
        }
        Some(self.t)
    }
}
