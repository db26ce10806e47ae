//! Request-queue CoDel as folly's `Codel` (codel.md): decides at dequeue time
//! whether a request that waited `delay` should be shed. Integer ns/ms only,
//! no floating point, no clock: `now` is an input.

use super::{CodelState, ControlError};

/// Default target queueing delay, ms (`--codel_target_delay`).
pub const CODEL_TARGET_MS: i64 = 5;
/// Default interval, ms (`--codel_interval`).
pub const CODEL_INTERVAL_MS: i64 = 100;
/// Smallest accepted target or interval, ms (0 would divide by zero in `load`).
pub const CODEL_MS_MIN: i64 = 1;
/// Largest accepted target or interval, ms (folly's flags are `int32`).
pub const CODEL_MS_MAX: i64 = i32::MAX as i64;

const NS_PER_MS: i64 = 1_000_000;

/// Validated CoDel options. `target >= interval` is allowed (as in folly):
/// the effective target is then `min(target, interval)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodelConfig {
    target_ms: i64,
    interval_ms: i64,
}

impl Default for CodelConfig {
    /// Target 5 ms, interval 100 ms.
    fn default() -> Self {
        Self { target_ms: CODEL_TARGET_MS, interval_ms: CODEL_INTERVAL_MS }
    }
}

impl CodelConfig {
    /// Checks both are whole ms in `[1, 2³¹−1]`. (folly's constructors check
    /// nothing; a target of 0 makes its `getLoad` divide by zero.)
    pub fn new(target_ms: i64, interval_ms: i64) -> Result<Self, ControlError> {
        let check = |param, v: i64| {
            if (CODEL_MS_MIN..=CODEL_MS_MAX).contains(&v) {
                Ok(v)
            } else {
                let accepted = format!("a whole number of ms from {CODEL_MS_MIN} to {CODEL_MS_MAX}");
                Err(ControlError::range(param, v, accepted))
            }
        };
        Ok(Self { target_ms: check("target-ms", target_ms)?, interval_ms: check("interval-ms", interval_ms)? })
    }

    /// Target delay as given, ms.
    pub fn target_ms(&self) -> i64 {
        self.target_ms
    }

    /// Interval, ms.
    pub fn interval_ms(&self) -> i64 {
        self.interval_ms
    }
}

/// `delay_ns` truncated to whole milliseconds, as fbthrift measures it.
pub const fn truncate_to_whole_ms(delay_ns: i64) -> i64 {
    delay_ns - delay_ns % NS_PER_MS
}

/// The CoDel state machine (sequential semantics of codel.md §3).
#[derive(Clone, Debug)]
pub struct Codel {
    target_ms: i64,
    interval_ms: i64,
    min_delay_ns: i64,
    interval_end_ns: i64,
    reset_delay: bool,
    overloaded: bool,
}

impl Codel {
    /// A controller constructed at `now_ns`: the first interval **ends** there.
    pub fn new(cfg: &CodelConfig, now_ns: i64) -> Self {
        Self {
            target_ms: cfg.target_ms,
            interval_ms: cfg.interval_ms,
            min_delay_ns: 0,
            interval_end_ns: now_ns,
            reset_delay: true,
            overloaded: false,
        }
    }

    /// Effective target, `min(target, interval)`, ms.
    pub fn target_ms(&self) -> i64 {
        self.target_ms.min(self.interval_ms)
    }

    /// Interval, ms (a new one applies from the next boundary).
    pub fn interval_ms(&self) -> i64 {
        self.interval_ms
    }

    /// Slough timeout `2 × target`, ms: a delay strictly above it is shed while overloaded.
    pub fn slough_timeout_ms(&self) -> i64 {
        2 * self.target_ms()
    }

    /// Minimum delay since the last boundary, ns.
    pub fn min_delay_ns(&self) -> i64 {
        self.min_delay_ns
    }

    /// End of the current interval, ns.
    pub fn interval_end_ns(&self) -> i64 {
        self.interval_end_ns
    }

    /// The overload flag decided at the last boundary.
    pub fn overload_flag(&self) -> bool {
        self.overloaded
    }

    /// Its whole state (besides the config).
    pub fn state(&self) -> CodelState {
        CodelState {
            min_delay_ns: self.min_delay_ns,
            interval_end_ns: self.interval_end_ns,
            reset_delay: self.reset_delay,
            overloaded: self.overloaded,
        }
    }

    /// A controller of `cfg` in `state` (every value is one a run can reach).
    pub fn resume(cfg: &CodelConfig, state: CodelState) -> Self {
        let CodelState { min_delay_ns, interval_end_ns, reset_delay, overloaded } = state;
        Self { min_delay_ns, interval_end_ns, reset_delay, overloaded, ..Self::new(cfg, 0) }
    }

    /// One dequeue at `now_ns` of a request that waited `delay_ns`: `true` =
    /// shed it. Crossing a boundary (`now > end`, strict) decides the flag
    /// from the previous interval's minimum (`> target`, strict) and re-anchors
    /// the end at `now + interval`; the crossing (or very first) call seeds the
    /// minimum and is never shed. Otherwise shed iff flag and `delay > 2 × target`.
    pub fn overloaded(&mut self, now_ns: i64, delay_ns: i64) -> bool {
        let snap = self.min_delay_ns;
        let target_ns = self.target_ms() * NS_PER_MS;
        if now_ns > self.interval_end_ns && !self.reset_delay {
            self.reset_delay = true;
            self.interval_end_ns = now_ns.saturating_add(self.interval_ms * NS_PER_MS);
            self.overloaded = snap > target_ns;
        }
        if self.reset_delay {
            self.reset_delay = false;
            self.min_delay_ns = delay_ns;
            return false;
        }
        if delay_ns < self.min_delay_ns {
            self.min_delay_ns = delay_ns;
        }
        self.overloaded && delay_ns > 2 * target_ns
    }

    /// `getLoad()`: `min(100, trunc(100 × min_delay / slough))` in percent,
    /// from the current interval's running minimum (0 before any call). The
    /// quotient is converted to a 32-bit int as C++ does (absurd delays wrap).
    pub fn load(&self) -> i32 {
        let slough_ns = i128::from(self.slough_timeout_ms() * NS_PER_MS);
        let q = 100 * i128::from(self.min_delay_ns) / slough_ns.max(1);
        (q as i64 as i32).min(100)
    }

    /// folly's `setOptions`: needs `interval > target > 0` (and both within
    /// `[1, 2³¹−1]`), else an error and nothing changes. State is untouched: a
    /// new target applies at once, a new interval from the next boundary.
    pub fn set_options(&mut self, target_ms: i64, interval_ms: i64) -> Result<(), ControlError> {
        if !(target_ms > 0 && interval_ms > target_ms && interval_ms <= CODEL_MS_MAX) {
            return Err(ControlError::CodelOptions { target_ms, interval_ms });
        }
        self.interval_ms = interval_ms;
        self.target_ms = target_ms;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::vectors::ms;

    /// `(now_ms, delay_ms) -> (R, L, min_ms, end_ms, flag)`; `None` state = unchecked.
    type Row = ((f64, f64), (bool, i32, Option<(f64, f64, bool)>));

    fn replay(cfg: CodelConfig, start_ms: f64, whole_ms: bool, rows: &[Row]) {
        let mut c = Codel::new(&cfg, ms(start_ms));
        assert_eq!(c.load(), 0);
        for (i, &((now, delay), (r, l, state))) in rows.iter().enumerate() {
            let d = if whole_ms { truncate_to_whole_ms(ms(delay)) } else { ms(delay) };
            assert_eq!((c.overloaded(ms(now), d), c.load()), (r, l), "row {} ({now} {delay})", i + 1);
            if let Some((min, end, flag)) = state {
                let got = (c.min_delay_ns(), c.interval_end_ns(), c.overload_flag());
                assert_eq!(got, (ms(min), ms(end), flag), "state after row {}", i + 1);
            }
        }
    }

    fn s(min: f64, end: f64, flag: u8) -> Option<(f64, f64, bool)> {
        Some((min, end, flag == 1))
    }

    #[test]
    fn vector_1_a_burst_is_absorbed() {
        let mut rows: Vec<Row> = vec![((0.0, 1.0), (false, 10, s(1.0, 0.0, 0)))];
        for (now, delay) in
            [(10.0, 1.0), (20.0, 2.0), (30.0, 15.0), (35.0, 30.0), (40.0, 25.0), (50.0, 3.0), (60.0, 1.0)]
        {
            rows.push(((now, delay), (false, 10, s(1.0, 110.0, 0))));
        }
        rows.push(((111.0, 2.0), (false, 20, s(2.0, 211.0, 0))));
        rows.push(((120.0, 12.0), (false, 20, s(2.0, 211.0, 0))));
        replay(CodelConfig::default(), 0.0, false, &rows);
    }

    #[test]
    fn vector_2_a_standing_queue_is_shed() {
        let rows: [Row; 16] = [
            ((0.0, 1.0), (false, 10, s(1.0, 0.0, 0))),
            ((10.0, 1.0), (false, 10, s(1.0, 110.0, 0))),
            ((111.0, 6.0), (false, 60, s(6.0, 211.0, 0))),
            ((130.0, 8.0), (false, 60, s(6.0, 211.0, 0))),
            ((150.0, 12.0), (false, 60, s(6.0, 211.0, 0))),
            ((200.0, 7.0), (false, 60, s(6.0, 211.0, 0))),
            ((212.0, 9.0), (false, 90, s(9.0, 312.0, 1))),
            ((220.0, 11.0), (true, 90, s(9.0, 312.0, 1))),
            ((230.0, 10.0), (false, 90, s(9.0, 312.0, 1))),
            ((240.0, 10.000001), (true, 90, s(9.0, 312.0, 1))),
            ((250.0, 6.0), (false, 60, s(6.0, 312.0, 1))),
            ((300.0, 25.0), (true, 60, s(6.0, 312.0, 1))),
            ((313.0, 4.0), (false, 40, s(4.0, 413.0, 1))),
            ((320.0, 30.0), (true, 40, s(4.0, 413.0, 1))),
            ((414.0, 12.0), (false, 100, s(12.0, 514.0, 0))),
            ((420.0, 12.0), (false, 100, s(12.0, 514.0, 0))),
        ];
        replay(CodelConfig::default(), 0.0, false, &rows);
    }

    #[test]
    fn vector_3_folly_codel_test_basic() {
        let rows: [Row; 5] = [
            ((110.0, 100.0), (false, 100, None)),
            ((200.0, 50.0), (false, 100, None)),
            ((200.0, 50.0), (true, 100, None)),
            ((310.0, 2.0), (false, 20, None)),
            ((400.0, 20.0), (true, 20, None)),
        ];
        replay(CodelConfig::default(), 0.0, false, &rows);
    }

    #[test]
    fn vector_4_custom_whole_ms_idle_gap() {
        let rows: [Row; 6] = [
            ((1000.0, 30.0), (false, 100, s(30.0, 1000.0, 0))),
            ((1000.5, 30.0), (false, 100, s(30.0, 1050.5, 1))),
            ((1000.5, 20.9), (false, 100, s(20.0, 1050.5, 1))),
            ((1000.5, 21.0), (true, 100, s(20.0, 1050.5, 1))),
            ((1200.0, 3.0), (false, 15, s(3.0, 1250.0, 1))),
            ((1200.0, 40.0), (true, 15, s(3.0, 1250.0, 1))),
        ];
        replay(CodelConfig::new(10, 50).unwrap(), 1000.0, true, &rows);
    }

    #[test]
    fn target_is_capped_by_the_interval() {
        let c = Codel::new(&CodelConfig::new(200, 50).unwrap(), 0);
        assert_eq!((c.target_ms(), c.slough_timeout_ms()), (50, 100));
    }

    #[test]
    fn set_options_validates_and_keeps_state() {
        let mut c = Codel::new(&CodelConfig::default(), 0);
        c.overloaded(0, ms(7.0));
        c.overloaded(10, ms(7.0));
        assert_eq!(c.load(), 70);
        assert!(c.set_options(5, 5).is_err() && c.set_options(0, 5).is_err());
        assert_eq!(
            c.set_options(5, 5).unwrap_err().to_string(),
            "set: target 5 ms with interval 5 ms is not accepted; expected interval > target > 0 (ms)"
        );
        c.set_options(2, 1000).unwrap();
        // New target at once (load = 100 × 7 / 4, capped), the interval end is untouched.
        assert_eq!((c.load(), c.interval_end_ns(), c.min_delay_ns()), (100, 10 + ms(100.0), ms(7.0)));
        assert!(CodelConfig::new(0, 100).is_err() && CodelConfig::new(5, 0).is_err());
    }

    #[test]
    fn extreme_inputs_do_not_panic() {
        let mut c = Codel::new(&CodelConfig::new(CODEL_MS_MAX, CODEL_MS_MAX).unwrap(), i64::MAX);
        for (now, d) in [(i64::MAX, i64::MAX), (i64::MIN, i64::MIN), (0, -5), (i64::MAX, 0)] {
            c.overloaded(now, d);
            c.load();
        }
        let mut c = Codel::new(&CodelConfig::default(), i64::MIN);
        c.overloaded(0, i64::MAX);
        c.overloaded(1, i64::MAX);
        assert_eq!(c.load(), 100.min((100 * i128::from(i64::MAX) / 10_000_000) as i64 as i32));
    }
}
