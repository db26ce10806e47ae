//! Explainable calculators: Little's law, the admission limit (both
//! conventions) and the model's in-system budget B. Each returns its result
//! with an [`Explanation`]: the steps with the numbers substituted, what it
//! assumes, what it ignores and what would change the answer.

mod derived;
mod explain;
mod export;
mod limit;
mod littles;
mod params;

pub use crate::claim::equation::show;
pub use derived::{budget_value, capacity_rps, deadline_safe_bound, worst_sojourn_ms};
pub use explain::{Explanation, Record, Step, fmt_num};
pub use export::{EdgeTarget, export};
pub use limit::{LimitInput, LimitResult, budget, deadline_safe_queue, limit, worst_time_ms};
pub use littles::{LittlesInput, LittlesResult, Solved, littles};
pub use params::{ARRIVALS, BUDGET, CALC_PARAMS, CalcParam, IN_FLIGHT, LATENCY, SERVICE, WORKERS, quote};
