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
    /// A flag value outside its accepted range, or not parseable. The
    /// message reads like the core's `ConfigError::OutOfRange`, with the
    /// flag's `--`: `--workers: '0' is not accepted; expected a whole number
    /// from 1 to 1024 (slots)`. Fix: pick a value in `accepted`.
    #[error("--{flag}: '{value}' is not accepted; expected {accepted}")]
    OutOfRange {
        /// Flag name without `--`, e.g. `workers`.
        flag: &'static str,
        /// The value as given.
        value: String,
        /// What is accepted, in words, built from the constants that
        /// enforce it (see [`crate::flags`]).
        accepted: String,
    },
    /// The load target URL is not a plain `http://host[:port][/path]` URL.
    /// Fix: use that form.
    #[error(
        "--target: '{value}' is not accepted; expected http://HOST[:PORT][/PATH] with PORT from 1 to {max_port} \
         (default 80): {reason}",
        max_port = u16::MAX
    )]
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
        "--target: '{target}' is not accepted; expected a loopback host (127.0.0.0/8 or ::1; it resolves to {addr}), \
         or --allow-non-loopback for a host you own"
    )]
    NonLoopback {
        /// The target (normalised URL).
        target: String,
        /// The first non-loopback address it resolved to.
        addr: SocketAddr,
    },
    /// The target names a host other than `localhost` or `*.localhost`,
    /// and non-loopback targets are not allowed: refused before any lookup.
    /// Fix: use 127.0.0.1, localhost or \[::1\], or pass
    /// `--allow-non-loopback` for a host you own.
    #[error(
        "--target: '{target}' is not accepted; expected a loopback host (localhost, *.localhost, 127.0.0.0/8 or \
         [::1]; names other than localhost are not looked up), or --allow-non-loopback for a host you own"
    )]
    NonLoopbackName {
        /// The target (normalised URL).
        target: String,
    },
    /// The load plan as a whole would send too many requests or run too
    /// long; the message gives the `--seconds` range these rates allow.
    /// Fix: fewer rates, lower rates or a shorter `--seconds`.
    #[error("--seconds: '{value}' is not accepted; expected {accepted}")]
    PlanTooLarge {
        /// `--seconds` as planned.
        value: String,
        /// The range these rates allow, and why.
        accepted: String,
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
    /// Every request of one rate failed to connect: nothing listens at the
    /// target. Fix: start the service (`bplab serve`) or correct `--target`.
    #[error(
        "cannot connect to {addr}: all {sent} requests at {rate_rps} rps failed to connect ({reason}); \
         is the service running there?"
    )]
    Unreachable {
        /// Target address.
        addr: SocketAddr,
        /// Requests sent in that rate's window.
        sent: u64,
        /// The offered rate, requests per second.
        rate_rps: f64,
        /// The first connect error.
        reason: String,
    },
    /// No request of a rate got an HTTP answer and `/stats` did not answer
    /// either: the target is not an HTTP/1.1 server, or never answers.
    /// Fix: point `--target` at the service.
    #[error(
        "{addr} {what}: none of the {sent} requests at {rate_rps} rps got an HTTP answer; is --target the service?"
    )]
    NoHttp {
        /// Target address.
        addr: SocketAddr,
        /// What it did: "does not speak HTTP/1.1 (...)", "never answers
        /// (...)", "closes without answering".
        what: String,
        /// Requests sent in that rate's window.
        sent: u64,
        /// The offered rate, requests per second.
        rate_rps: f64,
    },
    /// The run finished, but no request of it was answered with a success
    /// status (2xx): the target refuses or fails everything. The table
    /// (and CSV) were written; the CLI exits 1.
    /// Fix: point `--target` at the service's work path, or lighten the load.
    #[error("no request was answered with a success status (2xx): {seen}; is --target the service's work path?")]
    NoSuccess {
        /// What came back instead: the statuses seen with their counts,
        /// give-ups and errors.
        seen: String,
    },
    /// The run was interrupted (SIGINT or SIGTERM) after keeping what it
    /// measured; the CLI exits 130.
    #[error("interrupted{}", .csv.as_ref().map_or_else(String::new, |p| format!("; the completed rows are in {}", p.display())))]
    Interrupted {
        /// The CSV file written, if any.
        csv: Option<PathBuf>,
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
    /// The exit code the CLI uses: 2 for usage errors, 130 after an
    /// interrupt, 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        match self {
            LiveError::Interrupted { .. } => 130,
            e if e.is_usage() => 2,
            _ => 1,
        }
    }

    /// True for errors caused by bad input (flags, target, plan size): the
    /// CLI maps these to exit code 2, everything else to 1.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            LiveError::OutOfRange { .. }
                | LiveError::BadTarget { .. }
                | LiveError::NonLoopback { .. }
                | LiveError::NonLoopbackName { .. }
                | LiveError::PlanTooLarge { .. }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_errors_name_flag_value_and_range() {
        let e = LiveError::OutOfRange { flag: "workers", value: "0".into(), accepted: "a whole number".into() };
        assert!(e.is_usage());
        assert_eq!(e.to_string(), "--workers: '0' is not accepted; expected a whole number");
    }

    #[test]
    fn runtime_errors_are_not_usage() {
        let e = LiveError::Model { reason: "x".into() };
        assert!(!e.is_usage());
        let addr = SocketAddr::from(([127, 0, 0, 1], 9));
        let e = LiveError::Unreachable { addr, sent: 3, rate_rps: 50.0, reason: "refused".into() };
        assert!(!e.is_usage());
        assert!(!e.to_string().contains('\n'), "{e}");
    }
}
