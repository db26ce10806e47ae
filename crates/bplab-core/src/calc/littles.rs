//! Little's law: L = λ · W, solved for whichever quantity is missing.

use serde::{Deserialize, Serialize};

use super::{Explanation, Step};
use crate::claim::Equation;
use crate::claim::equation::{div, mul, n, show, u};
use crate::error::ConfigError;

/// Which quantity was solved for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Solved {
    /// L, requests in flight.
    InFlight,
    /// λ, arrivals per second.
    Arrivals,
    /// W, latency in ms.
    Latency,
}

/// Give exactly two; the third is solved.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LittlesInput {
    /// λ, arrivals per second, in (0, 1e9].
    pub arrivals_rps: Option<f64>,
    /// W, time in the system, ms, in (0, 1e9].
    pub latency_ms: Option<f64>,
    /// L, requests in flight, in (0, 1e12].
    pub in_flight: Option<f64>,
}

/// All three quantities and the derivation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LittlesResult {
    /// λ, arrivals per second.
    pub arrivals_rps: f64,
    /// W, ms.
    pub latency_ms: f64,
    /// L, requests in flight.
    pub in_flight: f64,
    /// Which one was solved.
    pub solved: Solved,
    /// How.
    pub explanation: Explanation,
}

fn check(i: usize, v: Option<f64>) -> Result<Option<f64>, ConfigError> {
    v.map(|x| super::params::CALC_PARAMS[i].check(x)).transpose()
}

/// Solves `L = λ · W` (W in seconds) for the missing quantity.
pub fn littles(input: LittlesInput) -> Result<LittlesResult, ConfigError> {
    use super::params::{ARRIVALS, IN_FLIGHT, LATENCY};
    let lam = check(ARRIVALS, input.arrivals_rps)?;
    let w = check(LATENCY, input.latency_ms)?;
    let l = check(IN_FLIGHT, input.in_flight)?;
    let given = [lam, w, l].iter().filter(|v| v.is_some()).count();
    let (lam, w, l, solved, step) = match (lam, w, l) {
        (Some(lam), Some(w), None) if given == 2 => {
            let eq = Equation::new(mul(u(lam, "/s"), u(w / 1000.0, "s")), "");
            let l = eq.result;
            (lam, w, l, Solved::InFlight, Step::eq("requests in flight", "L = λ × W", eq, ""))
        }
        (Some(lam), None, Some(l)) if given == 2 => {
            let eq = Equation::new(mul(div(n(l), u(lam, "/s")), n(1000.0)), "ms");
            let w = eq.result;
            (lam, w, l, Solved::Latency, Step::eq("time in the system", "W = L / λ", eq, ""))
        }
        (None, Some(w), Some(l)) if given == 2 => {
            let eq = Equation::new(div(n(l), u(w / 1000.0, "s")), "/s");
            let lam = eq.result;
            (lam, w, l, Solved::Arrivals, Step::eq("arrival rate this concurrency sustains", "λ = L / W", eq, ""))
        }
        _ => return Err(ConfigError::NeedTwoOf { given }),
    };
    let explanation = Explanation {
        title: "Little's law".into(),
        answer: match solved {
            Solved::InFlight => format!("{} requests in flight", show(l)),
            Solved::Latency => format!("{} ms in the system", show(w)),
            Solved::Arrivals => format!("{} arrivals per second", show(lam)),
        },
        steps: vec![step],
        assumes: vec![
            "The system is in steady state: as many leave per second as arrive.".into(),
            "W is the whole time in the system, queueing included, not service alone.".into(),
            "In a limit calculation λ is the rate requests leave (the drain rate), not the offered load.".into(),
        ],
        ignores: vec![
            "Warm-up and shutdown, where the law does not apply.".into(),
            "The cost of concurrency itself: memory, context switches, lock contention.".into(),
            "Whether the implied concurrency is physically achievable.".into(),
            "Variance: it is an identity about averages and does not bound the p99.".into(),
        ],
        would_change: vec![
            match solved {
                Solved::InFlight => "A different arrival rate or latency moves L in proportion to each.".into(),
                Solved::Latency => "More requests in flight at the same rate means proportionally longer W; a higher rate at the same L, shorter W.".into(),
                Solved::Arrivals => "More requests in flight at the same latency sustains proportionally more arrivals; a longer W at the same L, fewer.".into(),
            },
            "Arrivals above the drain rate: then there is no steady state and the queue grows without bound.".into(),
        ],
        claims: Vec::new(),
    };
    Ok(LittlesResult { arrivals_rps: lam, latency_ms: w, in_flight: l, solved, explanation })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lesson_numbers() {
        let r = littles(LittlesInput { arrivals_rps: Some(48.0), latency_ms: Some(230.0), in_flight: None }).unwrap();
        assert_eq!(show(r.in_flight), "11.04");
        assert_eq!(r.solved, Solved::InFlight);
        let r = littles(LittlesInput { arrivals_rps: None, latency_ms: Some(200.0), in_flight: Some(20.0) }).unwrap();
        assert_eq!(r.arrivals_rps, 100.0);
    }

    #[test]
    fn needs_exactly_two() {
        assert_eq!(littles(LittlesInput::default()), Err(ConfigError::NeedTwoOf { given: 0 }));
        let all = LittlesInput { arrivals_rps: Some(1.0), latency_ms: Some(1.0), in_flight: Some(1.0) };
        assert_eq!(littles(all), Err(ConfigError::NeedTwoOf { given: 3 }));
        assert!(
            littles(LittlesInput { arrivals_rps: Some(f64::NAN), latency_ms: Some(1.0), in_flight: None }).is_err()
        );
    }
}
