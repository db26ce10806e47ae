//! A retry budget: retries spend tokens that successes and the clock earn
//! (after Finagle's `RetryBudget`, whose `percentCanRetry` and
//! `minRetriesPerSec` are `ratio` and `floor_rps` here, and gRPC's retry
//! throttling, whose `maxTokens` and `tokenRatio` are `max_tokens` and
//! `ratio`). The rule, exactly (also in `docs/client.md`):
//!
//! ```text
//! tokens = max_tokens, last = 0                    at the start of the run
//! refill(t):  tokens = min(max_tokens, tokens + (floor_rps × (t − last)) / 1000); last = t
//! success(t): refill(t); tokens = min(max_tokens, tokens + ratio)
//! retry(t):   refill(t); if tokens >= 1 { tokens = tokens − 1; send } else { deny }
//! ```
//!
//! So over any run the retries sent are at most
//! `max_tokens + ratio × successes + floor_rps × seconds`.

use super::super::error::{StochasticError, check};

/// Largest `max_tokens` and `floor_rps` accepted.
pub const MAX_BUDGET: f64 = 1e9;

/// A retry budget's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RetryBudget {
    /// Tokens each on-time answer earns (Finagle's `percentCanRetry` / 100,
    /// gRPC's `tokenRatio`); `0 <= ratio <= 1000`. 0.1 lets retries add
    /// about 10 % to the successes.
    pub ratio: f64,
    /// Tokens the clock earns per second, the floor of retries per second
    /// the budget always allows (Finagle's `minRetriesPerSec`);
    /// `0 <= floor_rps <= 1e9`.
    pub floor_rps: f64,
    /// The most tokens held, and the tokens at the start (gRPC's
    /// `maxTokens`); `1 <= max_tokens <= 1e9`.
    pub max_tokens: f64,
}

impl RetryBudget {
    /// Checks the ranges documented on each field.
    pub fn validate(&self) -> Result<(), StochasticError> {
        check("retry-budget-ratio", self.ratio, "finite, >= 0 and <= 1000", |v| (0.0..=1000.0).contains(&v))?;
        check("retry-budget-floor-rps", self.floor_rps, "finite, >= 0 and <= 1e9", |v| {
            (0.0..=MAX_BUDGET).contains(&v)
        })?;
        check("retry-budget-max-tokens", self.max_tokens, "finite, >= 1 and <= 1e9", |v| {
            (1.0..=MAX_BUDGET).contains(&v)
        })?;
        Ok(())
    }
}

/// A budget's running state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tokens {
    budget: RetryBudget,
    tokens: f64,
    last_ms: f64,
}

impl Tokens {
    /// A full budget at time 0.
    pub fn new(budget: RetryBudget) -> Self {
        Self { budget, tokens: budget.max_tokens, last_ms: 0.0 }
    }

    /// Tokens held (after the last event; the clock's share since then is
    /// not added yet).
    pub fn tokens(&self) -> f64 {
        self.tokens
    }

    fn refill(&mut self, now_ms: f64) {
        let earned = (self.budget.floor_rps * (now_ms - self.last_ms)) / 1000.0;
        self.tokens = self.budget.max_tokens.min(self.tokens + earned);
        self.last_ms = now_ms;
    }

    /// An on-time answer at `now_ms` (times never go back).
    pub fn success(&mut self, now_ms: f64) {
        self.refill(now_ms);
        self.tokens = self.budget.max_tokens.min(self.tokens + self.budget.ratio);
    }

    /// A caller wants to retry at `now_ms`: spends a token and says yes, or
    /// says no and spends nothing.
    pub fn withdraw(&mut self, now_ms: f64) -> bool {
        self.refill(now_ms);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_vector() {
        // max 2 tokens, 0.5 per success, 1 retry per second from the clock.
        let mut b = Tokens::new(RetryBudget { ratio: 0.5, floor_rps: 1.0, max_tokens: 2.0 });
        let mut log = Vec::new();
        for (t, retry) in [
            (0.0, true),    // 2 → 1, sent
            (0.0, true),    // 1 → 0, sent
            (0.0, true),    // 0: denied
            (100.0, false), // success: 0 + 0.1 (clock) + 0.5 = 0.6
            (300.0, true),  // 0.6 + 0.2 = 0.8: denied
            (300.0, false), // success: 0.8 + 0.5 = 1.3
            (300.0, true),  // 1.3 → 0.3, sent
            (5000.0, true), // 0.3 + 4.7 = 5.0, capped at 2 → 1, sent
        ] {
            let r = if retry {
                Some(b.withdraw(t))
            } else {
                b.success(t);
                None
            };
            log.push((r, b.tokens()));
        }
        let sent: Vec<Option<bool>> = log.iter().map(|l| l.0).collect();
        assert_eq!(sent, [Some(true), Some(true), Some(false), None, Some(false), None, Some(true), Some(true)]);
        let tokens: Vec<f64> = log.iter().map(|l| l.1).collect();
        // 0.1 + 0.5 and 0.6 + 0.2 in binary64.
        assert_eq!(tokens, [1.0, 0.0, 0.0, 0.6, 0.8, 1.3, 0.30000000000000004, 1.0]);
    }

    #[test]
    fn a_zero_floor_lives_on_successes_only() {
        let mut b = Tokens::new(RetryBudget { ratio: 0.25, floor_rps: 0.0, max_tokens: 1.0 });
        assert!(b.withdraw(0.0));
        assert!(!b.withdraw(1e9));
        for i in 0..3 {
            b.success(f64::from(i));
        }
        assert!(!b.withdraw(10.0)); // 0.75
        b.success(11.0);
        assert!(b.withdraw(12.0) && b.tokens() == 0.0);
    }

    #[test]
    fn bad_budgets_are_refused() {
        let ok = RetryBudget { ratio: 0.1, floor_rps: 10.0, max_tokens: 10.0 };
        assert!(ok.validate().is_ok());
        assert!(RetryBudget { ratio: -0.1, ..ok }.validate().is_err());
        assert!(RetryBudget { floor_rps: f64::INFINITY, ..ok }.validate().is_err());
        let e = RetryBudget { max_tokens: 0.5, ..ok }.validate().unwrap_err().to_string();
        assert!(e.contains("retry-budget-max-tokens") && e.contains(">= 1"), "{e}");
    }
}
