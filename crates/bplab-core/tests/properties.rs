//! Property tests: random valid configurations never panic and keep the
//! books balanced; calculators satisfy Little's law.

use bplab_core::calc::{LittlesInput, littles};
use bplab_core::numerics::{LatencyHistogram, percentile_of_values};
use bplab_core::{Caps, EXPERIMENTS, Experiment, ExperimentId, ParamKind, ParamSpec, Report, Scenario};
use proptest::collection::vec;
use proptest::prelude::*;

fn pct_ok(v: f64) -> bool {
    (0.0..=100.0).contains(&v)
}

/// Text for one parameter drawn from its own spec: inside the accepted
/// range, within the slider's span where it has one (lists and names, which
/// have none, stay below 300 per item so a run stays cheap).
fn text_for(spec: &'static ParamSpec) -> BoxedStrategy<String> {
    let r = spec.range;
    let (lo, hi) = spec.slider.map_or((r.min, r.max.min(300.0)), |s| (s.min.max(r.min), s.max.min(r.max)));
    let lo = if r.min_exclusive && lo <= r.min { r.min + (hi - r.min) / 1000.0 } else { lo };
    let hi = if r.max_exclusive && hi >= r.max { r.max - (r.max - lo) / 1000.0 } else { hi };
    let whole = (lo.ceil() as u64..=hi.floor().max(lo.ceil()) as u64).prop_map(|v| v.to_string()).boxed();
    let real = (lo..=hi).prop_map(|v| v.to_string()).boxed();
    let join = |v: Vec<String>| v.join(",");
    match spec.kind {
        ParamKind::Int => whole,
        ParamKind::Real => real,
        ParamKind::IntOrBudget => prop_oneof![1 => Just("B".to_owned()), 3 => whole].boxed(),
        ParamKind::IntOrOff => prop_oneof![1 => Just("off".to_owned()), 3 => whole].boxed(),
        // Mostly whole rates: collapse's sweep takes whole numbers only.
        ParamKind::RealList => {
            prop_oneof![3 => vec(whole, 1..=3).prop_map(join), 1 => vec(real, 1..=3).prop_map(join)].boxed()
        }
        ParamKind::IntList => vec(whole, 1..=3).prop_map(join).boxed(),
        ParamKind::LimitList => {
            vec(prop_oneof![3 => whole, 1 => Just("none".to_owned())], 1..=3).prop_map(join).boxed()
        }
        ParamKind::Service => prop_oneof![
            (1.0f64..50.0).prop_map(|ms| format!("fixed:{ms}")),
            (1.0f64..50.0).prop_map(|ms| format!("exp:{ms}")),
            (1.0f64..40.0, 1.0f64..20.0).prop_map(|(p50, k)| format!("lognormal:p50={p50},p99={}", p50 * k)),
            (1.0f64..30.0, 0u32..=100, 1u32..20).prop_map(|(ms, pct, k)| format!("mix:{ms},{pct}%x{k}")),
        ]
        .boxed(),
        ParamKind::Schedule => prop_oneof![
            real.clone(),
            (real.clone(), real, 1u32..20_000).prop_map(|(a, b, at)| format!("{a}@0,{b}@{at}")),
        ]
        .boxed(),
        ParamKind::Name(names) | ParamKind::Preset(names) => {
            prop::sample::select(names).prop_map(str::to_owned).boxed()
        }
        ParamKind::NameList(names, max) => vec(prop::sample::select(names), 1..=max).prop_map(|v| v.join(",")).boxed(),
    }
}

/// An experiment's parameters drawn from its own specs: each parameter
/// typed with probability 1/2, applied as the CLI applies flags.
fn params_for(e: &'static Experiment) -> impl Strategy<Value = Vec<(&'static str, String)>> {
    let each: Vec<_> =
        e.params.iter().map(|s| prop::option::of(text_for(s)).prop_map(move |t| t.map(|t| (s.name, t)))).collect();
    each.prop_map(|v| v.into_iter().flatten().collect())
}

fn check_report(r: &Report) {
    // Every explanation states something; the first (the experiment's own)
    // shows its derivation. The adaptive race's per-controller and the
    // metastable grid's explanations are runs' facts, with no arithmetic.
    let ex = r.explanations();
    assert!(ex.iter().all(|e| !e.answer.is_empty()) && ex.first().is_some_and(|e| !e.steps.is_empty()));
    for t in r.tallies() {
        assert!(t.conserved(), "every arrival served, late, refused or unresolved exactly once: {t:?}");
        assert!(t.pcts.iter().all(|&v| pct_ok(v)), "{t:?}");
        if let Some((p50, p99)) = t.quantiles {
            assert!(p50 <= p99, "{t:?}");
        }
    }
    if let Report::Collapse(r) = r {
        assert!(r.no_retry.iter().chain(&r.retry).all(|x| x.processed >= x.arrivals));
    }
    if let Report::Priority(r) = r {
        for o in r.protection.iter().chain(&r.burst) {
            assert!(o.critical.ok <= o.critical.arrivals && o.background.ok <= o.background.arrivals);
            assert!(o.critical.arrivals + o.background.arrivals <= o.arrivals);
            assert_eq!(o.served + o.shed + o.unresolved, o.arrivals, "priority conserves arrivals");
            assert!(o.window_success_pct.iter().all(|(c, b)| pct_ok(*c) && pct_ok(*b)));
        }
    }
    for t in r.tables() {
        let csv = t.csv();
        assert!(csv.ends_with('\n') && !csv.contains(' '));
        let cols = t.spec.columns().count();
        assert!(t.rows.iter().all(|row| row.len() == cols));
    }
}

/// The least share of drawn configurations that must reach a model run. Half:
/// metastable's cross-field checks (a trigger inside the run, a window that
/// divides it, …) refuse more random combinations than the others (14 of 24
/// at the fixed seed; the other experiments 23–24 of 24); every refusal still
/// has to be a message.
const MIN_ACCEPTED: f64 = 0.5;

/// Runs `cases` random configurations of every experiment through
/// `check`; fails unless at least `min_share` of each experiment's cases
/// were accepted (reached a model run), so the property cannot pass by
/// refusing everything. Prints the counts per experiment.
fn run_counted(cases: u32, min_share: f64, check: impl Fn(&Report)) {
    use proptest::test_runner::{Config, TestRng, TestRunner};
    use std::cell::Cell;
    for e in EXPERIMENTS {
        let (ran, total) = (Cell::new(0u32), Cell::new(0u32));
        // A fixed seed: the accepted share is a property of the generator, not
        // of the run's luck (a random seed once drew 14 of 24 for metastable,
        // whose cross-field checks refuse more, on a fresh clone).
        let config = Config { cases, ..Config::default() };
        let rng = TestRng::deterministic_rng(config.rng_algorithm);
        let mut runner = TestRunner::new_with_rng(config, rng);
        runner
            .run(&params_for(e), |edits| {
                total.set(total.get() + 1);
                let mut p = e.defaults();
                prop_assert!(p.apply(&edits).is_ok(), "a value drawn from the spec was refused: {edits:?}");
                match Scenario::new(p, Caps::PAGE) {
                    Ok(sc) => {
                        ran.set(ran.get() + 1);
                        check(&sc.run());
                    }
                    Err(e) => prop_assert!(!e.to_string().is_empty()),
                }
                Ok(())
            })
            .unwrap();
        eprintln!("{}: {} cases, {} reached a model run", e.name, total.get(), ran.get());
        let share = f64::from(ran.get()) / f64::from(total.get().max(1));
        assert!(share >= min_share, "{}: only {} of {} generated cases were accepted", e.name, ran.get(), total.get());
    }
}

#[test]
fn random_valid_configs_never_panic_and_balance() {
    run_counted(24, MIN_ACCEPTED, check_report);
}

/// The explanations agree with the model they explain, at random settings.
#[test]
fn explanations_agree_with_the_model() {
    run_counted(24, MIN_ACCEPTED, |r| {
        for e in r.explanations() {
            let text = e.to_text();
            // No percentage shown exceeds 100.
            for (i, _) in text.match_indices('%') {
                let num: String =
                    text[..i].trim_end().chars().rev().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
                let num: String = num.chars().rev().collect();
                if let Ok(v) = num.parse::<f64>() {
                    assert!(v <= 100.0, "{v} % in: {text}");
                }
            }
            assert!(!text.contains("NaN") && !text.contains("no tested") && !text.contains("by seconds"), "{text}");
        }
        match r {
            Report::Admission(a) => {
                // The stated worst time in the system bounds the model's longest sojourn.
                let stated = u64::from(a.plateau_limit) * u64::from(a.settings.service_ms);
                assert!(a.limited.iter().all(|o| o.max_sojourn_ms <= stated as f64));
                // The stated best limit reaches the highest goodput and is the smallest that does.
                let top = a.sweep.iter().map(|o| o.goodput).max();
                let text = r.explanations().iter().map(|e| e.answer.clone()).collect::<String>();
                if let Some(top) = top {
                    let best = a.sweep.iter().filter(|o| o.goodput == top).map(|o| o.limit.bound()).min().unwrap();
                    let label = a.sweep.iter().find(|o| o.limit.bound() == best).unwrap().limit.label();
                    // A tie is named as one: every limit at the top, the smallest first.
                    if a.sweep.iter().filter(|o| o.goodput == top).count() > 1 {
                        assert!(
                            text.contains(&format!(", limit {label}, "))
                                || text.contains(&format!(", limit {label} and ")),
                            "{text}"
                        );
                        assert!(text.contains("share the best goodput"), "{text}");
                    } else {
                        assert!(text.contains(&format!("limit {label} has the best goodput")), "{text}");
                    }
                }
            }
            Report::Priority(p) => {
                // Critical success never exceeds what capacity allows.
                let cap = 1000.0 / f64::from(p.settings.service_ms) * f64::from(p.settings.duration_ms) / 1000.0;
                for o in &p.protection {
                    if o.critical.arrivals > 0 {
                        assert!(o.critical.ok as f64 <= cap + 1.0, "{} ok vs capacity {cap}", o.critical.ok);
                    }
                }
            }
            _ => {}
        }
    });
}

fn any_experiment() -> impl Strategy<Value = ExperimentId> {
    prop::sample::select(EXPERIMENTS.iter().map(|e| e.id).collect::<Vec<_>>())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn text_input_never_panics(id in any_experiment(), key in 0usize..64, text in "\\PC{0,12}") {
        let e = Experiment::get(id);
        let mut p = e.defaults();
        let spec = &e.params[key % e.params.len()];
        if p.set(spec.name, &text).is_ok() {
            let _ = Scenario::new(p, Caps::PAGE).map(|s| s.run());
        }
    }

    /// The record's number satisfies the record's criterion, and every
    /// "S ms gives N" example in "what would reverse it" recomputes to N.
    #[test]
    fn the_limit_record_is_true(workers in 1u32..64, service in 0.5f64..200.0, extra in 0.1f64..2000.0) {
        use bplab_core::calc::{LimitInput, limit};
        let budget = service + extra;
        let r = limit(LimitInput { workers, budget_ms: budget, service_ms: service }).unwrap();
        // The exact multi-worker bound: the last queued starts after ceil(q / w) service times.
        let worst = bplab_core::calc::worst_time_ms(r.record_limit, workers, service);
        prop_assert!(worst <= budget * (1.0 + 1e-12), "{} allows {worst} ms > {budget}", r.record_limit);
        let next = bplab_core::calc::worst_time_ms(r.record_limit + u64::from(workers), workers, service);
        prop_assert!(next > budget * (1.0 - 1e-12), "{} more would still fit: {next} ms", workers);
        prop_assert!(r.record.number.starts_with(&format!("{},", r.record_limit)), "{}", r.record.number);
        for part in r.record.reverse.split(['(', ',', ')']) {
            if let Some((ms, n)) = part.trim().split_once(" ms gives ") {
                let (ms, n): (f64, f64) = (ms.parse().unwrap(), n.trim().parse().unwrap());
                let again = limit(LimitInput { workers, budget_ms: budget, service_ms: ms }).unwrap();
                // By the rule of the number shipped.
                prop_assert_eq!(again.record_limit as f64, n, "{}", part);
            }
        }
    }

    #[test]
    fn littles_law_holds(lam in 0.001f64..1e6, w in 0.001f64..1e6) {
        let r = littles(LittlesInput { arrivals_rps: Some(lam), latency_ms: Some(w), in_flight: None }).unwrap();
        prop_assert_eq!(r.in_flight, lam * (w / 1000.0));
        let back = littles(LittlesInput { arrivals_rps: Some(lam), latency_ms: None, in_flight: Some(r.in_flight) }).unwrap();
        prop_assert!((back.latency_ms - w).abs() <= 1e-9 * w);
        let back = littles(LittlesInput { arrivals_rps: None, latency_ms: Some(w), in_flight: Some(r.in_flight) }).unwrap();
        prop_assert!((back.arrivals_rps - lam).abs() <= 1e-9 * lam);
    }

    #[test]
    fn percentile_of_values_agrees_with_the_histogram(values in prop::collection::vec(0u64..70_000, 0..400), p in 0.0f64..=100.0) {
        let mut h = LatencyHistogram::new();
        values.iter().for_each(|&v| h.record(v));
        let mut clamped: Vec<u64> = values.iter().map(|&v| v.min(60_000)).collect();
        prop_assert_eq!(percentile_of_values(&mut clamped, p), h.value_at_percentile(p));
        prop_assert!(h.value_at_percentile(50.0) <= h.value_at_percentile(99.0));
    }
}

/// Every experiment's parameters, drawn from its own specs, paired with the
/// experiment (for the text-level properties below).
fn any_params() -> impl Strategy<Value = (&'static Experiment, Vec<(&'static str, String)>)> {
    prop::sample::select(EXPERIMENTS.iter().collect::<Vec<_>>()).prop_flat_map(|e| (Just(e), params_for(e)))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// What `get` prints, `set` reads back as the same value, for every
    /// parameter of every experiment.
    #[test]
    fn every_value_round_trips_through_its_text((e, edits) in any_params()) {
        let mut p = e.defaults();
        prop_assert!(p.apply(&edits).is_ok(), "{edits:?}");
        for s in e.params {
            let text = p.get(s.name).unwrap();
            let mut again = p.clone();
            prop_assert!(again.set(s.name, &text).is_ok(), "{}: {text}", s.name);
            prop_assert_eq!(again.get(s.name).unwrap(), text);
            if !matches!(s.kind, ParamKind::Preset(_)) {
                prop_assert_eq!(&again, &p, "{}", s.name);
            }
        }
    }

    /// The pairs a widget writes into its URL and its command reproduce its
    /// parameters exactly (presets included), and name a default value only
    /// beside a preset that would set another.
    #[test]
    fn the_changed_pairs_reproduce_the_parameters((e, edits) in any_params()) {
        let mut p = e.defaults();
        prop_assert!(p.apply(&edits).is_ok());
        let pairs = p.changed();
        let mut again = e.defaults();
        prop_assert!(again.apply(&pairs).is_ok());
        prop_assert_eq!(&again, &p, "{:?}", pairs);
        let d = e.defaults();
        let preset = pairs.iter().any(|(n, _)| e.param(n).is_some_and(|s| matches!(s.kind, ParamKind::Preset(_))));
        for (name, text) in &pairs {
            prop_assert!(preset || d.get(name) != Some(text.clone()), "{} is the default", name);
        }
    }

    /// A preset is applied before the flags given beside it, whatever their
    /// order: shuffling the pairs never changes the result.
    #[test]
    fn a_preset_never_beats_an_explicit_value(edits in params_for(Experiment::get(ExperimentId::Adaptive)), preset in 0usize..5, at in 0usize..64) {
        let e = Experiment::get(ExperimentId::Adaptive);
        let names = bplab_core::adaptive::Preset::NAMES;
        let mut plain: Vec<(&str, String)> = edits.into_iter().filter(|(n, _)| *n != "preset").collect();
        let mut last = plain.clone();
        last.push(("preset", names[preset].to_owned()));
        plain.insert(at % (plain.len() + 1), ("preset", names[preset].to_owned()));
        let (mut a, mut b) = (e.defaults(), e.defaults());
        prop_assert!(a.apply(&plain).is_ok() && b.apply(&last).is_ok());
        prop_assert_eq!(&a, &b);
        for (name, text) in last.iter().filter(|(n, _)| *n != "preset") {
            let mut once = e.defaults();
            prop_assert!(once.set(name, text).is_ok());
            prop_assert_eq!(a.get(name), once.get(name), "{} was given explicitly", name);
        }
    }
}
