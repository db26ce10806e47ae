//! Per-request formats: `hey -o csv`, `ab -g`, the plain format, and the
//! percentile table of `ab -e`.

use super::super::error::FitError;
use super::super::level::{Level, Req, Tool};
use super::{Line, body, cap};

/// `hey -o csv`: `response-time,DNS+dialup,DNS,Request-write,Response-delay,Response-read,status-code,offset`,
/// times in seconds.
pub(crate) fn hey(file: &str, text: &str) -> Result<Level, FitError> {
    let mut level = Level::new(file, 1, Tool::Hey);
    for (n, l) in body(text) {
        let line = Line::new(file, n, l, l.split(',').collect());
        if line.fields.len() != 8 {
            return Err(line.bad("8 comma-separated fields (response-time … status-code,offset)"));
        }
        let status = line.int(6, "status-code")?;
        let status = u16::try_from(status).map_err(|_| line.bad("status-code (field 7) from 0 to 65535"))?;
        level.requests.push(Req {
            start_ms: line.num(7, "offset in s")? * 1000.0,
            latency_ms: line.num(0, "response-time in s")? * 1000.0,
            status: Some(status),
        });
        cap(file, level.requests.len())?;
    }
    Ok(level.summarised())
}

/// ApacheBench `-g`: `starttime seconds ctime dtime ttime wait`, tab-separated;
/// `seconds` is the whole-second start, `ttime` the total ms. No status.
pub(crate) fn ab_gnuplot(file: &str, text: &str) -> Result<Level, FitError> {
    let mut level = Level::new(file, 1, Tool::AbGnuplot);
    level.coarse_starts = true;
    for (n, l) in body(text) {
        let line = Line::new(file, n, l, l.split('\t').collect());
        if line.fields.len() != 6 {
            return Err(line.bad("6 tab-separated fields (starttime, seconds, ctime, dtime, ttime, wait)"));
        }
        level.requests.push(Req {
            start_ms: line.num(1, "seconds")? * 1000.0,
            latency_ms: line.num(4, "ttime in ms")?,
            status: None,
        });
        cap(file, level.requests.len())?;
    }
    Ok(level.summarised())
}

/// ApacheBench `-e`: `Percentage served,Time in ms`, rows 0 to 100.
pub(crate) fn ab_percentiles(file: &str, text: &str) -> Result<Level, FitError> {
    let mut level = Level::new(file, 1, Tool::AbPercentiles);
    for (n, l) in body(text) {
        let line = Line::new(file, n, l, l.split(',').collect());
        if line.fields.len() != 2 {
            return Err(line.bad("2 comma-separated fields (percentage, ms)"));
        }
        let p = line.num(0, "percentage")?;
        if p > 100.0 {
            return Err(line.bad("a percentage from 0 to 100"));
        }
        if p > 0.0 {
            level.percentiles.push((p / 100.0, line.num(1, "time in ms")?));
        }
    }
    if level.percentiles.len() < 10 {
        return Err(FitError::TooFew {
            file: file.to_owned(),
            have: level.percentiles.len() as u64,
            need: 10,
            what: "percentile rows",
        });
    }
    level.p50_ms = level.percentiles.iter().find(|(p, _)| *p >= 0.5).map(|x| x.1);
    level.p99_ms = level.percentiles.iter().find(|(p, _)| *p >= 0.99).map(|x| x.1);
    Ok(level)
}

/// Whether a first line reads as the plain format (2 or 3 numbers, or a `#` comment).
pub(crate) fn looks_plain(first: &str) -> bool {
    if first.starts_with('#') {
        return true;
    }
    let f: Vec<&str> = plain_fields(first);
    (2..=3).contains(&f.len()) && f.iter().all(|s| s.parse::<f64>().is_ok())
}

fn plain_fields(l: &str) -> Vec<&str> {
    l.split(|c: char| c == ',' || c.is_whitespace()).filter(|s| !s.is_empty()).collect()
}

/// The plain format: one request per line, `start_ms latency_ms [status]`,
/// separated by spaces, tabs or commas; `#` starts a comment. Without a
/// status every request counts as answered.
pub(crate) fn plain(file: &str, text: &str) -> Result<Level, FitError> {
    let mut level = Level::new(file, 1, Tool::Plain);
    for (i, l) in text.lines().enumerate() {
        let l = l.split('#').next().unwrap_or("");
        if l.trim().is_empty() {
            continue;
        }
        let line = Line::new(file, i + 1, l, plain_fields(l));
        if !(2..=3).contains(&line.fields.len()) || line.fields.iter().any(|f| f.parse::<f64>().is_err()) {
            return Err(line.bad("`start_ms latency_ms [status]`: 2 or 3 numbers"));
        }
        let status = match line.fields.get(2) {
            Some(_) => {
                Some(u16::try_from(line.int(2, "status")?).map_err(|_| line.bad("status (field 3) from 0 to 65535"))?)
            }
            None => None,
        };
        level.requests.push(Req { start_ms: line.num(0, "start_ms")?, latency_ms: line.num(1, "latency_ms")?, status });
        cap(file, level.requests.len())?;
    }
    Ok(level.summarised())
}
