//! Specs and constants several experiments share. Each experiment's own
//! parameters live in its folder (`experiments/<name>/params.rs`); a spec
//! moves here only when a second experiment takes the same parameter.

use super::{ParamKind, ParamSpec, Range, span};

/// One hour, ms: the longest article window, deadline and timeout.
pub const HOUR_MS: f64 = 3_600_000.0;
/// The largest 32-bit signed number (the reference lab's "no limit").
pub const I32_MAX: f64 = 2_147_483_647.0;

// The articles' constants (S = 10 ms, D = 200 ms, T = 5 s, the bursty curve).

/// The articles' service time, ms.
pub const ARTICLE_SERVICE_MS: u32 = 10;
/// The articles' client deadline, ms.
pub const ARTICLE_DEADLINE_MS: u32 = 200;
/// The articles' run window, ms.
pub const ARTICLE_DURATION_MS: u32 = 5000;
/// The articles' flat offered loads, rps.
pub const ARTICLE_OFFERED_RPS: [f64; 7] = [50.0, 75.0, 100.0, 125.0, 150.0, 200.0, 300.0];
/// The articles' timeline window, ms.
pub const ARTICLE_WINDOW_MS: u32 = 100;

// The course lesson's experiment (seed 003): the model, `bplab load` and the
// limit calculator start from these.

/// The lesson's offered rates, rps.
pub const LESSON_RATES_RPS: [f64; 4] = [40.0, 48.0, 60.0, 100.0];
/// The lesson's seconds per rate.
pub const LESSON_SECONDS: f64 = 20.0;
/// The lesson's seed.
pub const LESSON_SEED: u32 = 1;
/// The lesson's workers.
pub const LESSON_WORKERS: u32 = 1;
/// The lesson's service time, ms (`fixed:21`).
pub const LESSON_SERVICE_MS: f64 = 21.0;
/// The lesson's client timeout, ms.
pub const LESSON_CLIENT_TIMEOUT_MS: u32 = 2000;
/// The lesson's latency budget, ms.
pub const LESSON_BUDGET_MS: u32 = 230;

/// The deterministic models' service time.
pub const SERVICE_MS: ParamSpec = ParamSpec {
    name: "service-ms",
    label: "Service time",
    unit: "ms",
    kind: ParamKind::Int,
    range: Range::from_to(1.0, 60_000.0),
    help: "fixed time the server spends on one request; capacity = 1000 / service",
    slider: span(1.0, 50.0, 1.0),
};

/// The deterministic models' client deadline.
pub const DEADLINE_MS: ParamSpec = ParamSpec {
    name: "deadline-ms",
    label: "Client deadline",
    unit: "ms",
    kind: ParamKind::Int,
    range: Range::from_to(1.0, HOUR_MS),
    help: "a request answered later than this is wasted; at least one service time",
    slider: span(10.0, 1000.0, 10.0),
};

/// The deterministic models' run window.
pub const DURATION_MS: ParamSpec = ParamSpec {
    name: "duration-ms",
    label: "Run window",
    unit: "ms",
    kind: ParamKind::Int,
    range: Range::from_to(1.0, HOUR_MS),
    help: "arrivals are generated in [0, window); rates are normalised by it",
    slider: span(1000.0, 20000.0, 500.0),
};

/// The flat offered loads of a deterministic sweep.
pub const OFFERED: ParamSpec = ParamSpec {
    name: "offered",
    label: "Offered rates",
    unit: "rps",
    kind: ParamKind::RealList,
    range: Range::above_to(0.0, 1_000_000.0),
    help: "flat offered loads of the sweep, comma-separated",
    slider: None,
};

/// The bursty curve's valley rate.
pub const VALLEY_RPS: ParamSpec = ParamSpec {
    name: "valley-rps",
    label: "Valley rate",
    unit: "rps",
    kind: ParamKind::Real,
    range: Range::above_to(0.0, 1_000_000.0),
    help: "arrival rate between spikes of the bursty curve",
    slider: span(0.0, 500.0, 5.0),
};

/// The bursty curve's valley length.
pub const VALLEY_MS: ParamSpec = ParamSpec {
    name: "valley-ms",
    label: "Valley length",
    unit: "ms",
    kind: ParamKind::Int,
    range: Range::from_to(1.0, HOUR_MS),
    help: "length of each valley of the bursty curve",
    slider: span(50.0, 3000.0, 50.0),
};

/// The bursty curve's spike rate.
pub const SPIKE_RPS: ParamSpec = ParamSpec {
    name: "spike-rps",
    label: "Spike rate",
    unit: "rps",
    kind: ParamKind::Real,
    range: Range::above_to(0.0, 1_000_000.0),
    help: "arrival rate during a spike of the bursty curve",
    slider: span(0.0, 2000.0, 10.0),
};

/// The bursty curve's spike length.
pub const SPIKE_MS: ParamSpec = ParamSpec {
    name: "spike-ms",
    label: "Spike length",
    unit: "ms",
    kind: ParamKind::Int,
    range: Range::from_to(1.0, HOUR_MS),
    help: "length of each spike of the bursty curve",
    slider: span(10.0, 2000.0, 10.0),
};

/// The width of a timeline's windows.
pub const WINDOW_MS: ParamSpec = ParamSpec {
    name: "window-ms",
    label: "Timeline window",
    unit: "ms",
    kind: ParamKind::Int,
    range: Range::from_to(1.0, HOUR_MS),
    help: "width of the timeline's windows",
    slider: span(10.0, 1000.0, 10.0),
};

/// How long a stochastic run offers its traffic. The upper bound is the
/// engine's longest window (10^9 ms); what a run may cost is the work caps'
/// business, so a long run at a low rate is fine.
pub const SECONDS: ParamSpec = ParamSpec {
    name: "seconds",
    label: "Seconds per rate",
    unit: "s",
    kind: ParamKind::Real,
    range: Range::above_to(0.0, crate::stochastic::MAX_MS / 1000.0),
    help: "how long each rate is offered (the work caps bound rate × seconds)",
    slider: span(1.0, 60.0, 1.0),
};

/// The seed of a stochastic run's draws.
pub const SEED: ParamSpec = ParamSpec {
    name: "seed",
    label: "Seed",
    unit: "integer",
    kind: ParamKind::Int,
    range: Range::from_to(0.0, 4_294_967_295.0),
    help: "seed of the arrival and service-time draws (the same seed as bplab load's)",
    slider: span(0.0, 100.0, 1.0),
};

/// The workers of a stochastic server.
pub const WORKERS: ParamSpec = ParamSpec {
    name: "workers",
    label: "Workers",
    unit: "servers",
    kind: ParamKind::Int,
    range: Range::from_to(1.0, 1024.0),
    help: "requests served at once, fed by one FIFO line",
    slider: span(1.0, 16.0, 1.0),
};

/// A stochastic server's service-time distribution.
pub const SERVICE: ParamSpec = ParamSpec {
    name: "service",
    label: "Service time",
    unit: "ms",
    kind: ParamKind::Service,
    range: Range::NONE,
    help: "distribution of one request's service time",
    slider: None,
};

/// When a caller of a stochastic run gives up.
pub const CLIENT_TIMEOUT_MS: ParamSpec = ParamSpec {
    name: "client-timeout-ms",
    label: "Client timeout",
    unit: "ms",
    kind: ParamKind::Int,
    range: Range::from_to(1.0, HOUR_MS),
    help: "a caller gives up after this long; the server still serves what it has queued",
    slider: span(100.0, 5000.0, 100.0),
};

/// Parses a duration such as `5s`, `2.5s`, `7500ms` or `7500` (ms) into whole
/// ms, within [`DURATION_MS`]'s range (the CLI's `--duration`).
pub fn parse_duration_ms(text: &str) -> Result<u32, crate::ConfigError> {
    let r = DURATION_MS.range;
    let t = text.trim();
    let err = || crate::ConfigError::OutOfRange {
        param: "duration",
        value: text.to_owned(),
        accepted: format!("a duration like 5s or 7500ms, from 1ms to {}s", r.max / 1000.0),
    };
    let ms = if let Some(v) = t.strip_suffix("ms") {
        v.trim().parse::<f64>().map_err(|_| err())?
    } else if let Some(v) = t.strip_suffix('s') {
        v.trim().parse::<f64>().map_err(|_| err())? * 1000.0
    } else {
        t.parse::<f64>().map_err(|_| err())?
    };
    if !ms.is_finite() || ms.fract() != 0.0 || !r.contains(ms) {
        return Err(err());
    }
    Ok(ms as u32)
}
