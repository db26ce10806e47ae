//! `bplab load --timeline MS`: one rate's window cut into windows of `MS`,
//! so a deploy and the recovery after it are visible.
//!
//! Each outcome is counted in the window in which it happened, as the core's
//! model counts its timeline (`bplab_core::stochastic::Window`): `sent` by send time,
//! `ok` (and the p99 of their latencies) by when the answer came back,
//! `refused` by when the 503 came back, `gaveup` at the give-up time.
//! Outcomes after the sending window (the drain) are counted in one row
//! `after` the windows, so the windows and that row add up to the rate's
//! row; the model's windows leave the drain out. An interrupted rate has no
//! windows after the stop: what comes back later is counted `after`. `limit` is the server's door limit (`/stats`
//! `door.limit`: requests allowed in the system) read as each window ends.
//!
//! With a client policy the windows also count, by send time, the first
//! tries, the retries and the tries rejected locally by the throttle, and,
//! by failure time, the retries the budget denied. With a bounded slowdown
//! (`serve --slowdown-for`) that ends inside the window, [`judge`] reads the
//! timeline with the `metastable` experiment's own rule
//! ([`bplab_core::stochastic::Rule`]): stuck, or recovered after how long,
//! for the live windows and the model's alike.

use std::fmt::Write as _;

use bplab_core::stochastic::Window as Tick;
use bplab_core::stochastic::{HEALTHY_SHARE, Rule, Verdict};

use crate::flags::WholeFlag;
use crate::load::tally::Outcome;
use crate::stats::StatsConfig;

/// `--timeline`: window width, ms.
pub const TIMELINE_MS: WholeFlag = WholeFlag {
    name: "timeline",
    label: "also print a per-window table (window start, sent, ok, refused, gaveup, p99, limit) with windows this wide",
    min: 10,
    max: 60_000,
    unit: "ms",
    or_word: None,
};

/// One window of the live timeline.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Window {
    /// Window start, ms from the rate's window start.
    pub start_ms: u64,
    /// Requests sent in it.
    pub sent: u64,
    /// 2xx answers received in it.
    pub ok: u64,
    /// 503 answers received in it.
    pub refused: u64,
    /// Requests given up on in it.
    pub gaveup: u64,
    /// Errors in it.
    pub error: u64,
    /// p99 latency of the ok answers received in it, ms.
    pub p99_ms: Option<f64>,
    /// The server's door limit as the window ended (`None`: no bound, or
    /// `/stats` did not answer).
    pub limit: Option<i64>,
    /// First tries made in it (sent or rejected locally).
    pub first_tries: u64,
    /// Retries made in it (sent or rejected locally).
    pub retries: u64,
    /// Tries rejected locally by the throttle in it.
    pub rejected: u64,
    /// Retries the budget denied in it (by failure time).
    pub denied: u64,
}

/// The model's view of one window (from the core engine's timeline).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ModelWindow {
    /// Answers within the client timeout, by completion time.
    pub ok: u64,
    /// First tries made, by send time.
    pub first_tries: u64,
    /// Retries made, by send time.
    pub retries: u64,
    /// Tries rejected locally by the throttle.
    pub rejected: u64,
    /// Served after the caller left (wasted work), by completion time.
    pub late: u64,
    /// Refused or shed, by decision time.
    pub refused: u64,
    /// p99 of the answers, ms.
    pub p99_ms: Option<u64>,
    /// The limit at the window's end (`None` for CoDel).
    pub limit: Option<i64>,
}

/// One rate's timeline.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Timeline {
    /// Window width, ms.
    pub window_ms: u64,
    /// The server's uptime as the rate's window started (from `/stats`).
    pub start_uptime_ms: Option<u64>,
    /// The server's configuration then (door, deploy, workers).
    pub server: Option<StatsConfig>,
    /// The windows, in order, covering the sending window (up to the stop,
    /// for a partial rate).
    pub windows: Vec<Window>,
    /// What happened after the last window (answers and give-ups of the
    /// drain; `start_ms` is the last window's end): the windows plus this
    /// add up to the row. The model's windows leave it out.
    pub after: Window,
    /// The model's windows beside them (`--compare`).
    pub model: Option<Vec<ModelWindow>>,
    /// Before and after the deploy, when it falls inside the window.
    pub split: Option<Split>,
    /// The client has a policy: print the first tries, retries and local
    /// rejections (and the model's).
    pub client: bool,
    /// The metastable rule's reading of a bounded slowdown (see [`judge`]).
    pub verdicts: Option<Verdicts>,
}

/// The `metastable` experiment's verdict on the live windows and the
/// model's, after a bounded slowdown that ends inside the window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Verdicts {
    /// The server's capacity, ok/s (workers × 1000 / service ms).
    pub capacity_rps: f64,
    /// A window is healthy at this goodput (or with nothing failed):
    /// [`HEALTHY_SHARE`] × min(offered, capacity).
    pub healthy_rps: f64,
    /// The slowdown's start and end, ms from the window start.
    pub trigger_ms: (i64, i64),
    /// The live windows' verdict.
    pub live: Verdict,
    /// The model's, with `--compare`.
    pub model: Option<Verdict>,
    /// The largest |model − live| goodput of a window outside the trigger
    /// and the 2 s after it, in % of capacity, and how many windows count.
    pub gap: Option<(f64, usize)>,
}

/// Windows closer than this after the trigger's end are transitions: left
/// out of the model-versus-live gap (issue 19's "done when").
pub const TRANSITION_MS: i64 = 2000;

/// `stuck`, `recovered after 2000 ms` or `no window after the trigger`.
pub fn verdict_words(v: Verdict) -> String {
    match v {
        Verdict::Recovered { after_ms } => format!("recovered after {after_ms} ms"),
        Verdict::Stuck => "stuck (did not recover within the run)".to_string(),
        Verdict::NoWindow => "no window after the trigger".to_string(),
    }
}

/// A live window as the metastable rule reads it (the engine's window) (a give-up or an error is a
/// failure, as the model's late answer is).
impl From<&Window> for Tick {
    fn from(w: &Window) -> Tick {
        let (first_tries, retries, throttled, refused, ok) = (w.first_tries, w.retries, w.rejected, w.refused, w.ok);
        Tick { first_tries, retries, throttled, refused, ok, late: w.gaveup + w.error, ..Tick::default() }
    }
}

/// A model window as the metastable rule reads it.
impl From<&ModelWindow> for Tick {
    fn from(w: &ModelWindow) -> Tick {
        let (first_tries, retries, throttled, refused, ok) = (w.first_tries, w.retries, w.rejected, w.refused, w.ok);
        Tick { first_tries, retries, throttled, refused, ok, late: w.late, ..Tick::default() }
    }
}

/// The metastable rule on `t` (offered `rate_rps`, sending for `seconds`),
/// when the server's slowdown is bounded and ends inside the window:
/// healthy at [`HEALTHY_SHARE`] × min(rate, `capacity_rps`), judged from
/// the slowdown's end; the model's too when present, and the largest
/// model-versus-live gap outside `[start, end + TRANSITION_MS)`.
pub fn judge(t: &Timeline, rate_rps: f64, seconds: f64, capacity_rps: f64) -> Option<Verdicts> {
    let at = t.deploy_ms()?;
    let end = at.checked_add(i64::try_from(t.server.as_ref()?.slowdown_for_ms?).ok()?)?;
    let run_ms = seconds * 1000.0;
    if end <= 0 || end as f64 >= run_ms || !(capacity_rps > 0.0 && capacity_rps.is_finite()) {
        return None;
    }
    let rule = Rule {
        window_ms: t.window_ms as f64,
        run_ms,
        end_ms: end as f64,
        healthy_rps: HEALTHY_SHARE * rate_rps.min(capacity_rps),
    };
    let live_ticks: Vec<Tick> = t.windows.iter().map(Tick::from).collect();
    let model_ticks: Option<Vec<Tick>> = t.model.as_ref().map(|m| m.iter().map(Tick::from).collect());
    let gap = model_ticks.as_ref().map(|m| {
        let w = t.window_ms as i64;
        let mut worst = 0.0f64;
        let mut n = 0;
        for i in 0..live_ticks.len().min(m.len()) {
            let (from, to) = (i as i64 * w, (i as i64 + 1) * w);
            if to > at && from < end + TRANSITION_MS {
                continue;
            }
            let d = (rule.goodput_rps(m, i) - rule.goodput_rps(&live_ticks, i)).abs();
            worst = worst.max(100.0 * d / capacity_rps);
            n += 1;
        }
        (worst, n)
    });
    Some(Verdicts {
        capacity_rps,
        healthy_rps: rule.healthy_rps,
        trigger_ms: (at, end),
        live: rule.verdict(&live_ticks),
        model: model_ticks.as_ref().map(|m| rule.verdict(m)),
        gap,
    })
}

/// The ok answers before and after the deploy, split by when they came back
/// (as the core's `adaptive-summary.csv` splits them).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Split {
    /// Where the deploy falls, ms from the window start.
    pub deploy_ms: u64,
    /// ok answers per second before the deploy.
    pub ok_per_sec_before: f64,
    /// ok answers per second from the deploy to the window's end.
    pub ok_per_sec_after: f64,
    /// p99 of the ok answers before, ms.
    pub p99_before_ms: Option<f64>,
    /// p99 of the ok answers after, ms.
    pub p99_after_ms: Option<f64>,
}

impl Timeline {
    /// Where the deploy falls in this window, ms from its start (negative:
    /// before it); `None` without a deploy or `/stats`.
    pub fn deploy_ms(&self) -> Option<i64> {
        let at = i64::try_from(self.server.as_ref()?.slowdown_at_ms?).ok()?;
        Some(at - i64::try_from(self.start_uptime_ms?).ok()?)
    }
}

/// Counting a timeline while the window runs.
#[derive(Debug)]
pub(crate) struct TimelineTally {
    window_ms: u64,
    windows: Vec<Window>,
    after: Window,
    lat_us: Vec<Vec<u64>>,
    /// Every ok answer in the window: (when it came back, latency), µs.
    oks: Vec<(u64, u64)>,
    window_us: u64,
}

/// p99 by nearest rank of `v` (µs), in ms.
fn p99_ms(v: &mut [u64]) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_unstable();
    let k = ((v.len() as f64 * 0.99).ceil() as usize).clamp(1, v.len());
    v.get(k - 1).map(|&us| us as f64 / 1000.0)
}

impl TimelineTally {
    /// Windows of `window_ms` covering `seconds`.
    pub(crate) fn new(window_ms: u64, seconds: f64) -> Self {
        let n = ((seconds * 1000.0) / window_ms.max(1) as f64).ceil().clamp(1.0, 1e6) as usize;
        let windows = (0..n).map(|i| Window { start_ms: i as u64 * window_ms, ..Window::default() }).collect();
        let window_us = (seconds * 1e6).max(0.0) as u64;
        let after = Window { start_ms: n as u64 * window_ms, ..Window::default() };
        TimelineTally {
            window_ms: window_ms.max(1),
            windows,
            after,
            lat_us: vec![Vec::new(); n],
            oks: Vec::new(),
            window_us,
        }
    }

    fn index(&self, at_us: u64) -> Option<usize> {
        let i = usize::try_from(at_us / 1000 / self.window_ms).ok()?;
        (i < self.windows.len()).then_some(i)
    }

    /// A send `at_us` after the window start.
    pub(crate) fn sent(&mut self, at_us: u64) {
        if let Some(w) = self.index(at_us).and_then(|i| self.windows.get_mut(i)) {
            w.sent += 1;
        }
    }

    /// A try made `at_us` after the window start: a first try or a retry
    /// (sent or not).
    pub(crate) fn attempt(&mut self, at_us: u64, first: bool) {
        if let Some(w) = self.index(at_us).and_then(|i| self.windows.get_mut(i)) {
            if first {
                w.first_tries += 1;
            } else {
                w.retries += 1;
            }
        }
    }

    /// A try rejected locally `at_us` after the window start.
    pub(crate) fn rejected(&mut self, at_us: u64) {
        if let Some(w) = self.index(at_us).and_then(|i| self.windows.get_mut(i)) {
            w.rejected += 1;
        }
    }

    /// A retry the budget denied `at_us` after the window start.
    pub(crate) fn denied(&mut self, at_us: u64) {
        if let Some(w) = self.index(at_us).and_then(|i| self.windows.get_mut(i)) {
            w.denied += 1;
        }
    }

    /// The sending stopped `at_us` after the window start (an interrupt):
    /// the windows from the next one on are dropped, and what happens later
    /// is counted after the windows.
    pub(crate) fn stop(&mut self, at_us: u64) {
        let n = usize::try_from((at_us / 1000).div_ceil(self.window_ms)).unwrap_or(usize::MAX).max(1);
        if n < self.windows.len() {
            self.windows.truncate(n);
            self.lat_us.truncate(n);
            self.after.start_ms = n as u64 * self.window_ms;
            self.window_us = self.window_us.min(at_us);
        }
    }

    /// An outcome that happened `at_us` after the window start.
    pub(crate) fn record(&mut self, at_us: u64, outcome: Outcome) {
        let Some(i) = self.index(at_us) else {
            match outcome {
                Outcome::Ok(_) => self.after.ok += 1,
                Outcome::Refused => self.after.refused += 1,
                Outcome::GaveUp => self.after.gaveup += 1,
                _ => self.after.error += 1,
            }
            return;
        };
        let (Some(w), Some(lat)) = (self.windows.get_mut(i), self.lat_us.get_mut(i)) else { return };
        match outcome {
            Outcome::Ok(us) => {
                w.ok += 1;
                lat.push(us);
                self.oks.push((at_us, us));
            }
            Outcome::Refused => w.refused += 1,
            Outcome::GaveUp => w.gaveup += 1,
            Outcome::NoConnect(..) | Outcome::NotHttp | Outcome::OtherStatus(_) | Outcome::Error => w.error += 1,
        }
    }

    /// The server's limit as window `i` ended.
    pub(crate) fn limit(&mut self, i: usize, limit: Option<i64>) {
        if let Some(w) = self.windows.get_mut(i) {
            w.limit = limit;
        }
    }

    /// Number of windows.
    pub(crate) fn len(&self) -> usize {
        self.windows.len()
    }

    /// Window width, ms.
    pub(crate) fn window_ms(&self) -> u64 {
        self.window_ms
    }

    /// The finished windows (p99 by nearest rank), and the split at a
    /// deploy `deploy_ms` into the window (when it falls inside it).
    pub(crate) fn finish(mut self, deploy_ms: Option<i64>) -> (Vec<Window>, Window, Option<Split>) {
        for (w, lat) in self.windows.iter_mut().zip(self.lat_us.iter_mut()) {
            w.p99_ms = p99_ms(lat);
        }
        let split = deploy_ms.and_then(|d| u64::try_from(d).ok()).filter(|&d| d * 1000 < self.window_us).map(|d| {
            let at_us = d * 1000;
            let (mut before, mut after): (Vec<u64>, Vec<u64>) = (Vec::new(), Vec::new());
            for &(t, lat) in &self.oks {
                if t < at_us { before.push(lat) } else { after.push(lat) }
            }
            let secs = |us: u64| (us as f64 / 1e6).max(1e-9);
            Split {
                deploy_ms: d,
                ok_per_sec_before: before.len() as f64 / secs(at_us),
                ok_per_sec_after: after.len() as f64 / secs(self.window_us - at_us),
                p99_before_ms: p99_ms(&mut before),
                p99_after_ms: p99_ms(&mut after),
            }
        });
        (self.windows, self.after, split)
    }
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "-".to_string(), |x| x.to_string())
}

/// The timeline as a fixed-width table under a heading naming the window,
/// the door and where the deploy falls; with the model's columns when
/// present.
pub fn format_timeline(rate_rps: f64, t: &Timeline) -> String {
    let mut out = String::new();
    let door = t.server.as_ref().map_or_else(|| "unknown".to_string(), |s| s.door_name().to_string());
    let lasting =
        t.server.as_ref().and_then(|s| s.slowdown_for_ms).map_or_else(String::new, |d| format!(" for {d} ms"));
    let deploy = match (t.deploy_ms(), t.server.as_ref().map(|s| s.slowdown_factor)) {
        (Some(d), Some(f)) if d >= 0 => format!("; deploy ({f}x) at {d} ms{lasting}"),
        (Some(d), Some(f)) => format!("; deploy ({f}x) {} ms before the window{lasting}", -d),
        _ => String::new(),
    };
    let _ = writeln!(
        out,
        "timeline {} rps, door {door}, windows of {} ms by when each outcome happened{deploy}",
        crate::load::table::num(rate_rps),
        t.window_ms
    );
    let _ = write!(
        out,
        "{:>9}{:>7}{:>7}{:>9}{:>8}{:>7}{:>9}{:>7}",
        "start_ms", "sent", "ok", "refused", "gaveup", "error", "p99_ms", "limit"
    );
    if t.client {
        let _ = write!(out, "{:>7}{:>9}{:>10}{:>8}", "first", "retries", "rejected", "denied");
    }
    if t.model.is_some() {
        let _ = write!(out, "{:>10}{:>15}{:>11}{:>13}", "model_ok", "model_refused", "model_p99", "model_limit");
        if t.client {
            let _ = write!(out, "{:>15}{:>16}", "model_retries", "model_rejected");
        }
    }
    for (i, w) in t.windows.iter().enumerate() {
        let p99 = w.p99_ms.map_or_else(|| "-".to_string(), |p| format!("{p:.1}"));
        let _ = write!(
            out,
            "\n{:>9}{:>7}{:>7}{:>9}{:>8}{:>7}{:>9}{:>7}",
            w.start_ms,
            w.sent,
            w.ok,
            w.refused,
            w.gaveup,
            w.error,
            p99,
            opt(w.limit)
        );
        if t.client {
            let _ = write!(out, "{:>7}{:>9}{:>10}{:>8}", w.first_tries, w.retries, w.rejected, w.denied);
        }
        if let Some(m) = t.model.as_ref().and_then(|m| m.get(i)) {
            let _ = write!(out, "{:>10}{:>15}{:>11}{:>13}", m.ok, m.refused, opt(m.p99_ms), opt(m.limit));
            if t.client {
                let _ = write!(out, "{:>15}{:>16}", m.retries, m.rejected);
            }
        }
    }
    let a = &t.after;
    if a.ok + a.refused + a.gaveup + a.error > 0 {
        let _ = write!(
            out,
            "\n{:>9}{:>7}{:>7}{:>9}{:>8}{:>7}{:>9}{:>7}\nafter: what came back after the last window (from {} ms): \
             the windows and this row add up to the rate's row; the model's windows leave it out",
            "after", "-", a.ok, a.refused, a.gaveup, a.error, "-", "-", a.start_ms
        );
    }
    if let Some(s) = &t.split {
        let p = |v: Option<f64>| v.map_or_else(|| "-".to_string(), |p| format!("{p:.1}"));
        let _ = write!(
            out,
            "\ndeploy split at {} ms: before ok/s {:.1} p99 {} ms; after ok/s {:.1} p99 {} ms",
            s.deploy_ms,
            s.ok_per_sec_before,
            p(s.p99_before_ms),
            s.ok_per_sec_after,
            p(s.p99_after_ms)
        );
    }
    if let Some(v) = &t.verdicts {
        let _ = write!(
            out,
            "\nverdict (metastable rule: a window is healthy at >= {:.1} ok/s, half of min(offered, capacity {:.1} \
             ok/s), or with nothing failed; judged from the slowdown's end at {} ms): live {}",
            v.healthy_rps,
            v.capacity_rps,
            v.trigger_ms.1,
            verdict_words(v.live)
        );
        if let Some(m) = v.model {
            let _ = write!(out, "; model {}", verdict_words(m));
        }
        if let Some((gap, n)) = v.gap {
            let _ = write!(
                out,
                "\nmodel vs live goodput outside the slowdown and the {TRANSITION_MS} ms after it: largest gap \
                 {gap:.1} % of capacity over {n} windows"
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::StatsConfig;

    fn window(i: u64, ok: u64, failed: u64) -> Window {
        Window { start_ms: i * 1000, sent: 30 + failed, ok, gaveup: failed, first_tries: 30, ..Window::default() }
    }

    #[test]
    fn the_metastable_rule_judges_live_and_model_alike() {
        let mut server = StatsConfig {
            workers: 1,
            spin_ms: 2,
            wait_ms: 18,
            limit: Some(40),
            max_connections: 100,
            header_read_timeout_ms: 5000,
            door: "fixed".into(),
            controller: Default::default(),
            budget_ms: None,
            slowdown_at_ms: Some(3000),
            slowdown_factor: 3.0,
            slowdown_for_ms: Some(2000),
            retry_after_s: 1,
            config_epoch: 0,
        };
        // Window starts at uptime 1000: the slowdown covers [2000, 4000) of it.
        let live: Vec<Window> = [30, 30, 10, 0, 0, 5, 30, 30, 30, 30]
            .iter()
            .enumerate()
            .map(|(i, &ok)| window(i as u64, ok, if ok < 30 { 20 } else { 0 }))
            .collect();
        let model: Vec<ModelWindow> = [30, 30, 10, 0, 0, 25, 31, 30, 27, 30]
            .iter()
            .map(|&ok| ModelWindow { ok, first_tries: 30, late: u64::from(ok < 30) * 5, ..ModelWindow::default() })
            .collect();
        let t = |server: &StatsConfig| Timeline {
            window_ms: 1000,
            start_uptime_ms: Some(1000),
            server: Some(server.clone()),
            windows: live.clone(),
            model: Some(model.clone()),
            client: true,
            ..Timeline::default()
        };
        let v = judge(&t(&server), 30.0, 10.0, 50.0).expect("a bounded slowdown inside the window");
        assert_eq!((v.trigger_ms, v.healthy_rps), ((2000, 4000), 15.0));
        // Live: window 5 (5 ok, failures) is the last bad one, so healthy from 6000.
        assert_eq!(v.live, Verdict::Recovered { after_ms: 2000 });
        // Model: window 4 (0 ok, late answers) is the last bad one: healthy from 5000.
        assert_eq!(v.model, Some(Verdict::Recovered { after_ms: 1000 }));
        // Outside [2000, 6000): windows 0, 1, 6..9; worst |27 - 30| = 3 of 50 = 6 %.
        assert_eq!(v.gap, Some((6.0, 6)));
        let text = format_timeline(30.0, &Timeline { verdicts: Some(v), ..t(&server) });
        assert!(text.contains("deploy (3x) at 2000 ms for 2000 ms"), "{text}");
        assert!(text.contains("live recovered after 2000 ms; model recovered after 1000 ms"), "{text}");
        assert!(text.contains("largest gap 6.0 % of capacity over 6 windows"), "{text}");
        assert!(text.contains("  first  retries  rejected  denied  model_ok"), "{text}");
        // A slowdown for good, or one ending after the window, gets no verdict.
        server.slowdown_for_ms = None;
        assert_eq!(judge(&t(&server), 30.0, 10.0, 50.0), None);
        server.slowdown_for_ms = Some(9000);
        assert_eq!(judge(&t(&server), 30.0, 10.0, 50.0), None);
        assert_eq!(verdict_words(Verdict::Stuck), "stuck (did not recover within the run)");
    }

    #[test]
    fn counts_by_when_it_happened() {
        let mut t = TimelineTally::new(500, 1.2);
        assert_eq!(t.len(), 3);
        t.sent(10);
        t.sent(499_999);
        t.sent(500_000);
        t.record(600_000, Outcome::Ok(300_000));
        t.record(700_000, Outcome::Ok(20_000));
        t.record(800_000, Outcome::Refused);
        t.record(1_600_000, Outcome::GaveUp); // the drain: left out
        t.limit(1, Some(12));
        let (w, _, split) = t.finish(Some(650));
        let split = split.expect("the deploy is inside the window");
        assert_eq!((split.p99_before_ms, split.p99_after_ms), (Some(300.0), Some(20.0)));
        assert_eq!((w[0].sent, w[1].sent, w[1].ok, w[1].refused, w[1].limit), (2, 1, 2, 1, Some(12)));
        assert_eq!(w[1].p99_ms, Some(300.0));
        assert_eq!((w[2].start_ms, w[2].gaveup, w[2].p99_ms), (1000, 0, None));
        let tl = Timeline { window_ms: 500, windows: w, ..Timeline::default() };
        let text = format_timeline(100.0, &tl);
        assert!(text.starts_with("timeline 100 rps, door unknown, windows of 500 ms"), "{text}");
        assert!(text.contains("\n      500      1      2        1       0      0    300.0     12"), "{text}");
    }
}
