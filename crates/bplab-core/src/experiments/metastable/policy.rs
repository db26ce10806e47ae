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
    const ALL: &'static [Self] = &POLICIES;
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

/// The policies, in race order (also [`Named::ALL`]; a policy's plot role
/// is its place here).
pub const POLICIES: [Policy; 6] =
    [Policy::None, Policy::Naive, Policy::Backoff, Policy::Budget, Policy::Throttle, Policy::RetryAfter];

/// The policies' backoff cap, budget and throttle window: the engine's
/// client defaults, re-exported where this experiment used to define them.
pub use crate::stochastic::{BACKOFF_CAP_MS, BUDGET_FLOOR_RPS, BUDGET_MAX_TOKENS, THROTTLE_WINDOW_MS};
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
            "backoff: up to {retries} retries after U × min({} ms, {} ms × 2^(k−1)) (full jitter){}",
            crate::calc::fmt_num(BACKOFF_CAP_MS.max(backoff_ms.max(1.0))),
            crate::calc::fmt_num(backoff_ms.max(1.0)),
            if backoff_ms < 1.0 { format!(", the {b} ms backoff raised to 1 ms") } else { String::new() }
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

/// One layer of the spike: Poisson first tries at `load_rps` over
/// `[at, at + len)`, each with a uniform mark, from ChaCha8 stream
/// [`SPIKE_STREAM`] × 256 + `layer` of `seed` (layers 1, 2, … are
/// independent), at most `cap` of them.
pub fn spike_layer(seed: u64, layer: u32, at_ms: f64, len_ms: f64, load_rps: f64, cap: usize) -> Vec<(f64, f64)> {
    let rate_per_ms = load_rps / 1000.0;
    let mut out = Vec::new();
    if rate_per_ms <= 0.0 || !rate_per_ms.is_finite() {
        return out;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream((SPIKE_STREAM << 8) | u64::from(layer));
    let unit = |r: &mut ChaCha8Rng| (r.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
    let mut t = at_ms;
    while out.len() < cap {
        t += -libm::log(1.0 - unit(&mut rng)) / rate_per_ms;
        if t >= at_ms + len_ms {
            break;
        }
        let mark = unit(&mut rng);
        out.push((t, mark));
    }
    out
}

/// One spike layer with its work: `(time, mark, work)`.
type Layer = Vec<(f64, f64, f64)>;

/// First tries and their work for one trigger: the base Poisson arrivals
/// at `load` (stream 0 of the seed, with the service draws of the seed),
/// plus the spike's layers: a spike of size `s` adds layers 1 to
/// `floor(s − 1)` whole and layer `ceil(s − 1)` thinned to the arrivals
/// whose mark is below the fraction `s − 1 − floor(s − 1)` (Poisson at
/// `(s − 1) × load` in all). Layer `k`'s work comes from the service draws
/// of `seed + k`. A run's first tries depend only on its own size and
/// length, never on the other sizes or lengths asked for, and a bigger or
/// longer spike only adds first tries.
pub struct Traffic {
    /// Base arrivals, ms.
    pub base: Vec<f64>,
    /// Base work, ms.
    pub base_work: Vec<f64>,
    /// The spike's layers, drawn up to the largest size asked for.
    layers: Vec<Layer>,
}

impl Traffic {
    /// Draws everything once for runs of `run_ms`: the base arrivals (at
    /// most `base_cap`) and, for a spike, the layers `max_size` needs over
    /// `[at, at + max_len)` (each at most `layer_cap`).
    pub fn draw(
        load_rps: f64,
        svc: ServiceTime,
        run_ms: f64,
        seed: u32,
        spike: Option<(f64, f64, f64)>,
        base_cap: u64,
        layer_cap: u64,
    ) -> Traffic {
        let seed = u64::from(seed);
        let base = RateSchedule::constant(load_rps).generate(run_ms, seed, base_cap).unwrap_or_default();
        let base_work: Vec<f64> = svc.draws(seed).take(base.len()).collect();
        let mut layers = Vec::new();
        if let Some((at_ms, max_len_ms, max_size)) = spike {
            let cap = usize::try_from(layer_cap).unwrap_or(usize::MAX);
            let len = max_len_ms.min(run_ms - at_ms).max(0.0);
            // Layers up to ceil(max_size − 1), at most 99 (sizes are at most 100).
            let n = libm::ceil(max_size - 1.0).clamp(0.0, 99.0) as u32;
            for k in 1..=n {
                let pts = spike_layer(seed, k, at_ms, len, load_rps, cap);
                let work = svc.draws(seed.wrapping_add(u64::from(k)));
                layers.push(pts.into_iter().zip(work).map(|((t, m), w)| (t, m, w)).collect());
            }
        }
        Traffic { base, base_work, layers }
    }

    /// The first tries and work of a spike of `size` lasting `len_ms` from
    /// `at_ms` (no extra tries for a slowdown, which has no layers).
    pub fn merged(&self, at_ms: f64, size: f64, len_ms: f64) -> (Vec<f64>, Vec<f64>) {
        let extra_size = (size - 1.0).max(0.0);
        let whole = libm::floor(extra_size);
        let frac = extra_size - whole;
        let base = self.base.iter().enumerate().map(|(i, &t)| (t, self.base_work.get(i).copied().unwrap_or(0.0)));
        let mut out: Vec<(f64, f64)> = base.collect();
        for (i, layer) in self.layers.iter().enumerate() {
            let k = (i + 1) as f64;
            let keep = if k <= whole { 1.0 } else if k == whole + 1.0 { frac } else { break };
            let kept = layer.iter().filter(|(t, m, _)| *t < at_ms + len_ms && *m < keep).map(|&(t, _, w)| (t, w));
            out = merge(out, kept);
        }
        out.into_iter().unzip()
    }
}

/// `a` and `b`, each in time order, as one list in time order; a tie keeps
/// `a`'s first (the base before the spike, a lower layer before a higher).
fn merge(a: Vec<(f64, f64)>, b: impl Iterator<Item = (f64, f64)>) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(a.len());
    let mut b = b.peekable();
    for x in a {
        while let Some(y) = b.next_if(|y| y.0 < x.0) {
            out.push(y);
        }
        out.push(x);
    }
    out.extend(b);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bigger_or_longer_spike_only_adds_first_tries() {
        let t = Traffic::draw(30.0, ServiceTime::Fixed { ms: 21.0 }, 20_000.0, 3, Some((5000.0, 4000.0, 5.0)), 1 << 20, 1 << 20);
        let (small, _) = t.merged(5000.0, 2.0, 1000.0);
        let (big, _) = t.merged(5000.0, 4.0, 1000.0);
        let (long, w) = t.merged(5000.0, 2.0, 4000.0);
        let contains = |a: &[f64], b: &[f64]| b.iter().all(|x| a.contains(x));
        assert!(contains(&big, &small) && contains(&long, &small));
        assert!(big.len() > small.len() && long.len() > small.len() && w.len() == long.len());
        assert!(long.windows(2).all(|p| p[0] <= p[1]));
        // Size 1 adds nothing: the base arrivals alone.
        assert_eq!(t.merged(5000.0, 1.0, 4000.0).0, t.base);
        // Fractional sizes thin the next layer: still nested.
        let (a, _) = t.merged(5000.0, 2.3, 2000.0);
        let (b, _) = t.merged(5000.0, 2.7, 2000.0);
        assert!(contains(&b, &a) && b.len() > a.len());
    }

    #[test]
    fn a_run_does_not_depend_on_the_other_sizes_or_lengths_drawn() {
        let svc = ServiceTime::Fixed { ms: 21.0 };
        let small = Traffic::draw(30.0, svc, 20_000.0, 3, Some((5000.0, 2000.0, 3.0)), 1 << 20, 1 << 20);
        let large = Traffic::draw(30.0, svc, 20_000.0, 3, Some((5000.0, 6000.0, 7.5)), 1 << 20, 1 << 20);
        for (size, len) in [(1.5, 1000.0), (2.0, 2000.0), (3.0, 1500.0)] {
            assert_eq!(small.merged(5000.0, size, len), large.merged(5000.0, size, len), "{size}× {len} ms");
        }
        // About (s − 1) × load extra tries: 2 × 30 rps for 4 s.
        let extra = large.merged(5000.0, 3.0, 4000.0).0.len() - large.base.len();
        assert!((180..=300).contains(&extra), "{extra}");
    }
}
