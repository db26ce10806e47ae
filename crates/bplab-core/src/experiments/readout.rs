//! Headline readouts and per-run tallies: data the page, the CLI and the
//! fuzz harness read without knowing which experiment produced them.

use serde::Serialize;

/// One headline number: a stable name and its value text (with unit).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Readout {
    /// Accessible name, stable per experiment.
    pub name: &'static str,
    /// The value as shown.
    pub value: String,
}

impl Readout {
    /// A readout.
    pub fn new(name: &'static str, value: impl Into<String>) -> Self {
        Self { name, value: value.into() }
    }
}

/// What happened to every arrival of one model run, counted independently,
/// so the fuzz harness can check conservation:
/// `goodput + late + refused + unresolved == arrivals`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunTally {
    /// Which run, e.g. `admission-limited 300 rps`.
    pub label: String,
    /// Requests that arrived (attempts, for collapse).
    pub arrivals: u64,
    /// Answered within the deadline.
    pub goodput: u64,
    /// Answered after the deadline.
    pub late: u64,
    /// Refused, rejected, shed or evicted.
    pub refused: u64,
    /// Neither answered nor refused when the model stopped.
    pub unresolved: u64,
    /// Every percentage the run reports (each must lie in [0, 100]).
    pub pcts: Vec<f64>,
    /// `(p50, p99)` where the run reports both, ms.
    pub quantiles: Option<(u64, u64)>,
}

impl RunTally {
    /// Whether every arrival is accounted for exactly once.
    pub fn conserved(&self) -> bool {
        self.goodput
            .checked_add(self.late)
            .and_then(|s| s.checked_add(self.refused))
            .and_then(|s| s.checked_add(self.unresolved))
            == Some(self.arrivals)
    }
}
