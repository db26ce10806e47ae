//! What the audit and counterfactual tests share: an experiment run at the
//! CLI's caps with some flags changed, every claim and statement of its
//! explanations re-checked against the run's evidence.

use bplab_core::claim::check_report;
use bplab_core::{Caps, EXPERIMENTS, Experiment, Report, Scenario};

/// `exp` at its defaults with `edits`, run and checked: a false claim or
/// statement panics with the flags that made it.
pub fn checked_run(exp: &str, edits: &[(&str, &str)]) -> Report {
    let e = EXPERIMENTS.iter().find(|e| e.name == exp).expect("experiment");
    let mut p = Experiment::get(e.id).defaults();
    p.apply(edits).unwrap_or_else(|err| panic!("{edits:?}: {err}"));
    let r = Scenario::new(p, Caps::CLI).expect("scenario").run();
    check_report(exp, &r).unwrap_or_else(|why| panic!("false claim or statement at {edits:?}: {why}"));
    r
}
