//! Counting one rate's outcomes as they come in, and the [`Tick`] the live
//! progress line shows.

use std::collections::BTreeMap;

use hdrhistogram::Histogram;

/// Histogram range: 1 µs ..= 10 min, 3 significant digits.
const HIST_MAX_US: u64 = 600_000_000;

/// How one request ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// 2xx, with latency in µs from scheduled send time.
    Ok(u64),
    Refused,
    GaveUp,
    /// The TCP connect failed (counted in `error`): its kind and OS error
    /// code (`Too many open files` is the client's own limit, not the target's).
    NoConnect(std::io::ErrorKind, Option<i32>),
    /// The answer was not HTTP/1.1 (counted in `error`).
    NotHttp,
    /// An HTTP answer with another status, its code (counted in `error`).
    OtherStatus(u16),
    Error,
}

/// Running counts of one rate's window.
#[derive(Debug)]
pub(crate) struct Tally {
    pub(crate) ok: u64,
    pub(crate) refused: u64,
    pub(crate) gaveup: u64,
    pub(crate) error: u64,
    pub(crate) no_connect: u64,
    /// The first connect failure, in words (the OS's message when it has one).
    pub(crate) connect_error: Option<String>,
    /// Answers that were not HTTP/1.1.
    pub(crate) not_http: u64,
    /// HTTP answers with a status other than 2xx and 503.
    pub(crate) other_status: u64,
    /// Every HTTP answer that was not a success (503 included), by status.
    pub(crate) statuses: BTreeMap<u16, u64>,
    hist: Option<Histogram<u64>>,
}

impl Tally {
    pub(crate) fn new() -> Self {
        Tally {
            ok: 0,
            refused: 0,
            gaveup: 0,
            error: 0,
            no_connect: 0,
            connect_error: None,
            not_http: 0,
            other_status: 0,
            statuses: BTreeMap::new(),
            hist: Histogram::<u64>::new_with_bounds(1, HIST_MAX_US, 3).ok(),
        }
    }

    pub(crate) fn record(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::Ok(us) => {
                self.ok += 1;
                if let Some(h) = self.hist.as_mut() {
                    h.saturating_record(us.clamp(1, HIST_MAX_US));
                }
            }
            Outcome::Refused => {
                self.refused += 1;
                *self.statuses.entry(503).or_default() += 1;
            }
            Outcome::GaveUp => self.gaveup += 1,
            Outcome::NoConnect(kind, raw) => {
                self.error += 1;
                self.no_connect += 1;
                if self.connect_error.is_none() {
                    let words =
                        raw.map_or_else(|| kind.to_string(), |c| std::io::Error::from_raw_os_error(c).to_string());
                    self.connect_error = Some(words);
                }
            }
            Outcome::NotHttp => {
                self.error += 1;
                self.not_http += 1;
            }
            Outcome::OtherStatus(code) => {
                self.error += 1;
                self.other_status += 1;
                *self.statuses.entry(code).or_default() += 1;
            }
            Outcome::Error => self.error += 1,
        }
    }

    /// HTTP answers of any status received so far.
    pub(crate) fn http_answers(&self) -> u64 {
        self.ok + self.refused + self.other_status
    }

    /// Latency quantile `q` of the `ok` answers so far, ms.
    pub(crate) fn quantile_ms(&self, q: f64) -> Option<f64> {
        self.hist.as_ref().filter(|h| !h.is_empty()).map(|h| h.value_at_quantile(q) as f64 / 1000.0)
    }

    /// Answers received so far (any outcome).
    pub(crate) fn answered(&self) -> u64 {
        self.ok + self.refused + self.gaveup + self.error
    }
}

/// Where one rate's window stands, for a live progress line. Sent a few
/// times per second while the window runs and while its last answers drain.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tick {
    /// Position of this rate in the sweep, from 0.
    pub index: usize,
    /// Rates in the sweep.
    pub rates: usize,
    /// The offered rate, requests per second.
    pub rate_rps: f64,
    /// Seconds since the window started (past `seconds` while draining).
    pub elapsed_s: f64,
    /// The window's length, seconds.
    pub seconds: f64,
    /// Requests sent so far.
    pub sent: u64,
    /// Requests planned for the window.
    pub planned: u64,
    /// 2xx answers so far.
    pub ok: u64,
    /// 503 answers so far.
    pub refused: u64,
    /// Requests still waiting for an answer (or their give-up).
    pub in_flight: u64,
    /// p99 latency of the `ok` answers so far, ms.
    pub p99_ms: Option<f64>,
}
