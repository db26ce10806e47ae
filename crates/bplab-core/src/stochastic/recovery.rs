//! Reading an engine timeline: did the system come back after a trigger,
//! and when (the rule is stated in `docs/metastable.md`)? Also the
//! metastable presets' predicates, on the same windows. It lives with the
//! engine because the model's runs and the live load tool's measured
//! timeline are judged by this one rule.

use serde::Serialize;

use super::Window;

/// A window is healthy when its goodput is at least this share of what the
/// callers offer when nothing fails (`min(load, capacity)`), or when nothing
/// in it failed (no late answer, refusal or local rejection: few answers
/// because few callers came is not a failure).
pub const HEALTHY_SHARE: f64 = 0.5;

/// How a policy came out of the trigger.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Verdict {
    /// Healthy from `after_ms` past the trigger's end to the end of the run.
    Recovered {
        /// ms from the trigger's end to the start of the first window from
        /// which every window is healthy (0: the first window after it).
        after_ms: u64,
    },
    /// The last window of the run is not healthy: did not recover within the run.
    Stuck,
    /// No whole window starts after the trigger's end.
    NoWindow,
}

impl Verdict {
    /// `recovered`, `stuck` or `no-window` (the CSV's word).
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Recovered { .. } => "recovered",
            Verdict::Stuck => "stuck",
            Verdict::NoWindow => "no-window",
        }
    }

    /// The recovery time, ms, when it recovered.
    pub fn after_ms(self) -> Option<u64> {
        match self {
            Verdict::Recovered { after_ms } => Some(after_ms),
            _ => None,
        }
    }
}

/// Where the windows are and what healthy means.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Rule {
    /// Window width, ms.
    pub window_ms: f64,
    /// Run length, ms (the last window may be shorter).
    pub run_ms: f64,
    /// The trigger's end, ms.
    pub end_ms: f64,
    /// Goodput a healthy window reaches, rps.
    pub healthy_rps: f64,
}

impl Rule {
    /// Index of the first window starting at or after the trigger's end.
    pub fn first_after(&self) -> usize {
        (self.end_ms / self.window_ms).ceil().max(0.0) as usize
    }

    /// Window `i`'s goodput, rps (over its real span: the last may be short).
    pub fn goodput_rps(&self, ticks: &[Window], i: usize) -> f64 {
        let start = i as f64 * self.window_ms;
        let span = self.window_ms.min(self.run_ms - start);
        match ticks.get(i) {
            Some(t) if span > 0.0 => t.ok as f64 * 1000.0 / span,
            _ => 0.0,
        }
    }

    /// Whether window `i` is healthy: goodput at least `healthy_rps`, or no
    /// try in it failed.
    pub fn healthy(&self, ticks: &[Window], i: usize) -> bool {
        let failed = ticks.get(i).is_some_and(|t| t.late + t.refused + t.throttled > 0);
        !failed || self.goodput_rps(ticks, i) >= self.healthy_rps
    }

    /// The verdict on `ticks`.
    pub fn verdict(&self, ticks: &[Window]) -> Verdict {
        let k0 = self.first_after();
        if k0 >= ticks.len() {
            return Verdict::NoWindow;
        }
        let last_bad = (k0..ticks.len()).rev().find(|&i| !self.healthy(ticks, i));
        let from = match last_bad {
            None => k0,
            Some(j) if j + 1 == ticks.len() => return Verdict::Stuck,
            Some(j) => j + 1,
        };
        let start = from as f64 * self.window_ms;
        Verdict::Recovered { after_ms: (start - self.end_ms).max(0.0).round() as u64 }
    }

    /// Windows wholly inside `[end, end + for_ms)`: their indices, `None`
    /// when the run ends before `end + for_ms`.
    fn whole_within(&self, ticks: &[Window], for_ms: f64) -> Option<std::ops::Range<usize>> {
        if self.end_ms + for_ms > self.run_ms {
            return None;
        }
        let k0 = self.first_after();
        let k1 = ((self.end_ms + for_ms) / self.window_ms).floor() as usize;
        Some(k0..k1.min(ticks.len()).max(k0))
    }

    /// "naive retries": goodput below `share` × capacity in every whole
    /// window of the `for_ms` after the trigger's end (and there is one).
    pub fn collapsed_for(&self, ticks: &[Window], capacity_rps: f64, share: f64, for_ms: f64) -> bool {
        self.whole_within(ticks, for_ms)
            .is_some_and(|r| !r.is_empty() && r.clone().all(|i| self.goodput_rps(ticks, i) < share * capacity_rps))
    }

    /// "budget recovers": some whole window of the `within_ms` after the
    /// trigger's end has goodput at or above `share` × capacity.
    pub fn back_within(&self, ticks: &[Window], capacity_rps: f64, share: f64, within_ms: f64) -> bool {
        self.whole_within(ticks, within_ms)
            .is_some_and(|mut r| r.any(|i| self.goodput_rps(ticks, i) >= share * capacity_rps))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Windows with these answers, each with some work served for nobody.
    fn ok(counts: &[u64]) -> Vec<Window> {
        counts.iter().map(|&ok| Window { ok, late: 3, ..Window::default() }).collect()
    }

    /// 1 s windows, a 10 s run, trigger ending at 4 s, healthy at 20 rps.
    const R: Rule = Rule { window_ms: 1000.0, run_ms: 10_000.0, end_ms: 4000.0, healthy_rps: 20.0 };

    #[test]
    fn recovery_is_the_start_of_the_last_healthy_stretch() {
        // Windows 4, 5 collapsed; 6 on: healthy. Recovery 2000 ms after the end.
        let t = ok(&[40, 40, 40, 0, 0, 3, 45, 40, 38, 41]);
        assert_eq!(R.verdict(&t), Verdict::Recovered { after_ms: 2000 });
        // A dip late in the run moves the recovery to after it.
        let t = ok(&[40, 40, 40, 0, 0, 3, 45, 10, 38, 41]);
        assert_eq!(R.verdict(&t), Verdict::Recovered { after_ms: 4000 });
        // Healthy right away: 0.
        assert_eq!(R.verdict(&ok(&[40; 10])), Verdict::Recovered { after_ms: 0 });
        // A threshold hit exactly is healthy.
        assert_eq!(R.verdict(&ok(&[0, 0, 0, 0, 20, 20, 20, 20, 20, 20])), Verdict::Recovered { after_ms: 0 });
    }

    #[test]
    fn a_bad_last_window_is_stuck_and_a_late_trigger_has_no_window() {
        assert_eq!(R.verdict(&ok(&[40, 40, 40, 0, 0, 0, 45, 40, 38, 19])), Verdict::Stuck);
        assert_eq!(R.verdict(&ok(&[40, 40, 40, 0, 0, 0, 0, 0, 0, 0])), Verdict::Stuck);
        let late = Rule { end_ms: 9500.0, ..R };
        assert_eq!(late.verdict(&ok(&[40; 10])), Verdict::NoWindow);
        // A trigger ending mid-window: the first window after it starts at 5 s.
        let mid = Rule { end_ms: 4200.0, ..R };
        assert_eq!(mid.verdict(&ok(&[40, 40, 40, 0, 0, 40, 40, 40, 40, 40])), Verdict::Recovered { after_ms: 800 });
    }

    #[test]
    fn few_answers_without_failures_are_healthy() {
        // Nobody came after the trigger: nothing failed, nothing is stuck.
        let quiet = vec![Window::default(); 10];
        assert_eq!(R.verdict(&quiet), Verdict::Recovered { after_ms: 0 });
        // One failure in the last window makes its low goodput count.
        let mut t = quiet.clone();
        t[9].refused = 1;
        assert_eq!(R.verdict(&t), Verdict::Stuck);
        t[9].refused = 0;
        t[9].throttled = 1;
        assert_eq!(R.verdict(&t), Verdict::Stuck);
    }

    #[test]
    fn a_short_last_window_is_read_as_a_rate() {
        // 9.5 s run: the last window spans 500 ms; 12 answers there are 24 rps.
        let r = Rule { run_ms: 9500.0, ..R };
        assert_eq!(r.goodput_rps(&ok(&[0, 0, 0, 0, 0, 0, 0, 0, 0, 12]), 9), 24.0);
        assert_eq!(r.verdict(&ok(&[0, 0, 0, 0, 0, 0, 0, 0, 0, 12])), Verdict::Recovered { after_ms: 5000 });
    }

    #[test]
    fn preset_predicates_read_whole_windows() {
        // Capacity 50 rps: collapsed = below 10, back = at least 40.
        let long = Rule { run_ms: 20_000.0, ..R };
        let mut c = vec![45; 20];
        c[4..14].iter_mut().for_each(|x| *x = 9);
        assert!(long.collapsed_for(&ok(&c), 50.0, 0.2, 10_000.0));
        c[13] = 10;
        assert!(!long.collapsed_for(&ok(&c), 50.0, 0.2, 10_000.0), "10 is not below 20 % of 50");
        // The run must last 10 s past the end.
        assert!(!R.collapsed_for(&ok(&[0; 10]), 50.0, 0.2, 10_000.0));
        // Back within 5 s: windows 4..9 (start 4 s, the last ending at 9 s).
        let mut b = vec![0; 10];
        b[8] = 40;
        assert!(R.back_within(&ok(&b), 50.0, 0.8, 5000.0));
        b[8] = 39;
        b[9] = 50;
        assert!(!R.back_within(&ok(&b), 50.0, 0.8, 5000.0), "window 9 ends after 9 s");
    }
}
