//! Criterion benchmarks of the multi-worker queue engine on its own, without
//! the experiments' tables: the lesson's runs (`Setup::run`, one line limit,
//! a client timeout; and `Setup::summarise`, the same runs without a record
//! per request) and the adaptive race (`simulate`, one door per
//! controller, the deploy, the retry storm, the stuck downstream), each
//! reported as arrivals/s.
//!
//! Run: `cargo bench -p bplab-core --bench engine`

use criterion::{BenchmarkId, Criterion, Throughput, black_box, criterion_group, criterion_main};

use bplab_core::simulate;
use bplab_core::stochastic::Setup;

#[path = "old-vs-new/cases.rs"]
mod cases;

fn lesson(c: &mut Criterion) {
    let mut group = c.benchmark_group("engine_lesson");
    for (name, rate, svc, server) in cases::lessons() {
        let setup = Setup::poisson(rate, svc, server, 60_000.0, 3);
        let n = setup.run(10_000_000).expect("run").requests.len() as u64;
        group.throughput(Throughput::Elements(n));
        group.bench_with_input(BenchmarkId::from_parameter(name), &setup, |b, s| {
            b.iter(|| black_box(s.run(10_000_000).expect("run").summary(rate)))
        });
    }
    group.finish();
}

/// The same runs summarised as they go (`Setup::summarise`, the lesson's
/// path): the same rows, without a record per request.
fn lesson_summarised(c: &mut Criterion) {
    let mut group = c.benchmark_group("engine_lesson_summarised");
    for (name, rate, svc, server) in cases::lessons() {
        let setup = Setup::poisson(rate, svc, server, 60_000.0, 3);
        let n = setup.summarise(10_000_000, rate, |_| {}).expect("run").sent;
        group.throughput(Throughput::Elements(n));
        group.bench_with_input(BenchmarkId::from_parameter(name), &setup, |b, s| {
            b.iter(|| black_box(s.summarise(10_000_000, rate, |_| {}).expect("run")))
        });
    }
    group.finish();
}

fn adaptive(c: &mut Criterion) {
    let mut group = c.benchmark_group("engine_adaptive");
    let seed = 1;
    let (arrivals, base) = cases::race(seed);
    for (preset, shape) in cases::PRESETS {
        let tr = shape(cases::trace(&arrivals, &base));
        for (name, door) in cases::doors(seed) {
            let attempts = simulate(tr, door.clone()).attempts;
            group.throughput(Throughput::Elements(attempts));
            group.bench_with_input(BenchmarkId::new(preset, name), &door, |b, d| {
                b.iter(|| black_box(simulate(tr, d.clone())))
            });
        }
    }
    group.finish();
}
criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(2));
    targets = lesson, lesson_summarised, adaptive
}
criterion_main!(benches);
