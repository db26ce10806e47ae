//! What one run produced: every request's times and outcome, plus the
//! time-integrals the engine kept.

use super::server::Server;

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
    /// Turned away at arrival because the line was full: `refused`.
    Refused,
}

impl Outcome {
    /// The caller gave up on it (`Late` or `Dropped`).
    pub fn gave_up(self) -> bool {
        matches!(self, Self::Late | Self::Dropped)
    }

    /// Lower-case name used in CSV: `ok`, `late`, `dropped`, `refused`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Late => "late",
            Self::Dropped => "dropped",
            Self::Refused => "refused",
        }
    }
}

/// One request of a run. Times are ms from the start of the window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Request {
    /// When the caller sent it (its scheduled send time).
    pub arrival_ms: f64,
    /// The work it carries, ms (drawn even for refused requests, so request
    /// k's service time never depends on what happened before it).
    pub service_ms: f64,
    /// When a worker took it; `None` if refused or dropped.
    pub start_ms: Option<f64>,
    /// When its work finished (`start + service`); `None` if never started.
    pub end_ms: Option<f64>,
    /// How it ended.
    pub outcome: Outcome,
}

impl Request {
    /// When its caller stopped waiting: the arrival for a refusal, the end
    /// for an `ok` answer, the deadline for a give-up (`arrival` when
    /// there is no timeout, which cannot give up).
    pub fn resolved_ms(&self, timeout_ms: Option<f64>) -> f64 {
        match self.outcome {
            Outcome::Refused => self.arrival_ms,
            Outcome::Ok => self.end_ms.unwrap_or(self.arrival_ms),
            Outcome::Late | Outcome::Dropped => self.arrival_ms + timeout_ms.unwrap_or(0.0),
        }
    }

    /// End minus arrival for a served request (queueing plus service), ms.
    pub fn sojourn_ms(&self) -> Option<f64> {
        self.end_ms.map(|e| e - self.arrival_ms)
    }

    /// Start minus arrival for a served request (time in the line), ms.
    pub fn wait_ms(&self) -> Option<f64> {
        self.start_ms.map(|s| s - self.arrival_ms)
    }
}

/// Everything a run produced. Build one with [`super::serve`] or
/// [`super::Setup::run`]; summarise it with [`Run::summary`].
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// Every request in arrival order.
    pub requests: Vec<Request>,
    /// The server it ran against.
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
}

impl Run {
    /// When the last caller resolved: the moment the load tool reads
    /// `/stats` the second time. 0 for an empty run.
    pub fn horizon_ms(&self) -> f64 {
        let t = self.server.timeout_ms;
        self.requests.iter().map(|r| r.resolved_ms(t)).fold(0.0, f64::max)
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
