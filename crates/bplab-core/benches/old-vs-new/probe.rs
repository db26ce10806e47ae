//! The same-process probe of `old-vs-new.sh`: the criterion bench's cases
//! (engine_lesson, engine_adaptive), each run in 15 batches and reported as
//! the fastest batch's time per run, µs. Built twice, against the old core
//! and this one (the script writes its Cargo.toml), so it uses only the API
//! both have. Not a cargo target of bplab-core.

use std::hint::black_box;
use std::time::Instant;

use bplab_core::simulate;
use bplab_core::stochastic::Setup;

#[path = "cases.rs"]
mod cases;

/// The fastest of 15 batches of `n` calls, µs per call.
fn best(n: usize, mut f: impl FnMut() -> u64) -> f64 {
    let mut acc = 0;
    let mut best = f64::INFINITY;
    for _ in 0..15 {
        let t0 = Instant::now();
        for _ in 0..n {
            acc += f();
        }
        best = best.min(t0.elapsed().as_secs_f64() * 1e6 / n as f64);
    }
    black_box(acc);
    best
}

fn main() {
    for (name, rate, svc, server) in cases::lessons() {
        let setup = Setup::poisson(rate, svc, server, 60_000.0, 3);
        let us = best(10, || setup.run(10_000_000).expect("run").summary(rate).ok);
        println!("engine_lesson/{name} {us:.2}");
    }
    let seed = 1;
    let (arrivals, base) = cases::race(seed);
    for (preset, shape) in cases::PRESETS {
        let tr = shape(cases::trace(&arrivals, &base));
        for (name, door) in cases::doors(seed) {
            let us = best(50, || simulate(tr, door.clone()).ok);
            println!("engine_adaptive/{preset}/{name} {us:.2}");
        }
    }
}
