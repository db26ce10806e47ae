//! Validated load-generator configuration and its bounded plan: the plain
//! [`LoadSettings`], checked once by [`LoadConfig::new`].

use std::path::{Path, PathBuf};

use crate::error::LiveError;
use crate::flags::{RealFlag, WholeFlag};
use crate::load::Target;
use crate::load::policy::ClientPolicy;
use crate::load::schedule::schedule;
use crate::load::table::num;

/// Most tries one run may plan, over all rates: first tries and retries
/// together. A plan's tries are counted at their most:
/// first tries × [`LoadConfig::tries_per_first`].
pub const MAX_PLAN_REQUESTS: usize = 200_000;
/// The send cap: retries never push the sends past this many times the
/// offered rate. A retry is not made (counted `capped`) when the last
/// 1,000 ms already hold `MAX_TRY_MULTIPLE × rate` sends (first tries
/// always go: they are the plan), or when its rate's window has already
/// made `MAX_TRY_MULTIPLE` tries per planned first try.
pub const MAX_TRY_MULTIPLE: u64 = 10;
/// Most seconds of sending one run may plan (rates × seconds); each rate
/// also waits up to one client timeout for its last answers.
pub const MAX_PLAN_SECONDS: f64 = 600.0;
/// Shortest accepted sending window per rate, seconds.
pub const MIN_SECONDS: f64 = 0.1;
/// Highest accepted offered rate, requests per second.
pub const MAX_RATE_RPS: f64 = 10_000.0;
/// Most rates in one sweep.
pub const MAX_RATES: usize = 64;
/// Longest accepted client timeout, ms.
pub const MAX_CLIENT_TIMEOUT_MS: u64 = 60_000;

/// The lesson's sweep: offered rates, requests per second (the core's
/// [`bplab_core::params::LESSON_RATES_RPS`]).
pub const LESSON_RATES_RPS: [f64; 4] = bplab_core::params::LESSON_RATES_RPS;
/// Default sending window per rate, seconds (the lesson's).
pub const DEFAULT_SECONDS: f64 = bplab_core::params::LESSON_SECONDS;
/// Default seed of the arrival schedule (the lesson's).
pub const DEFAULT_SEED: u64 = bplab_core::params::LESSON_SEED as u64;
/// Default client timeout, ms (the lesson's).
pub const DEFAULT_CLIENT_TIMEOUT_MS: u64 = bplab_core::params::LESSON_CLIENT_TIMEOUT_MS as u64;

/// `--rate`: each offered rate, `(0, MAX_RATE_RPS]`; up to [`MAX_RATES`] of them.
pub const RATE: RealFlag = RealFlag {
    name: "rate",
    label: "offered rate",
    min: 0.0,
    max: MAX_RATE_RPS,
    min_exclusive: true,
    unit: "requests per second",
};
/// `--seconds`: sending window per rate, `[MIN_SECONDS, MAX_PLAN_SECONDS]`
/// (and rates × seconds at most [`MAX_PLAN_SECONDS`]).
pub const SECONDS: RealFlag = RealFlag {
    name: "seconds",
    label: "sending window per rate",
    min: MIN_SECONDS,
    max: MAX_PLAN_SECONDS,
    min_exclusive: false,
    unit: "s",
};
/// `--seed`: seed of the arrival schedule, any `u64`.
pub const SEED: WholeFlag =
    WholeFlag { name: "seed", label: "seed of the arrival schedule", min: 0, max: u64::MAX, unit: "", or_word: None };
/// `--client-timeout-ms`: give-up time from the scheduled send time,
/// `1..=MAX_CLIENT_TIMEOUT_MS`.
pub const CLIENT_TIMEOUT_MS: WholeFlag = WholeFlag {
    name: "client-timeout-ms",
    label: "give up on a request this long after its send time",
    min: 1,
    max: MAX_CLIENT_TIMEOUT_MS,
    unit: "ms",
    or_word: None,
};

/// The load generator's settings as plain named fields; [`LoadConfig::new`]
/// checks them. Start from [`LoadSettings::lesson`] and override fields.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadSettings {
    /// Where to send (work path) and where `/stats` lives.
    pub target: Target,
    /// Offered rates, requests per second, each in [`RATE`]'s range, run in
    /// order; 1 to [`MAX_RATES`] of them.
    pub rates_rps: Vec<f64>,
    /// Sending window per rate, seconds, in [`SECONDS`]'s range.
    pub seconds: f64,
    /// Seed of the arrival schedule (same seed, same schedule).
    pub seed: u64,
    /// Client gives up on a request this many ms after its scheduled send
    /// time, in [`CLIENT_TIMEOUT_MS`]'s range.
    pub client_timeout_ms: u64,
    /// First print the server's configuration line from `/stats`.
    pub check: bool,
    /// Also write the table as CSV to this file.
    pub csv: Option<PathBuf>,
    /// Allow targets that resolve outside 127.0.0.0/8 and ::1.
    pub allow_non_loopback: bool,
    /// Measure the service time first and print the core model's prediction
    /// beside each measured row.
    pub compare: bool,
    /// Also keep a per-window timeline of each rate, windows this wide, ms
    /// (in [`crate::load::TIMELINE_MS`]'s range); `None` = no timeline.
    pub timeline_ms: Option<u64>,
    /// The callers' retries, retry budget, throttling and `Retry-After`
    /// ([`ClientPolicy::NONE`]: the lesson's client, one try per request).
    pub policy: ClientPolicy,
}

impl LoadSettings {
    /// The lesson's sweep against `target` (and the CLI defaults):
    /// [`LESSON_RATES_RPS`], [`DEFAULT_SECONDS`] each, [`DEFAULT_SEED`],
    /// [`DEFAULT_CLIENT_TIMEOUT_MS`]; no check, no CSV, loopback only, no
    /// comparison.
    pub fn lesson(target: Target) -> Self {
        LoadSettings {
            target,
            rates_rps: LESSON_RATES_RPS.to_vec(),
            seconds: DEFAULT_SECONDS,
            seed: DEFAULT_SEED,
            client_timeout_ms: DEFAULT_CLIENT_TIMEOUT_MS,
            check: false,
            csv: None,
            allow_non_loopback: false,
            compare: false,
            timeline_ms: None,
            policy: ClientPolicy::NONE,
        }
    }
}

/// Load-generator configuration, validated once by [`LoadConfig::new`].
#[derive(Debug, Clone, PartialEq)]
pub struct LoadConfig {
    s: LoadSettings,
}

/// `x` rounded down to 3 decimals, so a derived upper bound is never above
/// the true one.
fn floor3(x: f64) -> f64 {
    (x * 1000.0).floor() / 1000.0
}

impl LoadConfig {
    /// Check every field of `settings` (see the [`LoadSettings`] field
    /// docs), then the whole plan: rates × seconds at most
    /// [`MAX_PLAN_SECONDS`] and at most [`MAX_PLAN_REQUESTS`] requests,
    /// expected and drawn. The first problem is a usage error naming the
    /// flag, the value and the accepted range; nothing is sent before this.
    pub fn new(settings: LoadSettings) -> Result<Self, LiveError> {
        let s = settings;
        let n = s.rates_rps.len();
        if n == 0 || n > MAX_RATES {
            let given: Vec<String> = s.rates_rps.iter().map(|&r| num(r)).collect();
            return Err(rate_list_error(&given.join(",")));
        }
        for &r in &s.rates_rps {
            RATE.check(r).map_err(|_| rate_list_error(&num(r)))?;
        }
        SECONDS.check(s.seconds)?;
        CLIENT_TIMEOUT_MS.check(s.client_timeout_ms)?;
        if let Some(ms) = s.timeline_ms {
            crate::load::TIMELINE_MS.check(ms)?;
        }
        s.policy.check()?;
        let too_large = |max_s: f64, why: String| LiveError::PlanTooLarge {
            value: num(s.seconds),
            accepted: format!("a number from {MIN_SECONDS} to {} (s) {why}", floor3(max_s)),
        };
        if s.seconds * n as f64 > MAX_PLAN_SECONDS {
            let why = format!("with {n} rates (rates × seconds at most {MAX_PLAN_SECONDS})");
            return Err(too_large(MAX_PLAN_SECONDS / n as f64, why));
        }
        let total_rps: f64 = s.rates_rps.iter().sum();
        let per_first = tries_per_first(&s.policy);
        if total_rps * s.seconds * per_first as f64 > MAX_PLAN_REQUESTS as f64 {
            let why = format!(
                "at {} requests per second over all rates{} (at most {MAX_PLAN_REQUESTS} tries per plan, first tries \
                 and retries)",
                num(total_rps),
                tries_words(per_first, &s.policy)
            );
            return Err(too_large(MAX_PLAN_REQUESTS as f64 / (total_rps * per_first as f64), why));
        }
        let cfg = LoadConfig { s };
        // Draw the schedules once here so a plan that is too large is refused
        // before anything is sent (the sweep draws the same plan again).
        cfg.plan()?;
        Ok(cfg)
    }

    /// Where to send (work path) and where `/stats` lives.
    pub fn target(&self) -> &Target {
        &self.s.target
    }

    /// Offered rates, requests per second, in order.
    pub fn rates_rps(&self) -> &[f64] {
        &self.s.rates_rps
    }

    /// Sending window per rate, seconds.
    pub fn seconds(&self) -> f64 {
        self.s.seconds
    }

    /// Seed of the arrival schedule.
    pub fn seed(&self) -> u64 {
        self.s.seed
    }

    /// Client timeout, ms from the scheduled send time.
    pub fn client_timeout_ms(&self) -> u64 {
        self.s.client_timeout_ms
    }

    /// Print the server configuration line first.
    pub fn check(&self) -> bool {
        self.s.check
    }

    /// CSV output file, if any.
    pub fn csv(&self) -> Option<&Path> {
        self.s.csv.as_deref()
    }

    /// Non-loopback targets allowed.
    pub fn allow_non_loopback(&self) -> bool {
        self.s.allow_non_loopback
    }

    /// Print the model beside the measurement.
    pub fn compare(&self) -> bool {
        self.s.compare
    }

    /// Timeline window width, ms, if a timeline is asked for.
    pub fn timeline_ms(&self) -> Option<u64> {
        self.s.timeline_ms
    }

    /// The callers' policies.
    pub fn policy(&self) -> &ClientPolicy {
        &self.s.policy
    }

    /// The most tries per first try: `1 + --retries`, at most
    /// [`MAX_TRY_MULTIPLE`] (the send cap).
    pub fn tries_per_first(&self) -> u64 {
        tries_per_first(&self.s.policy)
    }

    /// The send schedule of every rate (ms offsets, see
    /// [`mod@crate::load::schedule`]), computed ahead. Errors if the drawn
    /// schedules' first tries, times [`LoadConfig::tries_per_first`], exceed
    /// [`MAX_PLAN_REQUESTS`].
    pub fn plan(&self) -> Result<Vec<Vec<f64>>, LiveError> {
        let per_first = self.tries_per_first() as usize;
        let first_max = MAX_PLAN_REQUESTS / per_first;
        let mut total = 0usize;
        let mut out = Vec::with_capacity(self.s.rates_rps.len());
        for &rate in &self.s.rates_rps {
            let left = first_max - total;
            let s = schedule(rate, self.s.seconds, self.s.seed, left);
            total += s.len();
            if total > first_max {
                return Err(LiveError::PlanTooLarge {
                    value: num(self.s.seconds),
                    accepted: format!(
                        "a shorter window: the drawn schedules hold more than {first_max} first tries{}, more than \
                         {MAX_PLAN_REQUESTS} tries (the cap per run, first tries and retries)",
                        tries_words(per_first as u64, &self.s.policy)
                    ),
                });
            }
            out.push(s);
        }
        Ok(out)
    }
}

/// The most tries per first try under `policy`: `1 + retries`, at most
/// [`MAX_TRY_MULTIPLE`].
fn tries_per_first(policy: &ClientPolicy) -> u64 {
    (1 + u64::from(policy.retry.max_retries)).min(MAX_TRY_MULTIPLE)
}

/// ` with up to N tries per first try (...)` when retries are on.
fn tries_words(per_first: u64, policy: &ClientPolicy) -> String {
    match policy.retry.max_retries {
        0 => String::new(),
        r if u64::from(r) + 1 > MAX_TRY_MULTIPLE => {
            format!(" with up to {per_first} tries per first try (--retries {r}, capped at {MAX_TRY_MULTIPLE})")
        }
        r => format!(" with up to {per_first} tries per first try (1 + --retries {r})"),
    }
}

fn rate_list_error(value: &str) -> LiveError {
    LiveError::OutOfRange { flag: RATE.name, value: value.to_string(), accepted: RATE.list_accepted(MAX_RATES) }
}

/// Parse a `--rate` list such as `40,48,60,100` (requests per second): 1 to
/// [`MAX_RATES`] numbers, each in [`RATE`]'s range. `0`, `-5`, `abc` and
/// `40,,60` are usage errors naming the list as given.
pub fn parse_rates(text: &str) -> Result<Vec<f64>, LiveError> {
    let rates: Vec<f64> = text
        .split(',')
        .map(|part| RATE.parse(part).ok())
        .collect::<Option<_>>()
        .ok_or_else(|| rate_list_error(text))?;
    if rates.len() > MAX_RATES {
        return Err(rate_list_error(text));
    }
    Ok(rates)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target() -> Target {
        Target::parse("http://127.0.0.1:1/").expect("target")
    }

    fn cfg(rates_rps: Vec<f64>, seconds: f64) -> Result<LoadConfig, LiveError> {
        LoadConfig::new(LoadSettings { rates_rps, seconds, ..LoadSettings::lesson(target()) })
    }

    #[test]
    fn rates_parse_and_reject() {
        assert_eq!(parse_rates("40, 48,60,100").ok(), Some(vec![40.0, 48.0, 60.0, 100.0]));
        for bad in ["0", "-5", "abc", "40,,60", "inf", "NaN", "10001"] {
            let e = parse_rates(bad).unwrap_err();
            assert!(e.is_usage(), "{bad}");
        }
        assert_eq!(
            parse_rates("40,0").unwrap_err().to_string(),
            "--rate: '40,0' is not accepted; expected 1 to 64 comma-separated numbers, each above 0 to 10000 \
             (requests per second)"
        );
        assert!(parse_rates(&vec!["1"; MAX_RATES + 1].join(",")).is_err());
    }

    #[test]
    fn plan_bounds() {
        assert!(cfg(vec![40.0, 48.0, 60.0, 100.0], 20.0).is_ok());
        let e = cfg(vec![10.0; 11], 60.0).unwrap_err();
        assert!(matches!(e, LiveError::PlanTooLarge { .. }), "{e}");
        assert_eq!(
            e.to_string(),
            "--seconds: '60' is not accepted; expected a number from 0.1 to 54.545 (s) with 11 rates \
             (rates × seconds at most 600)"
        );
        let e = cfg(vec![5000.0, 5000.0], 30.0).unwrap_err();
        assert!(matches!(e, LiveError::PlanTooLarge { .. }), "{e}");
        assert!(
            e.to_string().starts_with("--seconds: '30' is not accepted; expected a number from 0.1 to 20 (s)"),
            "{e}"
        );
        assert!(cfg(vec![], 1.0).unwrap_err().is_usage());
        assert!(cfg(vec![1.0], 0.0).unwrap_err().is_usage());
        assert!(cfg(vec![1.0], f64::NAN).unwrap_err().is_usage());
        let e = LoadConfig::new(LoadSettings { client_timeout_ms: 0, ..LoadSettings::lesson(target()) }).unwrap_err();
        assert!(e.to_string().starts_with("--client-timeout-ms: '0' is not accepted; expected a whole number"), "{e}");
    }

    // N2: the bound counts every try. The audit's `--rate 2000 --seconds 30
    // --retries 100` was accepted (60,000 first tries) and sent 396,459.
    #[test]
    fn the_plan_bound_counts_retries() {
        use bplab_core::stochastic::{Backoff, Retry};
        let with = |retries: u32, rates_rps: Vec<f64>, seconds: f64| {
            let policy = ClientPolicy {
                retry: Retry { max_retries: retries, backoff: Backoff::Fixed { ms: 0.0 } },
                ..ClientPolicy::NONE
            };
            LoadConfig::new(LoadSettings { rates_rps, seconds, policy, ..LoadSettings::lesson(target()) })
        };
        assert!(with(0, vec![2000.0], 30.0).is_ok());
        let e = with(100, vec![2000.0], 30.0).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--seconds: '30' is not accepted; expected a number from 0.1 to 10 (s) at 2000 requests per second over \
             all rates with up to 10 tries per first try (--retries 100, capped at 10) (at most 200000 tries per \
             plan, first tries and retries)"
        );
        let e = with(3, vec![2000.0], 30.0).unwrap_err();
        assert!(e.to_string().contains("to 25 (s) at 2000 requests per second over all rates with up to 4 tries per first try (1 + --retries 3)"), "{e}");
        assert!(with(3, vec![2000.0], 25.0).is_ok());
        assert_eq!(with(3, vec![40.0], 1.0).expect("valid").tries_per_first(), 4);
        assert_eq!(with(100, vec![40.0], 1.0).expect("valid").tries_per_first(), MAX_TRY_MULTIPLE);
    }

    #[test]
    fn plan_is_deterministic() {
        let c = cfg(vec![40.0, 100.0], 2.0).expect("valid");
        let a = c.plan().expect("plan");
        assert_eq!(a, c.plan().expect("plan"));
        assert_eq!(a.len(), 2);
    }
}
