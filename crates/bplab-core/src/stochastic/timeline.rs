//! Per-window counts of one run, for timelines: what the callers offered
//! (first tries, retries, local rejections), what the door did (refusals,
//! sheds), what came back (goodput, late work), how full the server was,
//! the door's limit and the p99 of the answers.

use serde::Serialize;

use crate::numerics::percentile_of_values;

/// One window `[i × width, (i + 1) × width)` of a run. Counts are by the
/// time of the event named on the field.
#[derive(Clone, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct Window {
    /// First tries the callers made (sent or rejected locally), by send time.
    pub first_tries: u64,
    /// Retries the callers made (sent or rejected locally), by send time.
    pub retries: u64,
    /// Tries rejected locally by adaptive throttling, by send time.
    pub throttled: u64,
    /// Refused at the door or shed by CoDel, by decision time.
    pub refused: u64,
    /// Answers within the client timeout (goodput), by completion time.
    pub ok: u64,
    /// Served after the caller left (wasted work), by completion time.
    pub late: u64,
    /// Left the line unserved when their caller gave up, by that time.
    pub dropped: u64,
    /// Time-average requests in the system (waiting + in service) over the
    /// window.
    pub in_flight_mean: f64,
    /// Most requests in the system right after any arrival or completion in
    /// the window (0 in a window without one).
    pub in_flight_max: u32,
    /// The door's limit after the window's last arrival or completion
    /// ([`super::Door::limit`]); a window without one carries the previous
    /// window's.
    pub limit: i32,
    /// p99 of the answered latencies completed in the window, whole ms
    /// (latencies rounded half away from zero); `None` without answers.
    pub p99_ms: Option<u64>,
}

/// The timeline while the run goes on.
#[derive(Clone, Debug)]
pub(crate) struct Recorder {
    width_ms: f64,
    pub windows: Vec<Window>,
    touched: Vec<bool>,
    /// The times `[lo, hi)` of the window last asked for, and its index.
    memo: (f64, f64, usize),
    /// The window the areas have reached, and its end.
    cursor: (usize, f64),
    /// Every on-time answer's latency (whole ms) in completion order, which
    /// is time order: so window `i`'s answers are the `windows[i].ok` after
    /// those of the windows before it, and the answers before `split_ms` are
    /// the first `before`.
    answers: Vec<u64>,
    split_ms: f64,
    before: usize,
    /// The run window's end: an event at or after it (the drain of what was
    /// admitted) counts in no window, even where the last window is cut
    /// short by it (M1).
    end_ms: f64,
    /// Answers at or after `end_ms`: the last ones in `answers`.
    drained: usize,
}

impl Recorder {
    /// `ceil(window / width)` windows (at least 1).
    /// Answered latencies are also kept in two lists, split at `split_ms`.
    /// Its callers ask in time order (the engine's events leave in it).
    pub fn new(window_ms: f64, width_ms: f64, split_ms: f64) -> Self {
        let n = (window_ms / width_ms).ceil().clamp(1.0, super::model::MAX_WINDOWS) as usize;
        Recorder {
            width_ms,
            windows: vec![Window::default(); n],
            touched: vec![false; n],
            memo: (f64::INFINITY, f64::NEG_INFINITY, 0),
            cursor: (0, width_ms),
            answers: Vec::new(),
            split_ms,
            before: 0,
            end_ms: window_ms,
            drained: 0,
        }
    }

    /// The index of the window of time `t` (`>= 0`; engine times are):
    /// `floor(t / width)`, by a truncating cast (equal for `t >= 0`, and
    /// much cheaper than `floor`, a libm call on baseline x86-64). The
    /// engine asks in time order, so the answer is kept with the exact
    /// range of times that divide to it, and a division is paid only when
    /// `t` leaves that range. The engine finds it once per event, and every
    /// count of the event goes to that window (the `*_in` calls).
    #[inline(always)]
    pub fn index(&mut self, t: f64) -> usize {
        let (lo, hi, i) = self.memo;
        if lo <= t && t < hi {
            return i;
        }
        self.seek(t)
    }

    /// [`Self::index`] outside the kept range: the next window's (the usual
    /// case: time went on), else a division; then the range's exact ends.
    #[inline(never)]
    fn seek(&mut self, t: f64) -> usize {
        if t >= self.end_ms {
            // Past the run: no window (`windows.len()` is out of range).
            self.memo = (self.end_ms, f64::INFINITY, self.windows.len());
            return self.windows.len();
        }
        let (lo, hi, i) = self.memo;
        let next = (t >= hi && lo <= hi).then(|| i.checked_add(2).and_then(|j| self.edge(j))).flatten();
        self.memo = match next {
            Some(end) if t < end => (hi, end.min(self.end_ms), i + 1),
            _ => {
                let i = (t / self.width_ms) as usize;
                match (self.edge(i), i.checked_add(1).and_then(|j| self.edge(j))) {
                    (Some(lo), Some(hi)) => (lo, hi.min(self.end_ms), i),
                    _ => (f64::INFINITY, f64::NEG_INFINITY, i), // an empty range: always divide
                }
            }
        };
        self.memo.2
    }

    /// The least time `t >= 0` with `(t / width) as usize >= i`: a few ulps
    /// from `i × width` (the division is monotone in `t`). `None` if a few
    /// steps do not find it.
    fn edge(&self, i: usize) -> Option<f64> {
        let w = self.width_ms;
        let at_least = |t: f64| (t / w) as usize >= i;
        let mut e = i as f64 * w;
        if !e.is_finite() {
            return None;
        }
        for _ in 0..8 {
            if !at_least(e) {
                e = e.next_up();
            } else if e > 0.0 && at_least(e.next_down()) {
                e = e.next_down();
            } else {
                return Some(e);
            }
        }
        None
    }

    /// Window `i`, if inside the timeline.
    #[inline(always)]
    pub fn window_mut(&mut self, i: usize) -> Option<&mut Window> {
        self.windows.get_mut(i)
    }

    /// The window of time `t`, if inside the timeline.
    #[cfg(test)]
    pub fn at(&mut self, t: f64) -> Option<&mut Window> {
        let i = self.index(t);
        self.windows.get_mut(i)
    }

    /// After an arrival or a completion at `t`: the limit and the peak.
    #[cfg(test)]
    pub fn note(&mut self, t: f64, limit: i32, in_system: u64) {
        let i = self.index(t);
        self.note_in(i, limit, in_system);
    }

    /// [`Self::note`] in window `i` (the window of the time noted).
    #[inline]
    pub fn note_in(&mut self, i: usize, limit: i32, in_system: u64) {
        if let Some(w) = self.windows.get_mut(i) {
            w.limit = limit;
            w.in_flight_max = w.in_flight_max.max(u32::try_from(in_system).unwrap_or(u32::MAX));
            if let Some(t) = self.touched.get_mut(i) {
                *t = true;
            }
        }
    }

    /// An on-time answer at `t` after `latency_ms` (also after the
    /// timeline's end: the split lists keep every answer).
    #[cfg(test)]
    pub fn answer(&mut self, t: f64, latency_ms: f64) {
        let i = self.index(t);
        self.answer_in(t, i, latency_ms);
    }

    /// [`Self::answer`] in window `i` (the window of `t`).
    #[inline]
    pub fn answer_in(&mut self, t: f64, i: usize, latency_ms: f64) {
        // The cast saturates: a negative (or NaN) latency is 0 ms.
        let ms = libm::round(latency_ms) as u64;
        if t < self.split_ms {
            self.before += 1;
        }
        if t >= self.end_ms {
            self.drained += 1;
        }
        self.answers.push(ms);
        if let Some(w) = self.windows.get_mut(i) {
            w.ok += 1;
        }
    }

    /// Adds `count × (to − from)` to the windows `[from, to)` overlaps.
    /// Calls come in time order (`from` = the previous call's `to`), so a
    /// cursor walks the window edges without dividing.
    #[inline]
    pub fn area(&mut self, from: f64, to: f64, count: u64) {
        let c = count as f64;
        let mut t = from;
        while to > self.cursor.1 {
            if let Some(w) = self.windows.get_mut(self.cursor.0) {
                w.in_flight_mean += c * (self.cursor.1 - t);
            }
            t = self.cursor.1;
            self.cursor.0 += 1;
            self.cursor.1 = (self.cursor.0 + 1) as f64 * self.width_ms;
        }
        if let Some(w) = self.windows.get_mut(self.cursor.0) {
            w.in_flight_mean += c * (to - t);
        }
    }

    /// How many answers came at or after the run window's end (the last
    /// ones of the split answer lists).
    pub fn drained(&self) -> usize {
        self.drained
    }

    /// The finished timeline (areas become means, untouched windows carry
    /// the limit, latencies become p99s) and the split answer lists.
    pub fn finish(mut self, window_ms: f64) -> (Vec<Window>, Vec<u64>, Vec<u64>) {
        let n = self.windows.len();
        let mut last = self.windows.first().map_or(0, |w| w.limit);
        let (mut from, mut scratch) = (0usize, Vec::new());
        for (i, w) in self.windows.iter_mut().enumerate() {
            if !self.touched.get(i).copied().unwrap_or(false) {
                w.limit = last;
            }
            last = w.limit;
            let to = from.saturating_add(usize::try_from(w.ok).unwrap_or(usize::MAX));
            if let Some(lat) = self.answers.get(from..to).filter(|l| !l.is_empty()) {
                // The p99 of a window's answers (a copy: the selection reorders it).
                scratch.clear();
                scratch.extend_from_slice(lat);
                w.p99_ms = Some(percentile_of_values(&mut scratch, 99.0));
            }
            from = to;
            let start = i as f64 * self.width_ms;
            let span = if i + 1 == n { window_ms - start } else { self.width_ms };
            if span > 0.0 {
                w.in_flight_mean /= span;
            }
        }
        let after = self.answers.split_off(self.before.min(self.answers.len()));
        (self.windows, self.answers, after)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn areas_split_at_window_edges_and_the_last_window_is_short() {
        let mut r = Recorder::new(250.0, 100.0, 125.0);
        r.area(0.0, 50.0, 0);
        r.area(50.0, 230.0, 2); // 50 ms in w0, 100 in w1, 30 in w2 (of 50)
        r.area(230.0, 250.0, 0);
        r.note(120.0, 7, 3);
        r.answer(120.0, 10.4);
        r.answer(130.0, 10.5);
        let (w, before, after) = r.finish(250.0);
        assert_eq!((before, after), (vec![10], vec![11]));
        assert_eq!(w.len(), 3);
        let means: Vec<f64> = w.iter().map(|w| w.in_flight_mean).collect();
        assert_eq!(means, [1.0, 2.0, 1.2]);
        // w0 untouched: limit 0 (nothing before it); w2 carries w1's.
        assert_eq!(w.iter().map(|w| w.limit).collect::<Vec<_>>(), [0, 7, 7]);
        assert_eq!((w[1].in_flight_max, w[1].ok, w[1].p99_ms), (3, 2, Some(11)));
        assert!(r_out_of_range_is_ignored());
    }

    #[test]
    fn an_answer_after_the_run_s_end_counts_in_no_window() {
        // Run 250 ms, windows of 100: the last window is [200, 250), not [200, 300).
        let mut r = Recorder::new(250.0, 100.0, f64::INFINITY);
        r.answer(240.0, 10.0);
        r.answer(260.0, 30.0); // the drain: after the run
        r.note(270.0, 9, 5);
        assert_eq!(r.drained(), 1);
        let (w, before, _) = r.finish(250.0);
        assert_eq!((w[2].ok, w[2].p99_ms, w[2].in_flight_max), (1, Some(10), 0));
        // The split lists keep every answer.
        assert_eq!(before, vec![10, 30]);
    }

    proptest::proptest! {
        /// The kept range gives the division's window for times in order,
        /// near edges too (widths whose multiples round), and after a jump back.
        #[test]
        fn the_cursor_gives_the_divisions_window(
            width in proptest::prop_oneof![0.001f64..10.0, proptest::strategy::Just(0.1), proptest::strategy::Just(1.0 / 3.0)],
            steps in proptest::collection::vec((0u32..40, -2i32..3), 1..200),
        ) {
            // Windows enough for every step (40 × 200 at the most): the run's end is past them.
            let mut r = Recorder::new(width * 10_000.0, width, f64::INFINITY);
            let mut t: f64 = 0.0;
            for (k, ulps) in steps {
                // Near the edge `k` windows on, give or take a few ulps.
                let mut u = (((t / width) as usize + k as usize) as f64 * width).max(t);
                for _ in 0..ulps.unsigned_abs() {
                    u = if ulps < 0 { u.next_down().max(t) } else { u.next_up() };
                }
                t = u;
                proptest::prop_assert_eq!(r.index(t), (t / width) as usize, "t = {}", t);
            }
            proptest::prop_assert_eq!(r.index(0.0), 0);
        }
    }

    fn r_out_of_range_is_ignored() -> bool {
        let mut r = Recorder::new(100.0, 100.0, f64::INFINITY);
        r.note(100.0, 1, 1);
        r.answer(1e9, 1.0);
        r.area(0.0, 100.0, 1);
        r.at(1e9).is_none() && r.finish(100.0).0[0] == Window { in_flight_mean: 1.0, ..Window::default() }
    }
}
