//! The same-process probe of `old-vs-new.sh`: the criterion bench's cases
//! (engine_lesson, engine_adaptive), each run in 15 batches and reported as
//! the fastest batch's time per run, µs. Built twice, against the old core
//! and this one (the script writes its Cargo.toml), so it uses only the API
//! both have. Not a cargo target of bplab-core.

use std::hint::black_box;
use std::time::Instant;

use bplab_core::control::{
    AimdConfig, AimdParams, Codel, CodelConfig, Draws, FixedConfig, Gradient2Config, Gradient2Params, GradientConfig,
    GradientParams, LimiterConfig, VegasConfig, VegasParams,
};
use bplab_core::stochastic::{Abandon, RateSchedule, Server, ServiceTime, Setup};
use bplab_core::{Door, Trace, simulate};

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

fn doors(seed: u64) -> Vec<(&'static str, Door)> {
    let limit = |c: LimiterConfig| Door::Limit(c.build());
    let vegas = VegasParams { jitter: Draws::seeded(seed), ..VegasParams::default() };
    let gradient = GradientParams { offsets: Draws::seeded(seed), ..GradientParams::default() };
    vec![
        ("fixed", limit(LimiterConfig::Fixed(FixedConfig::new(11).expect("fixed")))),
        ("codel", Door::Codel(Codel::new(&CodelConfig::new(50, 100).expect("codel"), 0))),
        ("aimd", limit(LimiterConfig::Aimd(AimdConfig::new(AimdParams::default()).expect("aimd")))),
        ("vegas", limit(LimiterConfig::Vegas(VegasConfig::new(vegas).expect("vegas")))),
        ("gradient2", limit(LimiterConfig::Gradient2(Gradient2Config::new(Gradient2Params::default()).expect("g2")))),
        ("gradient", limit(LimiterConfig::Gradient(GradientConfig::new(gradient).expect("gradient")))),
    ]
}

fn main() {
    let fixed: ServiceTime = "fixed:21".parse().expect("service");
    let logn: ServiceTime = "lognormal:p50=20,p99=60".parse().expect("service");
    let lesson = |abandon| Server { workers: 1, line_limit: Some(10), timeout_ms: Some(2000.0), abandon };
    let cases = [
        ("fixed21_60rps_60s", 60.0, fixed, lesson(Abandon::Served)),
        ("fixed21_100rps_60s", 100.0, fixed, lesson(Abandon::Served)),
        ("fixed21_100rps_60s_unbounded", 100.0, fixed, Server { line_limit: None, ..lesson(Abandon::Served) }),
        ("lognormal_2w_90rps_60s_dropped", 90.0, logn, Server { workers: 2, ..lesson(Abandon::Dropped) }),
    ];
    for (name, rate, svc, server) in cases {
        let setup = Setup::poisson(rate, svc, server, 60_000.0, 3);
        let us = best(10, || setup.run(10_000_000).expect("run").summary(rate).ok);
        println!("engine_lesson/{name} {us:.2}");
    }
    let seed = 1;
    let arrivals = RateSchedule::constant(40.0).generate(30_000.0, seed, 1_000_000).expect("arrivals");
    let base: Vec<f64> = fixed.draws(seed).take(arrivals.len()).collect();
    let trace = Trace {
        arrivals: &arrivals,
        service_ms: &base,
        workers: 1,
        timeout_ms: 2000.0,
        slowdown_at_ms: 10_000.0,
        slowdown_factor: 2.0,
        stuck_after_slowdown: false,
        retries: 0,
        retry_backoff_ms: 100.0,
        window_ms: 30_000.0,
        bucket_ms: 500.0,
    };
    let presets = [
        ("deploy2x", trace),
        ("retry_storm", Trace { retries: 3, ..trace }),
        ("stuck", Trace { workers: 1000, stuck_after_slowdown: true, ..trace }),
    ];
    for (preset, tr) in presets {
        for (name, door) in doors(seed) {
            let us = best(50, || simulate(tr, door.clone()).ok);
            println!("engine_adaptive/{preset}/{name} {us:.2}");
        }
    }
}
