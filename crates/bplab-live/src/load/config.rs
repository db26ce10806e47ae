//! Validated load-generator configuration and its bounded plan.

use std::path::{Path, PathBuf};

use crate::error::{LiveError, check_range};
use crate::load::Target;
use crate::load::schedule::schedule;

/// Most requests one run may plan, over all rates.
pub const MAX_PLAN_REQUESTS: usize = 200_000;
/// Most seconds of sending one run may plan (rates × seconds); each rate
/// also waits up to one client timeout for its last answers.
pub const MAX_PLAN_SECONDS: f64 = 600.0;
/// Highest accepted offered rate, requests per second.
pub const MAX_RATE_RPS: f64 = 10_000.0;
/// Most rates in one sweep.
pub const MAX_RATES: usize = 64;
/// Longest accepted client timeout, ms.
pub const MAX_CLIENT_TIMEOUT_MS: u64 = 60_000;

/// Load-generator configuration, validated once by [`LoadConfig::new`].
#[derive(Debug, Clone, PartialEq)]
pub struct LoadConfig {
    /// Where to send (work path) and where `/stats` lives.
    target: Target,
    /// Offered rates, requests per second, each in `(0, 10000]`, run in order.
    rates_rps: Vec<f64>,
    /// Sending window per rate, seconds, in `[0.1, 600]`.
    seconds: f64,
    /// Seed of the arrival schedule (same seed, same schedule).
    seed: u64,
    /// Client gives up on a request this many ms after its scheduled send
    /// time, `1..=60000`.
    client_timeout_ms: u64,
    /// First print the server's configuration line from `/stats`.
    check: bool,
    /// Also write the table as CSV to this file.
    csv: Option<PathBuf>,
    /// Allow targets that resolve outside 127.0.0.0/8 and ::1.
    allow_non_loopback: bool,
    /// Measure the service time first and print the core model's prediction
    /// beside each measured row.
    compare: bool,
}

impl LoadConfig {
    /// Validate and build. Ranges: see the field docs; the whole plan is
    /// bounded by [`MAX_PLAN_REQUESTS`] and [`MAX_PLAN_SECONDS`].
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        target: Target,
        rates_rps: Vec<f64>,
        seconds: f64,
        seed: u64,
        client_timeout_ms: u64,
        check: bool,
        csv: Option<PathBuf>,
        allow_non_loopback: bool,
        compare: bool,
    ) -> Result<Self, LiveError> {
        if rates_rps.is_empty() {
            return Err(LiveError::range("rate", "(none)", "one to 64 rates, each in (0, 10000]"));
        }
        if rates_rps.len() > MAX_RATES {
            return Err(LiveError::range("number of rates", rates_rps.len(), "1..=64"));
        }
        for &r in &rates_rps {
            check_rate(r)?;
        }
        if !(seconds.is_finite() && (0.1..=MAX_PLAN_SECONDS).contains(&seconds)) {
            return Err(LiveError::range("seconds", seconds, "0.1..=600"));
        }
        check_range("client_timeout_ms", client_timeout_ms, 1, MAX_CLIENT_TIMEOUT_MS, "1..=60000")?;
        let total_s = seconds * rates_rps.len() as f64;
        if total_s > MAX_PLAN_SECONDS {
            return Err(LiveError::PlanTooLarge {
                what: "seconds (rates x seconds)",
                value: format!("{total_s}"),
                max: "600",
            });
        }
        let expected: f64 = rates_rps.iter().map(|r| r * seconds).sum();
        if expected > MAX_PLAN_REQUESTS as f64 {
            return Err(LiveError::PlanTooLarge {
                what: "expected requests",
                value: format!("{expected:.0}"),
                max: "200000",
            });
        }
        Ok(LoadConfig { target, rates_rps, seconds, seed, client_timeout_ms, check, csv, allow_non_loopback, compare })
    }

    /// Where to send (work path) and where `/stats` lives.
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// Offered rates, requests per second, in order.
    pub fn rates_rps(&self) -> &[f64] {
        &self.rates_rps
    }

    /// Sending window per rate, seconds.
    pub fn seconds(&self) -> f64 {
        self.seconds
    }

    /// Seed of the arrival schedule.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Client timeout, ms from the scheduled send time.
    pub fn client_timeout_ms(&self) -> u64 {
        self.client_timeout_ms
    }

    /// Print the server configuration line first.
    pub fn check(&self) -> bool {
        self.check
    }

    /// CSV output file, if any.
    pub fn csv(&self) -> Option<&Path> {
        self.csv.as_deref()
    }

    /// Non-loopback targets allowed.
    pub fn allow_non_loopback(&self) -> bool {
        self.allow_non_loopback
    }

    /// Print the model beside the measurement.
    pub fn compare(&self) -> bool {
        self.compare
    }

    /// The send schedule of every rate (ms offsets, see
    /// [`mod@crate::load::schedule`]), computed ahead. Errors if the drawn
    /// schedules together exceed [`MAX_PLAN_REQUESTS`].
    pub fn plan(&self) -> Result<Vec<Vec<f64>>, LiveError> {
        let mut total = 0usize;
        let mut out = Vec::with_capacity(self.rates_rps.len());
        for &rate in &self.rates_rps {
            let left = MAX_PLAN_REQUESTS - total;
            let s = schedule(rate, self.seconds, self.seed, left);
            total += s.len();
            if total > MAX_PLAN_REQUESTS {
                return Err(LiveError::PlanTooLarge {
                    what: "drawn requests",
                    value: format!("more than {total}"),
                    max: "200000",
                });
            }
            out.push(s);
        }
        Ok(out)
    }
}

fn check_rate(r: f64) -> Result<f64, LiveError> {
    if r.is_finite() && r > 0.0 && r <= MAX_RATE_RPS {
        Ok(r)
    } else {
        Err(LiveError::range("rate", r, "(0, 10000] requests per second"))
    }
}

/// Parse a `--rate` list such as `40,48,60,100` (requests per second).
/// Each entry must be a number in `(0, 10000]`; `0`, `-5` and `abc` are
/// usage errors naming the entry.
pub fn parse_rates(text: &str) -> Result<Vec<f64>, LiveError> {
    let mut out = Vec::new();
    for part in text.split(',') {
        let p = part.trim();
        let r: f64 = p.parse().map_err(|_| LiveError::Unparsable {
            name: "rate",
            value: p.to_string(),
            expected: "comma-separated numbers in (0, 10000], e.g. 40,48,60,100",
        })?;
        if !(r.is_finite() && r > 0.0 && r <= MAX_RATE_RPS) {
            return Err(LiveError::range("rate", p, "(0, 10000] requests per second"));
        }
        out.push(r);
    }
    if out.len() > MAX_RATES {
        return Err(LiveError::range("number of rates", out.len(), "1..=64"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target() -> Target {
        Target::parse("http://127.0.0.1:1/").expect("target")
    }

    fn cfg(rates: Vec<f64>, seconds: f64) -> Result<LoadConfig, LiveError> {
        LoadConfig::new(target(), rates, seconds, 1, 2000, false, None, false, false)
    }

    #[test]
    fn rates_parse_and_reject() {
        assert_eq!(parse_rates("40, 48,60,100").ok(), Some(vec![40.0, 48.0, 60.0, 100.0]));
        for bad in ["0", "-5", "abc", "40,,60", "inf", "NaN", "10001"] {
            let e = parse_rates(bad).unwrap_err();
            assert!(e.is_usage(), "{bad}");
        }
        assert!(parse_rates("0").unwrap_err().to_string().contains("rate = 0"));
    }

    #[test]
    fn plan_bounds() {
        assert!(cfg(vec![40.0, 48.0, 60.0, 100.0], 20.0).is_ok());
        let e = cfg(vec![10.0; 11], 60.0).unwrap_err();
        assert!(matches!(e, LiveError::PlanTooLarge { .. }), "{e}");
        let e = cfg(vec![5000.0, 5000.0], 30.0).unwrap_err();
        assert!(matches!(e, LiveError::PlanTooLarge { .. }), "{e}");
        assert!(cfg(vec![], 1.0).unwrap_err().is_usage());
        assert!(cfg(vec![1.0], 0.0).unwrap_err().is_usage());
        assert!(cfg(vec![1.0], f64::NAN).unwrap_err().is_usage());
    }

    #[test]
    fn plan_is_deterministic() {
        let c = cfg(vec![40.0, 100.0], 2.0).expect("valid");
        let a = c.plan().expect("plan");
        assert_eq!(a, c.plan().expect("plan"));
        assert_eq!(a.len(), 2);
    }
}
