//! A complete minimal `haproxy.cfg`: the server takes `workers` at once,
//! the queue holds at most the limit and no request waits longer than the
//! budget minus one service time.

use super::{LISTEN, Numbers, UPSTREAM_HOST, UPSTREAM_PORT};

pub(super) fn config(n: &Numbers) -> String {
    let Numbers { workers, queue, in_system, queue_wait_ms, retry_after_s, .. } = *n;
    format!(
        r#"# HAProxy: a complete minimal haproxy.cfg. Check it with
#   haproxy -c -f THIS_FILE
# To deploy, keep the timeout queue, the http-request return rule and the server's maxconn/maxqueue.
# Placeholders: HAProxy listens on {LISTEN}; the service is at {UPSTREAM_HOST}:{UPSTREAM_PORT}.

defaults
    mode http
    timeout connect 5s
    timeout client 30s
    timeout server 30s
    # Budget minus one service time: a request still queued after this could not be answered in time.
    timeout queue {queue_wait_ms}ms

frontend fe_bplab
    bind {LISTEN}
    default_backend be_service

backend be_service
    # maxqueue only bounds requests bound to this server; without persistence HAProxy queues in the
    # backend, so the queue depth is bounded here too: refuse at once once {queue} are waiting.
    http-request return status 503 content-type text/plain string "overloaded" hdr Retry-After {retry_after_s} if {{ queue() ge {queue} }}
    # {workers} in service (maxconn) + {queue} queued (maxqueue) = {in_system} in the system.
    server s1 {UPSTREAM_HOST}:{UPSTREAM_PORT} maxconn {workers} maxqueue {queue}
"#
    )
}

#[cfg(test)]
mod tests {
    use super::super::{EdgeTarget, lesson};

    #[test]
    fn lesson_numbers_in_haproxy() {
        let s = lesson(1, 21.0, EdgeTarget::Haproxy);
        for want in [
            "    mode http\n",
            "    timeout queue 209ms\n",
            "    server s1 127.0.0.1:8081 maxconn 1 maxqueue 9\n",
            "if { queue() ge 9 }",
            "    bind 127.0.0.1:8080\n",
        ] {
            assert!(s.contains(want), "missing {want}:\n{s}");
        }
    }

    #[test]
    fn workers_change_the_numbers() {
        let s = lesson(4, 12.0, EdgeTarget::Haproxy);
        for want in ["timeout queue 218ms", "maxconn 4 maxqueue 72", "queue() ge 72", "= 76 in the system"] {
            assert!(s.contains(want), "missing {want}:\n{s}");
        }
    }
}
