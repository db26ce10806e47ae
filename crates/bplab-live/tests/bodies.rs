//! N9: `bplab load` reads each answer's body to its end (the latency runs
//! to the last byte) but keeps none of it: a target answering 48 MB bodies
//! leaves the client's peak memory where it was (the audit saw 393 MB for
//! 15 answers of 100 MB). Alone in its binary, so the process's peak
//! resident set (`VmHWM`) is this test's.

use std::net::SocketAddr;
use std::time::Duration;

use bplab_live::load::{LoadConfig, LoadSettings, Target, schedule, sweep};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

const BODY_BYTES: usize = 48 * 1024 * 1024;

/// The process's peak resident set, KB (Linux `/proc/self/status`).
fn peak_kb() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    text.lines().find_map(|l| l.strip_prefix("VmHWM:"))?.split_whitespace().next()?.parse().ok()
}

/// A target answering `GET /` with `200` and a [`BODY_BYTES`] body,
/// written from one 1 MB buffer, and any other path with a 1 MB body.
async fn big_bodies() -> SocketAddr {
    let l = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = l.local_addr().expect("addr");
    tokio::spawn(async move {
        let chunk: &'static [u8] = Box::leak(vec![b'x'; 1024 * 1024].into_boxed_slice());
        while let Ok((mut s, _)) = l.accept().await {
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                let n = s.read(&mut buf).await.unwrap_or(0);
                let size = if buf[..n].starts_with(b"GET / ") { BODY_BYTES } else { chunk.len() };
                let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {size}\r\nConnection: close\r\n\r\n");
                if s.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                for _ in 0..size / chunk.len() {
                    if s.write_all(chunk).await.is_err() {
                        return;
                    }
                }
                let _ = s.shutdown().await;
            });
        }
    });
    addr
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn load_keeps_no_answer_body() {
    let addr = big_bodies().await;
    let cfg = |path: &str| {
        LoadConfig::new(LoadSettings {
            rates_rps: vec![5.0],
            seconds: 1.0,
            client_timeout_ms: 60_000,
            ..LoadSettings::lesson(Target::parse(&format!("http://{addr}{path}")).expect("target"))
        })
        .expect("config")
    };
    // The same sweep with 1 MB bodies first: threads, buffers and the
    // allocator's arenas are in place before the peak is read.
    let warm = sweep(&cfg("/warm"), None, |_| {}).await.expect("warm-up");
    assert_eq!(warm[0].ok, warm[0].sent);
    let Some(before) = peak_kb() else {
        eprintln!("no /proc/self/status here: nothing to measure");
        return;
    };
    let cfg = cfg("/");
    let planned = schedule(5.0, 1.0, cfg.seed(), 100).len() as u64;
    assert!(planned >= 3, "{planned}");
    let rows = tokio::time::timeout(Duration::from_secs(300), sweep(&cfg, None, |_| {})).await.expect("in time");
    let row = &rows.expect("sweep")[0];
    assert_eq!((row.sent, row.ok), (planned, planned), "{row:?}");
    let grew_mb = peak_kb().unwrap_or(0).saturating_sub(before) / 1024;
    eprintln!("{planned} answers of {} MB each: peak resident set grew {grew_mb} MB", BODY_BYTES >> 20);
    assert!(grew_mb < 40, "the client kept bodies: its peak grew {grew_mb} MB for {planned} answers");
}
