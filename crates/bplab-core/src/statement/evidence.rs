//! Per-request evidence: what happened to every request of a run, logged by
//! the model as it visits the request, and every quantity of the vocabulary
//! computed from those records by code that never reads the model's summary
//! (its counters, percentages and histograms).

use serde::Serialize;

use super::quantity::{Count, Quantity, Rule, Time};

/// One request as the model handled it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Req {
    /// When it arrived, ms.
    pub arrival_ms: f64,
    /// Whether the door let it in.
    pub admitted: bool,
    /// When a gate released it to the server, ms (`None`: at arrival).
    pub release_ms: Option<f64>,
    /// When its service started, ms (`None`: never started).
    pub start_ms: Option<f64>,
    /// When its service ended, ms (`None`: never answered).
    pub end_ms: Option<f64>,
    /// Its time in the system as the model judges it against the deadline
    /// (`None`: never answered).
    pub in_system_ms: Option<f64>,
    /// The caller's deadline on the time in the system, ms.
    pub deadline_ms: f64,
    /// 0 for a first try, n for the n-th retry.
    pub attempt: u32,
    /// Classified critical (the priority model; `false` elsewhere).
    pub critical: bool,
    /// Counted in the class success shares (arrived early enough for a full
    /// deadline inside the window; `true` elsewhere).
    pub scored: bool,
    /// Sent to the server (`false`: the caller's adaptive throttling
    /// rejected the try locally; such a try is in no set but
    /// [`Count::Throttled`]).
    pub sent: bool,
}

impl Req {
    /// A refused arrival.
    pub fn refused(arrival_ms: f64, deadline_ms: f64, attempt: u32) -> Req {
        Req {
            arrival_ms,
            admitted: false,
            release_ms: None,
            start_ms: None,
            end_ms: None,
            in_system_ms: None,
            deadline_ms,
            attempt,
            critical: false,
            scored: true,
            sent: true,
        }
    }

    /// A try the caller's throttling rejected locally at `send_ms`.
    pub fn throttled(send_ms: f64, deadline_ms: f64, attempt: u32) -> Req {
        Req { sent: false, ..Req::refused(send_ms, deadline_ms, attempt) }
    }

    /// An admitted request that was never answered.
    pub fn dropped(arrival_ms: f64, deadline_ms: f64, attempt: u32) -> Req {
        Req { admitted: true, ..Req::refused(arrival_ms, deadline_ms, attempt) }
    }

    /// An answered request.
    pub fn answered(arrival_ms: f64, start_ms: f64, end_ms: f64, in_system_ms: f64, deadline_ms: f64) -> Req {
        Req {
            arrival_ms,
            admitted: true,
            release_ms: None,
            start_ms: Some(start_ms),
            end_ms: Some(end_ms),
            in_system_ms: Some(in_system_ms),
            deadline_ms,
            attempt: 0,
            critical: false,
            scored: true,
            sent: true,
        }
    }

    /// When what happened to it happened: its answer's end, else the time a
    /// worker took it off the line to shed it, else its arrival (a refusal,
    /// a local rejection).
    pub fn event_ms(&self) -> f64 {
        self.end_ms.or(self.start_ms).unwrap_or(self.arrival_ms)
    }

    fn is(&self, c: Count) -> bool {
        if !self.sent {
            return c == Count::Throttled;
        }
        let answered = self.in_system_ms.is_some();
        let on_time = self.in_system_ms.is_some_and(|t| t <= self.deadline_ms);
        match c {
            Count::Arrivals => true,
            Count::Admitted => self.admitted,
            Count::Refused => !self.admitted,
            Count::Answered => answered,
            Count::OnTime => on_time,
            Count::Late => answered && !on_time,
            Count::Dropped => self.admitted && !answered,
            Count::FirstTries => self.attempt == 0,
            Count::Shed => !answered,
            Count::ScoredCritical => self.scored && self.critical,
            Count::CriticalServed => self.scored && self.critical && answered,
            Count::ScoredBackground => self.scored && !self.critical,
            Count::BackgroundServed => self.scored && !self.critical && answered,
            Count::Throttled => false,
        }
    }

    fn time(&self, t: Time) -> Option<f64> {
        match t {
            Time::InSystem => self.in_system_ms,
            Time::QueueWait => self.start_ms.map(|s| s - self.arrival_ms),
            Time::GateDelay => self.start_ms.map(|_| self.release_ms.unwrap_or(self.arrival_ms) - self.arrival_ms),
            Time::ServerWait => self.start_ms.map(|s| s - self.release_ms.unwrap_or(self.arrival_ms)),
        }
    }
}

/// The records of one model run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RunLog {
    /// The run's key, as statements name it (`"sweep/40"`).
    pub key: String,
    /// The window rates divide by, ms.
    pub window_ms: f64,
    /// Every request, in arrival order.
    pub reqs: Vec<Req>,
    /// The key of the whole run this log is one phase of (`None`: it is a
    /// whole run). Which first tries a run saw is read from the whole run.
    pub part_of: Option<String>,
}

impl RunLog {
    /// A log with no requests yet.
    pub fn new(key: impl Into<String>, window_ms: f64) -> RunLog {
        RunLog { key: key.into(), window_ms, reqs: Vec::new(), part_of: None }
    }

    fn count(&self, c: Count) -> u64 {
        self.reqs.iter().filter(|r| r.is(c)).count() as u64
    }

    /// The quantity's value on this run, from the records alone.
    pub fn eval(&self, q: &Quantity) -> f64 {
        match q.rule {
            Rule::Count(c) => self.count(c) as f64,
            Rule::PerSecond(c) => self.count(c) as f64 / (self.window_ms / 1000.0),
            Rule::Share(num, den) => {
                let d = self.count(den);
                if d == 0 { 0.0 } else { 100.0 * self.count(num) as f64 / d as f64 }
            }
            Rule::Max(t, c) => self.reqs.iter().filter(|r| r.is(c)).filter_map(|r| r.time(t)).fold(0.0, f64::max),
            Rule::Percentile(t, c, p) => {
                let mut v: Vec<f64> = self.reqs.iter().filter(|r| r.is(c)).filter_map(|r| r.time(t)).collect();
                if v.is_empty() {
                    return 0.0;
                }
                v.sort_by(f64::total_cmp);
                let rank = (f64::from(p) / 100.0 * v.len() as f64).ceil().max(1.0) as usize;
                v[rank.min(v.len()) - 1]
            }
            Rule::WholeMs(t, c, p) => {
                let mut v: Vec<u64> =
                    self.reqs.iter().filter(|r| r.is(c)).filter_map(|r| r.time(t)).map(whole_ms).collect();
                if v.is_empty() { 0.0 } else { crate::numerics::percentile_of_values(&mut v, f64::from(p)) as f64 }
            }
            Rule::Ratio(num, den) => {
                let d = self.count(den);
                if d == 0 { 0.0 } else { self.count(num) as f64 / d as f64 }
            }
            Rule::PeakRate => {
                // Releases to the server in the busiest 100 ms window, per second.
                let mut w: Vec<i64> = self
                    .reqs
                    .iter()
                    .filter(|r| r.admitted)
                    .map(|r| libm::floor(r.release_ms.unwrap_or(r.arrival_ms) / 100.0) as i64)
                    .collect();
                w.sort_unstable();
                let (mut best, mut run) = (0u64, 0u64);
                for (k, x) in w.iter().enumerate() {
                    run = if k > 0 && w[k - 1] == *x { run + 1 } else { 1 };
                    best = best.max(run);
                }
                best as f64 * 10.0
            }
            Rule::Busy => {
                let busy: f64 = self.reqs.iter().filter_map(|r| Some(r.end_ms? - r.start_ms?)).sum();
                if self.reqs.is_empty() || self.window_ms <= 0.0 {
                    0.0
                } else {
                    (100.0 * busy / self.window_ms).min(100.0)
                }
            }
        }
    }

    /// The part of this run whose events ([`Req::event_ms`]) fall in
    /// `[from, to)`, as its own log (`part_of` this one), its rates divided
    /// by `to − from`.
    pub fn within(&self, key: impl Into<String>, from_ms: f64, to_ms: f64) -> RunLog {
        RunLog {
            reqs: self.reqs.iter().filter(|r| (from_ms..to_ms).contains(&r.event_ms())).copied().collect(),
            part_of: Some(self.key.clone()),
            ..RunLog::new(key, to_ms - from_ms)
        }
    }

    /// The timeline's windows `[i × width, (i + 1) × width)` of run time
    /// inside the log's window, from window `first` on: for each window with
    /// an answer within the deadline (by completion time), its index and the
    /// p99 of those answers' times in the system, each rounded to whole ms.
    pub fn window_p99s(&self, width_ms: f64, first: usize) -> Vec<(usize, u64)> {
        let n = if width_ms > 0.0 { libm::ceil(self.window_ms / width_ms).max(1.0) as usize } else { 0 };
        let mut by: std::collections::BTreeMap<usize, Vec<u64>> = std::collections::BTreeMap::new();
        for r in self.reqs.iter().filter(|r| r.is(Count::OnTime)) {
            let (Some(end), Some(t)) = (r.end_ms, r.in_system_ms) else { continue };
            if end >= self.window_ms || end < 0.0 {
                continue;
            }
            let i = libm::floor(end / width_ms) as usize;
            if (first..n).contains(&i) {
                by.entry(i).or_default().push(whole_ms(t));
            }
        }
        by.into_iter().map(|(i, mut v)| (i, crate::numerics::percentile_of_values(&mut v, 99.0))).collect()
    }

    /// The timeline's windows `[i × width, (i + 1) × width)` of the log's
    /// window (`ceil(window / width)` of them), re-formed from the records by
    /// the time of each event: answers within the deadline and late answers
    /// by completion, refusals by arrival, local rejections and every try
    /// (first or retry, sent or not) by send time. Events at or after the
    /// window's end count in none.
    pub fn timeline(&self, width_ms: f64) -> Vec<crate::stochastic::Window> {
        use crate::stochastic::Window;
        let n = if width_ms > 0.0 {
            libm::ceil(self.window_ms / width_ms).clamp(1.0, crate::stochastic::MAX_WINDOWS) as usize
        } else {
            0
        };
        let mut w = vec![Window::default(); n];
        let slot = |t: f64| (t >= 0.0 && t < self.window_ms).then(|| libm::floor(t / width_ms) as usize);
        for r in &self.reqs {
            if let Some(x) = slot(r.arrival_ms).and_then(|i| w.get_mut(i)) {
                if r.attempt == 0 {
                    x.first_tries += 1;
                } else {
                    x.retries += 1;
                }
                if !r.sent {
                    x.throttled += 1;
                } else if !r.admitted {
                    x.refused += 1;
                }
            }
            // Shed from the line: refused when a worker took it off.
            if let Some(x) = r.start_ms.filter(|_| r.is(Count::Dropped)).and_then(slot).and_then(|i| w.get_mut(i)) {
                x.refused += 1;
            }
            if let Some(x) = r.end_ms.filter(|_| r.sent).and_then(slot).and_then(|i| w.get_mut(i)) {
                if r.is(Count::OnTime) {
                    x.ok += 1;
                } else if r.is(Count::Late) {
                    x.late += 1;
                }
            }
        }
        w
    }

    /// How far a stated value may lie from [`RunLog::eval`]: the lab's
    /// histogram keeps 3 significant digits and whole milliseconds.
    pub fn slack(&self, q: &Quantity, exact: f64) -> (f64, f64) {
        match q.rule {
            Rule::Percentile(..) => (1.0, exact * 0.002 + 1.0),
            _ => (0.0, 0.0),
        }
    }
}

/// A time rounded to whole ms, half away from zero (a negative or NaN
/// time is 0), as the engine's timeline keeps an answer.
pub fn whole_ms(t: f64) -> u64 {
    libm::round(t) as u64
}

/// The logs of every run an explanation talks about.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Logs {
    /// One log per run.
    pub runs: Vec<RunLog>,
}

impl Logs {
    /// The run with this key.
    pub fn get(&self, key: &str) -> Option<&RunLog> {
        self.runs.iter().find(|r| r.key == key)
    }

    /// The whole run the run with this key belongs to (itself, when it is one).
    pub fn whole(&self, key: &str) -> Option<&RunLog> {
        let log = self.get(key)?;
        match &log.part_of {
            Some(k) => self.get(k),
            None => Some(log),
        }
    }
}
