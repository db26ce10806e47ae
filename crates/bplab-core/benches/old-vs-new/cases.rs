//! The engine bench's cases, shared by `engine.rs` (criterion) and the
//! old-vs-new probe (`probe.rs`, built against the old core too, so only
//! API both have): the lesson's runs and the adaptive race's doors, trace
//! and presets.

use bplab_core::control::{
    AimdConfig, AimdParams, Codel, CodelConfig, Draws, FixedConfig, Gradient2Config, Gradient2Params, GradientConfig,
    GradientParams, LimiterConfig, VegasConfig, VegasParams,
};
use bplab_core::stochastic::{Abandon, RateSchedule, Server, ServiceTime};
use bplab_core::{Door, Trace};

/// The lesson's server: 1 worker, 10 waiting, callers leave after 2 s.
pub fn lesson_server(abandon: Abandon) -> Server {
    Server { workers: 1, line_limit: Some(10), timeout_ms: Some(2000.0), abandon }
}

/// The lesson cases: name, rate (rps), service time, server; 60 s, seed 3.
pub fn lessons() -> [(&'static str, f64, ServiceTime, Server); 4] {
    let fixed: ServiceTime = "fixed:21".parse().expect("service");
    let logn: ServiceTime = "lognormal:p50=20,p99=60".parse().expect("service");
    [
        ("fixed21_60rps_60s", 60.0, fixed, lesson_server(Abandon::Served)),
        ("fixed21_100rps_60s", 100.0, fixed, lesson_server(Abandon::Served)),
        ("fixed21_100rps_60s_unbounded", 100.0, fixed, Server { line_limit: None, ..lesson_server(Abandon::Served) }),
        ("lognormal_2w_90rps_60s_dropped", 90.0, logn, Server { workers: 2, ..lesson_server(Abandon::Dropped) }),
    ]
}

pub fn doors(seed: u64) -> Vec<(&'static str, Door)> {
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
pub fn trace<'a>(arrivals: &'a [f64], base: &'a [f64]) -> Trace<'a> {
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
pub type Shape = fn(Trace<'_>) -> Trace<'_>;

/// The race's arrivals and base service times (40 rps of fixed 21 ms for 30 s).
pub fn race(seed: u64) -> (Vec<f64>, Vec<f64>) {
    let arrivals = RateSchedule::constant(40.0).generate(30_000.0, seed, 1_000_000).expect("arrivals");
    let svc: ServiceTime = "fixed:21".parse().expect("service");
    let base: Vec<f64> = svc.draws(seed).take(arrivals.len()).collect();
    (arrivals, base)
}

/// The presets: the 2× deploy, a retry storm, a stuck downstream.
pub const PRESETS: [(&str, Shape); 3] = [
    ("deploy2x", |t| t),
    ("retry_storm", |t| Trace { retries: 3, ..t }),
    ("stuck", |t| Trace { workers: 1000, stuck_after_slowdown: true, ..t }),
];
