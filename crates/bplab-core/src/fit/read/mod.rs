//! Readers: each tool's own output, recognised by its first line, read
//! into [`Level`]s. Pure: they take the file's text and the name to report
//! it by; reading the bytes is the caller's.

mod bplab;
mod locust;
mod per_request;

use super::error::{FitError, clip};
use super::level::Level;

/// The formats the readers accept, as error messages list them.
pub const FORMATS: &str = "hey -o csv, ab -g, ab -e, locust --csv (_stats.csv, _stats_history.csv), \
                           bplab load --csv, bplab load output (with --timeline), \
                           or plain lines `start_ms latency_ms [status]`";

/// Most requests (per-request rows) one call reads.
pub const MAX_ROWS: usize = 2_000_000;

/// Reads one file: its load levels (one for most files, one per rate for a
/// `bplab load` sweep, one per user count for a Locust history).
pub fn read(file: &str, text: &str) -> Result<Vec<Level>, FitError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
    let levels = if first.starts_with("response-time,DNS+dialup") {
        vec![per_request::hey(file, text)?]
    } else if first.starts_with("starttime\tseconds") {
        vec![per_request::ab_gnuplot(file, text)?]
    } else if first.starts_with("Percentage served,") {
        vec![per_request::ab_percentiles(file, text)?]
    } else if first.starts_with("Type,Name,Request Count") {
        vec![locust::stats(file, text)?]
    } else if first.starts_with("Timestamp,User Count") {
        locust::history(file, text)?
    } else if first.starts_with("offered,sent,ok") {
        bplab::csv(file, text)?
    } else if text.lines().take(12).any(|l| l.split_whitespace().take(3).eq(["offered", "sent", "ok"])) {
        // The printed table, after the lines `--compare` or a client policy print first.
        bplab::printed(file, text)?
    } else if per_request::looks_plain(first) {
        vec![per_request::plain(file, text)?]
    } else {
        return Err(FitError::UnknownFormat { file: file.to_owned(), first_line: clip(first) });
    };
    if levels.is_empty() {
        return Err(FitError::TooFew { file: file.to_owned(), have: 0, need: 1, what: "load levels (rows)" });
    }
    Ok(levels)
}

/// A reader's view of one line: the file, the line number and its fields.
pub(crate) struct Line<'a> {
    pub file: &'a str,
    pub number: usize,
    pub text: &'a str,
    pub fields: Vec<&'a str>,
}

impl<'a> Line<'a> {
    pub fn new(file: &'a str, number: usize, text: &'a str, fields: Vec<&'a str>) -> Self {
        Line { file, number, text, fields }
    }

    pub fn bad(&self, expected: impl Into<String>) -> FitError {
        FitError::Malformed {
            file: self.file.to_owned(),
            line: self.number,
            expected: expected.into(),
            found: clip(self.text),
        }
    }

    /// Field `i` as a finite number `>= 0`.
    pub fn num(&self, i: usize, what: &str) -> Result<f64, FitError> {
        self.fields
            .get(i)
            .and_then(|s| s.trim().parse::<f64>().ok())
            .filter(|v| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| self.bad(format!("{what} (field {}) as a number >= 0", i + 1)))
    }

    /// Field `i` as a whole number.
    pub fn int(&self, i: usize, what: &str) -> Result<u64, FitError> {
        self.fields
            .get(i)
            .and_then(|s| s.trim().parse::<u64>().ok())
            .ok_or_else(|| self.bad(format!("{what} (field {}) as a whole number", i + 1)))
    }

    /// Field `i` as a number, or `None` when it is `N/A` or empty.
    pub fn opt(&self, i: usize, what: &str) -> Result<Option<f64>, FitError> {
        match self.fields.get(i).map(|s| s.trim()) {
            Some("N/A" | "" | "-") => Ok(None),
            _ => self.num(i, what).map(Some),
        }
    }
}

/// The non-empty lines after the header, numbered from 1 as an editor does.
pub(crate) fn body(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().map(|(i, l)| (i + 1, l)).filter(|(_, l)| !l.trim().is_empty()).skip(1)
}

/// Errors when a file holds more rows than [`MAX_ROWS`].
pub(crate) fn cap(file: &str, n: usize) -> Result<(), FitError> {
    if n > MAX_ROWS {
        let _ = file;
        return Err(FitError::TooLarge { requests: n as u64, cap: MAX_ROWS as u64 });
    }
    Ok(())
}

/// The index of `name` in a CSV header, or a message naming the column.
pub(crate) fn column(file: &str, header: &[&str], name: &str) -> Result<usize, FitError> {
    header.iter().position(|h| h.trim() == name).ok_or_else(|| FitError::Malformed {
        file: file.to_owned(),
        line: 1,
        expected: format!("a header with a `{name}` column"),
        found: clip(&header.join(",")),
    })
}

#[cfg(test)]
mod tests;
