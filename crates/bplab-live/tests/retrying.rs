//! The retrying client against fake targets on 127.0.0.1 that answer every
//! request with one fixed answer: what `Retry-After` values do to the
//! retries (N5), and the bounds on tries per plan and on the send rate (N2).
//!
//! The checks are counts that hold at any speed of the machine: a
//! Retry-After longer than the window lets no retry go, whenever the
//! answers come back.

use std::net::SocketAddr;

use bplab_core::stochastic::{Backoff, Retry};
use bplab_live::load::{ClientPolicy, LoadConfig, LoadSettings, RateRow, Target, schedule, sweep};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// A target answering every request with `answer` (then closing).
async fn fake(answer: String) -> SocketAddr {
    let l = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = l.local_addr().expect("addr");
    let answer: &'static [u8] = Box::leak(answer.into_bytes().into_boxed_slice());
    tokio::spawn(async move {
        while let Ok((mut s, _)) = l.accept().await {
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                let mut got = Vec::new();
                while !got.windows(4).any(|w| w == b"\r\n\r\n") {
                    match s.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => got.extend_from_slice(&buf[..n]),
                    }
                }
                let _ = s.write_all(answer).await;
                let _ = s.shutdown().await;
            });
        }
    });
    addr
}

fn refusal(retry_after: &str) -> String {
    format!(
        "HTTP/1.1 503 Service Unavailable\r\nRetry-After: {retry_after}\r\nContent-Length: 5\r\nConnection: close\r\n\
         \r\nbusy\n"
    )
}

/// One rate of `rate_rps` for `seconds` against `addr` with `policy`.
async fn run(addr: SocketAddr, rate_rps: f64, seconds: f64, policy: ClientPolicy) -> RateRow {
    let cfg = LoadConfig::new(LoadSettings {
        rates_rps: vec![rate_rps],
        seconds,
        client_timeout_ms: 5000,
        policy,
        ..LoadSettings::lesson(Target::parse(&format!("http://{addr}/")).expect("target"))
    })
    .expect("config");
    sweep(&cfg, None, |_| {}).await.expect("sweep").remove(0)
}

fn honouring(retries: u32) -> ClientPolicy {
    ClientPolicy {
        retry: Retry { max_retries: retries, backoff: Backoff::Fixed { ms: 0.0 } },
        honour_retry_after: true,
        ..ClientPolicy::NONE
    }
}

// N5: a Retry-After past u32 (or any number of digits) and a future
// HTTP-date are long waits: no retry fits in a 1 s window. Before, both were
// read as absent and every refusal was retried at once. A past date and 0
// mean "now": retried at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_and_dated_retry_afters_are_honoured() {
    let planned = schedule(20.0, 1.0, 1, 1000).len() as u64;
    for long in ["4294967295", "4294967296", "99999999999999999999", "Fri, 31 Dec 9999 23:59:59 GMT"] {
        let r = run(fake(refusal(long)).await, 20.0, 1.0, honouring(2)).await;
        let c = r.client.expect("counts");
        assert_eq!((c.first_tries, c.retries), (planned, 0), "Retry-After {long}: {r:?}");
    }
    for now in ["0", "Wed, 21 Oct 2015 07:28:00 GMT"] {
        let r = run(fake(refusal(now)).await, 20.0, 1.0, honouring(2)).await;
        let c = r.client.expect("counts");
        assert!(c.retries > 0, "Retry-After {now}: {r:?}");
    }
}

// N2: retries cannot push the sends past 10 times the offered rate. The
// audit's `--rate 50 --retries 100 --backoff-ms 0` against a target that
// refuses everything sent 95 times the rate; now every 1,000 ms window
// holds at most 10 × 50 sends plus its own first tries, and the window at
// most 10 tries per first try, the rest counted `capped`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retries_stop_at_the_send_cap() {
    let addr = fake(refusal("0")).await;
    let policy =
        ClientPolicy { retry: Retry { max_retries: 100, backoff: Backoff::Fixed { ms: 0.0 } }, ..ClientPolicy::NONE };
    let cfg = LoadConfig::new(LoadSettings {
        rates_rps: vec![50.0],
        seconds: 2.0,
        client_timeout_ms: 5000,
        timeline_ms: Some(1000),
        policy,
        ..LoadSettings::lesson(Target::parse(&format!("http://{addr}/")).expect("target"))
    })
    .expect("config");
    assert_eq!(cfg.tries_per_first(), bplab_live::load::MAX_TRY_MULTIPLE);
    let r = sweep(&cfg, None, |_| {}).await.expect("sweep").remove(0);
    let c = r.client.expect("counts");
    let multiple = bplab_live::load::MAX_TRY_MULTIPLE;
    assert_eq!(c.first_tries + c.retries, r.sent + c.rejected, "{r:?}");
    assert!(c.first_tries + c.retries <= multiple * c.first_tries, "{c:?}");
    assert!(c.capped > 0, "100 retries at once per refusal must hit the cap: {c:?}");
    for w in &r.timeline.as_ref().expect("timeline").windows {
        assert!(w.sent <= multiple * 50 + w.first_tries, "{w:?}");
    }
    assert!(bplab_live::load::row_notes(&r).iter().any(|n| n.contains("retries at 50 rps were not sent")), "{r:?}");
}

mod support;

use bplab_live::ServeSettings;
use bplab_live::load::{Stop, sweep_with_progress};

/// The windows plus the row after them add up to the rate's row.
fn adds_up(r: &RateRow) {
    let t = r.timeline.as_ref().expect("timeline");
    let sum = |f: fn(&bplab_live::load::Window) -> u64| t.windows.iter().map(f).sum::<u64>();
    assert_eq!(sum(|w| w.sent), r.sent, "{r:?}");
    assert_eq!(sum(|w| w.ok) + t.after.ok, r.ok, "{r:?}");
    assert_eq!(sum(|w| w.refused) + t.after.refused, r.refused, "{r:?}");
    assert_eq!(sum(|w| w.gaveup) + t.after.gaveup, r.gaveup, "{r:?}");
    assert_eq!(sum(|w| w.error) + t.after.error, r.error, "{r:?}");
}

// N11: answers that come back after the last window are counted in a row
// after the windows, so the timeline adds up to the rate's row (every
// answer here takes 300 ms or more, so the last sends' answers are late).
// And an interrupted rate's timeline ends at the stop: no empty windows
// after it that would read like a collapse.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_timeline_adds_up_to_the_row_and_ends_at_a_stop() {
    let srv =
        support::start_settings(ServeSettings { workers: 64, spin_ms: 0, wait_ms: 300, ..support::settings() }).await;
    let cfg = |seconds: f64| {
        LoadConfig::new(LoadSettings {
            rates_rps: vec![20.0],
            seconds,
            client_timeout_ms: 5000,
            timeline_ms: Some(200),
            ..LoadSettings::lesson(Target::parse(&format!("http://{}/", srv.addr)).expect("target"))
        })
        .expect("config")
    };
    let r = sweep(&cfg(1.0), None, |_| {}).await.expect("sweep").remove(0);
    adds_up(&r);
    let t = r.timeline.as_ref().expect("timeline");
    assert_eq!((t.windows.len(), t.after.start_ms), (5, 1000));
    assert!(t.after.ok > 0, "the last sends are answered after the window: {t:?}");
    let text = bplab_live::load::format_timeline(20.0, t);
    assert!(text.contains("\n    after      -"), "{text}");

    // Interrupted after a few sends of a 10 s window.
    let (tx, rx) = tokio::sync::watch::channel(false);
    let counters = srv.counters.clone();
    let before = counters.snapshot().arrived;
    tokio::spawn(async move {
        while counters.snapshot().arrived < before + 3 {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        let _ = tx.send(true);
    });
    let rows = sweep_with_progress(&cfg(10.0), None, |_| {}, |_| {}, Stop::new(rx)).await.expect("sweep");
    let r = &rows[0];
    assert!(r.partial);
    adds_up(r);
    let t = r.timeline.as_ref().expect("timeline");
    let sent_for_ms = r.sent as f64 / 20.0 * 1000.0;
    assert!(t.windows.len() < 50, "windows after the stop: {} of 50 ({sent_for_ms} ms sent)", t.windows.len());
    assert_eq!(t.after.start_ms, t.windows.len() as u64 * 200);
}
