//! The doors on loopback: the adaptive limits move the expected way after a
//! deploy (read from `/stats`), `POST /config` changes take effect and bad
//! bodies get 400, and every door answers its refusals with 503 +
//! `Retry-After` (never a reset). Short runs with generous timeouts and no
//! tight wall-clock asserts, for a loaded 2-core machine; one test at a time
//! holds the lock so they do not share the cores.

mod support;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bplab_live::ServeSettings;
use support::{HEAVY, Running, raw, start, stats, with_door};
use tokio::task::JoinSet;

/// Start a server: 1 worker, no spin, `wait_ms`, the door `limit` with
/// `settings`, and an optional deploy.
async fn start_door(
    limit: &str,
    settings: &[(&str, &str)],
    wait_ms: u64,
    budget_ms: Option<u64>,
    slowdown: Option<(u64, f64)>,
) -> Running {
    let s = ServeSettings {
        workers: 1,
        spin_ms: 0,
        wait_ms,
        budget_ms,
        slowdown_at_ms: slowdown.map(|s| s.0),
        slowdown_factor: slowdown.map_or(2.0, |s| s.1),
        ..support::settings()
    };
    start(with_door(s, limit, settings)).await
}

async fn work(addr: SocketAddr) -> std::io::Result<String> {
    raw(addr, b"GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n").await
}

async fn post_config(addr: SocketAddr, body: &str) -> String {
    let req = format!(
        "POST /config HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    raw(addr, req.as_bytes()).await.expect("config answer")
}

/// `clients` closed-loop callers until `until`; every answer's head.
async fn hammer(addr: SocketAddr, clients: usize, until: Instant) -> Vec<String> {
    let mut set = JoinSet::new();
    for _ in 0..clients {
        set.spawn(async move {
            let mut heads = Vec::new();
            while Instant::now() < until {
                let text = work(addr).await.unwrap_or_else(|e| format!("transport error: {e}"));
                heads.push(text.split("\r\n\r\n").next().unwrap_or("").to_ascii_lowercase());
            }
            heads
        });
    }
    let mut all = Vec::new();
    while let Some(Ok(heads)) = set.join_next().await {
        all.extend(heads);
    }
    all
}

/// The door's limit after `clients` closed-loop callers ran for `secs`.
async fn limit_after(addr: SocketAddr, clients: usize, secs: f64) -> i64 {
    hammer(addr, clients, Instant::now() + Duration::from_secs_f64(secs)).await;
    stats(addr).await.door.limit.expect("an adaptive door reports its limit")
}

// Gradient2 and AIMD (floors lowered to 1 so they can go down) grow under a
// steady load and shrink after a 4x deploy: the same core controllers,
// fed real completions.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn adaptive_limits_shrink_after_the_deploy() {
    let _g = HEAVY.lock().await;
    for (door, settings, budget) in
        [("gradient2", &[("min-limit", "1")][..], None), ("aimd", &[("min-limit", "1")][..], Some(300))]
    {
        let s = start_door(door, settings, 10, budget, Some((2500, 4.0))).await;
        let before = limit_after(s.addr, 16, 2.0).await;
        let snap = stats(s.addr).await;
        assert!(snap.uptime_ms < 2500 || !snap.door.slowed, "{door}: measured before the deploy");
        // Wait for the deploy, then let the controller see slow completions.
        let wait = 2600u64.saturating_sub(snap.uptime_ms);
        tokio::time::sleep(Duration::from_millis(wait)).await;
        let after = limit_after(s.addr, 16, 3.0).await;
        let snap = stats(s.addr).await;
        assert!(snap.door.slowed, "{door}: the deploy is in force");
        assert!(snap.door.samples > 50, "{door}: fed by completions: {:?}", snap.door);
        assert!(after < before, "{door}: limit {before} before the deploy, {after} after");
        assert_eq!(snap.config.door, door);
    }
}

async fn sequential_ms(addr: SocketAddr, n: usize) -> f64 {
    let t = Instant::now();
    for _ in 0..n {
        assert!(work(addr).await.expect("answer").starts_with("HTTP/1.1 200"));
    }
    t.elapsed().as_secs_f64() * 1000.0 / n as f64
}

// POST /config changes the service time live; bad bodies get 400 with the
// reason, and nothing changes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn config_changes_take_effect_and_bad_bodies_get_400() {
    let _g = HEAVY.lock().await;
    let s = start_door("10", &[], 10, None, None).await;
    let before = sequential_ms(s.addr, 5).await;
    let ok = post_config(s.addr, r#"{"wait_ms": 80, "workers": 2}"#).await;
    assert!(ok.starts_with("HTTP/1.1 200"), "{ok}");
    let after = sequential_ms(s.addr, 5).await;
    assert!(after >= 80.0 && after > before + 40.0, "service {before:.1} ms, then {after:.1} ms");
    let snap = stats(s.addr).await;
    assert_eq!((snap.config.wait_ms, snap.config.workers, snap.config.config_epoch), (80, 2, 1));
    for (body, says) in [
        (r#"{"wait_ms": 70000}"#, "wait_ms: '70000' is not accepted; expected a whole number from 0 to 60000 (ms)"),
        (r#"{"workers": 0}"#, "workers: '0' is not accepted; expected a whole number from 1 to 1024 (slots)"),
        (r#"{"spin_ms": 1, "limit": 3}"#, "field 'limit' is not accepted; expected any of spin_ms, wait_ms, workers"),
        (r#"{"wait_ms": 5, "wait_ms": 6}"#, "field 'wait_ms' is given twice"),
        (r#"{"spin_ms": "#, "body: not JSON"),
        ("[]", "body: '[]' is not accepted"),
    ] {
        let text = post_config(s.addr, body).await;
        assert!(text.starts_with("HTTP/1.1 400"), "{body}: {text}");
        assert!(text.contains(says), "{body}: {text}");
    }
    let get = raw(s.addr, b"GET /config HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n").await.expect("get");
    assert!(get.starts_with("HTTP/1.1 405"), "{get}");
    let snap = stats(s.addr).await;
    assert_eq!((snap.config.wait_ms, snap.config.workers, snap.config.spin_ms), (80, 2, 0), "nothing changed");
}

// Every door refuses with 503 + Retry-After: 1, never a reset.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_door_refuses_with_503_and_retry_after() {
    let _g = HEAVY.lock().await;
    let one = [("initial-limit", "1"), ("max-limit", "1")];
    let doors: [(&str, &[(&str, &str)]); 6] = [
        ("0", &[]),
        ("aimd", &[("initial-limit", "1"), ("min-limit", "1"), ("max-limit", "1")]),
        ("vegas", &one),
        ("gradient2", &[("initial-limit", "1"), ("min-limit", "1"), ("max-limit", "1")]),
        ("gradient", &[("initial-limit", "1"), ("min-limit", "1"), ("max-limit", "1")]),
        // Target 1 ms, interval 500 ms: overloaded from the first boundary
        // with a standing queue, then everything that waited over 2 ms is shed.
        ("codel", &[("target-ms", "1"), ("interval-ms", "500")]),
    ];
    for (door, settings) in doors {
        let s = start_door(door, settings, 40, None, None).await;
        let heads = hammer(s.addr, 6, Instant::now() + Duration::from_secs(3)).await;
        let refused: Vec<&String> = heads.iter().filter(|h| h.starts_with("http/1.1 503")).collect();
        assert!(!refused.is_empty(), "{door}: no refusal in {} answers", heads.len());
        for h in &refused {
            assert!(h.contains("\r\nretry-after: 1"), "{door}: {h}");
        }
        for h in &heads {
            assert!(h.starts_with("http/1.1 200") || h.starts_with("http/1.1 503"), "{door}: {h}");
        }
        let snap = stats(s.addr).await;
        assert_eq!(snap.refused, refused.len() as u64, "{door}: every refusal counted once");
        if door == "codel" {
            assert_eq!(snap.door.shed, snap.refused, "codel refuses by shedding at dequeue");
        }
    }
}
