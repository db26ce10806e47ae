//! The callers: how long they wait, what they do when they give up or are
//! refused, and the policies that keep their retries from feeding an
//! overload (see `docs/client.md` for every rule, exactly).
//!
//! * a **timeout** (`timeout_ms`): the caller stops waiting at
//!   `arrival + timeout`; what happens to its request then is [`Abandon`];
//! * **retries** ([`Retry`]): after a refusal, a shed or a give-up, up to
//!   `max_retries` more tries, each after a [`Backoff`];
//! * a **retry budget** ([`RetryBudget`]): retries spend tokens that on-time
//!   answers and the clock earn;
//! * **adaptive throttling** ([`Throttle`]): the caller rejects a try
//!   locally with the SRE book's probability;
//! * **Retry-After**: honoured or not (`honour_retry_after`); the door's
//!   refusals carry it ([`super::Model::retry_after_ms`]).
//!
//! Randomness comes from two ChaCha8 streams of the run seed, apart from the
//! arrival and service streams: [`CLIENT_STREAM`] for backoff jitter (one
//! draw per scheduled retry, jittered kinds only) and [`THROTTLE_STREAM`]
//! (one draw per try while throttling is on). Adding a policy therefore
//! never moves an arrival or a service time.

mod backoff;
mod budget;
mod defaults;
mod throttle;

pub use backoff::Backoff;
pub use budget::{MAX_BUDGET, RetryBudget, Tokens};
pub use defaults::{BACKOFF_CAP_MS, BUDGET_FLOOR_RPS, BUDGET_MAX_TOKENS, THROTTLE_WINDOW_MS};
pub use throttle::{Counts, Throttle};

use rand_chacha::ChaCha8Rng;

use super::engine::MAX_TIME_MS;
use super::error::{StochasticError, check};
use super::rng::{CLIENT_STREAM, THROTTLE_STREAM, stream_rng, unit};
use super::server::Abandon;

/// Most retries per caller.
pub const MAX_RETRIES: u32 = 100;

/// When and how often a caller tries again.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Retry {
    /// Retries after the first try; `0 <= max_retries <= 100` (0: never).
    pub max_retries: u32,
    /// The wait before each.
    pub backoff: Backoff,
}

impl Retry {
    /// No retries.
    pub const NONE: Retry = Retry { max_retries: 0, backoff: Backoff::Fixed { ms: 0.0 } };
}

/// The callers' behaviour. [`Client::patient`] is the old engine's caller:
/// no timeout, no retries.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Client {
    /// The caller stops waiting this long after its try was sent, ms; an
    /// answer exactly at `arrival + timeout_ms` is on time. `None`: it waits
    /// forever. When set, finite, `> 0` and `<= 1e15` (a run's longest
    /// time: "never" for a model that only uses the deadline as a drop rule).
    pub timeout_ms: Option<f64>,
    /// What happens to a request still waiting in the line when its caller
    /// gives up.
    pub abandon: Abandon,
    /// Retries after a refusal at the door, a shed at dequeue, or a give-up.
    /// A local rejection (throttling) is final.
    pub retry: Retry,
    /// The retry budget, if any.
    pub budget: Option<RetryBudget>,
    /// Adaptive throttling, if any.
    pub throttle: Option<Throttle>,
    /// Wait at least the refusal's Retry-After before the retry it
    /// delays: `delay = max(backoff, retry_after)`.
    pub honour_retry_after: bool,
}

impl Client {
    /// Waits forever, never retries, never throttles.
    pub const fn patient() -> Self {
        Client {
            timeout_ms: None,
            abandon: Abandon::Served,
            retry: Retry::NONE,
            budget: None,
            throttle: None,
            honour_retry_after: false,
        }
    }

    /// Gives up after `timeout_ms`, leaving its request to `abandon`.
    pub const fn with_timeout(timeout_ms: f64, abandon: Abandon) -> Self {
        Client { timeout_ms: Some(timeout_ms), abandon, ..Client::patient() }
    }

    /// Checks the ranges documented on each field and its policies.
    pub fn validate(&self) -> Result<(), StochasticError> {
        if let Some(t) = self.timeout_ms {
            check("timeout-ms", t, "finite, > 0 and <= 1e15 ms", |t| t > 0.0 && t <= MAX_TIME_MS)?;
        }
        check("retries", f64::from(self.retry.max_retries), "a whole number from 0 to 100", |r| {
            r <= f64::from(MAX_RETRIES)
        })?;
        self.retry.backoff.validate()?;
        if let Some(b) = &self.budget {
            b.validate()?;
        }
        if let Some(t) = &self.throttle {
            t.validate()?;
        }
        Ok(())
    }

    /// Whether the caller's deadline has to be an event: a waiting request
    /// leaves the line then, or the caller retries from then.
    pub(crate) fn gives_up(&self) -> bool {
        self.timeout_ms.is_some() && (self.abandon == Abandon::Dropped || self.retry.max_retries > 0)
    }
}

/// Why a retry was not scheduled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoRetry {
    /// No retries configured, or this caller has used them all.
    Exhausted,
    /// It would be sent at or after the end of the run window.
    PastWindow,
    /// The budget had no token.
    Denied,
}

/// The callers' running state: the budget's tokens, the throttle's counts,
/// and the two random streams. The engine keeps one per run; `bplab load`
/// keeps one per offered rate, so the live client decides with this same
/// code (times are then ms since the rate's window started).
#[derive(Clone, Debug)]
pub struct ClientState {
    client: Client,
    jitter: Option<ChaCha8Rng>,
    throttle_rng: Option<ChaCha8Rng>,
    tokens: Option<Tokens>,
    counts: Option<Counts>,
}

impl ClientState {
    /// A fresh state for `client` (a full budget, empty throttle counts),
    /// its streams seeded from `seed` ([`CLIENT_STREAM`], [`THROTTLE_STREAM`]).
    pub fn new(client: Client, seed: u64) -> Self {
        Self {
            client,
            jitter: client.retry.backoff.draws().then(|| stream_rng(seed, CLIENT_STREAM)),
            throttle_rng: client.throttle.map(|_| stream_rng(seed, THROTTLE_STREAM)),
            tokens: client.budget.map(Tokens::new),
            counts: client.throttle.map(Counts::new),
        }
    }

    /// A try leaves the caller at `now_ms`: `false` = rejected locally.
    #[inline(always)]
    pub fn send(&mut self, now_ms: f64) -> bool {
        match (&mut self.counts, &mut self.throttle_rng) {
            (Some(c), Some(r)) => c.admit(now_ms, unit(r)),
            _ => true,
        }
    }

    /// An on-time answer at `now_ms`.
    #[inline]
    pub fn success(&mut self, now_ms: f64) {
        if let Some(t) = &mut self.tokens {
            t.success(now_ms);
        }
        if let Some(c) = &mut self.counts {
            c.accept(now_ms);
        }
    }

    /// The try `attempt` (0 = first) failed at `now_ms`, after a wait of
    /// `prev_ms` before it (`None` for a first try), with the refusal's
    /// `retry_after_ms` if any: when to send the next one and the backoff
    /// drawn, or why not. Checks in this order: the retry count, the backoff
    /// draw, Retry-After, the run window, the budget.
    pub fn retry(
        &mut self,
        now_ms: f64,
        attempt: u32,
        prev_ms: Option<f64>,
        retry_after_ms: Option<f64>,
        window_ms: f64,
    ) -> Result<(f64, f64), NoRetry> {
        let k = attempt.saturating_add(1);
        if k > self.client.retry.max_retries {
            return Err(NoRetry::Exhausted);
        }
        let u = self.jitter.as_mut().map_or(0.0, unit);
        let backoff = self.client.retry.backoff.delay_ms(k, prev_ms, u);
        let delay = match retry_after_ms {
            Some(ra) if self.client.honour_retry_after => backoff.max(ra),
            _ => backoff,
        };
        let at = now_ms + delay;
        if at >= window_ms || at.is_nan() {
            return Err(NoRetry::PastWindow);
        }
        if let Some(t) = &mut self.tokens
            && !t.withdraw(now_ms)
        {
            return Err(NoRetry::Denied);
        }
        Ok((at, backoff))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(retry: Retry) -> Client {
        Client { retry, ..Client::with_timeout(1000.0, Abandon::Served) }
    }

    #[test]
    fn retries_stop_at_the_count_the_window_and_the_budget() {
        let fixed = Retry { max_retries: 2, backoff: Backoff::Fixed { ms: 100.0 } };
        let mut s = ClientState::new(client(fixed), 1);
        assert_eq!(s.retry(0.0, 0, None, None, 1e9), Ok((100.0, 100.0)));
        assert_eq!(s.retry(100.0, 1, Some(100.0), None, 1e9), Ok((200.0, 100.0)));
        assert_eq!(s.retry(200.0, 2, Some(100.0), None, 1e9), Err(NoRetry::Exhausted));
        assert_eq!(s.retry(950.0, 0, None, None, 1000.0), Err(NoRetry::PastWindow));
        let budget = RetryBudget { ratio: 0.0, floor_rps: 0.0, max_tokens: 1.0 };
        let mut s = ClientState::new(Client { budget: Some(budget), ..client(fixed) }, 1);
        assert!(s.retry(0.0, 0, None, None, 1e9).is_ok());
        assert_eq!(s.retry(0.0, 0, None, None, 1e9), Err(NoRetry::Denied));
        assert_eq!(ClientState::new(client(Retry::NONE), 1).retry(0.0, 0, None, None, 1e9), Err(NoRetry::Exhausted));
    }

    #[test]
    fn retry_after_is_a_floor_when_honoured() {
        let fixed = Retry { max_retries: 1, backoff: Backoff::Fixed { ms: 100.0 } };
        let mut ignore = ClientState::new(client(fixed), 1);
        assert_eq!(ignore.retry(0.0, 0, None, Some(1000.0), 1e9), Ok((100.0, 100.0)));
        let mut honour = ClientState::new(Client { honour_retry_after: true, ..client(fixed) }, 1);
        assert_eq!(honour.retry(0.0, 0, None, Some(1000.0), 1e9), Ok((1000.0, 100.0)));
        assert_eq!(honour.retry(0.0, 0, None, Some(50.0), 1e9), Ok((100.0, 100.0)));
        assert_eq!(honour.retry(0.0, 0, None, None, 1e9), Ok((100.0, 100.0)));
    }

    #[test]
    fn jitter_draws_come_from_the_client_stream_only() {
        let full = Retry { max_retries: 3, backoff: Backoff::FullJitter { base_ms: 100.0, cap_ms: 1000.0 } };
        let mut s = ClientState::new(client(full), 7);
        let mut r = stream_rng(7, CLIENT_STREAM);
        for k in 0..3 {
            let u = unit(&mut r);
            let want = u * f64::from(100 << k);
            assert_eq!(s.retry(0.0, k, None, None, 1e9), Ok((want, want)));
        }
        // Throttling adds its own stream: the jitter draws do not move.
        let throttled = Client { throttle: Some(Throttle { k: 2.0, window_ms: 1000.0 }), ..client(full) };
        let mut t = ClientState::new(throttled, 7);
        assert!(t.send(0.0));
        assert_eq!(t.retry(0.0, 0, None, None, 1e9), ClientState::new(client(full), 7).retry(0.0, 0, None, None, 1e9));
    }

    #[test]
    fn bad_clients_are_refused() {
        assert!(Client::patient().validate().is_ok());
        assert!(Client::with_timeout(0.0, Abandon::Served).validate().is_err());
        let many = Retry { max_retries: 101, ..Retry::NONE };
        let e = client(many).validate().unwrap_err().to_string();
        assert!(e.contains("retries") && e.contains("0 to 100"), "{e}");
    }
}
