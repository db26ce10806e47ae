//! The engine's same-runs check (`same-runs.sh`): seeded random models
//! (arrival times on a grid, for ties, or not; 1 to 50 workers; every door;
//! timeouts, both abandon rules, every backoff, budgets, throttling,
//! Retry-After, slowdowns, timelines, areas on or off), one line per case
//! with a hash of the whole `Run` (its `Debug` text: every try, the tally,
//! the areas, the timeline, the answers, the horizon). Built against two
//! trees, the outputs must be equal: a change to the engine's speed must
//! not change a run. Uses only API every tree since the one engine has.
//! Not a cargo target of bplab-core.
use bplab_core::Door;
use bplab_core::control::{
    AimdConfig, AimdParams, Codel, CodelConfig, Draws, FixedConfig, Gradient2Config, Gradient2Params, LimiterConfig,
    VegasConfig, VegasParams,
};
use bplab_core::stochastic::{Abandon, Backoff, Client, Model, Retry, RetryBudget, Slowdown, Throttle};
use std::io::Write;

/// xorshift64: the cases need no statistical quality, only the same draws
/// on both builds.
struct R(u64);
impl R {
    fn n(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn u(&mut self, k: u64) -> u64 {
        self.n() % k
    }
    fn f(&mut self) -> f64 {
        (self.n() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn b(&mut self) -> bool {
        self.n() & 1 == 1
    }
}

fn main() {
    let cases: u64 = std::env::args().nth(1).map_or(20000, |s| s.parse().unwrap());
    let mut out = std::io::BufWriter::new(std::io::stdout());
    for case in 0..cases {
        let mut r = R(0x9E3779B97F4A7C15 ^ (case.wrapping_mul(0x2545F4914F6CDD1D)) | 1);
        let big = if r.b() { 30 } else { 400 };
        let n = 1 + r.u(big) as usize;
        let grid = r.b(); // integer times: many ties
        let scale = [1.0, 5.0, 20.0][r.u(3) as usize];
        let mut t = 0.0;
        let mut arrivals = Vec::new();
        let mut service = Vec::new();
        for _ in 0..n {
            t += if grid { r.u(4) as f64 * scale } else { r.f() * 2.0 * scale };
            arrivals.push(t);
            service.push(if grid { r.u(6) as f64 * scale } else { r.f() * 6.0 * scale });
        }
        let window = t + 1.0 + r.f() * 100.0 * scale;
        let wk = if r.u(5) == 0 { 50 } else { 4 };
        let workers = 1 + r.u(wk) as u32;
        let mut m = Model::new(&arrivals, &service, workers, window);
        let seed = r.n();
        m.door = match r.u(7) {
            0 => Door::Open,
            1 | 2 => Door::Line(r.u(6) as u32),
            3 => Door::Limit(LimiterConfig::Fixed(FixedConfig::new(1 + r.u(8) as i32).unwrap()).build()),
            4 => Door::Limit(LimiterConfig::Aimd(AimdConfig::new(AimdParams::default()).unwrap()).build()),
            5 => Door::Limit(
                match r.b() {
                    true => LimiterConfig::Vegas(
                        VegasConfig::new(VegasParams { jitter: Draws::seeded(seed), ..VegasParams::default() })
                            .unwrap(),
                    ),
                    false => LimiterConfig::Gradient2(Gradient2Config::new(Gradient2Params::default()).unwrap()),
                }
                .build(),
            ),
            _ => Door::Codel(Codel::new(&CodelConfig::new(1 + r.u(10) as i64, 5 + r.u(100) as i64).unwrap(), 0)),
        };
        if r.b() {
            m.retry_after_ms = Some((r.u(5) as f64) * scale);
        }
        let base = 1.0 + (r.u(5) as f64) * scale;
        let backoff = match r.u(5) {
            0 => Backoff::Fixed { ms: r.u(4) as f64 * scale },
            1 => Backoff::Exponential { base_ms: base, cap_ms: base * 8.0 },
            2 => Backoff::FullJitter { base_ms: base, cap_ms: base * 8.0 },
            3 => Backoff::EqualJitter { base_ms: base, cap_ms: base * 8.0 },
            _ => Backoff::Decorrelated { base_ms: base, cap_ms: base * 8.0 },
        };
        let retries = if r.b() { 0 } else { r.u(4) as u32 };
        m.client = Client {
            timeout_ms: if r.u(4) == 0 { None } else { Some(1.0 + r.u(10) as f64 * scale) },
            abandon: if r.b() { Abandon::Dropped } else { Abandon::Served },
            retry: Retry { max_retries: retries, backoff },
            budget: (r.u(3) == 0).then_some(RetryBudget { ratio: 0.5, floor_rps: 5.0, max_tokens: 2.0 }),
            throttle: (r.u(3) == 0).then_some(Throttle { k: 1.5, window_ms: 100.0 }),
            honour_retry_after: r.b(),
        };
        if r.b() {
            m.slowdown = Some(Slowdown {
                at_ms: r.f() * window,
                until_ms: if r.b() { f64::INFINITY } else { window * (0.5 + r.f()) + 1.0 },
                factor: 0.5 + r.f() * 3.0,
                stuck_ms: r.b().then_some(r.u(10) as f64 * scale),
            });
        }
        if r.b() {
            m.timeline_ms = Some(1.0 + r.f() * window / 5.0);
        }
        m.areas = r.u(3) != 0;
        m.seed = seed;
        match m.run() {
            Ok(run) => {
                use std::hash::{Hash, Hasher};
                let text = format!("{:?} h={:?}", run, run.horizon_ms());
                let mut h = std::collections::hash_map::DefaultHasher::new();
                text.hash(&mut h);
                writeln!(out, "{case} {} {:x}", run.requests.len(), h.finish()).unwrap()
            }
            Err(e) => writeln!(out, "{case} err {e}").unwrap(),
        }
    }
}
