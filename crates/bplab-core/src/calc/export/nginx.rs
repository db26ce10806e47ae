//! A complete minimal `nginx.conf`: `limit_conn` bounds what is in flight,
//! `limit_req` meters arrivals at the drain rate with the queue as burst,
//! both refusing at once with a 503 and a Retry-After hint.

use super::{LISTEN, Numbers, UPSTREAM_HOST, UPSTREAM_PORT};

pub(super) fn config(n: &Numbers) -> String {
    let Numbers { workers, queue, in_system, ref capacity, ref rate, retry_after_s, .. } = *n;
    format!(
        r#"# nginx: a complete minimal nginx.conf. Check it with
#   nginx -t -p DIR -e DIR/error.log -g 'pid DIR/nginx.pid;' -c THIS_FILE
# pid, error_log and user are left out so that check runs unprivileged; to deploy, set them as your
# system does, or keep only the limit_* lines, the error_page and the @bplab_refused location.
# Placeholders: nginx listens on {LISTEN}; the service is at {UPSTREAM_HOST}:{UPSTREAM_PORT}.

events {{
    worker_connections 1024;
}}

http {{
    # One key for the whole service, not one per client: the limit protects the service, whoever asks.
    # (An empty key is not counted, so the server below names itself.)
    limit_conn_zone $server_name zone=bplab_conn:1m;
    # The drain rate, {capacity} per second rounded down.
    limit_req_zone $server_name zone=bplab_req:1m rate={rate};

    server {{
        listen {LISTEN};
        server_name bplab;

        location / {{
            # In flight at the proxy: {in_system} = {queue} queued + {workers} in service. Concurrency at the proxy
            # includes the requests the service is working on, so the bound is the queue plus the workers.
            limit_conn bplab_conn {in_system};
            limit_conn_status 503;
            # A burst of {queue} (the queue) above the drain rate, refused at once rather than delayed.
            limit_req zone=bplab_req burst={queue} nodelay;
            limit_req_status 503;
            error_page 503 @bplab_refused;
            proxy_pass http://{UPSTREAM_HOST}:{UPSTREAM_PORT};
        }}

        # nginx's own refusals get a retry hint; the service's 503s pass through (proxy_intercept_errors off).
        location @bplab_refused {{
            add_header Retry-After {retry_after_s} always;
            return 503 "overloaded: retry after {retry_after_s} s\n";
        }}
    }}
}}
"#
    )
}

#[cfg(test)]
mod tests {
    use super::super::{EdgeTarget, lesson};

    #[test]
    fn lesson_numbers_in_nginx() {
        let s = lesson(1, 21.0, EdgeTarget::Nginx);
        for want in [
            "limit_conn bplab_conn 10;",
            "rate=47r/s;",
            "limit_req zone=bplab_req burst=9 nodelay;",
            "limit_conn_status 503;",
            "limit_req_status 503;",
            "10 = 9 queued + 1 in service",
            "listen 127.0.0.1:8080;",
            "proxy_pass http://127.0.0.1:8081;",
            "add_header Retry-After 1 always;",
        ] {
            assert!(s.contains(want), "missing {want}:\n{s}");
        }
        assert!(!s.contains("\npid") && !s.contains("\nerror_log"), "the check sets pid and error_log");
    }

    #[test]
    fn workers_change_the_numbers() {
        let s = lesson(4, 12.0, EdgeTarget::Nginx);
        for want in ["limit_conn bplab_conn 76;", "rate=333r/s;", "burst=72 nodelay;", "76 = 72 queued + 4 in service"]
        {
            assert!(s.contains(want), "missing {want}:\n{s}");
        }
    }
}
