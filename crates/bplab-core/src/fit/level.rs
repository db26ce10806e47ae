//! One load level: what a load-test file (or one row of it) says about the
//! service at one offered load, in one shape whatever tool wrote it.

use serde::Serialize;

/// The tool that wrote a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Tool {
    /// `hey -o csv`: one row per request (response time, status, offset).
    Hey,
    /// ApacheBench `-g`: one row per request, start times in whole seconds, no status.
    AbGnuplot,
    /// ApacheBench `-e`: the latency percentiles only.
    AbPercentiles,
    /// Locust `--csv` `_stats.csv`: the run's aggregates.
    LocustStats,
    /// Locust `--csv` `_stats_history.csv`: aggregates every second.
    LocustHistory,
    /// `bplab load --csv`: one row per offered rate.
    BplabCsv,
    /// `bplab load` printed output: the rows and, with `--timeline`, the windows.
    BplabTimeline,
    /// The plain format: `start_ms latency_ms [status]` per line.
    Plain,
}

impl Tool {
    /// The tool's name as the fit prints it.
    pub fn name(self) -> &'static str {
        match self {
            Tool::Hey => "hey -o csv",
            Tool::AbGnuplot => "ab -g",
            Tool::AbPercentiles => "ab -e",
            Tool::LocustStats => "locust _stats.csv",
            Tool::LocustHistory => "locust _stats_history.csv",
            Tool::BplabCsv => "bplab load --csv",
            Tool::BplabTimeline => "bplab load --timeline",
            Tool::Plain => "plain",
        }
    }

    /// Whether the tool's callers wait for each answer before the next
    /// request (a closed loop: hey, ab, Locust) rather than sending on a
    /// schedule (`bplab load`). A plain file is not: its own send times are
    /// replayed whatever sent them.
    pub fn closed_loop(self) -> bool {
        !matches!(self, Tool::BplabCsv | Tool::BplabTimeline | Tool::Plain)
    }
}

/// One request as a per-request file gives it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Req {
    /// Send time, ms from the file's first send.
    pub start_ms: f64,
    /// Send to last byte, ms.
    pub latency_ms: f64,
    /// The HTTP status (`None`: the file does not record it, e.g. `ab -g`).
    pub status: Option<u16>,
}

impl Req {
    /// Answered: a 2xx status, or no status recorded.
    pub fn ok(&self) -> bool {
        self.status.is_none_or(|s| (200..300).contains(&s))
    }

    /// Refused: a 503.
    pub fn refused(&self) -> bool {
        self.status == Some(503)
    }
}

/// One window of a `bplab load --timeline` table.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct TimelineWindow {
    /// Window start, ms.
    pub start_ms: f64,
    /// Requests sent in it.
    pub sent: u64,
    /// Answers in time, by completion.
    pub ok: u64,
    /// 503s.
    pub refused: u64,
}

/// What one file (or one row of a sweep file) measured at one load.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Level {
    /// The file it came from, as named by the caller.
    pub file: String,
    /// 1-based index of the level inside its file (a sweep file holds several).
    pub index: usize,
    /// Which tool wrote it.
    pub tool: Tool,
    /// The rate the tool offered, rps, when it says (`bplab load`).
    pub offered_rps: Option<f64>,
    /// Length of the sending window, ms.
    pub duration_ms: f64,
    /// Requests sent.
    pub sent: u64,
    /// Answered (2xx, or no status recorded).
    pub ok: u64,
    /// Refused (503).
    pub refused: u64,
    /// Anything else: give-ups, errors, other statuses.
    pub other: u64,
    /// Median latency of the answered requests, ms.
    pub p50_ms: Option<f64>,
    /// 99th percentile latency of the answered requests, ms.
    pub p99_ms: Option<f64>,
    /// Mean latency of the answered requests, ms, when known.
    pub mean_ms: Option<f64>,
    /// Every request, sorted by send time, when the file has them.
    pub requests: Vec<Req>,
    /// Whether `requests`' send times are only whole seconds (`ab -g`).
    pub coarse_starts: bool,
    /// Latency percentiles `(p in (0, 1], ms)` when the file lists them
    /// (`ab -e`, Locust): of the answered requests for `ab -e`, of every
    /// request (refusals included) for Locust.
    pub percentiles: Vec<(f64, f64)>,
    /// Whether `percentiles` include refused requests (Locust logs both).
    pub percentiles_include_refused: bool,
    /// Peak waiting line the server reported (`bplab load`'s `queued`).
    pub peak_queue: Option<u64>,
    /// Callers the tool ran (Locust's user count), when it says.
    pub users: Option<u64>,
    /// The `--timeline` windows of this rate, when printed.
    pub windows: Vec<TimelineWindow>,
    /// `bplab load`'s printed note that its client fell behind its
    /// schedule at this rate: the send lag p99 it gave, ms. Its latencies,
    /// timed from each request's due time, include the client's own delay.
    pub client_lag_p99_ms: Option<f64>,
}

impl Level {
    /// An empty level of `tool` from `file`.
    pub(crate) fn new(file: &str, index: usize, tool: Tool) -> Self {
        Level {
            file: file.to_owned(),
            index,
            tool,
            offered_rps: None,
            duration_ms: 0.0,
            sent: 0,
            ok: 0,
            refused: 0,
            other: 0,
            p50_ms: None,
            p99_ms: None,
            mean_ms: None,
            requests: Vec::new(),
            coarse_starts: false,
            percentiles: Vec::new(),
            percentiles_include_refused: false,
            peak_queue: None,
            users: None,
            windows: Vec::new(),
            client_lag_p99_ms: None,
        }
    }

    /// Answers per second over the sending window.
    pub fn ok_per_sec(&self) -> f64 {
        if self.duration_ms > 0.0 { self.ok as f64 * 1000.0 / self.duration_ms } else { 0.0 }
    }

    /// Requests sent per second over the sending window.
    pub fn sent_per_sec(&self) -> f64 {
        if self.duration_ms > 0.0 { self.sent as f64 * 1000.0 / self.duration_ms } else { 0.0 }
    }

    /// Whether it carries counts (not only percentiles, like `ab -e`).
    pub fn has_counts(&self) -> bool {
        self.sent > 0 && self.duration_ms > 0.0
    }

    /// Whether the callers waited for their answers ([`Tool::closed_loop`]).
    pub fn closed_loop(&self) -> bool {
        self.tool.closed_loop()
    }

    /// Fills the counts and latency summary from `requests` (sorted here)
    /// over a window from the first send to the last send plus the mean gap.
    pub(crate) fn summarised(mut self) -> Self {
        self.requests.sort_by(|a, b| a.start_ms.total_cmp(&b.start_ms));
        let first = self.requests.first().map_or(0.0, |r| r.start_ms);
        for r in &mut self.requests {
            r.start_ms -= first;
        }
        let n = self.requests.len() as u64;
        self.sent = n;
        self.ok = self.requests.iter().filter(|r| r.ok()).count() as u64;
        self.refused = self.requests.iter().filter(|r| r.refused()).count() as u64;
        self.other = n - self.ok - self.refused;
        let last = self.requests.last().map_or(0.0, |r| r.start_ms);
        let gap = if n > 1 { last / (n - 1) as f64 } else { 0.0 };
        self.duration_ms = if self.coarse_starts { self.coarse_duration_ms(last) } else { last + gap };
        let mut lat: Vec<f64> = self.requests.iter().filter(|r| r.ok()).map(|r| r.latency_ms).collect();
        lat.sort_by(f64::total_cmp);
        self.p50_ms = quantile(&lat, 0.5);
        self.p99_ms = quantile(&lat, 0.99);
        self.mean_ms = (!lat.is_empty()).then(|| lat.iter().sum::<f64>() / lat.len() as f64);
        self
    }
}

impl Level {
    /// The window of a file whose send times are whole seconds (`ab -g`):
    /// the requests over the rate in the seconds strictly inside the run
    /// (the first and last are partial), or the seconds spanned when there
    /// are fewer than 3.
    fn coarse_duration_ms(&self, last_ms: f64) -> f64 {
        let seconds = (last_ms / 1000.0).round() as u64;
        if seconds < 2 {
            return last_ms + 1000.0;
        }
        let inside = self.requests.iter().filter(|r| r.start_ms >= 1000.0 && r.start_ms < last_ms).count();
        let rate_per_ms = inside as f64 / ((seconds - 1) as f64 * 1000.0);
        if rate_per_ms > 0.0 { self.requests.len() as f64 / rate_per_ms } else { last_ms + 1000.0 }
    }
}

/// The `p`-quantile of sorted values by the nearest-rank rule (the value
/// at rank `ceil(p × n)`), `None` when empty.
pub fn quantile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}
