//! `cargo run --release -p bplab-core --example fuzz -- N [SEED] [FROM]`: runs N
//! fuzz cases (see `bplab_core::fuzz`), counting panics, invariant
//! violations, refusals and results, and the slowest case's time. Every
//! claim an explanation shows is re-evaluated against the run's evidence
//! (`bplab_core::claim`): a typed statement (`bplab_core::statement`, counted
//! as `<kind> statement`) against the per-request logs of the runs it names,
//! re-made with the models' log hooks. Each case also runs the limit and
//! Little's-law calculators at drawn inputs and checks their statements: the
//! report counts claims per kind and how often each fallback sentence was
//! chosen. FROM
//! (default 0) skips the first cases, so two processes can share one run
//! (`… 500000 SEED 0` and `… 1000000 SEED 500000`).
use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use bplab_core::calc::{LimitInput, LittlesInput, limit, littles};
use bplab_core::claim::{Claim, Evidence, Fact, check};
use bplab_core::fuzz::{FUZZ_CAPS, FuzzGen, Verdict, check_claims};

/// A calculator input drawn from the case number: whole and fractional
/// service times and budgets across the accepted range, 1–64 workers.
fn calc_case(i: u64) -> (LimitInput, LittlesInput) {
    let h = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (i >> 7);
    let workers = 1 + (h % 64) as u32;
    let service_ms = match (h >> 8) % 4 {
        0 => ((h >> 12) % 60 + 1) as f64,
        1 => ((h >> 12) % 6000 + 1) as f64 / 100.0,
        2 => ((h >> 12) % 1000 + 1) as f64 / 1000.0,
        _ => ((h >> 12) % 100_000 + 1) as f64 / 10.0,
    };
    let budget_ms = service_ms * (1.0 + ((h >> 30) % 400) as f64 / 7.0) + ((h >> 40) % 3) as f64;
    let lam = ((h >> 20) % 100_000 + 1) as f64 / 100.0;
    let lat = ((h >> 34) % 100_000 + 1) as f64 / 1000.0;
    (
        LimitInput { workers, budget_ms, service_ms },
        LittlesInput { arrivals_rps: Some(lam), latency_ms: Some(lat), in_flight: None },
    )
}

fn calc_claims(i: u64) -> Result<Vec<Claim>, String> {
    let (li, la) = calc_case(i);
    let mut out = Vec::new();
    let ev = Evidence::default();
    let mut explanations = Vec::new();
    if let Ok(r) = limit(li) {
        explanations.push((r.explanation.clone(), r.record.to_text()));
        // The record's number as a claim too.
        let text = format!("{}, ", r.record_limit);
        if !r.record.number.starts_with(&text) {
            return Err(format!("record number {} vs {}", r.record.number, r.record_limit));
        }
    }
    if let Ok(r) = littles(la) {
        explanations.push((r.explanation, String::new()));
    }
    for (e, record) in explanations {
        let text = e.to_text() + &record;
        for c in &e.claims {
            if !text.contains(&c.text) {
                return Err(format!("claim not shown: {}", c.text));
            }
            check(c, &ev)?;
            out.push(c.clone());
        }
        for st in &e.steps {
            if let Some(eq) = &st.eq {
                let c = Claim::new("arithmetic", "claim", st.substituted.clone(), Fact::Equation(eq.clone()));
                check(&c, &ev)?;
                out.push(c);
            }
        }
    }
    Ok(out)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(1_000_000);
    let seed: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(20_261_130);
    let from: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(0);
    std::panic::set_hook(Box::new(|_| {}));
    let mut g = FuzzGen::new(seed);
    let (mut panics, mut broken, mut input, mut run, mut ran) = (0u64, 0u64, 0u64, 0u64, 0u64);
    let mut false_claims = 0u64;
    let mut kinds: BTreeMap<(&'static str, &'static str), u64> = BTreeMap::new();
    let (mut slowest, mut slowest_at) = (Duration::ZERO, 0u64);
    let start = Instant::now();
    // Per experiment: (cases, reached a model run).
    let mut per = vec![(0u64, 0u64); bplab_core::EXPERIMENTS.len()];
    for _ in 0..from {
        g.next_case();
    }
    for i in from..n {
        let case = g.next_case();
        per[case.experiment as usize].0 += 1;
        let t = Instant::now();
        match catch_unwind(AssertUnwindSafe(|| check_claims(&case, FUZZ_CAPS))) {
            Err(_) => {
                panics += 1;
                eprintln!("PANIC at case {i}: {case:?}");
            }
            Ok(Err(why)) => {
                broken += 1;
                if why.contains("\"") {
                    false_claims += 1;
                }
                eprintln!("BROKEN at case {i}: {why}\n  {case:?}");
            }
            Ok(Ok((Verdict::InputRefused(_), _))) => input += 1,
            Ok(Ok((Verdict::RunRefused(_), _))) => run += 1,
            Ok(Ok((Verdict::Ran(_), claims))) => {
                ran += 1;
                per[case.experiment as usize].1 += 1;
                for k in claims {
                    *kinds.entry(k).or_default() += 1;
                }
            }
        }
        match catch_unwind(AssertUnwindSafe(|| calc_claims(i))) {
            Err(_) => {
                panics += 1;
                eprintln!("PANIC in the calculators at case {i}: {:?}", calc_case(i));
            }
            Ok(Err(why)) => {
                broken += 1;
                false_claims += 1;
                eprintln!("FALSE CLAIM in the calculators at case {i}: {why}: {:?}", calc_case(i));
            }
            Ok(Ok(claims)) => {
                for c in claims {
                    *kinds.entry((c.kind, c.variant)).or_default() += 1;
                }
            }
        }
        let dt = t.elapsed();
        if dt > slowest {
            (slowest, slowest_at) = (dt, i);
        }
    }
    println!(
        "fuzz: cases {from}..{n} (seed {seed}) in {:.1} s: {ran} ran, {run} refused as a whole, {input} refused a typed value; {panics} panics, {broken} invariant violations, {false_claims} false claims; slowest case #{slowest_at}: {:.1} ms",
        start.elapsed().as_secs_f64(),
        slowest.as_secs_f64() * 1000.0
    );
    for (e, (cases, reached)) in bplab_core::EXPERIMENTS.iter().zip(&per) {
        println!("  {}: {cases} cases, {reached} reached a model run", e.name);
    }
    let total: u64 = kinds.values().sum();
    println!("claims checked: {total}");
    for ((kind, variant), count) in &kinds {
        println!("  {kind:<12} {variant:<24} {count}");
    }
    if panics + broken > 0 {
        std::process::exit(1);
    }
}
