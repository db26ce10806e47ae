//! Locust `--csv`: `_stats.csv` (the run's aggregates) and
//! `_stats_history.csv` (aggregates every second). Locust counts a failed
//! request (a 503 here) in its response times too: the answered requests'
//! percentiles are read off the mixed table, taking the refusals as the
//! fastest (a refusal is answered at once).

use super::super::error::FitError;
use super::super::level::{Level, Tool};
use super::{Line, body, column};

/// Locust's percentile columns and their fractions.
const PCTS: [(&str, f64); 11] = [
    ("50%", 0.5),
    ("66%", 0.66),
    ("75%", 0.75),
    ("80%", 0.8),
    ("90%", 0.9),
    ("95%", 0.95),
    ("98%", 0.98),
    ("99%", 0.99),
    ("99.9%", 0.999),
    ("99.99%", 0.9999),
    ("100%", 1.0),
];

fn header(text: &str) -> Vec<&str> {
    text.lines().find(|l| !l.trim().is_empty()).unwrap_or("").split(',').collect()
}

/// The percentile table of a row, skipping `N/A`.
fn percentiles(file: &str, head: &[&str], line: &Line<'_>, prefix: &str) -> Result<Vec<(f64, f64)>, FitError> {
    let mut out = Vec::new();
    for (name, p) in PCTS {
        let i = column(file, head, &format!("{prefix}{name}"))?;
        if let Some(v) = line.opt(i, name)? {
            out.push((p, v));
        }
    }
    Ok(out)
}

/// The answered requests' `q`-quantile from a table over answered and
/// refused requests, the refused (a share `f`) taken as the fastest:
/// the table's `f + q (1 − f)` quantile, linear between listed points.
pub(crate) fn answered_quantile(table: &[(f64, f64)], refused_share: f64, q: f64) -> Option<f64> {
    let p = refused_share + q * (1.0 - refused_share);
    let mut prev: Option<(f64, f64)> = None;
    for &(pp, v) in table {
        if pp >= p {
            return Some(match prev {
                Some((p0, v0)) if pp > p0 && p > p0 => v0 + (v - v0) * (p - p0) / (pp - p0),
                _ => v,
            });
        }
        prev = Some((pp, v));
    }
    table.last().map(|x| x.1)
}

fn finish(mut level: Level, sum_ms: f64, min_ms: f64) -> Level {
    level.ok = level.sent.saturating_sub(level.refused);
    let share = if level.sent > 0 { level.refused as f64 / level.sent as f64 } else { 0.0 };
    level.p50_ms = answered_quantile(&level.percentiles, share, 0.5);
    level.p99_ms = answered_quantile(&level.percentiles, share, 0.99);
    // Refusals took about the fastest time seen.
    level.mean_ms = (level.ok > 0).then(|| (sum_ms - level.refused as f64 * min_ms).max(0.0) / level.ok as f64);
    level.percentiles_include_refused = true;
    level
}

/// `_stats.csv`: the `Aggregated` row.
pub(crate) fn stats(file: &str, text: &str) -> Result<Level, FitError> {
    let head = header(text);
    let c = |name| column(file, &head, name);
    let (name, count, fails, avg, min, rps) = (
        c("Name")?,
        c("Request Count")?,
        c("Failure Count")?,
        c("Average Response Time")?,
        c("Min Response Time")?,
        c("Requests/s")?,
    );
    for (n, l) in body(text) {
        let line = Line::new(file, n, l, l.split(',').collect());
        if line.fields.get(name).map(|s| s.trim()) != Some("Aggregated") {
            continue;
        }
        let mut level = Level::new(file, 1, Tool::LocustStats);
        level.sent = line.int(count, "Request Count")?;
        level.refused = line.int(fails, "Failure Count")?;
        let per_s = line.num(rps, "Requests/s")?;
        if per_s <= 0.0 {
            return Err(line.bad("Requests/s above 0"));
        }
        level.duration_ms = level.sent as f64 / per_s * 1000.0;
        level.percentiles = percentiles(file, &head, &line, "")?;
        let sum = line.num(avg, "Average Response Time")? * level.sent as f64;
        let fastest = line.opt(min, "Min Response Time")?.unwrap_or(0.0);
        return Ok(finish(level, sum, fastest));
    }
    Err(FitError::Malformed {
        file: file.to_owned(),
        line: text.lines().count(),
        expected: "a row named `Aggregated`".into(),
        found: "end of file".into(),
    })
}

/// `_stats_history.csv`: the `Aggregated` rows, one level per run of equal
/// user counts (a step load gives one level per step); counts are the
/// differences of the running totals, the percentiles Locust's recent
/// window at the step's last row. Steps under 20 requests (the ramp) are left out.
pub(crate) fn history(file: &str, text: &str) -> Result<Vec<Level>, FitError> {
    let head = header(text);
    let c = |name| column(file, &head, name);
    let (ts, users, name) = (c("Timestamp")?, c("User Count")?, c("Name")?);
    let (count, fails, avg, min) = (
        c("Total Request Count")?,
        c("Total Failure Count")?,
        c("Total Average Response Time")?,
        c("Total Min Response Time")?,
    );
    let mut levels = Vec::new();
    let mut prev = (None::<f64>, 0u64, 0u64, 0.0f64);
    let mut cur: Option<(Level, f64, f64)> = None;
    let close = |cur: Option<(Level, f64, f64)>, levels: &mut Vec<Level>| {
        if let Some((mut l, sum, fastest)) = cur
            && l.sent >= 20
            && l.duration_ms > 0.0
        {
            l.index = levels.len() + 1;
            levels.push(finish(l, sum, fastest));
        }
    };
    for (n, l) in body(text) {
        let line = Line::new(file, n, l, l.split(',').collect());
        if line.fields.get(name).map(|s| s.trim()) != Some("Aggregated") {
            continue;
        }
        let (t, u) = (line.num(ts, "Timestamp")?, line.int(users, "User Count")?);
        let (total, failed) = (line.int(count, "Total Request Count")?, line.int(fails, "Total Failure Count")?);
        let sum = line.num(avg, "Total Average Response Time")? * total as f64;
        let fastest = line.opt(min, "Total Min Response Time")?.unwrap_or(0.0);
        if cur.as_ref().is_none_or(|(l, ..)| l.users != Some(u)) {
            close(cur.take(), &mut levels);
            let mut l = Level::new(file, 0, Tool::LocustHistory);
            l.users = Some(u);
            cur = Some((l, 0.0, fastest));
        }
        if let (Some((l, s, f)), Some(t0)) = (cur.as_mut(), prev.0) {
            l.duration_ms += (t - t0) * 1000.0;
            l.sent += total.saturating_sub(prev.1);
            l.refused += failed.saturating_sub(prev.2);
            *s += sum - prev.3;
            *f = fastest;
            l.percentiles = percentiles(file, &head, &line, "")?;
        }
        prev = (Some(t), total, failed, sum);
    }
    close(cur, &mut levels);
    if levels.is_empty() {
        return Err(FitError::TooFew {
            file: file.to_owned(),
            have: prev.1,
            need: 20,
            what: "requests at one user count",
        });
    }
    Ok(levels)
}
