//! One result row per offered rate, and its fixed-width and CSV renderings
//! (the lesson's column layout).

use std::fmt::Write as _;

use crate::compare::Prediction;
use crate::load::Timeline;

/// What the callers did, apart from what the server answered (with a
/// client policy: `bplab load --retries`, `--retry-budget`, `--throttle-k`):
/// `first_tries + retries = sent + rejected`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClientCounts {
    /// First tries: one per scheduled request.
    pub first_tries: u64,
    /// Retries made (sent, or rejected locally by the throttle).
    pub retries: u64,
    /// Tries rejected locally by adaptive throttling (never sent, never retried).
    pub rejected: u64,
    /// Retries the budget did not allow (not tries: nothing was made).
    pub denied: u64,
    /// Retries not made because of the send cap
    /// ([`crate::load::MAX_TRY_MULTIPLE`]): the last 1,000 ms already
    /// held that many times the offered rate in sends, or the rate's
    /// window had made that many times its first tries (not tries).
    pub capped: u64,
}

/// The result of one offered rate.
///
/// Client-side columns count every try sent exactly once:
/// `sent = ok + refused + gaveup + error`. Without a client policy each
/// scheduled request is one try; with one, [`RateRow::client`] counts the
/// first tries, the retries and the local rejections apart.
///
/// Server-side columns (`done`, `lost`, `queued`) come from `/stats` read
/// just before the window starts (`POST /stats/reset-peak`) and again after
/// every request of the window has been answered or given up on (`GET
/// /stats`); they are `None` when the target has no usable `/stats`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RateRow {
    /// Offered rate, requests per second.
    pub offered_rps: f64,
    /// Requests sent (the schedule's length for this window).
    pub sent: u64,
    /// Answers with a 2xx status received before the client timeout.
    pub ok: u64,
    /// Answers with status 503 (the admission limit's refusal).
    pub refused: u64,
    /// Requests abandoned at the client timeout, counted from the scheduled
    /// send time (connect time and queueing included).
    pub gaveup: u64,
    /// Connect failures, resets, malformed answers and any other status.
    pub error: u64,
    /// `ok / seconds` (the window length, not including the drain).
    pub ok_per_sec: f64,
    /// Median latency of the `ok` answers, ms, from scheduled send time to
    /// the last body byte. Refusals and give-ups are not included.
    pub p50_ms: Option<f64>,
    /// 99th percentile latency of the `ok` answers, ms (same definition).
    pub p99_ms: Option<f64>,
    /// Server: work completed between the two `/stats` reads, whether or not
    /// a client was still waiting for it. `done - ok` is wasted work.
    pub done: Option<u64>,
    /// Server: arrivals it counted between the two reads that it neither
    /// completed, refused, nor still holds at the end:
    /// `Δarrived - Δdone - Δrefused - Δ(in_service + queued)`. Non-zero
    /// means the server dropped work without a trace (0 for bplab-live
    /// unless it was shut down mid-window).
    pub lost: Option<i64>,
    /// Server: the longest the waiting line got between the two reads (its
    /// high-water mark, restarted as the window starts). With a limit this
    /// is at most the limit; without one it is the backlog the overload
    /// built. This is the lesson's `queued` column (10 on every row with
    /// limit 10).
    pub queued: Option<u64>,
    /// Server: requests still waiting at the second read — the backlog the
    /// next window inherits (not printed in the table).
    pub queued_end: Option<u64>,
    /// The core model's prediction for this rate, when `--compare` is on.
    pub prediction: Option<Prediction>,
    /// The per-window timeline, when `--timeline` is on.
    pub timeline: Option<Timeline>,
    /// The sweep was interrupted during this window: it holds what was sent
    /// until then (and every answer to it); `ok_per_sec` is over the time
    /// it sent.
    pub partial: bool,
    /// The server's configuration as the window started (`/stats`).
    pub server: Option<crate::stats::StatsConfig>,
    /// The server's uptime as the window started, ms.
    pub start_uptime_ms: Option<u64>,
    /// The door's limit as the window started (`/stats` `door.limit`).
    pub start_limit: Option<i64>,
    /// The server's whole state as the window started (its controller and
    /// held requests), when `/stats` reports it: `--compare` starts the
    /// row's model there.
    pub start_state: Option<crate::timeline_model::Observed>,
    /// `POST /config` changed the server during the window: its config
    /// epoch before and after.
    pub config_change: Option<(u64, u64)>,
    /// Why the row has no model prediction, with `--compare`.
    pub model_note: Option<String>,
    /// The model's ok/s when this rate starts earlier or later than it did
    /// live, with `--compare` ([`crate::load::PHASE_SHIFTS_MS`]).
    pub model_phase: Option<PhaseRange>,
    /// First tries, retries and local rejections, when the client has a
    /// policy (printed as the `first retries rejected denied capped` columns).
    pub client: Option<ClientCounts>,
    /// Every HTTP answer that was not a success (2xx), by status code
    /// (503 included): what a run with no success names.
    pub statuses: std::collections::BTreeMap<u16, u64>,
    /// How late the client's tries started, p99 over the window, ms after
    /// each one's due time (its schedule, or its retry's time) to when its
    /// task ran and its connect began. Above
    /// [`MAX_SEND_LAG_P99_MS`] the client fell behind: the offered load was
    /// not the one planned, and the row says so.
    pub send_lag_p99_ms: Option<f64>,
}

/// The send lag p99 above which a row notes that the client fell behind
/// its schedule (and its model row cannot be compared), ms: well above the
/// timer's millisecond and a loaded machine's scheduling delays, and below
/// the lesson's 20 ms service time times the 10 places of its line.
pub const MAX_SEND_LAG_P99_MS: f64 = 50.0;

/// The notes printed under a row: the client fell behind its schedule,
/// retries were capped.
pub fn row_notes(r: &RateRow) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(lag) = r.send_lag_p99_ms.filter(|&l| l > MAX_SEND_LAG_P99_MS) {
        out.push(format!(
            "the client fell behind its schedule at {} rps: send lag p99 {lag:.1} ms (above {MAX_SEND_LAG_P99_MS} \
             ms); the load offered was not the one planned",
            num(r.offered_rps)
        ));
    }
    if let Some(c) = r.client.filter(|c| c.capped > 0) {
        out.push(format!(
            "{} retries at {} rps were not sent: the send cap allows {} times the offered rate",
            c.capped,
            num(r.offered_rps),
            crate::load::MAX_TRY_MULTIPLE
        ));
    }
    out
}

/// Whether the row's model prediction can be compared with it: not when
/// the client fell behind its schedule or retries were capped (the model
/// sends every try on time and has no send cap).
pub fn comparable(r: &RateRow) -> bool {
    r.send_lag_p99_ms.is_none_or(|l| l <= MAX_SEND_LAG_P99_MS) && r.client.is_none_or(|c| c.capped == 0)
}

/// The model's ok/s over start times around the live one: how much the
/// row's answer hangs on the phase it started in (a limit cycle's answer
/// phases, a deploy just before or after).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PhaseRange {
    /// Fewest ok/s of the shifted runs and the row's own.
    pub min_ok_per_sec: f64,
    /// Most ok/s of the shifted runs and the row's own.
    pub max_ok_per_sec: f64,
    /// Earliest and latest start shift run, ms from the live start.
    pub shifts_ms: (f64, f64),
    /// The service time's share either side of the measured one.
    pub service_spread: f64,
}

impl PhaseRange {
    /// Whether the range is wider than `share` of the row's own model ok/s
    /// either way (the row's number alone would mislead).
    pub fn sensitive(&self, own_ok_per_sec: f64, share: f64) -> bool {
        let tol = share * own_ok_per_sec.abs().max(0.5);
        own_ok_per_sec - self.min_ok_per_sec > tol || self.max_ok_per_sec - own_ok_per_sec > tol
    }

    /// One line for the table: the range and whether `live` falls in it.
    pub fn note(&self, own_ok_per_sec: f64, live_ok_per_sec: f64) -> String {
        let inside = (self.min_ok_per_sec..=self.max_ok_per_sec).contains(&live_ok_per_sec);
        format!(
            "the model's {:.1} ok/s hangs on when the rate started and on the service time: {:.1}–{:.1} ok/s for starts {:+.0} ms to {:+.0} ms from the live one and service times within {} % of the measured one (live {:.1} is {} that range)",
            own_ok_per_sec,
            self.min_ok_per_sec,
            self.max_ok_per_sec,
            self.shifts_ms.0,
            self.shifts_ms.1,
            self.service_spread * 100.0,
            live_ok_per_sec,
            if inside { "inside" } else { "outside" }
        )
    }
}

const HEADER: &str =
    " offered    sent     ok  refused  gaveup  error  ok_per_sec   p50_ms   p99_ms    done    lost  queued";
const PRED_HEADER: &str = "  model_ok/s  model_p99";
const CLIENT_HEADER: &str = "   first  retries  rejected  denied  capped";
const CSV_HEADER: &str = "offered,sent,ok,refused,gaveup,error,ok_per_sec,p50_ms,p99_ms,done,lost,queued,partial";

/// The table header; with `compare`, two model columns follow.
pub fn header(compare: bool) -> String {
    if compare { format!("{HEADER}{PRED_HEADER}") } else { HEADER.to_string() }
}

/// The header for rows like `row`: [`header`], with the client columns
/// after `queued` when the row has [`RateRow::client`] counts.
pub fn header_for(row: &RateRow, compare: bool) -> String {
    match (row.client.is_some(), compare) {
        (false, _) => header(compare),
        (true, false) => format!("{HEADER}{CLIENT_HEADER}"),
        (true, true) => format!("{HEADER}{CLIENT_HEADER}{PRED_HEADER}"),
    }
}

/// A number as the lesson writes rates: `40`, `47.5`.
pub(crate) fn num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 { format!("{x:.0}") } else { format!("{x}") }
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "-".to_string(), |x| x.to_string())
}

fn opt1(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_string(), |x| format!("{x:.1}"))
}

/// One fixed-width table line, aligned under [`header`]; a partial row
/// ends with a `partial` column of its own.
pub fn format_row(r: &RateRow, compare: bool) -> String {
    let mut s = format!(
        "{:>8}{:>8}{:>7}{:>9}{:>8}{:>7}{:>12.1}{:>9}{:>9}{:>8}{:>8}{:>8}",
        num(r.offered_rps),
        r.sent,
        r.ok,
        r.refused,
        r.gaveup,
        r.error,
        r.ok_per_sec,
        opt1(r.p50_ms),
        opt1(r.p99_ms),
        opt(r.done),
        opt(r.lost),
        opt(r.queued),
    );
    if let Some(c) = &r.client {
        let _ = write!(s, "{:>8}{:>9}{:>10}{:>8}{:>8}", c.first_tries, c.retries, c.rejected, c.denied, c.capped);
    }
    if compare {
        let (ok, p99) = match &r.prediction {
            Some(p) => (format!("{:.1}", p.ok_per_sec), opt1(p.p99_ms)),
            None => ("-".to_string(), "-".to_string()),
        };
        let _ = write!(s, "{ok:>12}{p99:>11}");
    }
    if r.partial {
        s.push_str("  partial");
    }
    s
}

/// The whole table as CSV (header line plus one line per row, `\n` endings);
/// missing values are empty fields.
pub fn to_csv(rows: &[RateRow], compare: bool) -> String {
    let mut out = String::from(CSV_HEADER);
    let client = rows.iter().any(|r| r.client.is_some());
    if client {
        out.push_str(",first_tries,retries,rejected,denied,capped");
    }
    if compare {
        out.push_str(",model_ok_per_sec,model_p99_ms");
    }
    out.push('\n');
    let e = |v: Option<String>| v.unwrap_or_default();
    for r in rows {
        let _ = write!(
            out,
            "{},{},{},{},{},{},{:.3},{},{},{},{},{},{}",
            num(r.offered_rps),
            r.sent,
            r.ok,
            r.refused,
            r.gaveup,
            r.error,
            r.ok_per_sec,
            e(r.p50_ms.map(|x| format!("{x:.3}"))),
            e(r.p99_ms.map(|x| format!("{x:.3}"))),
            e(r.done.map(|x| x.to_string())),
            e(r.lost.map(|x| x.to_string())),
            e(r.queued.map(|x| x.to_string())),
            u8::from(r.partial),
        );
        if client {
            let c = r.client.unwrap_or_default();
            let _ = write!(out, ",{},{},{},{},{}", c.first_tries, c.retries, c.rejected, c.denied, c.capped);
        }
        if compare {
            let (ok, p99) = match &r.prediction {
                Some(p) => (format!("{:.3}", p.ok_per_sec), e(p.p99_ms.map(|x| format!("{x:.3}")))),
                None => (String::new(), String::new()),
            };
            let _ = write!(out, ",{ok},{p99}");
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lesson_row() -> RateRow {
        RateRow {
            offered_rps: 40.0,
            sent: 797,
            ok: 795,
            refused: 2,
            ok_per_sec: 39.75,
            p50_ms: Some(61.5),
            p99_ms: Some(225.1),
            done: Some(795),
            lost: Some(0),
            queued: Some(10),
            queued_end: Some(0),
            ..RateRow::default()
        }
    }

    #[test]
    fn matches_lesson_layout() {
        assert_eq!(
            header(false),
            " offered    sent     ok  refused  gaveup  error  ok_per_sec   p50_ms   p99_ms    done    lost  queued"
        );
        assert_eq!(
            format_row(&lesson_row(), false),
            "      40     797    795        2       0      0        39.8     61.5    225.1     795       0      10"
        );
        assert_eq!(header(false).len(), format_row(&lesson_row(), false).len());
    }

    #[test]
    fn missing_values_and_compare_columns() {
        let mut r = lesson_row();
        r.p50_ms = None;
        r.done = None;
        r.prediction = Some(Prediction { ok_per_sec: 47.6, p99_ms: Some(230.0) });
        let line = format_row(&r, true);
        assert_eq!(line.len(), header(true).len());
        assert!(line.ends_with("        47.6      230.0"), "{line}");
        let csv = to_csv(&[r.clone()], true);
        assert!(csv.starts_with("offered,sent,"));
        assert!(csv.contains("\n40,797,795,2,0,0,39.750,,225.100,,0,10,0,47.600,230.000\n"), "{csv}");
        r.partial = true;
        assert!(format_row(&r, false).ends_with("      10  partial"), "{}", format_row(&r, false));
        assert!(to_csv(&[r.clone()], false).ends_with(",10,1\n"));
        r.partial = false;
        r.client = Some(ClientCounts { first_tries: 797, retries: 40, rejected: 3, denied: 2, capped: 0 });
        r.sent = 834;
        let line = format_row(&r, true);
        assert_eq!(line.len(), header_for(&r, true).len());
        assert!(header_for(&r, true).contains("queued   first  retries  rejected  denied  capped  model_ok/s"));
        assert!(line.contains("      10     797       40         3       2       0        47.6"), "{line}");
        let csv = to_csv(&[r.clone()], false);
        assert!(csv.starts_with(&format!("{CSV_HEADER},first_tries,retries,rejected,denied,capped\n")), "{csv}");
        assert!(csv.ends_with(",10,0,797,40,3,2,0\n"), "{csv}");
    }

    #[test]
    fn a_phase_range_wider_than_ten_percent_says_so_and_where_live_falls() {
        let r =
            PhaseRange { min_ok_per_sec: 4.9, max_ok_per_sec: 6.8, shifts_ms: (-1000.0, 1000.0), service_spread: 0.01 };
        assert!(r.sensitive(5.1, 0.1));
        assert_eq!(
            r.note(5.1, 5.2),
            "the model's 5.1 ok/s hangs on when the rate started and on the service time: 4.9–6.8 ok/s for starts -1000 ms to +1000 ms from the live one and service times within 1 % of the measured one (live 5.2 is inside that range)"
        );
        assert!(r.note(5.1, 3.1).ends_with("(live 3.1 is outside that range)"));
        // Within 10 % either way: no note.
        let tight = PhaseRange {
            min_ok_per_sec: 16.4,
            max_ok_per_sec: 16.9,
            shifts_ms: (-1000.0, 1000.0),
            service_spread: 0.01,
        };
        assert!(!tight.sensitive(16.6, 0.1));
        // One side alone is enough.
        assert!(PhaseRange { min_ok_per_sec: 16.6, max_ok_per_sec: 18.5, ..tight }.sensitive(16.6, 0.1));
        // Near zero, half an answer per second is the floor of the tolerance.
        assert!(!PhaseRange { min_ok_per_sec: 0.0, max_ok_per_sec: 0.04, ..tight }.sensitive(0.0, 0.1));
    }
}
