//! The fuzz harness over the whole parameter space: ≥ 20,000 seeded cases
//! through every experiment. Each ends in a clear refusal or a result that
//! keeps every invariant (counts conserved, percentages in [0, 100],
//! p50 ≤ p99, work under the caps). Reproduce a failure with its seed:
//! `BPLAB_FUZZ_SEED=<seed> cargo test -p bplab-core --test fuzz`.

use bplab_core::fuzz::{FUZZ_CAPS, FuzzGen, Verdict, check};

#[test]
fn twenty_thousand_cases_refuse_clearly_or_keep_every_invariant() {
    let seed = std::env::var("BPLAB_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(20_261_130u64);
    let n: usize = std::env::var("BPLAB_FUZZ_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(20_000);
    eprintln!("fuzz seed {seed}, {n} cases");
    let mut g = FuzzGen::new(seed);
    let (mut input, mut run, mut ran) = (0usize, 0usize, 0usize);
    // Per experiment: (cases, parameters typed, reached a model run).
    let mut per: Vec<(usize, usize, usize)> = vec![(0, 0, 0); bplab_core::EXPERIMENTS.len()];
    for i in 0..n {
        let case = g.next_case();
        let slot = &mut per[case.experiment as usize];
        slot.0 += 1;
        slot.1 += case.edits.len();
        match check(&case, FUZZ_CAPS) {
            Ok(Verdict::InputRefused(_)) => input += 1,
            Ok(Verdict::RunRefused(_)) => run += 1,
            Ok(Verdict::Ran(_)) => {
                ran += 1;
                slot.2 += 1;
            }
            Err(why) => panic!("seed {seed}, case {i}: {why}\n{case:?}"),
        }
    }
    eprintln!("{ran} ran, {run} refused as a whole, {input} refused a typed value");
    for (e, (cases, typed, reached)) in bplab_core::EXPERIMENTS.iter().zip(&per) {
        eprintln!("{}: {cases} cases, {typed} parameters typed, {reached} reached a model run", e.name);
        // Every experiment's own parameters are drawn, and every experiment runs.
        assert!(*cases > 0 && *typed > 0 && *reached > 0, "{}: {cases} cases, {reached} ran", e.name);
    }
    // The generator must reach the models, not only the parsers.
    // Edges include hour-long windows at a million rps, which the caps refuse
    // with their numbers; still, one case in eight must reach a model run.
    assert!(ran * 8 >= n, "only {ran} of {n} cases reached a model run");
    assert!(input > 0 && run > 0, "edges outside the range must be refused");
}

#[test]
fn the_reported_crash_is_a_result_or_a_clear_refusal() {
    // `--gate-rate-rps 1e-10` once indexed out of bounds in the shaping model.
    let case = bplab_core::fuzz::FuzzCase {
        experiment: bplab_core::ExperimentId::Shaping,
        edits: vec![("gate-rate-rps", "1e-10".into())],
    };
    assert!(matches!(check(&case, bplab_core::Caps::PAGE), Ok(Verdict::Ran(_))));
    for text in ["5e-324", "2.2250738585072014e-308", "1000000"] {
        let case = bplab_core::fuzz::FuzzCase {
            experiment: bplab_core::ExperimentId::Shaping,
            edits: vec![("gate-rate-rps", text.into())],
        };
        assert!(check(&case, bplab_core::Caps::PAGE).is_ok(), "{text}");
    }
}
