//! "What would change it" holds only what a change would do: at the
//! defaults of every statement-built experiment, each item is a
//! counterfactual (a quantity on the run shown and on a run the lab made that
//! differs only by the named change) or a comparison between the
//! experiment's own alternatives, each names its change, and each is true
//! against the runs' request logs, while the same statement with its
//! direction flipped or its changed value moved is false. At settings where
//! no changed run exists, no counterfactual is stated.

use bplab_core::claim::{Cmp, Evidence, Fact};
use bplab_core::statement::{Measure, Statement, check, render};
use bplab_core::{EXPERIMENTS, Report};

/// Experiments whose explanations are still built from claims, not
/// statements: their "what would change it" compares their own controllers
/// or client policies, one line each, and is not checked here.
const NOT_STATEMENTS: &[&str] = &[];

mod common;
use common::checked_run as run;

/// Every "what would change it" statement of the report, with its text.
fn would_change(exp: &str, r: &Report) -> Vec<(String, Statement)> {
    let mut out = Vec::new();
    for e in r.explanations() {
        for item in &e.would_change {
            let st = e.claims.iter().find_map(|c| match &c.fact {
                Fact::Statement(s) if &c.text == item => Some((**s).clone()),
                _ => None,
            });
            let st = st.unwrap_or_else(|| panic!("{exp}: not a statement: {item}"));
            out.push((item.clone(), st));
        }
    }
    out
}

fn flipped(c: Cmp) -> Cmp {
    match c {
        Cmp::Lt | Cmp::Le => Cmp::Gt,
        Cmp::Gt | Cmp::Ge => Cmp::Lt,
        Cmp::Eq => Cmp::Gt,
    }
}

/// The changed run's value moved well past what its records give.
fn moved(m: &Measure) -> Measure {
    Measure { value: m.value * 1.5 + 10.0, ..m.clone() }
}

#[test]
fn at_the_defaults_would_change_holds_only_checked_counterfactuals_and_comparisons() {
    for e in EXPERIMENTS.iter().filter(|e| !NOT_STATEMENTS.contains(&e.name)) {
        let r = run(e.name, &[]);
        let ev = Evidence::of(&r);
        let items = would_change(e.name, &r);
        assert!(!items.is_empty(), "{}: nothing under what would change it", e.name);
        let mut counterfactuals = 0;
        for (text, st) in items {
            match &st {
                Statement::Counterfactual { change, now, then, cmp, same_arrivals } => {
                    counterfactuals += 1;
                    let mut named = change.chars();
                    let first = named.next().expect("a change").to_uppercase().collect::<String>();
                    assert!(text.starts_with(&format!("{first}{}, ", named.as_str())), "{}: {text}", e.name);
                    assert_ne!(now.run, then.run, "{}: {text}", e.name);
                    check(&st, &ev.logs).unwrap_or_else(|why| panic!("{}: {text}: {why}", e.name));
                    let flip = Statement::Counterfactual {
                        change: change.clone(),
                        now: now.clone(),
                        then: then.clone(),
                        cmp: flipped(*cmp),
                        same_arrivals: *same_arrivals,
                    };
                    assert!(check(&flip, &ev.logs).is_err(), "{}: flipped and still true: {text}", e.name);
                    let off = Statement::Counterfactual {
                        change: change.clone(),
                        now: now.clone(),
                        then: moved(then),
                        cmp: *cmp,
                        same_arrivals: *same_arrivals,
                    };
                    assert!(check(&off, &ev.logs).is_err(), "{}: moved and still true: {text}", e.name);
                }
                Statement::Comparison { a, b, .. } => {
                    assert_ne!(a.run, b.run, "{}: {text}", e.name);
                    check(&st, &ev.logs).unwrap_or_else(|why| panic!("{}: {text}: {why}", e.name));
                }
                other => panic!("{}: a {} under what would change it: {text}", e.name, other.kind()),
            }
        }
        // Priority compares its two doors; every other experiment states counterfactuals.
        assert!(e.name == "priority" || counterfactuals > 0, "{}: no counterfactual", e.name);
    }
}

#[test]
fn where_no_changed_run_exists_no_counterfactual_is_stated() {
    let none = |exp: &str, edits: &[(&str, &str)], needle: &str| {
        let r = run(exp, edits);
        for (text, st) in would_change(exp, &r) {
            assert!(
                !(matches!(st, Statement::Counterfactual { .. }) && text.contains(needle)),
                "{exp} {edits:?}: {text}"
            );
        }
    };
    // Without retries, the retry sweep repeats the run: nothing to change.
    none("collapse", &[("max-retries", "0")], "Without retries (max retries 0)");
    // One limit tried: no other limit to compare with.
    none("admission", &[("limits", "20")], "instead of limit");
    // Two workers: the reference model is not this server, so the arrivals are not the one change.
    none("lesson", &[("workers", "2")], "evenly spaced");
    // And where the changed run exists, it is stated.
    let r = run("collapse", &[("max-retries", "1"), ("offered", "150")]);
    assert!(
        would_change("collapse", &r)
            .iter()
            .any(|(t, _)| t.starts_with("Without retries (max retries 0), the goodput at 150 rps offered")),
        "collapse --max-retries 1"
    );
}

#[test]
fn a_counterfactual_whose_runs_are_absent_is_neither_said_nor_passed() {
    let r = run("shedding", &[]);
    let ev = Evidence::of(&r);
    let (_, st) = would_change("shedding", &r)
        .into_iter()
        .find(|(_, s)| matches!(s, Statement::Counterfactual { .. }))
        .expect("a counterfactual");
    let Statement::Counterfactual { change, now, then, cmp, same_arrivals } = st else { unreachable!() };
    let gone = Statement::Counterfactual {
        change: change.clone(),
        now: now.clone(),
        then: Measure { run: "no-such-policy/0".into(), ..then.clone() },
        cmp,
        same_arrivals,
    };
    assert!(check(&gone, &ev.logs).unwrap_err().contains("no request log"));
    let one = Statement::Counterfactual {
        change,
        now: now.clone(),
        then: Measure { run: now.run.clone(), ..then },
        cmp,
        same_arrivals,
    };
    assert!(render(&one).is_none() && check(&one, &ev.logs).is_err());
}
