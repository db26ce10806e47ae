//! `bplab load`'s client policies: retries with a backoff, a retry budget,
//! SRE adaptive throttling and `Retry-After`, the same settings as the core
//! engine's client ([`bplab_core::stochastic::Client`], `docs/client.md`).
//!
//! This module only parses and checks the flags into the core's types; the
//! decisions during a run (whether a try is sent, when a retry goes, whether
//! the budget allows it) are the core's [`ClientState`], one per offered
//! rate, seeded from the load tool's `--seed`. No rule is written twice.
//!
//! Defaults are the engine's client defaults (which the `metastable`
//! experiment's policies use too): a budget's floor of 1 retry per second
//! and 10 tokens held ([`bplab_core::stochastic::BUDGET_FLOOR_RPS`],
//! `BUDGET_MAX_TOKENS`), a throttle window of 2 s (`THROTTLE_WINDOW_MS`), a
//! backoff cap of 2 s (`BACKOFF_CAP_MS`), a backoff of 50 ms.

use bplab_core::stochastic::{
    Abandon, BACKOFF_CAP_MS, BUDGET_FLOOR_RPS, BUDGET_MAX_TOKENS, Backoff, Client, ClientState, MAX_BUDGET,
    MAX_RETRIES, Retry, RetryBudget, THROTTLE_WINDOW_MS, Throttle,
};

use crate::error::LiveError;
use crate::flags::{RealFlag, WholeFlag};
use crate::load::table::num;

/// The largest backoff, budget window and throttle window accepted, ms (the core's).
pub const MAX_POLICY_MS: f64 = bplab_core::stochastic::MAX_MS;

/// `--retries`: retries after a 503, a give-up or a connection error, `0..=100`.
pub const RETRIES: WholeFlag = WholeFlag {
    name: "retries",
    label: "retries after a 503, a give-up at the client timeout or a connection error (0: none; retries never \
            push the sends past 10 times --rate, see docs/client.md)",
    min: 0,
    max: MAX_RETRIES as u64,
    unit: "",
    or_word: None,
};
/// `--backoff-ms`: the wait before a retry (`fixed`), or the first retry's
/// ceiling (`exponential` and the jittered kinds), `[0, 1e9]` ms (above 0
/// unless `fixed` without jitter).
pub const BACKOFF_MS: RealFlag = RealFlag {
    name: "backoff-ms",
    label: "wait before a retry (fixed), or the first retry's (exponential, jittered)",
    min: 0.0,
    max: MAX_POLICY_MS,
    min_exclusive: false,
    unit: "ms",
};
/// `--backoff-cap-ms`: the largest wait of an exponential or jittered
/// backoff, from `--backoff-ms` to 1e9 ms.
pub const BACKOFF_CAP_MS_FLAG: RealFlag = RealFlag {
    name: "backoff-cap-ms",
    label: "largest wait of an exponential or jittered backoff (at least --backoff-ms)",
    min: 0.0,
    max: MAX_POLICY_MS,
    min_exclusive: true,
    unit: "ms",
};
/// `--throttle-k`: SRE adaptive throttling's K, `[1, 1000]`.
pub const THROTTLE_K: RealFlag = RealFlag {
    name: "throttle-k",
    label: "SRE adaptive throttling: reject a try locally with probability max(0, (requests - K x accepts) / \
            (requests + 1)); K (default: no throttling)",
    min: 1.0,
    max: 1000.0,
    min_exclusive: false,
    unit: "",
};
/// `--throttle-window-ms`: how far back the throttle counts, `(0, 1e9]` ms.
pub const THROTTLE_WINDOW: RealFlag = RealFlag {
    name: "throttle-window-ms",
    label: "how far back adaptive throttling counts requests and accepts (only with --throttle-k)",
    min: 0.0,
    max: MAX_POLICY_MS,
    min_exclusive: true,
    unit: "ms",
};
/// What `--backoff` accepts.
pub const BACKOFF_ACCEPTED: &str = "fixed or exponential";
/// What `--jitter` accepts.
pub const JITTER_ACCEPTED: &str = "none, full, equal or decorrelated";
/// What `--retry-budget` accepts.
pub const RETRY_BUDGET_ACCEPTED: &str = "RATIO[,FLOOR_RPS[,MAX_TOKENS]]: tokens per on-time answer from 0 to 1000, \
     tokens per second from the clock from 0 to 1e9 (default 1), most tokens held from 1 to 1e9 (default 10)";

/// The default `--backoff-ms`: the metastable experiment's `retry-backoff-ms`.
pub const DEFAULT_BACKOFF_MS: f64 = 50.0;

/// The callers' policies, in the core's types (the timeout is the load
/// tool's `--client-timeout-ms`, given when the core [`Client`] is built).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClientPolicy {
    /// Retries and their backoff.
    pub retry: Retry,
    /// The retry budget, if any.
    pub budget: Option<RetryBudget>,
    /// Adaptive throttling, if any.
    pub throttle: Option<Throttle>,
    /// Wait at least a 503's `Retry-After` before its retry.
    pub honour_retry_after: bool,
}

impl Default for ClientPolicy {
    fn default() -> Self {
        Self::NONE
    }
}

impl ClientPolicy {
    /// No retries, no budget, no throttling (the lesson's client).
    pub const NONE: ClientPolicy =
        ClientPolicy { retry: Retry::NONE, budget: None, throttle: None, honour_retry_after: false };

    /// Whether the policy acts during a run (retries, a budget or throttling):
    /// then the load table and the timeline count first tries, retries and
    /// local rejections apart.
    pub fn is_active(&self) -> bool {
        self.retry.max_retries > 0 || self.budget.is_some() || self.throttle.is_some()
    }

    /// The core's client for a caller that gives up after `timeout_ms`; the
    /// server still serves what it queued ([`Abandon::Served`], as
    /// bplab-live does).
    pub fn client(&self, timeout_ms: f64) -> Client {
        Client {
            timeout_ms: Some(timeout_ms),
            abandon: Abandon::Served,
            retry: self.retry,
            budget: self.budget,
            throttle: self.throttle,
            honour_retry_after: self.honour_retry_after,
        }
    }

    /// The running state for one rate's window, its streams from `seed`.
    pub fn state(&self, timeout_ms: f64, seed: u64) -> ClientState {
        ClientState::new(self.client(timeout_ms), seed)
    }

    /// Check every setting against the core's ranges, naming the flag.
    pub fn check(&self) -> Result<(), LiveError> {
        RETRIES.check(u64::from(self.retry.max_retries))?;
        check_backoff(self.retry.backoff)?;
        if let Some(b) = self.budget {
            let ok = (0.0..=1000.0).contains(&b.ratio)
                && (0.0..=MAX_BUDGET).contains(&b.floor_rps)
                && (1.0..=MAX_BUDGET).contains(&b.max_tokens);
            if !ok {
                return Err(budget_error(&format!("{},{},{}", num(b.ratio), num(b.floor_rps), num(b.max_tokens))));
            }
        }
        if let Some(t) = self.throttle {
            THROTTLE_K.check(t.k)?;
            THROTTLE_WINDOW.check(t.window_ms)?;
        }
        Ok(())
    }

    /// One line naming the policy, e.g. `client: 3 retries, fixed 50 ms
    /// backoff, budget 0.1 per answer + 1/s (10 held), throttle K 2 over 2000
    /// ms, Retry-After honoured`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if self.retry.max_retries == 0 {
            parts.push("no retries".to_string());
        } else {
            let b = match self.retry.backoff {
                Backoff::Fixed { ms } => format!("fixed {} ms", num(ms)),
                Backoff::Exponential { base_ms, cap_ms } => {
                    format!("exponential {}..{} ms", num(base_ms), num(cap_ms))
                }
                Backoff::FullJitter { base_ms, cap_ms } => format!("full jitter {}..{} ms", num(base_ms), num(cap_ms)),
                Backoff::EqualJitter { base_ms, cap_ms } => {
                    format!("equal jitter {}..{} ms", num(base_ms), num(cap_ms))
                }
                Backoff::Decorrelated { base_ms, cap_ms } => {
                    format!("decorrelated jitter {}..{} ms", num(base_ms), num(cap_ms))
                }
            };
            parts.push(format!("{} retries, {b} backoff", self.retry.max_retries));
        }
        if let Some(b) = self.budget {
            parts.push(format!(
                "budget {} per answer + {}/s ({} held)",
                num(b.ratio),
                num(b.floor_rps),
                num(b.max_tokens)
            ));
        }
        if let Some(t) = self.throttle {
            parts.push(format!("throttle K {} over {} ms", num(t.k), num(t.window_ms)));
        }
        if self.honour_retry_after {
            parts.push("Retry-After honoured".to_string());
        }
        format!("client: {}", parts.join(", "))
    }
}

fn check_backoff(b: Backoff) -> Result<(), LiveError> {
    match b {
        Backoff::Fixed { ms } => BACKOFF_MS.check(ms).map(|_| ()),
        Backoff::Exponential { base_ms, cap_ms }
        | Backoff::FullJitter { base_ms, cap_ms }
        | Backoff::EqualJitter { base_ms, cap_ms }
        | Backoff::Decorrelated { base_ms, cap_ms } => {
            if !(base_ms > 0.0 && base_ms <= MAX_POLICY_MS) {
                return Err(LiveError::OutOfRange {
                    flag: BACKOFF_MS.name,
                    value: num(base_ms),
                    accepted: format!(
                        "a number above 0 to {} (ms) with an exponential or jittered backoff",
                        num(MAX_POLICY_MS)
                    ),
                });
            }
            if !(cap_ms >= base_ms && cap_ms <= MAX_POLICY_MS) {
                return Err(cap_error(&num(cap_ms), base_ms));
            }
            Ok(())
        }
    }
}

fn cap_error(value: &str, base_ms: f64) -> LiveError {
    LiveError::OutOfRange {
        flag: BACKOFF_CAP_MS_FLAG.name,
        value: value.to_string(),
        accepted: format!("a number from {} (--backoff-ms) to {} (ms)", num(base_ms), num(MAX_POLICY_MS)),
    }
}

fn budget_error(value: &str) -> LiveError {
    LiveError::OutOfRange {
        flag: "retry-budget",
        value: value.to_string(),
        accepted: RETRY_BUDGET_ACCEPTED.to_string(),
    }
}

/// The backoff from `--backoff` (`fixed` or `exponential`), `--jitter`
/// (`none`, `full`, `equal`, `decorrelated`), `--backoff-ms` and
/// `--backoff-cap-ms` (default [`BACKOFF_CAP_MS`], or `--backoff-ms` if
/// larger). A jittered kind grows as `exponential` does; with `fixed` it
/// keeps its ceiling at `--backoff-ms` (the cap is the base).
pub fn parse_backoff(kind: &str, jitter: &str, base: &str, cap: Option<&str>) -> Result<Backoff, LiveError> {
    let fixed = match kind.trim().to_ascii_lowercase().as_str() {
        "fixed" => true,
        "exponential" => false,
        _ => {
            return Err(LiveError::OutOfRange {
                flag: "backoff",
                value: kind.to_string(),
                accepted: BACKOFF_ACCEPTED.to_string(),
            });
        }
    };
    let jitter_word = jitter.trim().to_ascii_lowercase();
    if !["none", "full", "equal", "decorrelated"].contains(&jitter_word.as_str()) {
        return Err(LiveError::OutOfRange {
            flag: "jitter",
            value: jitter.to_string(),
            accepted: JITTER_ACCEPTED.to_string(),
        });
    }
    let base_ms = BACKOFF_MS.parse(base)?;
    if fixed && jitter_word == "none" {
        if cap.is_some() {
            return Err(LiveError::OutOfRange {
                flag: BACKOFF_CAP_MS_FLAG.name,
                value: cap.unwrap_or_default().to_string(),
                accepted: "a cap only with --backoff exponential or a --jitter".to_string(),
            });
        }
        return Ok(Backoff::Fixed { ms: base_ms });
    }
    let cap_ms = match (fixed, cap) {
        (true, None) => base_ms,
        (false, None) => BACKOFF_CAP_MS.max(base_ms),
        (_, Some(t)) => match t.trim().parse::<f64>() {
            Ok(v) if v.is_finite() => v,
            _ => return Err(cap_error(t, base_ms)),
        },
    };
    let b = match jitter_word.as_str() {
        "full" => Backoff::FullJitter { base_ms, cap_ms },
        "equal" => Backoff::EqualJitter { base_ms, cap_ms },
        "decorrelated" => Backoff::Decorrelated { base_ms, cap_ms },
        _ => Backoff::Exponential { base_ms, cap_ms },
    };
    match check_backoff(b) {
        Err(LiveError::OutOfRange { flag: "backoff-cap-ms", .. }) => Err(cap_error(cap.unwrap_or_default(), base_ms)),
        Err(LiveError::OutOfRange { flag: "backoff-ms", accepted, .. }) => {
            Err(LiveError::OutOfRange { flag: BACKOFF_MS.name, value: base.to_string(), accepted })
        }
        other => other.map(|()| b),
    }
}

/// Parse `--retry-budget RATIO[,FLOOR_RPS[,MAX_TOKENS]]` (see
/// [`RETRY_BUDGET_ACCEPTED`]); the floor and the tokens default to the
/// metastable experiment's 1 per second and 10.
pub fn parse_retry_budget(text: &str) -> Result<RetryBudget, LiveError> {
    let parts: Vec<&str> = text.split(',').collect();
    let nums: Option<Vec<f64>> = parts.iter().map(|p| p.trim().parse::<f64>().ok().filter(|v| v.is_finite())).collect();
    let nums = match nums {
        Some(n) if (1..=3).contains(&n.len()) => n,
        _ => return Err(budget_error(text)),
    };
    let b = RetryBudget {
        ratio: nums[0],
        floor_rps: nums.get(1).copied().unwrap_or(BUDGET_FLOOR_RPS),
        max_tokens: nums.get(2).copied().unwrap_or(BUDGET_MAX_TOKENS),
    };
    ClientPolicy { budget: Some(b), ..ClientPolicy::NONE }.check().map_err(|_| budget_error(text))?;
    Ok(b)
}

/// Parse `--throttle-k` and `--throttle-window-ms` (default
/// [`THROTTLE_WINDOW_MS`]); a window without K is refused.
pub fn parse_throttle(k: Option<&str>, window: Option<&str>) -> Result<Option<Throttle>, LiveError> {
    match (k, window) {
        (None, None) => Ok(None),
        (None, Some(w)) => Err(LiveError::OutOfRange {
            flag: THROTTLE_WINDOW.name,
            value: w.to_string(),
            accepted: "a window only together with --throttle-k".to_string(),
        }),
        (Some(k), w) => Ok(Some(Throttle {
            k: THROTTLE_K.parse(k)?,
            window_ms: w.map(|w| THROTTLE_WINDOW.parse(w)).transpose()?.unwrap_or(THROTTLE_WINDOW_MS),
        })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(e: LiveError) -> String {
        assert!(e.is_usage(), "{e}");
        e.to_string()
    }

    #[test]
    fn the_retries_help_states_the_send_cap() {
        assert!(RETRIES.label.contains(&format!("past {} times --rate", crate::load::MAX_TRY_MULTIPLE)));
    }

    #[test]
    fn backoff_kinds_map_onto_the_cores() {
        assert_eq!(parse_backoff("fixed", "none", "50", None).ok(), Some(Backoff::Fixed { ms: 50.0 }));
        assert_eq!(
            parse_backoff("exponential", "none", "10", None).ok(),
            Some(Backoff::Exponential { base_ms: 10.0, cap_ms: 2000.0 })
        );
        assert_eq!(
            parse_backoff("Exponential", "full", "10", Some("100")).ok(),
            Some(Backoff::FullJitter { base_ms: 10.0, cap_ms: 100.0 })
        );
        assert_eq!(
            parse_backoff("exponential", "equal", "10", Some("30")).ok(),
            Some(Backoff::EqualJitter { base_ms: 10.0, cap_ms: 30.0 })
        );
        assert_eq!(
            parse_backoff("fixed", "decorrelated", "40", None).ok(),
            Some(Backoff::Decorrelated { base_ms: 40.0, cap_ms: 40.0 })
        );
        // A base above the default cap lifts the cap.
        assert_eq!(
            parse_backoff("exponential", "none", "5000", None).ok(),
            Some(Backoff::Exponential { base_ms: 5000.0, cap_ms: 5000.0 })
        );
    }

    #[test]
    fn bad_backoffs_name_the_flag_the_value_and_the_range() {
        assert_eq!(
            msg(parse_backoff("linear", "none", "50", None).unwrap_err()),
            "--backoff: 'linear' is not accepted; expected fixed or exponential"
        );
        assert_eq!(
            msg(parse_backoff("fixed", "some", "50", None).unwrap_err()),
            "--jitter: 'some' is not accepted; expected none, full, equal or decorrelated"
        );
        assert_eq!(
            msg(parse_backoff("fixed", "none", "-1", None).unwrap_err()),
            "--backoff-ms: '-1' is not accepted; expected a number from 0 to 1000000000 (ms)"
        );
        assert_eq!(
            msg(parse_backoff("exponential", "none", "0", None).unwrap_err()),
            "--backoff-ms: '0' is not accepted; expected a number above 0 to 1000000000 (ms) with an exponential or \
             jittered backoff"
        );
        assert_eq!(
            msg(parse_backoff("exponential", "full", "100", Some("50")).unwrap_err()),
            "--backoff-cap-ms: '50' is not accepted; expected a number from 100 (--backoff-ms) to 1000000000 (ms)"
        );
        assert!(
            msg(parse_backoff("exponential", "full", "100", Some("abc")).unwrap_err())
                .starts_with("--backoff-cap-ms: 'abc'")
        );
        assert!(
            msg(parse_backoff("fixed", "none", "50", Some("100")).unwrap_err())
                .contains("only with --backoff exponential")
        );
    }

    #[test]
    fn budgets_take_the_metastable_defaults() {
        assert_eq!(
            parse_retry_budget("0.1").ok(),
            Some(RetryBudget { ratio: 0.1, floor_rps: BUDGET_FLOOR_RPS, max_tokens: BUDGET_MAX_TOKENS })
        );
        assert_eq!(
            parse_retry_budget("0.5, 2 ,4").ok(),
            Some(RetryBudget { ratio: 0.5, floor_rps: 2.0, max_tokens: 4.0 })
        );
        for bad in ["", "x", "-0.1", "0.1,-1", "0.1,1,0.5", "0.1,1,10,3", "1001", "inf", "0.1,,2"] {
            assert_eq!(
                msg(parse_retry_budget(bad).unwrap_err()),
                format!("--retry-budget: '{bad}' is not accepted; expected {RETRY_BUDGET_ACCEPTED}")
            );
        }
    }

    #[test]
    fn throttles_need_k() {
        assert_eq!(parse_throttle(None, None).ok(), Some(None));
        assert_eq!(
            parse_throttle(Some("2"), None).ok(),
            Some(Some(Throttle { k: 2.0, window_ms: THROTTLE_WINDOW_MS }))
        );
        assert_eq!(parse_throttle(Some("3"), Some("500")).ok(), Some(Some(Throttle { k: 3.0, window_ms: 500.0 })));
        assert_eq!(
            msg(parse_throttle(Some("0.5"), None).unwrap_err()),
            "--throttle-k: '0.5' is not accepted; expected a number from 1 to 1000"
        );
        assert!(msg(parse_throttle(Some("2"), Some("0")).unwrap_err()).starts_with("--throttle-window-ms: '0'"));
        assert!(msg(parse_throttle(None, Some("100")).unwrap_err()).contains("only together with --throttle-k"));
    }

    #[test]
    fn the_policy_is_the_cores_client() {
        let p = ClientPolicy {
            retry: Retry { max_retries: 3, backoff: Backoff::Fixed { ms: 21.0 } },
            budget: Some(RetryBudget { ratio: 0.1, floor_rps: 1.0, max_tokens: 10.0 }),
            throttle: None,
            honour_retry_after: true,
        };
        assert!(p.is_active() && !ClientPolicy::NONE.is_active());
        assert!(p.check().is_ok());
        let c = p.client(500.0);
        assert!(c.validate().is_ok());
        assert_eq!((c.timeout_ms, c.abandon, c.retry.max_retries), (Some(500.0), Abandon::Served, 3));
        assert_eq!(
            p.describe(),
            "client: 3 retries, fixed 21 ms backoff, budget 0.1 per answer + 1/s (10 held), Retry-After honoured"
        );
        let e = ClientPolicy { retry: Retry { max_retries: 101, ..p.retry }, ..p }.check().unwrap_err();
        assert_eq!(msg(e), "--retries: '101' is not accepted; expected a whole number from 0 to 100");
    }
}
