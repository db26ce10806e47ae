//! Service time at low load: requests sent one at a time, each waiting for
//! the previous answer, so nothing queues and the latency is the service
//! time (plus loopback connect and HTTP overhead, well under a millisecond).

use std::time::{Duration, Instant};

use crate::error::{LiveError, check_range};
use crate::load::Target;
use crate::load::client::{get, get_stats};
use crate::stats::StatsConfig;

/// Requests sent and discarded before the measured ones.
pub const WARMUP_REQUESTS: usize = 3;
/// Most samples one measurement may take.
pub const MAX_SAMPLES: usize = 1000;
/// How long one sequential request may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// How long to wait for a busy server to drain before measuring.
const IDLE_WAIT: Duration = Duration::from_secs(30);

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
/// (`1..=1000`) after [`WARMUP_REQUESTS`] warm-up requests. Every request
/// must get a 2xx answer within 10 s. If `/stats` shows requests still in
/// the server, waits up to 30 s for it to drain first. Loopback only unless
/// `allow_non_loopback`.
pub async fn measure(target: &Target, samples: usize, allow_non_loopback: bool) -> Result<Measurement, LiveError> {
    check_range("samples", samples, 1, MAX_SAMPLES, "1..=1000")?;
    let addr = target.resolve(allow_non_loopback).await?;
    let host = target.host_header();
    let server = match get_stats(addr, &host).await {
        Ok(s) => {
            let until = Instant::now() + IDLE_WAIT;
            let mut now = s;
            while now.present() > 0 && Instant::now() < until {
                tokio::time::sleep(Duration::from_millis(100)).await;
                now = get_stats(addr, &host).await?;
            }
            Some(s.config)
        }
        Err(_) => None,
    };
    let mut times_ms = Vec::with_capacity(samples);
    for i in 0..WARMUP_REQUESTS + samples {
        let t0 = Instant::now();
        let fail = |reason: String| LiveError::Request { addr, reason };
        let (status, _) = tokio::time::timeout(REQUEST_TIMEOUT, get(addr, &host, target.path()))
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
    Ok(summarize(&times_ms, server))
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
}
