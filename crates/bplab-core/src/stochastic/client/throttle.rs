//! Client-side adaptive throttling (Google SRE book, "Handling Overload"):
//! the client rejects a request locally, without sending it, with
//! probability `max(0, (requests − K × accepts) / (requests + 1))`, counted
//! over a sliding window. The rule, exactly (also in `docs/client.md`):
//!
//! ```text
//! at each attempt at time t (first tries and retries alike):
//!   forget requests and accepts at times <= t − window_ms
//!   p = max(0, (requests − K × accepts) / (requests + 1))     in binary64
//!   U = one uniform in [0, 1) from the throttle stream (drawn even when p = 0)
//!   requests += 1 (at t)
//!   reject locally iff U < p
//! at each on-time answer at time t: forget as above; accepts += 1 (at t)
//! ```

use std::collections::VecDeque;

use super::super::error::{StochasticError, check};
use super::super::traffic::MAX_MS;

/// SRE adaptive throttling's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Throttle {
    /// The multiplier `K`: the client sends freely while
    /// `requests <= K × accepts` (the book suggests 2); `1 <= k <= 1000`.
    pub k: f64,
    /// How far back requests and accepts are counted, ms (the book uses two
    /// minutes); `0 < window_ms <= 1e9`.
    pub window_ms: f64,
}

impl Throttle {
    /// Checks the ranges documented on each field.
    pub fn validate(&self) -> Result<(), StochasticError> {
        check("throttle-k", self.k, "finite, >= 1 and <= 1000", |v| (1.0..=1000.0).contains(&v))?;
        check("throttle-window-ms", self.window_ms, "finite, > 0 and <= 1e9 ms", |v| v > 0.0 && v <= MAX_MS)?;
        Ok(())
    }
}

/// The throttle's counts over its window.
#[derive(Clone, Debug, PartialEq)]
pub struct Counts {
    throttle: Throttle,
    requests: VecDeque<f64>,
    accepts: VecDeque<f64>,
}

impl Counts {
    /// Empty counts.
    pub fn new(throttle: Throttle) -> Self {
        Self { throttle, requests: VecDeque::new(), accepts: VecDeque::new() }
    }

    fn forget(&mut self, now_ms: f64) {
        let cut = now_ms - self.throttle.window_ms;
        while self.requests.front().is_some_and(|&t| t <= cut) {
            self.requests.pop_front();
        }
        while self.accepts.front().is_some_and(|&t| t <= cut) {
            self.accepts.pop_front();
        }
    }

    /// `(requests, accepts)` in the window as of the last event.
    pub fn counts(&self) -> (usize, usize) {
        (self.requests.len(), self.accepts.len())
    }

    /// The rejection probability at `now_ms` (forgetting old counts first).
    pub fn probability(&mut self, now_ms: f64) -> f64 {
        self.forget(now_ms);
        let (r, a) = (self.requests.len() as f64, self.accepts.len() as f64);
        ((r - self.throttle.k * a) / (r + 1.0)).max(0.0)
    }

    /// An attempt at `now_ms` with the uniform `u`: `true` = send it,
    /// `false` = reject it locally. Counted as a request either way.
    pub fn admit(&mut self, now_ms: f64, u: f64) -> bool {
        let p = self.probability(now_ms);
        self.requests.push_back(now_ms);
        u >= p
    }

    /// An on-time answer at `now_ms`.
    pub fn accept(&mut self, now_ms: f64) {
        self.forget(now_ms);
        self.accepts.push_back(now_ms);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn throttle_vector() {
        // K = 2, window 1000 ms.
        let mut c = Counts::new(Throttle { k: 2.0, window_ms: 1000.0 });
        assert!(c.admit(0.0, 0.0)); // nothing counted: p = 0 / 1 = 0
        c.accept(10.0); // requests 1, accepts 1
        assert_eq!(c.probability(20.0), 0.0); // max(0, (1 − 2) / 2)
        assert!(c.admit(20.0, 0.0));
        assert_eq!(c.probability(30.0), 0.0); // (2 − 2) / 3
        assert!(c.admit(30.0, 0.0));
        assert_eq!(c.probability(40.0), 0.25); // (3 − 2) / 4
        assert!(!c.admit(40.0, 0.2)); // 0.2 < 0.25: rejected locally, still a request
        assert_eq!(c.probability(50.0), 0.4); // (4 − 2) / 5
        assert!(c.admit(50.0, 0.5));
        assert_eq!(c.counts(), (5, 1));
        // At 1000 only the request at 0 is forgotten (<= 1000 − 1000): (4 − 2) / 5.
        assert_eq!(c.probability(1000.0), 0.4);
        // At 1010 the accept at 10 goes too: (4 − 0) / 5.
        assert_eq!(c.probability(1010.0), 0.8);
        assert!(!c.admit(1010.0, 0.79));
        // At 1060 only the request at 1010 is left: 1 / 2.
        assert_eq!(c.probability(1060.0), 0.5);
        assert_eq!(c.counts(), (1, 0));
    }

    #[test]
    fn bad_throttles_are_refused() {
        assert!(Throttle { k: 2.0, window_ms: 120_000.0 }.validate().is_ok());
        assert!(Throttle { k: 0.5, window_ms: 1.0 }.validate().is_err());
        let e = Throttle { k: 2.0, window_ms: 0.0 }.validate().unwrap_err().to_string();
        assert!(e.contains("throttle-window-ms"), "{e}");
    }
}
