//! Criterion benchmarks: samples/s through each limiter and CoDel decisions/s
//! (target: at least 50 M samples/s for AIMD and Gradient2).
//!
//! Run: `cargo bench -p bplab-core --bench limiters`

use criterion::{BenchmarkId, Criterion, Throughput, black_box, criterion_group, criterion_main};

use bplab_core::control::{
    AimdConfig, Codel, CodelConfig, FixedConfig, Gradient2Config, GradientConfig, Limiter, LimiterConfig, Sample,
    VegasConfig,
};

const N: usize = 4096;

/// A deterministic mix of RTTs (5–45 ms with spikes), inflight 0–199 and 2 % drops.
fn samples() -> Vec<Sample> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..N)
        .map(|_| {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let r = x >> 33;
            let spike = if r.is_multiple_of(17) { 100_000_000 } else { 0 };
            Sample::new(5_000_000 + (r % 40_000_000) as i64 + spike, (r % 200) as i32, r.is_multiple_of(50))
        })
        .collect()
}

fn limiters(c: &mut Criterion) {
    let ss = samples();
    let configs = [
        ("fixed", LimiterConfig::Fixed(FixedConfig::new(29).unwrap())),
        ("aimd", LimiterConfig::Aimd(AimdConfig::default())),
        ("vegas", LimiterConfig::Vegas(VegasConfig::default())),
        ("gradient2", LimiterConfig::Gradient2(Gradient2Config::default())),
        ("gradient", LimiterConfig::Gradient(GradientConfig::default())),
    ];
    let mut group = c.benchmark_group("limiter_samples");
    group.throughput(Throughput::Elements(N as u64));
    for (name, cfg) in &configs {
        let mut l = cfg.build();
        group.bench_with_input(BenchmarkId::from_parameter(name), &ss, |b, ss| {
            b.iter(|| {
                let mut acc = 0i64;
                for &s in ss {
                    acc += i64::from(l.update(black_box(s)));
                }
                acc
            })
        });
    }
    group.finish();
}

fn codel(c: &mut Criterion) {
    let calls: Vec<(i64, i64)> =
        samples().iter().enumerate().map(|(i, s)| (i as i64 * 250_000, s.rtt_ns / 4)).collect();
    let mut group = c.benchmark_group("codel_calls");
    group.throughput(Throughput::Elements(N as u64));
    let mut codel = Codel::new(&CodelConfig::default(), 0);
    let mut t0 = 0i64;
    group.bench_function("overloaded+load", |b| {
        b.iter(|| {
            let mut acc = 0i64;
            for &(now, delay) in &calls {
                acc += i64::from(codel.overloaded(t0 + now, black_box(delay))) + i64::from(codel.load());
            }
            t0 += N as i64 * 250_000;
            acc
        })
    });
    group.finish();
}

criterion_group!(benches, limiters, codel);
criterion_main!(benches);
