//! `cargo run --release -p bplab-core --example fuzz -- N [SEED]`: runs N
//! fuzz cases (see `bplab_core::fuzz`), counting panics, invariant
//! violations, refusals and results, and the slowest case's time.
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use bplab_core::fuzz::{FUZZ_CAPS, FuzzGen, Verdict, check};

fn main() {
    let mut args = std::env::args().skip(1);
    let n: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(1_000_000);
    let seed: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(20_261_130);
    std::panic::set_hook(Box::new(|_| {}));
    let mut g = FuzzGen::new(seed);
    let (mut panics, mut broken, mut input, mut run, mut ran) = (0u64, 0u64, 0u64, 0u64, 0u64);
    let (mut slowest, mut slowest_at) = (Duration::ZERO, 0u64);
    let start = Instant::now();
    // Per experiment: (cases, reached a model run).
    let mut per = vec![(0u64, 0u64); bplab_core::EXPERIMENTS.len()];
    for i in 0..n {
        let case = g.next_case();
        per[case.experiment as usize].0 += 1;
        let t = Instant::now();
        match catch_unwind(AssertUnwindSafe(|| check(&case, FUZZ_CAPS))) {
            Err(_) => {
                panics += 1;
                eprintln!("PANIC at case {i}: {case:?}");
            }
            Ok(Err(why)) => {
                broken += 1;
                eprintln!("BROKEN at case {i}: {why}");
            }
            Ok(Ok(Verdict::InputRefused(_))) => input += 1,
            Ok(Ok(Verdict::RunRefused(_))) => run += 1,
            Ok(Ok(Verdict::Ran(_))) => {
                ran += 1;
                per[case.experiment as usize].1 += 1;
            }
        }
        let dt = t.elapsed();
        if dt > slowest {
            (slowest, slowest_at) = (dt, i);
        }
    }
    println!(
        "fuzz: {n} cases (seed {seed}) in {:.1} s: {ran} ran, {run} refused as a whole, {input} refused a typed value; {panics} panics, {broken} invariant violations; slowest case #{slowest_at}: {:.1} ms",
        start.elapsed().as_secs_f64(),
        slowest.as_secs_f64() * 1000.0
    );
    for (e, (cases, reached)) in bplab_core::EXPERIMENTS.iter().zip(&per) {
        println!("  {}: {cases} cases, {reached} reached a model run", e.name);
    }
    if panics + broken > 0 {
        std::process::exit(1);
    }
}
