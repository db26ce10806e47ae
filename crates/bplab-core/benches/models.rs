//! Criterion benchmarks: all nine reference CSVs in-process, and each
//! experiment at the article defaults and at a 600-second window, reported
//! as arrivals/s.
//!
//! Run: `cargo bench -p bplab-core --bench models`

use criterion::{BenchmarkId, Criterion, Throughput, black_box, criterion_group, criterion_main};

use bplab_core::{Caps, EXPERIMENTS, Scenario};

fn all_nine_csvs(c: &mut Criterion) {
    c.bench_function("all_nine_csvs", |b| {
        b.iter(|| {
            let mut bytes = 0;
            for e in EXPERIMENTS.iter().filter(|e| e.tables.iter().any(|t| t.golden_sha256.is_some())) {
                let tables = Scenario::defaults(e.id).run().tables();
                for t in tables.iter().filter(|t| t.spec.golden_sha256.is_some()) {
                    bytes += t.csv().len();
                }
            }
            black_box(bytes)
        })
    });
}

fn per_experiment(c: &mut Criterion, group_name: &str, duration_ms: Option<u32>) {
    let mut group = c.benchmark_group(group_name);
    for e in EXPERIMENTS {
        let mut p = e.defaults();
        if let Some(d) = duration_ms {
            // The window flag each experiment has (the articles' or the stochastic ones').
            let _ = p.set("duration-ms", &d.to_string());
            let _ = p.set("seconds", &(f64::from(d) / 1000.0).to_string());
        }
        let Ok(sc) = Scenario::new(p, Caps::CLI) else { continue };
        group.throughput(Throughput::Elements(sc.run().arrivals_simulated()));
        group.bench_with_input(BenchmarkId::from_parameter(e.name), &sc, |b, sc| b.iter(|| black_box(sc.run())));
    }
    group.finish();
}

fn defaults(c: &mut Criterion) {
    per_experiment(c, "defaults", None);
}

fn window_600s(c: &mut Criterion) {
    per_experiment(c, "window_600s", Some(600_000));
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(3));
    targets = all_nine_csvs, defaults, window_600s
}
criterion_main!(benches);
