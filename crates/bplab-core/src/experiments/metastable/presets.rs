//! Named sets of parameter values, each with the predicate its name
//! promises; the tests run every preset and check its predicate.

use super::{MetastableReport, Policy};

/// A preset: the values it sets (over the defaults) and what must hold.
#[derive(Clone, Copy, Debug)]
pub struct Preset {
    /// Its name.
    pub name: &'static str,
    /// What it promises, in words.
    pub promise: &'static str,
    /// `(parameter, text)` edits over the experiment's defaults.
    pub edits: &'static [(&'static str, &'static str)],
    /// Checks the promise on a run of those parameters (`Err` says what failed).
    pub holds: fn(&MetastableReport) -> Result<(), String>,
}

/// The trigger and the load every preset sets: a 3× spike for 3 s at 10 s,
/// first tries at 75 % of one 21 ms worker's capacity (35.7 rps),
/// a line of at most 40 waiting (861 ms, past the 500 ms timeout).
const SCENE: [(&str, &str); 10] = [
    ("load", "0.75"),
    ("trigger", "spike"),
    ("trigger-at-ms", "10000"),
    ("trigger-ms", "3000"),
    ("trigger-size", "3"),
    ("retries", "3"),
    ("seconds", "16"),
    ("limit", "40"),
    ("client-timeout-ms", "500"),
    ("service", "fixed:21"),
];

/// The same scene with an unbounded line: the spike's backlog stays, and
/// the budget (first tries still sent) drains it at capacity − load, while
/// throttling stops sending while nothing succeeds.
const UNBOUNDED: [(&str, &str); 11] = [
    SCENE[0], SCENE[1], SCENE[2], SCENE[3], SCENE[4], SCENE[5], SCENE[6], SCENE[7], SCENE[8], SCENE[9],
    ("limit", "off"),
];

fn naive(r: &MetastableReport) -> Result<(), String> {
    let l = r.lane(Policy::Naive).ok_or("no naive lane")?;
    if r.rule.collapsed_for(&l.ticks, r.capacity_rps, 0.2, 10_000.0) {
        Ok(())
    } else {
        Err(format!("naive goodput reached 20 % of {} rps within 10 s of the trigger's end", r.capacity_rps))
    }
}

fn budget(r: &MetastableReport) -> Result<(), String> {
    let l = r.lane(Policy::Budget).ok_or("no budget lane")?;
    if r.rule.back_within(&l.ticks, r.capacity_rps, 0.8, 5000.0) && l.verdict.after_ms().is_some() {
        Ok(())
    } else {
        Err(format!("budget: goodput not back above 80 % of capacity within 5 s ({:?})", l.verdict))
    }
}

fn throttling(r: &MetastableReport) -> Result<(), String> {
    let t = r.lane(Policy::Throttle).ok_or("no throttle lane")?;
    let b = r.lane(Policy::Budget).ok_or("no budget lane")?;
    match (t.verdict.after_ms(), b.verdict.after_ms()) {
        // A budget still stuck at the end recovers later than any recovery.
        (Some(x), y) if y.is_none_or(|y| x < y) && t.totals.throttled > 0 => Ok(()),
        _ => Err(format!(
            "throttle {:?} ({} rejected locally) vs budget {:?}",
            t.verdict, t.totals.throttled, b.verdict
        )),
    }
}

/// The three presets of issue 19.
pub static PRESETS: [Preset; 3] = [
    Preset {
        name: "naive-retries",
        promise: "goodput stays below 20 % of capacity for at least 10 s after the trigger ends",
        edits: &SCENE,
        holds: naive,
    },
    Preset {
        name: "budget-recovers",
        promise: "goodput is back above 80 % of capacity within 5 s of the trigger's end",
        edits: &SCENE,
        holds: budget,
    },
    Preset {
        name: "throttling",
        promise: "recovery comes sooner than with the budget, at the cost of local rejections",
        edits: &UNBOUNDED,
        holds: throttling,
    },
];
