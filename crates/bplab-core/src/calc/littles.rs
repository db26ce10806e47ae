//! Little's law: L = λ · W, solved for whichever quantity is missing.

use serde::{Deserialize, Serialize};

use super::Explanation;
use crate::claim::equation::{div, mul, n, u};
use crate::error::ConfigError;
use crate::statement::{Arith, Doc, Statement};

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
    let (lam, w, l, solved, step, result) = match (lam, w, l) {
        (Some(lam), Some(w), None) if given == 2 => {
            let eq = {
                let e = mul(u(lam, "/s"), div(u(w, "ms"), n(1000.0)));
                Arith::with_result(e.clone(), e.eval(), "")
            };
            let l = eq.result;
            let st =
                Statement::Arith { label: "requests in flight".into(), formula: "L = λ × W".into(), eq: eq.clone() };
            (lam, w, l, Solved::InFlight, st, Statement::Result { what: "requests in flight".into(), eq })
        }
        (Some(lam), None, Some(l)) if given == 2 => {
            let eq = {
                let e = mul(div(n(l), u(lam, "/s")), n(1000.0));
                Arith::with_result(e.clone(), e.eval(), "ms")
            };
            let w = eq.result;
            let st =
                Statement::Arith { label: "time in the system".into(), formula: "W = L / λ".into(), eq: eq.clone() };
            (lam, w, l, Solved::Latency, st, Statement::Result { what: "in the system".into(), eq })
        }
        (None, Some(w), Some(l)) if given == 2 => {
            let eq = {
                let e = div(n(l), div(u(w, "ms"), n(1000.0)));
                Arith::with_result(e.clone(), e.eval(), "")
            };
            let lam = eq.result;
            let st = Statement::Arith {
                label: "arrival rate this concurrency sustains".into(),
                formula: "λ = L / W".into(),
                eq: eq.clone(),
            };
            (lam, w, l, Solved::Arrivals, st, Statement::Result { what: "arrivals per second".into(), eq })
        }
        _ => return Err(ConfigError::NeedTwoOf { given }),
    };
    let a = |t: &str| Statement::Assumption(t.into());
    let mut d = Doc::new("Little's law");
    d.answer.push(result);
    d.steps.push(step);
    d.assumes = vec![
        a("The system is in steady state: as many leave per second as arrive"),
        a("W is the whole time in the system, queueing included, not service alone"),
        a("In a limit calculation λ is the rate requests leave (the drain rate), not the offered load"),
        a("Arrivals stay below the drain rate: above it there is no steady state and the queue grows without bound"),
    ];
    d.ignores = vec![
        a("Warm-up and shutdown, where the law does not apply"),
        a("The cost of concurrency itself: memory, context switches, lock contention"),
        a("Whether the implied concurrency is physically achievable"),
        a("Variance: it is an identity about averages and does not bound the p99"),
    ];
    let explanation = d.explanation();
    Ok(LittlesResult { arrivals_rps: lam, latency_ms: w, in_flight: l, solved, explanation })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lesson_numbers() {
        let r = littles(LittlesInput { arrivals_rps: Some(48.0), latency_ms: Some(230.0), in_flight: None }).unwrap();
        assert_eq!(crate::calc::show(r.in_flight), "11.04");
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
