//! The server being modelled: workers, the line in front of them, and what
//! the callers do when they run out of patience.

use super::error::{StochasticError, check};
use super::traffic::MAX_MS;

/// Most workers the engine accepts.
pub const MAX_WORKERS: u32 = 100_000;

/// What happens to a request still **waiting in the line** when its caller
/// gives up (reaches the client timeout). A request already being served is
/// always finished: it counts as `done` but not `ok`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Abandon {
    /// It stays in line and is served anyway, for nobody: the server cannot
    /// see that the caller left. This is what bplab-live's door does, and
    /// what the lesson's tables show without a limit (at 100 offered, 1074
    /// done but 174 ok, and a line 1011 deep). The default.
    #[default]
    Served,
    /// It leaves the line at its caller's deadline without being served
    /// ("gaveup, not started"): a server that notices disconnects, or a
    /// queue with a time-in-queue bound equal to the client timeout. The
    /// live tool's `lost` column counts these (work dropped without a trace).
    Dropped,
}

/// Workers fed by one FIFO line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Server {
    /// Requests served at once; `1 <= workers <= MAX_WORKERS`.
    pub workers: u32,
    /// Requests allowed to **wait** (not counting those in service), like
    /// bplab-live's `LIMIT`: an arrival that finds every worker busy and
    /// `line_limit` requests waiting is refused at once. `None` = unbounded;
    /// `Some(0)` = never wait.
    pub line_limit: Option<u32>,
    /// The client timeout, ms from the arrival (scheduled send) time; an
    /// answer arriving later than `arrival + timeout_ms` is not `ok`, one
    /// arriving exactly then is. `None` = callers wait forever. When set,
    /// finite, `> 0` and `<= 1e9`.
    pub timeout_ms: Option<f64>,
    /// What happens to a waiting request whose caller gave up.
    pub abandon: Abandon,
}

impl Server {
    /// `workers` servers, no limit, no timeout (the textbook M/M/c).
    pub fn unbounded(workers: u32) -> Self {
        Self { workers, line_limit: None, timeout_ms: None, abandon: Abandon::Served }
    }

    /// Checks the ranges documented on each field.
    pub fn validate(&self) -> Result<(), StochasticError> {
        check("workers", f64::from(self.workers), "a whole number from 1 to 100000", |w| {
            (1.0..=f64::from(MAX_WORKERS)).contains(&w)
        })?;
        if let Some(t) = self.timeout_ms {
            check("timeout-ms", t, "finite, > 0 and <= 1e9 ms", |t| t > 0.0 && t <= MAX_MS)?;
        }
        Ok(())
    }
}
