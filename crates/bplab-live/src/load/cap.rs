//! The send cap of one rate's window: retries never push the sends past
//! [`MAX_TRY_MULTIPLE`] times the offered rate (see `docs/client.md`).
//!
//! A retry is made only while the last 1,000 ms hold fewer than
//! `ceil(MAX_TRY_MULTIPLE × rate)` sends and while the window has made fewer
//! than `(MAX_TRY_MULTIPLE − 1) × planned first tries` retries; otherwise it
//! is `capped` (not a try). First tries always go: they are the plan. So a
//! window makes at most `MAX_TRY_MULTIPLE` tries per planned first try, and
//! in any 1,000 ms the retries sent stop at `MAX_TRY_MULTIPLE × rate` sends.

use std::collections::VecDeque;

use crate::load::MAX_TRY_MULTIPLE;

/// The sliding second the send rate is counted over, µs.
const PER_US: u64 = 1_000_000;

/// Counting sends and retries against the cap.
#[derive(Debug)]
pub(crate) struct SendCap {
    per_second: u64,
    max_retries: u64,
    retries: u64,
    /// Send times within the last second, µs, ascending.
    recent: VecDeque<u64>,
}

impl SendCap {
    /// The cap for `rate_rps` with `planned` first tries.
    pub(crate) fn new(rate_rps: f64, planned: u64) -> Self {
        let per_second = libm::ceil(MAX_TRY_MULTIPLE as f64 * rate_rps).max(1.0) as u64;
        SendCap { per_second, max_retries: (MAX_TRY_MULTIPLE - 1) * planned, retries: 0, recent: VecDeque::new() }
    }

    fn forget(&mut self, at_us: u64) {
        while self.recent.front().is_some_and(|&t| t + PER_US <= at_us) {
            self.recent.pop_front();
        }
    }

    /// May a retry be made at `at_us`? Counts it when so.
    pub(crate) fn allow_retry(&mut self, at_us: u64) -> bool {
        self.forget(at_us);
        if self.recent.len() as u64 >= self.per_second || self.retries >= self.max_retries {
            return false;
        }
        self.retries += 1;
        true
    }

    /// A try was sent at `at_us` (times never go back).
    pub(crate) fn sent(&mut self, at_us: u64) {
        self.forget(at_us);
        self.recent.push_back(at_us);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_stop_at_ten_times_the_rate_in_any_second_and_per_first_try() {
        // 5 rps: at most 50 sends in any second.
        let mut c = SendCap::new(5.0, 1000);
        let mut retries = 0;
        for k in 0..200u64 {
            let at = k * 1000; // 200 retries due within 0.2 s
            if c.allow_retry(at) {
                c.sent(at);
                retries += 1;
            }
        }
        assert_eq!(retries, 50);
        // A second later the oldest have left the window.
        assert!(c.allow_retry(1_000_000));
        // First tries are counted, never refused: they fill the second too.
        let mut c = SendCap::new(1.0, 1000);
        for k in 0..10 {
            c.sent(k);
        }
        assert!(!c.allow_retry(10));
        // The whole window: 9 retries per planned first try.
        let mut c = SendCap::new(10_000.0, 2);
        let made = (0..100).filter(|&k| c.allow_retry(k)).count();
        assert_eq!(made, 18);
        // A tiny rate still allows one send a second.
        assert_eq!(SendCap::new(0.01, 5).per_second, 1);
    }
}
