//! The limit exported to the edge (seed 003, "Use what the edge already
//! has"): nginx, HAProxy, Envoy and tower configuration that carries the
//! number, with the record at the top as comments so the number keeps its
//! derivation and its reversal conditions wherever it is pasted.
//!
//! The exported queue limit is the one the [`Record`](super::Record) ships:
//! the half-up figure when its worst time in the system fits the budget,
//! otherwise the rounded-down one (1 worker, 230 ms, 21 ms: half-up 10 would
//! allow 231 ms, so 9 ships). The in-system bound an edge proxy counts is
//! that queue plus the workers, because concurrency at a proxy includes the
//! requests in service.
//!
//! Pure: strings in, strings out; the page's copy/download buttons and the
//! CLI both call [`export`].

mod envoy;
mod haproxy;
mod nginx;
mod tower;

use super::{LimitInput, LimitResult, fmt_num};
use crate::error::ConfigError;

/// Where the number goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EdgeTarget {
    /// A minimal `nginx.conf`: `limit_conn` and `limit_req` in front of a `proxy_pass`.
    Nginx,
    /// A minimal `haproxy.cfg`: server `maxconn` / `maxqueue` and `timeout queue`.
    Haproxy,
    /// An Envoy v3 cluster with `circuit_breakers` (YAML).
    Envoy,
    /// A Rust function building tower's `LoadShedLayer` + `ConcurrencyLimitLayer`.
    Tower,
}

impl EdgeTarget {
    /// Every target, in the order the CLI lists them.
    pub const ALL: [EdgeTarget; 4] = [EdgeTarget::Nginx, EdgeTarget::Haproxy, EdgeTarget::Envoy, EdgeTarget::Tower];

    /// The name the CLI and the page use (`nginx`, `haproxy`, `envoy`, `tower`).
    pub fn name(self) -> &'static str {
        match self {
            EdgeTarget::Nginx => "nginx",
            EdgeTarget::Haproxy => "haproxy",
            EdgeTarget::Envoy => "envoy",
            EdgeTarget::Tower => "tower",
        }
    }

    /// The target named `text` (trimmed, case-insensitive). Fix for the
    /// error: one of the names in [`EdgeTarget::ALL`].
    pub fn parse(text: &str) -> Result<EdgeTarget, ConfigError> {
        let t = text.trim();
        Self::ALL.into_iter().find(|e| e.name().eq_ignore_ascii_case(t)).ok_or_else(|| ConfigError::OutOfRange {
            param: "export",
            value: text.to_owned(),
            accepted: format!("one of {}", Self::ALL.map(EdgeTarget::name).join(", ")),
        })
    }

    /// A file name for a download button.
    pub fn file_name(self) -> &'static str {
        match self {
            EdgeTarget::Nginx => "nginx.conf",
            EdgeTarget::Haproxy => "haproxy.cfg",
            EdgeTarget::Envoy => "envoy-cluster.yaml",
            EdgeTarget::Tower => "admission.rs",
        }
    }
}

/// The numbers every format needs, derived once.
struct Numbers {
    workers: u32,
    /// The queue limit the record ships.
    queue: u64,
    /// `queue + workers`: what a proxy counts as in flight.
    in_system: u64,
    /// The drain rate as prose (`47.62`).
    capacity: String,
    /// The drain rate rounded down, as nginx writes it (`47r/s`, or `30r/m`
    /// below one per second).
    rate: String,
    /// `budget − service`, whole ms rounded down, at least 1: the longest
    /// wait in the queue that still leaves time for the service.
    queue_wait_ms: u64,
    /// The Retry-After hint, whole seconds: the budget rounded up, at least 1.
    retry_after_s: u64,
}

impl Numbers {
    fn new(i: &LimitInput, r: &LimitResult) -> Numbers {
        let queue = r.record_limit;
        let per_s = r.capacity_rps.floor();
        let rate = if per_s >= 1.0 {
            format!("{}r/s", per_s as u64)
        } else {
            format!("{}r/m", ((r.capacity_rps * 60.0).floor() as u64).max(1))
        };
        Numbers {
            workers: i.workers,
            queue,
            capacity: fmt_num(r.capacity_rps),
            in_system: queue + u64::from(i.workers),
            rate,
            queue_wait_ms: ((i.budget_ms - i.service_ms).floor() as u64).max(1),
            retry_after_s: ((i.budget_ms / 1000.0).ceil() as u64).max(1),
        }
    }
}

/// The configuration for `target` that carries the limit computed from
/// `input` (`result` must be `limit(*input)`), with the record as comments
/// at the top (`#` for nginx, HAProxy and YAML, `//` for Rust). Ports are
/// placeholders (listen 127.0.0.1:8080, service 127.0.0.1:8081), named in
/// the comments.
pub fn export(target: EdgeTarget, input: &LimitInput, result: &LimitResult) -> String {
    let n = Numbers::new(input, result);
    let prefix = if target == EdgeTarget::Tower { "//" } else { "#" };
    let mut s = header(prefix, target, input, result);
    s.push_str(&match target {
        EdgeTarget::Nginx => nginx::config(&n),
        EdgeTarget::Haproxy => haproxy::config(&n),
        EdgeTarget::Envoy => envoy::config(&n),
        EdgeTarget::Tower => tower::config(&n),
    });
    s
}

/// Placeholder address the edge listens on.
const LISTEN: &str = "127.0.0.1:8080";
/// Placeholder address of the service behind it.
const UPSTREAM_HOST: &str = "127.0.0.1";
/// Placeholder port of the service behind it.
const UPSTREAM_PORT: u16 = 8081;

fn header(prefix: &str, target: EdgeTarget, i: &LimitInput, r: &LimitResult) -> String {
    let mut s = String::new();
    let mut line = |text: &str| {
        s.push_str(prefix);
        if !text.is_empty() {
            s.push(' ');
            s.push_str(text);
        }
        s.push('\n');
    };
    line(&format!(
        "bplab limit --workers {} --budget-ms {} --service-ms {} --export {}",
        i.workers,
        fmt_num(i.budget_ms),
        fmt_num(i.service_ms),
        target.name()
    ));
    line("The number below carries this record. Re-derive it when the last field comes true.");
    line("");
    let rec = &r.record;
    for (head, body) in [
        ("Setting.", &rec.setting),
        ("Criterion.", &rec.criterion),
        ("Measurement.", &rec.measurement),
        ("Number.", &rec.number),
        ("What would reverse it.", &rec.reverse),
    ] {
        for l in wrap(&format!("{head} {body}"), 96) {
            line(&l);
        }
    }
    line("");
    s
}

/// Greedy word wrap to `width` characters (a longer word stays whole).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut cur = String::new();
    for word in text.split_whitespace() {
        if !cur.is_empty() && cur.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

#[cfg(test)]
fn lesson(workers: u32, service_ms: f64, target: EdgeTarget) -> String {
    let i = LimitInput { workers, budget_ms: 230.0, service_ms };
    export(target, &i, &super::limit(i).unwrap())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_bad_names_say_the_fix() {
        for t in EdgeTarget::ALL {
            assert_eq!(EdgeTarget::parse(t.name()), Ok(t));
        }
        assert_eq!(EdgeTarget::parse(" NGINX "), Ok(EdgeTarget::Nginx));
        assert_eq!(
            EdgeTarget::parse("x").unwrap_err().to_string(),
            "export: 'x' is not accepted; expected one of nginx, haproxy, envoy, tower"
        );
    }

    #[test]
    fn shipped_numbers_follow_the_record() {
        // 1 × 209 / 21 = 9.95: half-up 10 allows 231 ms > 230, so 9 ships.
        let i = LimitInput { workers: 1, budget_ms: 230.0, service_ms: 21.0 };
        let n = Numbers::new(&i, &super::super::limit(i).unwrap());
        assert_eq!((n.queue, n.in_system, n.rate.as_str(), n.queue_wait_ms, n.retry_after_s), (9, 10, "47r/s", 209, 1));
        // 4 × 218 / 12 = 72.67: half-up 73 allows 231 ms, so 72 ships.
        let i = LimitInput { workers: 4, budget_ms: 230.0, service_ms: 12.0 };
        let n = Numbers::new(&i, &super::super::limit(i).unwrap());
        assert_eq!((n.queue, n.in_system, n.rate.as_str(), n.queue_wait_ms), (72, 76, "333r/s", 218));
        // 2 × 210 / 20 = 21 exactly, but the 21st queued starts after ceil(21 / 2) = 11
        // service times: (11 + 1) × 20 = 240 ms > 230, so 20 ships ((10 + 1) × 20 = 220 ms).
        let i = LimitInput { workers: 2, budget_ms: 230.0, service_ms: 20.0 };
        let n = Numbers::new(&i, &super::super::limit(i).unwrap());
        assert_eq!((n.queue, n.in_system), (20, 22));
        // Below one per second nginx gets a per-minute rate.
        let i = LimitInput { workers: 1, budget_ms: 9000.0, service_ms: 2000.0 };
        let n = Numbers::new(&i, &super::super::limit(i).unwrap());
        assert_eq!((n.rate.as_str(), n.retry_after_s), ("30r/m", 9));
    }

    #[test]
    fn every_format_starts_with_the_record() {
        for t in EdgeTarget::ALL {
            let s = lesson(1, 21.0, t);
            let p = if t == EdgeTarget::Tower { "// " } else { "# " };
            assert!(s.starts_with(&format!("{p}bplab limit --workers 1 --budget-ms 230 --service-ms 21")), "{s}");
            for head in
                ["Setting. Admission limit of 9", "Criterion.", "Measurement.", "Number. 9,", "What would reverse it."]
            {
                assert!(s.contains(&format!("\n{p}{head}")), "{t:?} lacks {head}:\n{s}");
            }
            assert!(s.contains("10 ms gives 22, 40 ms gives 4"), "{s}");
            // The record block is all comments: nothing before the first non-comment line is config.
            let first_code = s.lines().find(|l| !l.trim().is_empty() && !l.starts_with(p.trim())).unwrap();
            assert!(!first_code.contains("Setting"), "{first_code}");
            assert!(s.lines().all(|l| l.chars().count() <= 120), "{t:?} has a line over 120 chars");
        }
    }

    #[test]
    fn wrap_keeps_words() {
        assert_eq!(wrap("aa bb cc", 5), vec!["aa bb", "cc"]);
        assert_eq!(wrap("abcdefgh ij", 4), vec!["abcdefgh", "ij"]);
    }
}
