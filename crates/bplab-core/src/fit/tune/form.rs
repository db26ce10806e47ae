//! A grid point as its library or edge proxy takes it.

use super::{Controller, Point};

/// The point as its library takes it: Netflix concurrency-limits builder
/// calls for the adaptive limits, `FixedLimit.of` for the fixed one, folly's
/// flags for CoDel.
pub fn library_form(point: &Point) -> String {
    let get = |k: &str| point.settings.iter().find(|(n, _)| n == k).map_or("", |(_, v)| v.as_str());
    let call = |k: &str, method: &str| {
        let v = get(k);
        if v.is_empty() { String::new() } else { format!("\n    .{method}({v})") }
    };
    match point.controller {
        Controller::Fixed => format!("FixedLimit.of({})", get("initial-limit")),
        Controller::Codel => {
            format!("--codel_target_delay={} --codel_interval={}", get("target-ms"), get("interval-ms"))
        }
        Controller::Aimd => format!(
            "AIMDLimit.newBuilder(){}{}{}\n    .timeout({}, TimeUnit.MILLISECONDS)\n    .build()",
            call("initial-limit", "initialLimit"),
            call("min-limit", "minLimit"),
            call("backoff-ratio", "backoffRatio"),
            get("timeout-ms")
        ),
        Controller::Vegas => format!(
            "VegasLimit.newBuilder(){}{}{}{}\n    .build()",
            call("initial-limit", "initialLimit"),
            call("alpha", "alpha"),
            call("beta", "beta"),
            call("smoothing", "smoothing")
        ),
        Controller::Gradient2 | Controller::Gradient => format!(
            "{}.newBuilder(){}{}{}{}\n    .build()",
            if point.controller == Controller::Gradient2 { "Gradient2Limit" } else { "GradientLimit" },
            call("initial-limit", "initialLimit"),
            call("min-limit", "minLimit"),
            call("rtt-tolerance", "rttTolerance"),
            call("queue-size", "queueSize")
        ),
    }
}

/// A fixed limit of `n` requests in the system as each edge proxy takes it
/// (nginx, HAProxy, Envoy, tower), for `workers` workers behind it.
pub fn edge_form(point: &Point, workers: u32) -> Option<String> {
    if point.controller != Controller::Fixed {
        return None;
    }
    let n: u64 = point.settings.iter().find(|(k, _)| k == "initial-limit")?.1.parse().ok()?;
    let conn = n.min(u64::from(workers));
    Some(format!(
        "nginx:   limit_conn bplab_conn {n};\nhaproxy: server s1 127.0.0.1:8081 maxconn {conn} maxqueue {q}\nenvoy:   max_requests: {conn}, max_pending_requests: {q}\ntower:   ConcurrencyLimitLayer::new({n})",
        q = n - conn
    ))
}
