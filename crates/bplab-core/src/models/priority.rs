//! Post 5: a bounded system with dequeue expiry whose door is either blind
//! to request class or lets critical arrivals evict queued background work.

use serde::{Deserialize, Serialize};

use super::queue_loop::{Outcomes, QueueLoop};
use super::{DoorPolicy, Pick, success_pct};
use crate::numerics::{JavaRandom, LatencyHistogram};
use crate::statement::Req;

/// Seed of the reference classifier (`new java.util.Random(23)` per run).
pub const CLASSIFIER_SEED: i64 = 23;
/// Critical success target of the SLO, %.
pub const SLO_TARGET_PCT: f64 = 99.0;

/// The door policy under comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ClassPolicy {
    /// Reject any arrival when full.
    Blind,
    /// A critical arrival evicts the newest queued background request.
    Priority,
}

impl ClassPolicy {
    /// Both policies in CSV order.
    pub const ALL: [ClassPolicy; 2] = [ClassPolicy::Blind, ClassPolicy::Priority];

    /// CSV label.
    pub fn label(self) -> &'static str {
        match self {
            ClassPolicy::Blind => "blind",
            ClassPolicy::Priority => "priority",
        }
    }
}

/// Settings of one priority run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct PrioritySettings {
    /// Fixed service time, ms.
    pub service_ms: u32,
    /// Client deadline, ms; arrivals after `duration - deadline` are not scored.
    pub deadline_ms: u32,
    /// Run window, ms (> deadline).
    pub duration_ms: u32,
    /// Door bound B, requests in the system.
    pub bound: u32,
    /// Share of arrivals classified critical, in (0, 1).
    pub critical_share: f64,
}

/// Per-class outcome over the scored arrivals.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct ClassOutcome {
    /// Scored arrivals of the class.
    pub arrivals: u64,
    /// Of those, completed within the deadline.
    pub ok: u64,
    /// p99 of their sojourns, ms.
    pub p99_ms: u64,
}

/// What one priority run produced.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct PriorityOutcome {
    /// Policy.
    pub policy: ClassPolicy,
    /// Critical class.
    pub critical: ClassOutcome,
    /// Background class.
    pub background: ClassOutcome,
    /// `max(1, T − D) / 1000`: the scoring window, s.
    pub scoring_secs: f64,
    /// All arrivals generated (scored or not).
    pub arrivals: u64,
    /// Served (every served request met the deadline: the door expires the rest).
    pub served: u64,
    /// Refused at the door, evicted, or expired at dequeue.
    pub shed: u64,
    /// Still waiting when the window closed (the model does not drain).
    pub unresolved: u64,
    /// Arrivals whose outcome was reported more than once (always 0).
    pub double_reported: u64,
    /// Per window of `window_ms` by arrival time: (critical %, background %).
    pub window_success_pct: Vec<(f64, f64)>,
}

impl PriorityOutcome {
    /// Scored arrivals per second of the scoring window.
    pub fn offered_rps(&self) -> f64 {
        (self.critical.arrivals + self.background.arrivals) as f64 / self.scoring_secs
    }
    /// Scored critical arrivals per second.
    pub fn critical_offered_rps(&self) -> f64 {
        self.critical.arrivals as f64 / self.scoring_secs
    }
    /// Critical success, % (100 when no critical arrivals).
    pub fn critical_success_pct(&self) -> f64 {
        success_pct(self.critical.ok, self.critical.arrivals)
    }
    /// Background success, % (100 when no background arrivals).
    pub fn background_success_pct(&self) -> f64 {
        success_pct(self.background.ok, self.background.arrivals)
    }
    /// Whether critical success meets the 99 % SLO.
    pub fn slo_met(&self) -> bool {
        self.critical_success_pct() >= SLO_TARGET_PCT
    }
    /// All scored successes per second of the scoring window.
    pub fn total_goodput_rps(&self) -> f64 {
        (self.critical.ok + self.background.ok) as f64 / self.scoring_secs
    }
}

struct Marks<'a> {
    critical: &'a [bool],
    scored: usize,
    ok: Vec<bool>,
    hist: [LatencyHistogram; 2],
    /// Per arrival: how many outcomes were reported (must end 0 or 1).
    reports: Vec<u8>,
    served: u64,
    shed: u64,
}

impl Marks<'_> {
    fn report(&mut self, i: usize) {
        if let Some(r) = self.reports.get_mut(i) {
            *r = r.saturating_add(1);
        }
    }
}

impl Outcomes for Marks<'_> {
    fn shed(&mut self, i: usize, _wait_ms: f64) {
        self.shed += 1;
        self.report(i);
    }

    fn served(&mut self, i: usize, _finish_ms: f64, sojourn_ms: f64) {
        self.served += 1;
        self.report(i);
        self.ok[i] = true;
        if i < self.scored {
            self.hist[usize::from(!self.critical[i])].record_ms(sojourn_ms);
        }
    }
}

/// Classifies `n` arrivals: `i` is critical iff the i-th `nextDouble()` of a
/// fresh `java.util.Random(23)` is below `share`.
pub fn classify(n: usize, share: f64) -> Vec<bool> {
    let mut r = JavaRandom::new(CLASSIFIER_SEED);
    (0..n).map(|_| r.next_double() < share).collect()
}

/// Forwards every outcome to the marks and logs it as a request record.
struct Logged<'a, 'b, F> {
    marks: Marks<'b>,
    arrivals: &'a [f64],
    service_ms: f64,
    deadline_ms: f64,
    log: &'a mut F,
}

impl<F: FnMut(Req)> Logged<'_, '_, F> {
    fn record(&self, i: usize, r: Req) -> Req {
        Req { critical: self.marks.critical.get(i).copied().unwrap_or(false), scored: i < self.marks.scored, ..r }
    }
}

impl<F: FnMut(Req)> Outcomes for Logged<'_, '_, F> {
    fn shed(&mut self, i: usize, wait_ms: f64) {
        self.marks.shed(i, wait_ms);
        let r = self.record(i, Req::dropped(self.arrivals.get(i).copied().unwrap_or(0.0), self.deadline_ms, 0));
        (self.log)(r);
    }

    fn refused(&mut self, i: usize) {
        self.marks.refused(i);
        let r = self.record(i, Req::refused(self.arrivals.get(i).copied().unwrap_or(0.0), self.deadline_ms, 0));
        (self.log)(r);
    }

    fn served(&mut self, i: usize, finish_ms: f64, sojourn_ms: f64) {
        self.marks.served(i, finish_ms, sojourn_ms);
        let t = self.arrivals.get(i).copied().unwrap_or(0.0);
        let r = Req::answered(t, finish_ms - self.service_ms, finish_ms, sojourn_ms, self.deadline_ms);
        let r = self.record(i, r);
        (self.log)(r);
    }
}

/// Runs `policy` over `arrivals`; with `windows > 0`, also per-window success
/// by arrival window `floor(t / window_ms)`.
pub fn run(
    s: &PrioritySettings,
    arrivals: &[f64],
    policy: ClassPolicy,
    window_ms: u32,
    windows: usize,
) -> PriorityOutcome {
    run_logged(s, arrivals, policy, window_ms, windows, &mut |_| {})
}

/// [`run`], handing every request's record (class and scoring included) to
/// `log` as the loop resolves it, and each arrival left unresolved when the
/// model stops as never answered (the statement checker's evidence; the
/// outcome is the same).
pub fn run_logged(
    s: &PrioritySettings,
    arrivals: &[f64],
    policy: ClassPolicy,
    window_ms: u32,
    windows: usize,
    log: &mut impl FnMut(Req),
) -> PriorityOutcome {
    let critical = classify(arrivals.len(), s.critical_share);
    let cutoff = f64::from(s.duration_ms.saturating_sub(s.deadline_ms));
    let scored = arrivals.partition_point(|&t| t <= cutoff);
    let bound = s.bound as usize;
    let lp = QueueLoop {
        arrivals,
        service_ms: f64::from(s.service_ms),
        deadline_ms: f64::from(s.deadline_ms),
        window_ms: f64::from(s.duration_ms),
        pick: Pick::Oldest,
        expiry: true,
        door: match policy {
            ClassPolicy::Blind => DoorPolicy::Bounded(bound),
            ClassPolicy::Priority => DoorPolicy::Priority(bound),
        },
        critical: &critical,
        drain_after: false,
    };
    let m = Marks {
        critical: &critical,
        scored,
        ok: vec![false; arrivals.len()],
        hist: Default::default(),
        reports: vec![0; arrivals.len()],
        served: 0,
        shed: 0,
    };
    let mut logged = Logged {
        marks: m,
        arrivals,
        service_ms: f64::from(s.service_ms),
        deadline_ms: f64::from(s.deadline_ms),
        log: &mut *log,
    };
    lp.run(&mut logged);
    let m = logged.marks;
    for (i, _) in m.reports.iter().enumerate().filter(|(_, r)| **r == 0) {
        let t = arrivals.get(i).copied().unwrap_or(0.0);
        log(Req { critical: critical[i], scored: i < scored, ..Req::dropped(t, f64::from(s.deadline_ms), 0) });
    }

    let mut classes = [(0u64, 0u64); 2];
    let w = f64::from(window_ms.max(1));
    let mut per_window = vec![[(0u64, 0u64); 2]; windows];
    for i in 0..scored {
        let c = usize::from(!critical[i]);
        classes[c].0 += 1;
        classes[c].1 += u64::from(m.ok[i]);
        let wi = (arrivals[i] / w).floor() as usize;
        if let Some(cell) = per_window.get_mut(wi) {
            cell[c].0 += 1;
            cell[c].1 += u64::from(m.ok[i]);
        }
    }
    let class = |c: usize| ClassOutcome {
        arrivals: classes[c].0,
        ok: classes[c].1,
        p99_ms: m.hist[c].value_at_percentile(99.0),
    };
    PriorityOutcome {
        policy,
        critical: class(0),
        background: class(1),
        scoring_secs: f64::from(s.duration_ms.saturating_sub(s.deadline_ms).max(1)) / 1000.0,
        arrivals: arrivals.len() as u64,
        served: m.served,
        shed: m.shed,
        unresolved: m.reports.iter().filter(|&&r| r == 0).count() as u64,
        double_reported: m.reports.iter().filter(|&&r| r > 1).count() as u64,
        window_success_pct: per_window
            .iter()
            .map(|[cr, bg]| (success_pct(cr.1, cr.0), success_pct(bg.1, bg.0)))
            .collect(),
    }
}
