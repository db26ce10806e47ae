//! The client policies the experiment races, and how the trigger turns
//! into arrivals and a slowdown.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

use serde::Serialize;

use super::sim::{Backoff, Client, RetryBudget, Throttle};
use crate::params::Named;
use crate::stochastic::{RateSchedule, ServiceTime};

/// A client policy the experiment races.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(into = "&'static str")]
pub enum Policy {
    /// No retries.
    None,
    /// Retries after a fixed backoff.
    Naive,
    /// Retries after capped exponential backoff with full jitter.
    Backoff,
    /// Naive retries that each spend a budget token.
    Budget,
    /// Naive retries under SRE adaptive throttling.
    Throttle,
    /// Naive retries that wait at least the refusal's Retry-After.
    RetryAfter,
}

impl Named for Policy {
    const ALL: &'static [Self] =
        &[Policy::None, Policy::Naive, Policy::Backoff, Policy::Budget, Policy::Throttle, Policy::RetryAfter];
    fn name(self) -> &'static str {
        match self {
            Policy::None => "none",
            Policy::Naive => "naive",
            Policy::Backoff => "backoff",
            Policy::Budget => "budget",
            Policy::Throttle => "throttle",
            Policy::RetryAfter => "retry-after",
        }
    }
}

impl From<Policy> for &'static str {
    fn from(p: Policy) -> Self {
        p.name()
    }
}

/// The policies, in race order.
pub const POLICIES: [Policy; 6] =
    [Policy::None, Policy::Naive, Policy::Backoff, Policy::Budget, Policy::Throttle, Policy::RetryAfter];

/// Largest backoff ceiling of the `backoff` policy, ms.
pub const BACKOFF_CAP_MS: f64 = 2000.0;
/// The retry budget's floor: tokens per second from the clock.
pub const BUDGET_FLOOR_RPS: f64 = 1.0;
/// The retry budget's most tokens (also held at the start).
pub const BUDGET_MAX_TOKENS: f64 = 10.0;
/// The throttle's counting window, ms (the SRE book uses two minutes; in
/// this model a window longer than a few seconds remembers the collapse's
/// failures long after the server has drained, and keeps rejecting first
/// tries: `docs/metastable.md` has the numbers).
pub const THROTTLE_WINDOW_MS: f64 = 2000.0;
/// The ChaCha8 stream of the spike's extra first tries and their marks.
pub const SPIKE_STREAM: u64 = 14;

/// What a policy's callers do, given the retry count, backoff, budget
/// ratio and K of the parameters.
pub fn client(policy: Policy, retries: u32, backoff_ms: f64, ratio: f64, k: f64) -> Client {
    let fixed = Client {
        retries,
        backoff: Backoff::Fixed { ms: backoff_ms },
        budget: None,
        throttle: None,
        honour_retry_after: false,
    };
    match policy {
        Policy::None => Client { retries: 0, ..fixed },
        Policy::Naive => fixed,
        Policy::Backoff => {
            let base_ms = backoff_ms.max(1.0);
            Client { backoff: Backoff::FullJitter { base_ms, cap_ms: BACKOFF_CAP_MS.max(base_ms) }, ..fixed }
        }
        Policy::Budget => Client {
            budget: Some(RetryBudget { ratio, floor_rps: BUDGET_FLOOR_RPS, max_tokens: BUDGET_MAX_TOKENS }),
            ..fixed
        },
        Policy::Throttle => Client { throttle: Some(Throttle { k, window_ms: THROTTLE_WINDOW_MS }), ..fixed },
        Policy::RetryAfter => Client { honour_retry_after: true, ..fixed },
    }
}

/// One line per policy: what it does, for the explanation.
pub fn describe(policy: Policy, retries: u32, backoff_ms: f64, ratio: f64, k: f64) -> String {
    let b = crate::calc::fmt_num(backoff_ms);
    match policy {
        Policy::None => "none: no retries; a caller that times out or is refused gives up".to_owned(),
        Policy::Naive => format!("naive: up to {retries} retries, each {b} ms after the failure"),
        Policy::Backoff => format!(
            "backoff: up to {retries} retries after U × min({} ms, {} ms × 2^(k−1)) (full jitter)",
            crate::calc::fmt_num(BACKOFF_CAP_MS.max(backoff_ms.max(1.0))),
            crate::calc::fmt_num(backoff_ms.max(1.0))
        ),
        Policy::Budget => format!(
            "budget: naive retries that each spend a token; an on-time answer earns {}, the clock {} per second, at most {} held",
            crate::calc::fmt_num(ratio),
            crate::calc::fmt_num(BUDGET_FLOOR_RPS),
            crate::calc::fmt_num(BUDGET_MAX_TOKENS)
        ),
        Policy::Throttle => format!(
            "throttle: naive retries, and every try is rejected locally with probability max(0, (requests − {} × accepts) / (requests + 1)) over the last {} s",
            crate::calc::fmt_num(k),
            crate::calc::fmt_num(THROTTLE_WINDOW_MS / 1000.0)
        ),
        Policy::RetryAfter => "retry-after: naive retries that wait at least the refusal's Retry-After".to_owned(),
    }
}

/// The spike's extra first tries at the largest size any run asks for:
/// `(time, mark)`, Poisson at `(max_size − 1) × load` over
/// `[at, at + max_len)`. A run with size `s` and length `l` keeps those
/// before `at + l` whose mark is below `(s − 1) / (max_size − 1)`, so a
/// bigger or longer spike adds first tries and never moves one.
pub fn spike_pool(seed: u64, at_ms: f64, max_len_ms: f64, load_rps: f64, max_size: f64, cap: usize) -> Vec<(f64, f64)> {
    let rate_per_ms = (max_size - 1.0) * load_rps / 1000.0;
    let mut out = Vec::new();
    if rate_per_ms <= 0.0 || !rate_per_ms.is_finite() {
        return out;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(SPIKE_STREAM);
    let unit = |r: &mut ChaCha8Rng| (r.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
    let mut t = at_ms;
    while out.len() < cap {
        t += -libm::log(1.0 - unit(&mut rng)) / rate_per_ms;
        if t >= at_ms + max_len_ms {
            break;
        }
        let mark = unit(&mut rng);
        out.push((t, mark));
    }
    out
}

/// First tries and their work for one trigger: the base Poisson arrivals
/// at `load` (stream 0 of the seed, with the service draws of the seed),
/// plus the pool's kept spike arrivals (their work from the service draws
/// of `seed + 1`).
pub struct Traffic {
    /// Base arrivals, ms.
    pub base: Vec<f64>,
    /// Base work, ms.
    pub base_work: Vec<f64>,
    /// The spike pool.
    pub pool: Vec<(f64, f64)>,
    /// The pool's work.
    pub pool_work: Vec<f64>,
    /// The size the pool was drawn for.
    pub max_size: f64,
}

impl Traffic {
    /// Draws everything once for a run of `run_ms`.
    #[allow(clippy::too_many_arguments)]
    pub fn draw(
        load_rps: f64,
        svc: ServiceTime,
        run_ms: f64,
        seed: u32,
        spike: bool,
        at_ms: f64,
        max_len_ms: f64,
        max_size: f64,
        cap: u64,
    ) -> Traffic {
        let seed = u64::from(seed);
        let base = RateSchedule::constant(load_rps).generate(run_ms, seed, cap).unwrap_or_default();
        let base_work: Vec<f64> = svc.draws(seed).take(base.len()).collect();
        let pool = if spike {
            let cap = usize::try_from(cap).unwrap_or(usize::MAX);
            spike_pool(seed, at_ms, max_len_ms.min(run_ms - at_ms).max(0.0), load_rps, max_size, cap)
        } else {
            Vec::new()
        };
        let pool_work: Vec<f64> = svc.draws(seed.wrapping_add(1)).take(pool.len()).collect();
        Traffic { base, base_work, pool, pool_work, max_size }
    }

    /// The first tries and work of a spike of `size` lasting `len_ms` from
    /// `at_ms` (no extra tries for a slowdown, whose pool is empty).
    pub fn merged(&self, at_ms: f64, size: f64, len_ms: f64) -> (Vec<f64>, Vec<f64>) {
        let keep = if self.max_size > 1.0 { (size - 1.0) / (self.max_size - 1.0) } else { 0.0 };
        let extra: Vec<(f64, f64)> = self
            .pool
            .iter()
            .zip(&self.pool_work)
            .filter(|((t, m), _)| *t < at_ms + len_ms && *m < keep)
            .map(|((t, _), w)| (*t, *w))
            .collect();
        let mut out = Vec::with_capacity(self.base.len() + extra.len());
        let (mut i, mut j) = (0, 0);
        while i < self.base.len() || j < extra.len() {
            let take_base = j >= extra.len() || (i < self.base.len() && self.base[i] <= extra[j].0);
            if take_base {
                out.push((self.base[i], self.base_work.get(i).copied().unwrap_or(0.0)));
                i += 1;
            } else {
                out.push(extra[j]);
                j += 1;
            }
        }
        out.into_iter().unzip()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bigger_or_longer_spike_only_adds_first_tries() {
        let t = Traffic::draw(30.0, ServiceTime::Fixed { ms: 21.0 }, 20_000.0, 3, true, 5000.0, 4000.0, 5.0, 1 << 20);
        let (small, _) = t.merged(5000.0, 2.0, 1000.0);
        let (big, _) = t.merged(5000.0, 4.0, 1000.0);
        let (long, w) = t.merged(5000.0, 2.0, 4000.0);
        let contains = |a: &[f64], b: &[f64]| b.iter().all(|x| a.contains(x));
        assert!(contains(&big, &small) && contains(&long, &small));
        assert!(big.len() > small.len() && long.len() > small.len() && w.len() == long.len());
        assert!(long.windows(2).all(|p| p[0] <= p[1]));
        // Size 1 adds nothing: the base arrivals alone.
        assert_eq!(t.merged(5000.0, 1.0, 4000.0).0, t.base);
    }
}
