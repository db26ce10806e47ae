//! The fit's typed errors. Each names the file (and the line) at fault and
//! what was expected, so an edge (CLI, page) can show the message verbatim.

use std::fmt;

/// Why a set of load-test files cannot be read or fitted.
#[derive(Clone, Debug, PartialEq)]
pub enum FitError {
    /// A line does not have the shape its format requires.
    /// Fix: give the tool's own output unchanged, or the plain format.
    Malformed {
        /// The file name as given.
        file: String,
        /// 1-based line number.
        line: usize,
        /// What that line should hold.
        expected: String,
        /// The start of the line as found (at most 60 characters).
        found: String,
    },
    /// The file is none of the formats the readers know.
    /// Fix: one of the formats in [`super::FORMATS`].
    UnknownFormat {
        /// The file name as given.
        file: String,
        /// Its first non-empty line (at most 60 characters).
        first_line: String,
    },
    /// The file holds too few requests (or rows) to fit.
    /// Fix: run the test longer, or at a higher rate.
    TooFew {
        /// The file name as given.
        file: String,
        /// What it holds.
        have: u64,
        /// What the fit needs.
        need: u64,
        /// Of what: "requests", "answered requests sent with nothing else in flight", …
        what: &'static str,
    },
    /// No file was given, or none holds a load level.
    NoData,
    /// The files together exceed the work cap (requests read or simulated).
    /// Fix: fewer or shorter files.
    TooLarge {
        /// Requests in the files (or to simulate).
        requests: u64,
        /// The cap.
        cap: u64,
    },
    /// A setting of the fit or the tune is out of range.
    OutOfRange {
        /// Which setting, as the CLI spells it (`budget-ms`, `factors`).
        param: &'static str,
        /// The value as given.
        value: String,
        /// What is accepted.
        accepted: &'static str,
    },
}

impl fmt::Display for FitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Malformed { file, line, expected, found } => {
                write!(f, "{file}, line {line}: expected {expected}, found `{found}`")
            }
            Self::UnknownFormat { file, first_line } => write!(
                f,
                "{file}: not a format the fit reads (first line `{first_line}`); accepted: {}",
                super::FORMATS
            ),
            Self::TooFew { file, have, need, what } => {
                write!(f, "{file}: {have} {what}, the fit needs at least {need}")
            }
            Self::NoData => write!(f, "no load-test file given: give one or more files, one per offered rate"),
            Self::TooLarge { requests, cap } => {
                write!(f, "the files hold {requests} requests, more than the cap of {cap}: give fewer or shorter runs")
            }
            Self::OutOfRange { param, value, accepted } => {
                write!(f, "{param}: `{value}` is not accepted; expected {accepted}")
            }
        }
    }
}

impl std::error::Error for FitError {}

/// At most 60 characters of a line, with "…" when cut.
pub(crate) fn clip(line: &str) -> String {
    let t = line.trim_end();
    if t.chars().count() <= 60 { t.to_owned() } else { format!("{}…", t.chars().take(60).collect::<String>()) }
}
