//! What one run produced: every try's times and outcome, the counts, the
//! time-integrals the engine kept and, when asked, the timeline.

use serde::Serialize;

use super::server::Server;
use super::timeline::Window;

/// How one request ended, seen from both sides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Served and answered within the client timeout (or with no timeout):
    /// the load tool's `ok`. Also `done` when it ends by the horizon.
    Ok,
    /// Served, but the answer came after the caller gave up: the load tool
    /// counts it `gaveup`, the server counts it `done` (wasted work).
    Late,
    /// The caller gave up while it waited in the line and it left the line
    /// unserved ([`super::Abandon::Dropped`] only): `gaveup`, never `done`.
    Dropped,
    /// Turned away at arrival by the door (the line was full, or the
    /// limit reached): `refused`.
    Refused,
    /// Taken off the line by a worker and shed by CoDel without being
    /// served: a refusal at dequeue (`refused` for the caller).
    Shed,
    /// Never sent: the caller's adaptive throttling rejected it locally.
    Throttled,
}

impl Outcome {
    /// The caller gave up on it (`Late` or `Dropped`).
    pub fn gave_up(self) -> bool {
        matches!(self, Self::Late | Self::Dropped)
    }

    /// Lower-case name used in CSV: `ok`, `late`, `dropped`, `refused`,
    /// `shed`, `throttled`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Late => "late",
            Self::Dropped => "dropped",
            Self::Refused => "refused",
            Self::Shed => "shed",
            Self::Throttled => "throttled",
        }
    }
}

/// One try of a run (a first try or a retry). Times are ms from the start
/// of the window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Request {
    /// When the caller sent it (its scheduled send time).
    pub arrival_ms: f64,
    /// The base work it carries, ms (drawn even for refused requests, so
    /// request k's service time never depends on what happened before it;
    /// a retry carries its first try's). Under a slowdown the time in
    /// service is `end − start`.
    pub service_ms: f64,
    /// When a worker took it (and, for `Shed`, shed it); `None` if refused,
    /// dropped or throttled.
    pub start_ms: Option<f64>,
    /// When its work finished; `None` if never served.
    pub end_ms: Option<f64>,
    /// How it ended.
    pub outcome: Outcome,
    /// 0 for a first try, k for the k-th retry.
    pub attempt: u32,
}

impl Request {
    /// When its caller stopped waiting: the arrival for a refusal or a
    /// local rejection, the dequeue for a shed, the end for an `ok` answer, the deadline for a give-up (`arrival` when
    /// there is no timeout, which cannot give up).
    pub fn resolved_ms(&self, timeout_ms: Option<f64>) -> f64 {
        match self.outcome {
            Outcome::Refused | Outcome::Throttled => self.arrival_ms,
            Outcome::Shed => self.start_ms.unwrap_or(self.arrival_ms),
            Outcome::Ok => self.end_ms.unwrap_or(self.arrival_ms),
            Outcome::Late | Outcome::Dropped => self.arrival_ms + timeout_ms.unwrap_or(0.0),
        }
    }

    /// End minus arrival for a served request (queueing plus service), ms.
    pub fn sojourn_ms(&self) -> Option<f64> {
        self.end_ms.map(|e| e - self.arrival_ms)
    }

    /// Start minus arrival for a served (or shed) request (time in the
    /// line), ms.
    pub fn wait_ms(&self) -> Option<f64> {
        self.start_ms.map(|s| s - self.arrival_ms)
    }
}

/// What a run's tries came to. Every try is counted once in `first_tries`
/// or `retries`, and ends in exactly one of the six outcomes:
/// `first_tries + retries = throttled + refused + shed + ok + late + dropped`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Tally {
    /// First tries (one per caller).
    pub first_tries: u64,
    /// Retries sent by callers (each after a refusal, a shed or a give-up).
    pub retries: u64,
    /// Tries rejected locally by adaptive throttling (never sent).
    pub throttled: u64,
    /// Refused at the door on arrival.
    pub refused: u64,
    /// Shed by CoDel at dequeue.
    pub shed: u64,
    /// Answered within the client timeout.
    pub ok: u64,
    /// Served after the caller gave up (wasted work).
    pub late: u64,
    /// Left the line unserved when the caller gave up.
    pub dropped: u64,
    /// Retries the budget refused (the caller's request failed instead).
    pub budget_denied: u64,
}

impl Tally {
    /// Every try: first tries plus retries.
    pub fn attempts(&self) -> u64 {
        self.first_tries + self.retries
    }
}

/// Everything a run produced. Build one with [`super::Model::run`],
/// [`super::serve`] or [`super::Setup::run`]; summarise it with
/// [`Run::summary`].
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// Every try: the first tries in schedule order, then the retries in
    /// the order they were scheduled.
    pub requests: Vec<Request>,
    /// The server it ran against (the line limit when the door is a line).
    pub server: Server,
    /// The offered window, ms (arrivals are all before it; the run itself
    /// continues until every request is resolved).
    pub window_ms: f64,
    /// The longest the line got (waiting requests only), the load tool's
    /// `queued`.
    pub peak_line: u64,
    /// `∫ (requests in the system) dt` over `[0, window_ms)`, request·ms
    /// (in service plus waiting; abandoned requests still waiting count).
    pub in_system_area: f64,
    /// `∫ (requests waiting) dt` over `[0, window_ms)`, request·ms.
    pub in_line_area: f64,
    /// `∫ (busy workers) dt` over `[0, window_ms)`, worker·ms.
    pub busy_area: f64,
    /// The counts.
    pub tally: Tally,
    /// The per-window timeline, when the model asked for one.
    pub timeline: Vec<Window>,
    /// With a timeline: the on-time answers' latencies (whole ms, rounded
    /// half away from zero) in completion order, completed before the
    /// slowdown's start (all of them without a slowdown) ...
    pub answers_before_ms: Vec<u64>,
    /// ... and from it on.
    pub answers_after_ms: Vec<u64>,
    /// How many of those answers (the last ones) came at or after the
    /// window's end: the drain of what was admitted.
    pub answers_drained: usize,
    /// The latest [`Request::resolved_ms`], kept by the engine as the tries
    /// resolved (one pass less for [`Run::summary`]).
    pub(crate) horizon_ms: f64,
}

impl Run {
    /// When the last caller resolved: the moment the load tool reads
    /// `/stats` the second time. 0 for an empty run.
    pub fn horizon_ms(&self) -> f64 {
        self.horizon_ms
    }

    /// Time-average requests in the system over the window (Little's `L`).
    pub fn mean_in_system(&self) -> f64 {
        self.in_system_area / self.window_ms
    }

    /// Time-average busy workers over the window divided by `workers`.
    pub fn utilisation(&self) -> f64 {
        self.busy_area / self.window_ms / f64::from(self.server.workers.max(1))
    }
}
