//! Service time at low load: requests sent one at a time, each waiting for
//! the previous answer, so nothing queues and the latency is the service
//! time (plus loopback connect and HTTP overhead, well under a millisecond).

use std::time::{Duration, Instant};

use bplab_core::ConfigError;
use bplab_core::calc;

use crate::error::LiveError;
use crate::flags::WholeFlag;
use crate::load::Target;
use crate::load::client::{get, get_stats};
use crate::stats::StatsConfig;

/// Requests sent and discarded before the measured ones.
pub const WARMUP_REQUESTS: usize = 3;
/// Most samples one measurement may take.
pub const MAX_SAMPLES: usize = 1000;
/// The default `--budget-ms`: the lesson's 230 ms (the core's
/// [`bplab_core::params::LESSON_BUDGET_MS`]).
pub const DEFAULT_BUDGET_MS: f64 = bplab_core::params::LESSON_BUDGET_MS as f64;
/// Samples taken by default (and by `load --compare`).
pub const DEFAULT_SAMPLES: usize = 30;
/// `--samples`: sequential requests measured after the warm-up,
/// `1..=MAX_SAMPLES`.
pub const SAMPLES: WholeFlag = WholeFlag {
    name: "samples",
    label: "sequential requests to measure after the warm-up",
    min: 1,
    max: MAX_SAMPLES as u64,
    unit: "requests",
    or_word: None,
};
/// How long one sequential request may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// How long to wait for a busy server to drain before measuring.
const IDLE_WAIT: Duration = Duration::from_secs(30);

/// `bplab measure`'s flags, validated by [`MeasureConfig::new`] before
/// anything is resolved or sent.
#[derive(Debug, Clone, PartialEq)]
pub struct MeasureConfig {
    target: Target,
    samples: usize,
    budget_ms: f64,
    allow_non_loopback: bool,
}

impl MeasureConfig {
    /// Check `samples` against [`SAMPLES`] and `budget_ms` against the core
    /// limit calculator's range (see [`parse_budget_ms`]).
    pub fn new(target: Target, samples: usize, budget_ms: f64, allow_non_loopback: bool) -> Result<Self, LiveError> {
        SAMPLES.check_usize(samples)?;
        if let Some(accepted) = budget_refusal(budget_ms) {
            return Err(LiveError::OutOfRange { flag: BUDGET_MS, value: calc::fmt_num(budget_ms), accepted });
        }
        Ok(MeasureConfig { target, samples, budget_ms, allow_non_loopback })
    }

    /// Where to measure.
    pub fn target(&self) -> &Target {
        &self.target
    }
    /// Requests measured after the warm-up.
    pub fn samples(&self) -> usize {
        self.samples
    }
    /// Latency budget the limit is derived for, ms.
    pub fn budget_ms(&self) -> f64 {
        self.budget_ms
    }
    /// Non-loopback targets allowed.
    pub fn allow_non_loopback(&self) -> bool {
        self.allow_non_loopback
    }
}

/// The core's name for the budget parameter, and the flag's.
const BUDGET_MS: &str = "budget-ms";

/// If the core limit calculator refuses `budget_ms` as a budget, what it
/// accepts instead. The range is the core calculator table's (the later
/// derivation uses the same check), not copied.
fn budget_refusal(budget_ms: f64) -> Option<String> {
    match calc::CALC_PARAMS[calc::BUDGET].check(budget_ms) {
        Err(ConfigError::OutOfRange { param: BUDGET_MS, accepted, .. }) => Some(accepted),
        _ => None,
    }
}

/// What `--budget-ms` accepts, in the core's words, e.g. "a number above 0
/// to 10000000 (ms)".
pub fn budget_accepted() -> String {
    budget_refusal(f64::NAN).unwrap_or_default()
}

/// Parse `--budget-ms`: a number in the core limit calculator's budget
/// range; `0`, `-5` and `abc` are usage errors naming the value as given.
/// (That the budget is above the measured service time can only be checked
/// after measuring.)
pub fn parse_budget_ms(text: &str) -> Result<f64, LiveError> {
    let v = text.trim().parse::<f64>().unwrap_or(f64::NAN);
    match budget_refusal(v) {
        Some(accepted) => Err(LiveError::OutOfRange { flag: BUDGET_MS, value: text.to_string(), accepted }),
        None => Ok(v),
    }
}

/// The result of [`measure`].
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    /// Requests measured (after the warm-up).
    pub samples: usize,
    /// Median service time, ms.
    pub p50_ms: f64,
    /// Mean service time, ms.
    pub mean_ms: f64,
    /// Shortest, ms.
    pub min_ms: f64,
    /// Longest, ms.
    pub max_ms: f64,
    /// The server's configuration from `/stats` (workers, limit, ...), or
    /// `None` if the target has no bplab-live `/stats`.
    pub server: Option<StatsConfig>,
    /// The server's deploy slowdown was in force when the measurement
    /// started (`/stats` `door.slowed`), so the times include its factor.
    pub slowed: bool,
}

impl Measurement {
    /// `service p50 21.3 ms mean 21.4 ms (30 samples) workers 1 limit 10`.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "service p50 {:.1} ms mean {:.1} ms min {:.1} ms max {:.1} ms ({} samples)",
            self.p50_ms, self.mean_ms, self.min_ms, self.max_ms, self.samples
        );
        if let Some(c) = &self.server {
            s.push_str(&format!(" on {}", c.config_line()));
        }
        s
    }
}

/// Measure the service time of `target` with `samples` sequential requests
/// (in [`SAMPLES`]' range, checked before anything is sent) after [`WARMUP_REQUESTS`] warm-up requests. Every request
/// must get a 2xx answer within 10 s. If `/stats` shows requests still in
/// the server, waits up to 30 s for it to drain first. Loopback only unless
/// `allow_non_loopback`.
pub async fn measure(target: &Target, samples: usize, allow_non_loopback: bool) -> Result<Measurement, LiveError> {
    SAMPLES.check_usize(samples)?;
    let addr = target.resolve(allow_non_loopback).await?;
    let host = target.host_header();
    let (server, slowed) = match get_stats(addr, &host).await {
        Ok(s) => {
            let until = Instant::now() + IDLE_WAIT;
            let mut now = s;
            while now.present() > 0 && Instant::now() < until {
                tokio::time::sleep(Duration::from_millis(100)).await;
                now = get_stats(addr, &host).await?;
            }
            (Some(now.config), now.door.slowed)
        }
        Err(_) => (None, false),
    };
    let mut times_ms = Vec::with_capacity(samples);
    for i in 0..WARMUP_REQUESTS + samples {
        let t0 = Instant::now();
        let fail = |reason: String| LiveError::Request { addr, reason };
        let (status, _, _) = tokio::time::timeout(REQUEST_TIMEOUT, get(addr, &host, target.path()))
            .await
            .map_err(|_| fail("no answer within 10 s".to_string()))?
            .map_err(|e| fail(e.to_string()))?;
        if !status.is_success() {
            return Err(fail(format!("status {status}; is the server idle?")));
        }
        if i >= WARMUP_REQUESTS {
            times_ms.push(t0.elapsed().as_secs_f64() * 1000.0);
        }
    }
    let mut m = summarize(&times_ms, server);
    m.slowed = slowed;
    Ok(m)
}

fn summarize(times_ms: &[f64], server: Option<StatsConfig>) -> Measurement {
    let mut sorted = times_ms.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let p50_ms = if n == 0 {
        0.0
    } else if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    };
    let mean_ms = if n == 0 { 0.0 } else { sorted.iter().sum::<f64>() / n as f64 };
    Measurement {
        samples: n,
        p50_ms,
        mean_ms,
        min_ms: sorted.first().copied().unwrap_or(0.0),
        max_ms: sorted.last().copied().unwrap_or(0.0),
        server,
        slowed: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_statistics() {
        let m = summarize(&[22.0, 20.0, 21.0, 25.0], None);
        assert_eq!(m.samples, 4);
        assert_eq!(m.p50_ms, 21.5);
        assert_eq!(m.mean_ms, 22.0);
        assert_eq!((m.min_ms, m.max_ms), (20.0, 25.0));
        assert_eq!(summarize(&[3.0, 1.0, 2.0], None).p50_ms, 2.0);
    }

    #[test]
    fn budget_range_is_the_cores() {
        assert_eq!(parse_budget_ms(" 230 ").ok(), Some(230.0));
        for bad in ["0", "-5", "abc", "inf", "NaN", "1e99"] {
            let e = parse_budget_ms(bad).unwrap_err();
            assert!(e.is_usage());
            assert_eq!(e.to_string(), format!("--budget-ms: '{bad}' is not accepted; expected {}", budget_accepted()));
        }
        assert!(budget_accepted().contains("(ms)"), "{}", budget_accepted());
        let target = Target::parse("http://127.0.0.1:9/").expect("target");
        assert!(
            MeasureConfig::new(target.clone(), 0, 230.0, false).unwrap_err().to_string().starts_with("--samples: '0'")
        );
        assert!(MeasureConfig::new(target, 30, 0.0, false).unwrap_err().to_string().starts_with("--budget-ms: '0'"));
    }
}
