//! The phase diagram (every policy at every trigger size × length, each cell
//! an independent run through the executor) and the sizing search (the
//! largest retry count and budget ratio that stay unstuck at the trigger
//! given).

use serde::Serialize;

use super::{MAX_SIZING_RETRIES, POLICIES, Policy, SIZING_RATIOS, Setup, Totals, Verdict, client_of, policy};
use crate::experiments::{Exec, par_map};
use crate::params::Named;
use super::MetastableParams as Params;

/// One cell of the phase diagram.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cell {
    /// The policy.
    pub policy: Policy,
    /// Trigger size (×).
    pub size: f64,
    /// Trigger length, ms.
    pub len_ms: u32,
    /// Stuck or recovered.
    pub verdict: Verdict,
    /// Its tries.
    pub totals: Totals,
}

/// Every cell, policies in [`POLICIES`] order, then lengths, then sizes.
pub(super) fn diagram(setup: &Setup, p: &Params, exec: &dyn Exec) -> Vec<Cell> {
    let mut jobs = Vec::new();
    for policy in POLICIES {
        for &len in &p.trigger_lengths_ms {
            for &size in &p.trigger_sizes {
                jobs.push((policy, size, len));
            }
        }
    }
    par_map(exec, &jobs, |&(policy, size, len)| {
        let (_, totals, verdict) = setup.run(p, client_of(p, policy), size, len, false);
        Cell { policy, size, len_ms: len, verdict, totals }
    })
}

/// For each policy and length, the smallest size in the grid that is stuck,
/// when every larger size is stuck too (the boundary); `None` when no size
/// is stuck or the stuck sizes are not an upper range.
pub fn boundary(cells: &[Cell], policy: Policy, len_ms: u32) -> Option<f64> {
    let mut row: Vec<&Cell> = cells.iter().filter(|c| c.policy == policy && c.len_ms == len_ms).collect();
    row.sort_by(|a, b| a.size.total_cmp(&b.size));
    let first = row.iter().position(|c| c.verdict == Verdict::Stuck)?;
    row[first..].iter().all(|c| c.verdict == Verdict::Stuck).then_some(row[first].size)
}

/// The parameter the sizing search moves (named as its flag).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(into = "&'static str")]
pub enum Knob {
    /// The naive policy's retry count.
    Retries,
    /// The budget policy's ratio.
    BudgetRatio,
}

impl Named for Knob {
    const ALL: &'static [Self] = &[Knob::Retries, Knob::BudgetRatio];
    fn name(self) -> &'static str {
        match self {
            Knob::Retries => "retries",
            Knob::BudgetRatio => "budget-ratio",
        }
    }
}

impl From<Knob> for &'static str {
    fn from(k: Knob) -> Self {
        k.name()
    }
}

/// The sizing search's runs and answers.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Sizing {
    /// Every run, in order: `(knob, value, verdict, tries)`.
    pub runs: Vec<(Knob, f64, Verdict, Totals)>,
    /// The largest retry count of the naive policy with every count up to
    /// it unstuck (`None`: even 0 is stuck).
    pub retries: Option<u32>,
    /// Whether the search stopped at a stuck count (else every count up to
    /// [`MAX_SIZING_RETRIES`] recovered).
    pub retries_stuck_at: Option<u32>,
    /// The largest budget ratio (of [`SIZING_RATIOS`]) with every smaller
    /// one unstuck (`None`: even the smallest is stuck, or no retries to budget).
    pub ratio: Option<f64>,
    /// The first ratio that stayed stuck, if the search met one.
    pub ratio_stuck_at: Option<f64>,
}

/// Searches upward, one run at a time, stopping at the first stuck value;
/// the answer is the value before it. The table lists every value tried.
pub(super) fn sizing(setup: &Setup, p: &Params) -> Sizing {
    let mut runs = Vec::new();
    let (mut retries, mut retries_stuck_at) = (None, None);
    for r in 0..=MAX_SIZING_RETRIES {
        let c = policy::client(Policy::Naive, r, f64::from(p.retry_backoff_ms), p.budget_ratio, p.throttle_k);
        let (_, t, v) = setup.run(p, c, p.trigger_size, p.trigger_ms, false);
        runs.push((Knob::Retries, f64::from(r), v, t));
        if v == Verdict::Stuck {
            retries_stuck_at = Some(r);
            break;
        }
        retries = Some(r);
    }
    let (mut ratio, mut ratio_stuck_at) = (None, None);
    if p.retries > 0 {
        for &x in &SIZING_RATIOS {
            let c = policy::client(Policy::Budget, p.retries, f64::from(p.retry_backoff_ms), x, p.throttle_k);
            let (_, t, v) = setup.run(p, c, p.trigger_size, p.trigger_ms, false);
            runs.push((Knob::BudgetRatio, x, v, t));
            if v == Verdict::Stuck {
                ratio_stuck_at = Some(x);
                break;
            }
            ratio = Some(x);
        }
    }
    Sizing { runs, retries, retries_stuck_at, ratio, ratio_stuck_at }
}
