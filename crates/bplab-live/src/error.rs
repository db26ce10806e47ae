//! The one error type of the crate.
//!
//! Variants split in two families, told apart by [`LiveError::is_usage`]:
//! *usage* errors (a bad flag value or a plan that is too big; fix the
//! command line) and *runtime* errors (bind, connect, I/O, a server that does
//! not answer `/stats`). Every usage message names the offending value and
//! the accepted range, so the fix is in the message.

use std::net::SocketAddr;
use std::path::PathBuf;

/// Everything that can go wrong in the live lab.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LiveError {
    /// A numeric flag is outside its accepted range. Fix: pass a value in
    /// the stated range.
    #[error("{name} = {value} is out of range: accepted {range}")]
    OutOfRange {
        /// Flag or field name, e.g. `workers`.
        name: &'static str,
        /// The value as given.
        value: String,
        /// The accepted range, e.g. `1..=1024`.
        range: &'static str,
    },
    /// A flag value could not be parsed at all. Fix: use the stated form.
    #[error("{name} = {value:?} is not valid: expected {expected}")]
    Unparsable {
        /// Flag or field name, e.g. `limit`.
        name: &'static str,
        /// The text as given.
        value: String,
        /// What would have been accepted.
        expected: &'static str,
    },
    /// The load target URL is not a plain `http://host[:port][/path]` URL.
    #[error("target {value:?} is not valid: {reason} (expected http://HOST[:PORT][/PATH])")]
    BadTarget {
        /// The URL as given.
        value: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The target resolves to an address outside the loopback range.
    /// Fix: point at 127.0.0.1 / localhost / \[::1\], or pass
    /// `--allow-non-loopback` if you really own that host.
    #[error(
        "target {host} resolves to {addr}, which is not a loopback address; \
         only 127.0.0.0/8 and ::1 are allowed unless --allow-non-loopback is given"
    )]
    NonLoopback {
        /// Host as written in the target.
        host: String,
        /// The first non-loopback address it resolved to.
        addr: SocketAddr,
    },
    /// The load plan would send too many requests or run too long.
    /// Fix: fewer rates, lower rates or a shorter `--seconds`.
    #[error("load plan too large: {what} = {value} exceeds the maximum {max}")]
    PlanTooLarge {
        /// `requests` or `seconds`.
        what: &'static str,
        /// The planned amount.
        value: String,
        /// The cap.
        max: &'static str,
    },
    /// Could not bind the listening socket.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// Requested address.
        addr: SocketAddr,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// Could not resolve the target's host name.
    #[error("cannot resolve {host}: {reason}")]
    Resolve {
        /// Host as written.
        host: String,
        /// Resolver message.
        reason: String,
    },
    /// An I/O failure outside a single request (runtime, signal, accept).
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: &'static str,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The server's `/stats` endpoint did not give a usable answer.
    #[error("GET /stats on {addr} failed: {reason}")]
    Stats {
        /// Server address.
        addr: SocketAddr,
        /// What went wrong.
        reason: String,
    },
    /// A request that had to succeed (warm-up or measurement) did not.
    #[error("request to {addr} failed: {reason}")]
    Request {
        /// Server address.
        addr: SocketAddr,
        /// What went wrong.
        reason: String,
    },
    /// Writing the CSV file failed.
    #[error("cannot write CSV {path}: {source}")]
    Csv {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The core model rejected the parameters of a `--compare` prediction.
    #[error("model prediction failed: {reason}")]
    Model {
        /// The core's message.
        reason: String,
    },
}

impl LiveError {
    /// True for errors caused by bad input (flags, target, plan size): the
    /// CLI maps these to exit code 2, everything else to 1.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            LiveError::OutOfRange { .. }
                | LiveError::Unparsable { .. }
                | LiveError::BadTarget { .. }
                | LiveError::NonLoopback { .. }
                | LiveError::PlanTooLarge { .. }
        )
    }

    /// Shorthand for an [`LiveError::OutOfRange`].
    pub(crate) fn range(name: &'static str, value: impl ToString, range: &'static str) -> Self {
        LiveError::OutOfRange { name, value: value.to_string(), range }
    }
}

/// Check `lo <= value <= hi` for an integer flag, naming it in the error.
pub(crate) fn check_range<T>(name: &'static str, value: T, lo: T, hi: T, range: &'static str) -> Result<T, LiveError>
where
    T: PartialOrd + ToString + Copy,
{
    if value < lo || value > hi { Err(LiveError::range(name, value, range)) } else { Ok(value) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_errors_name_value_and_range() {
        let e = check_range("workers", 0usize, 1, 1024, "1..=1024").unwrap_err();
        assert!(e.is_usage());
        let msg = e.to_string();
        assert!(msg.contains("workers = 0"), "{msg}");
        assert!(msg.contains("1..=1024"), "{msg}");
    }

    #[test]
    fn runtime_errors_are_not_usage() {
        let e = LiveError::Model { reason: "x".into() };
        assert!(!e.is_usage());
    }
}
