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
