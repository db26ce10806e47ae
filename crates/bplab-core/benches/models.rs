//! Criterion benchmarks: all nine reference CSVs in-process, each
//! experiment at the article defaults and at a 600-second window, reported
//! as arrivals/s, and the metastable preview the page computes on each
//! slider move.
//!
//! Run: `cargo bench -p bplab-core --bench models`

use criterion::{BenchmarkId, Criterion, Throughput, black_box, criterion_group, criterion_main};

use bplab_core::{Caps, EXPERIMENTS, Experiment, Scenario};

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

/// The metastable preview (the page's chosen point) at the default trigger
/// size and at the main slider's neighbours, cold (the memo cleared, as
/// when the size moves): the six lanes, then everything the page's view
/// reads (tables' CSV, explanations, readouts, plots).
fn metastable_preview(c: &mut Criterion) {
    let mut group = c.benchmark_group("metastable_preview");
    let Ok(exp) = Experiment::named("metastable") else { return };
    for size in ["3", "2.75", "3.25", "3.5"] {
        let mut p = exp.defaults();
        if p.set("trigger-size", size).is_err() {
            continue;
        }
        let Ok(sc) = Scenario::new(p, Caps::PAGE) else { continue };
        group.bench_with_input(BenchmarkId::new("trigger-size", size), &sc, |b, sc| {
            b.iter(|| {
                bplab_core::metastable::memo::clear();
                let r = sc.preview();
                let n = r.map_or(0, |r| {
                    let csv: usize = r.tables().iter().map(|t| t.csv().len()).sum();
                    csv + r.explanations().len() + r.readouts().len() + r.plots(&Default::default()).len()
                });
                black_box(n)
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(3));
    targets = all_nine_csvs, defaults, window_600s, metastable_preview
}
criterion_main!(benches);
