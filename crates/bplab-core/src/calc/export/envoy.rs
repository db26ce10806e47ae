//! An Envoy v3 cluster whose circuit breakers are the admission limit:
//! `max_pending_requests` is the bounded queue with fast rejection.

use super::{Numbers, UPSTREAM_HOST, UPSTREAM_PORT};

pub(super) fn config(n: &Numbers) -> String {
    let Numbers { workers, queue, in_system, .. } = *n;
    format!(
        r#"# Envoy (v3 API): a cluster to merge into your bootstrap's static_resources.clusters.
# Placeholder: the service is at {UPSTREAM_HOST}:{UPSTREAM_PORT} (HTTP/1.1, one request per connection).
# max_pending_requests is the queue: requests waiting for a free upstream connection; past it Envoy
# answers 503 at once (x-envoy-overloaded: true). max_requests counts only requests sent upstream,
# so it is the {workers} worker(s), not the in-system bound: {workers} sent + {queue} pending = {in_system} in the system.
# max_connections is also the workers: with HTTP/1.1 a request waits (is pending) only when no
# connection is free and no new one may be opened, so without it the queue would never form.

static_resources:
  clusters:
  - name: bplab_service
    type: STATIC
    connect_timeout: 1s
    lb_policy: ROUND_ROBIN
    load_assignment:
      cluster_name: bplab_service
      endpoints:
      - lb_endpoints:
        - endpoint:
            address:
              socket_address:
                address: {UPSTREAM_HOST}
                port_value: {UPSTREAM_PORT}
    circuit_breakers:
      thresholds:
      - priority: DEFAULT
        max_connections: {workers}
        max_requests: {workers}
        max_pending_requests: {queue}
"#
    )
}

#[cfg(test)]
mod tests {
    use super::super::{EdgeTarget, lesson};

    #[test]
    fn lesson_numbers_in_envoy() {
        let s = lesson(1, 21.0, EdgeTarget::Envoy);
        for want in [
            "      - priority: DEFAULT\n        max_connections: 1\n        max_requests: 1\n        max_pending_requests: 9\n",
            "1 sent + 9 pending = 10 in the system",
        ] {
            assert!(s.contains(want), "missing {want}:\n{s}");
        }
    }

    #[test]
    fn workers_change_the_numbers() {
        let s = lesson(4, 12.0, EdgeTarget::Envoy);
        assert!(s.contains("max_connections: 4\n        max_requests: 4\n        max_pending_requests: 72\n"), "{s}");
    }
}
