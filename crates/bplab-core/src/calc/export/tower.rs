//! A Rust function returning tower layers: load shedding outermost, so a
//! request over the concurrency limit is refused at once instead of waiting
//! for a permit.

use super::Numbers;

pub(super) fn config(n: &Numbers) -> String {
    let Numbers { workers, queue, in_system, .. } = *n;
    format!(
        r#"// tower (features "limit", "load-shed"): wrap the service with `layers().service(svc)`.
// ConcurrencyLimit counts every request the service holds, queued or in service, so its bound is the
// queue plus the workers. LoadShed outermost turns "no permit" into an immediate
// `tower::load_shed::error::Overloaded` error: answer it with a 503 and a Retry-After.

use tower::ServiceBuilder;
use tower::layer::util::{{Identity, Stack}};
use tower::limit::ConcurrencyLimitLayer;
use tower::load_shed::LoadShedLayer;

/// Requests the service works on at once.
pub const WORKERS: usize = {workers};

/// Requests allowed to wait behind the workers.
pub const QUEUE_LIMIT: usize = {queue};

/// Requests allowed in the service at once: {queue} queued + {workers} in service.
pub const IN_SYSTEM_LIMIT: usize = {in_system};

/// The admission layers: refuse at once (load shed) past {in_system} requests in the service.
pub fn layers() -> ServiceBuilder<Stack<ConcurrencyLimitLayer, Stack<LoadShedLayer, Identity>>> {{
    ServiceBuilder::new().layer(LoadShedLayer::new()).layer(ConcurrencyLimitLayer::new(IN_SYSTEM_LIMIT))
}}
"#
    )
}

#[cfg(test)]
mod tests {
    use super::super::{EdgeTarget, lesson};

    #[test]
    fn lesson_numbers_in_tower() {
        let s = lesson(1, 21.0, EdgeTarget::Tower);
        for want in [
            "pub const IN_SYSTEM_LIMIT: usize = 10;",
            "pub const QUEUE_LIMIT: usize = 9;",
            "pub const WORKERS: usize = 1;",
            ".layer(LoadShedLayer::new()).layer(ConcurrencyLimitLayer::new(IN_SYSTEM_LIMIT))",
        ] {
            assert!(s.contains(want), "missing {want}:\n{s}");
        }
        assert!(s.lines().all(|l| l.is_empty() || !l.starts_with('#')), "Rust comments only");
    }

    #[test]
    fn workers_change_the_numbers() {
        let s = lesson(4, 12.0, EdgeTarget::Tower);
        assert!(s.contains("IN_SYSTEM_LIMIT: usize = 76;") && s.contains("QUEUE_LIMIT: usize = 72;"), "{s}");
    }
}
