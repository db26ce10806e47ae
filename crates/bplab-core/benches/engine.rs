//! Criterion benchmarks of the multi-worker queue engine on its own, without
//! the experiments' tables: the lesson's runs (`Setup::run`, one line limit,
//! a client timeout) and the adaptive race (`simulate`, one door per
//! controller, the deploy, the retry storm, the stuck downstream), each
//! reported as arrivals/s.
//!
//! Run: `cargo bench -p bplab-core --bench engine`

use criterion::{BenchmarkId, Criterion, Throughput, black_box, criterion_group, criterion_main};

use bplab_core::control::{
    AimdConfig, AimdParams, Codel, CodelConfig, Draws, FixedConfig, Gradient2Config, Gradient2Params, GradientConfig,
    GradientParams, LimiterConfig, VegasConfig, VegasParams,
};
use bplab_core::stochastic::{Abandon, RateSchedule, Server, ServiceTime, Setup};
use bplab_core::{Door, Trace, simulate};

/// The lesson's server: 1 worker, 10 waiting, callers leave after 2 s.
fn lesson_server(abandon: Abandon) -> Server {
    Server { workers: 1, line_limit: Some(10), timeout_ms: Some(2000.0), abandon }
}

fn lesson(c: &mut Criterion) {
    let mut group = c.benchmark_group("engine_lesson");
    let fixed: ServiceTime = "fixed:21".parse().expect("service");
    let logn: ServiceTime = "lognormal:p50=20,p99=60".parse().expect("service");
    let cases = [
        ("fixed21_60rps_60s", 60.0, fixed, lesson_server(Abandon::Served)),
        ("fixed21_100rps_60s", 100.0, fixed, lesson_server(Abandon::Served)),
        ("fixed21_100rps_60s_unbounded", 100.0, fixed, Server { line_limit: None, ..lesson_server(Abandon::Served) }),
        ("lognormal_2w_90rps_60s_dropped", 90.0, logn, Server { workers: 2, ..lesson_server(Abandon::Dropped) }),
    ];
    for (name, rate, svc, server) in cases {
        let setup = Setup::poisson(rate, svc, server, 60_000.0, 3);
        let n = setup.run(10_000_000).expect("run").requests.len() as u64;
        group.throughput(Throughput::Elements(n));
        group.bench_with_input(BenchmarkId::from_parameter(name), &setup, |b, s| {
            b.iter(|| black_box(s.run(10_000_000).expect("run").summary(rate)))
        });
    }
    group.finish();
}

fn doors(seed: u64) -> Vec<(&'static str, Door)> {
    let limit = |c: LimiterConfig| Door::Limit(c.build());
    vec![
        ("fixed", limit(LimiterConfig::Fixed(FixedConfig::new(11).expect("fixed")))),
        ("codel", Door::Codel(Codel::new(&CodelConfig::new(50, 100).expect("codel"), 0))),
        ("aimd", limit(LimiterConfig::Aimd(AimdConfig::new(AimdParams::default()).expect("aimd")))),
        (
            "vegas",
            limit(LimiterConfig::Vegas(
                VegasConfig::new(VegasParams { jitter: Draws::seeded(seed), ..VegasParams::default() }).expect("vegas"),
            )),
        ),
        ("gradient2", limit(LimiterConfig::Gradient2(Gradient2Config::new(Gradient2Params::default()).expect("g2")))),
        (
            "gradient",
            limit(LimiterConfig::Gradient(
                GradientConfig::new(GradientParams { offsets: Draws::seeded(seed), ..GradientParams::default() })
                    .expect("gradient"),
            )),
        ),
    ]
}

/// The adaptive defaults: 40 rps on one 21 ms worker for 30 s, a 2× deploy at 10 s.
fn trace<'a>(arrivals: &'a [f64], base: &'a [f64]) -> Trace<'a> {
    Trace {
        arrivals,
        service_ms: base,
        workers: 1,
        timeout_ms: 2000.0,
        slowdown_at_ms: 10_000.0,
        slowdown_factor: 2.0,
        stuck_after_slowdown: false,
        retries: 0,
        retry_backoff_ms: 100.0,
        window_ms: 30_000.0,
        bucket_ms: 500.0,
    }
}

/// A preset's change to the default trace.
type Shape = fn(Trace<'_>) -> Trace<'_>;

fn adaptive(c: &mut Criterion) {
    let mut group = c.benchmark_group("engine_adaptive");
    let seed = 1;
    let arrivals = RateSchedule::constant(40.0).generate(30_000.0, seed, 1_000_000).expect("arrivals");
    let svc: ServiceTime = "fixed:21".parse().expect("service");
    let base: Vec<f64> = svc.draws(seed).take(arrivals.len()).collect();
    let presets: [(&str, Shape); 3] = [
        ("deploy2x", |t| t),
        ("retry_storm", |t| Trace { retries: 3, ..t }),
        ("stuck", |t| Trace { workers: 1000, stuck_after_slowdown: true, ..t }),
    ];
    for (preset, shape) in presets {
        let tr = shape(trace(&arrivals, &base));
        for (name, door) in doors(seed) {
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
    targets = lesson, adaptive
}
criterion_main!(benches);
