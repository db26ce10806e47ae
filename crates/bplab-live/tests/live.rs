//! Integration tests of the live lab, on 127.0.0.1 with port 0 and short
//! windows. The two load tests take a lock so they do not share the two
//! cores with each other.

mod support;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bplab_live::load::{LoadConfig, LoadSettings, Target, schedule, sweep};
use bplab_live::{LiveError, LoadArgs, ServeArgs, ServeConfig, ServeSettings, measure, run_load, run_serve};
use clap::Parser;
use support::{HEAVY, Running, raw, start_on_thread, start_settings, stats};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

async fn start(
    workers: usize,
    spin_ms: u64,
    wait_ms: u64,
    limit: Option<usize>,
    max_connections: usize,
    header_timeout_ms: u64,
) -> Running {
    start_settings(ServeSettings {
        workers,
        spin_ms,
        wait_ms,
        limit,
        max_connections,
        header_read_timeout_ms: header_timeout_ms,
        ..support::settings()
    })
    .await
}

fn target(addr: SocketAddr) -> Target {
    Target::parse(&format!("http://{addr}/")).expect("target")
}

fn load_cfg(addr: SocketAddr, rate: f64, seconds: f64, timeout_ms: u64) -> LoadConfig {
    LoadConfig::new(LoadSettings {
        rates_rps: vec![rate],
        seconds,
        client_timeout_ms: timeout_ms,
        ..LoadSettings::lesson(target(addr))
    })
    .expect("load config")
}

// (a) With limit 10, 3x overload: the tail is pinned by the queue bound and
// nothing is wasted. Only the accounting is asserted (it holds at any
// speed of the machine); the tail and the throughput are printed, and
// measured with a release build in docs/performance.md.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn limit_pins_tail_and_holds_ceiling() {
    let _heavy = HEAVY.lock().await;
    let srv = start(1, 2, 18, Some(10), 1024, 5000).await;
    // A 20 s client timeout: on a loaded machine 11 requests' service may
    // pass 2 s, and a give-up would be wasted work.
    let rows = sweep(&load_cfg(srv.addr, 150.0, 3.0, 20_000), None, |_| {}).await.expect("sweep");
    let r = &rows[0];
    eprintln!("{}", bplab_live::load::format_row(r, false));
    assert_eq!(r.sent, r.ok + r.refused + r.gaveup + r.error);
    assert!(r.refused > r.ok / 2, "3x overload must be refused: {r:?}");
    assert_eq!((r.gaveup, r.error), (0, 0), "{r:?}");
    assert_eq!(r.done, Some(r.ok), "no wasted work with a limit: {r:?}");
    assert_eq!(r.lost, Some(0), "{r:?}");
    assert_eq!(r.queued, Some(10), "the waiting line peaks at the limit: {r:?}");
}

// (b) Without a limit, 3x overload and a 1 s client timeout: callers give
// up, the server keeps serving abandoned requests, delivered answers fall.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_limit_collapses_goodput() {
    let _heavy = HEAVY.lock().await;
    let srv = start(1, 2, 18, None, 1024, 5000).await;
    let rows = sweep(&load_cfg(srv.addr, 150.0, 4.0, 1000), None, |_| {}).await.expect("sweep");
    let r = &rows[0];
    eprintln!("{}", bplab_live::load::format_row(r, false));
    assert_eq!(r.refused, 0, "{r:?}");
    assert!(r.gaveup > 2 * r.ok, "give-ups must dominate: {r:?}");
    assert!(r.ok_per_sec < 0.6 * 50.0, "ok/s must fall well below capacity: {r:?}");
    let done = r.done.expect("stats");
    assert!(done > r.ok + 50, "server must waste work on abandoned requests: {r:?}");
    let backlog = r.queued_end.expect("stats");
    assert!(backlog > 50, "backlog left behind: {r:?}");
    assert!(r.queued.expect("stats") >= backlog, "{r:?}");
    assert_eq!(r.lost, Some(0), "{r:?}");
}

// (c) A refusal is a 503 with Retry-After, sent at once and after reading
// the request body, so the client reads it rather than a reset.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusal_is_503_with_retry_after_never_reset() {
    let srv = start(1, 0, 4000, Some(0), 64, 5000).await;
    let addr = srv.addr;
    let holder =
        tokio::spawn(async move { raw(addr, b"GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n").await });
    let t0 = Instant::now();
    while stats(addr).await.in_service == 0 {
        assert!(t0.elapsed() < Duration::from_secs(30), "slot never taken");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let body = vec![b'x'; 20_000];
    let mut req =
        format!("POST /work HTTP/1.1\r\nHost: t\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len())
            .into_bytes();
    req.extend_from_slice(&body);
    let t1 = Instant::now();
    let text = raw(addr, &req).await.expect("read to end without a reset");
    let took = t1.elapsed();
    assert!(text.starts_with("HTTP/1.1 503"), "{text}");
    assert!(text.to_ascii_lowercase().contains("\r\nretry-after: 1\r\n"), "{text}");
    // At once: while the 4 s holder is still in service.
    assert_eq!(srv.counters.snapshot().in_service, 1, "refused while the slot was busy, after {took:?}");
    let held = holder.await.expect("join").expect("holder answer");
    assert!(held.starts_with("HTTP/1.1 200"), "{held}");
    let s = stats(addr).await;
    assert_eq!((s.arrived, s.done, s.refused), (2, 1, 1));
    assert_eq!(s.config.config_line(), "workers 1 spin 0ms wait 4000ms limit 0");
}

// (d) Garbage and a slowloris client do not stall service; the slowloris
// connection is dropped after the header timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_and_slowloris_do_not_stall() {
    let srv = start(1, 2, 18, Some(10), 64, 500).await;
    let addr = srv.addr;

    let garbage = raw(addr, b"\x16\x03\x01\x00\xffnot http at all\r\n\r\n")
        .await
        .expect("garbage gets an answer or a close, not a hang");
    assert!(garbage.is_empty() || garbage.starts_with("HTTP/1.1 400"), "{garbage}");

    let slow = TcpStream::connect(addr).await.expect("connect");
    let (mut rd, mut wr) = slow.into_split();
    let opened = Instant::now();
    wr.write_all(b"GET / HTTP/1.1\r\nHost: t\r\n").await.expect("write");
    let drip = tokio::spawn(async move {
        for _ in 0..40 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            if wr.write_all(b"X-Slow: 1\r\n").await.is_err() {
                break;
            }
        }
    });
    let closed = tokio::spawn(async move {
        let mut buf = [0u8; 1024];
        loop {
            match rd.read(&mut buf).await {
                Ok(0) | Err(_) => return opened.elapsed(),
                Ok(_) => {}
            }
        }
    });

    tokio::time::sleep(Duration::from_millis(150)).await;
    let t0 = Instant::now();
    let text = raw(addr, b"GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n").await.expect("normal request");
    let took = t0.elapsed();
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    eprintln!("normal request beside a slowloris: {took:?}");

    let closed_after = tokio::time::timeout(Duration::from_secs(30), closed)
        .await
        .expect("slowloris connection must be closed")
        .expect("join");
    assert!(closed_after >= Duration::from_millis(400), "closed after {closed_after:?}");
    drip.abort();
}

// (d') At max_connections, a new connection sheds the idle holder that has
// waited longest for its request head, so service goes on at once (the
// header timeout is only the backstop; tests/hostile.rs scales this up).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connection_cap_holds_then_recovers() {
    let srv = start(1, 0, 5, None, 2, 400).await;
    let idle1 = TcpStream::connect(srv.addr).await.expect("idle 1");
    let idle2 = TcpStream::connect(srv.addr).await.expect("idle 2");
    let t0 = Instant::now();
    let text = raw(srv.addr, b"GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        .await
        .expect("third connection is served once a slot frees");
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    eprintln!("third connection answered after {:?}", t0.elapsed());
    drop((idle1, idle2));
}

// Measure: sequential requests give the service time and the server config.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn measure_reports_service_time() {
    let srv = start(1, 2, 18, Some(10), 64, 5000).await;
    let m = measure(&target(srv.addr), 5, false).await.expect("measure");
    assert_eq!(m.samples, 5);
    assert!(m.p50_ms >= 20.0, "at least the 2 ms spin and 18 ms wait: {m:?}");
    let server = m.server.expect("stats");
    assert_eq!((server.workers, server.limit), (1, Some(10)));
}

#[derive(Parser)]
struct ServeCli {
    #[command(flatten)]
    args: ServeArgs,
}

#[derive(Parser)]
struct LoadCli {
    #[command(flatten)]
    args: LoadArgs,
}

fn usage_err(e: LiveError, needle: &str) {
    assert!(e.is_usage(), "{e}");
    assert!(e.to_string().contains(needle), "{needle:?} not in {e}");
}

// (e) Bad configurations are usage errors that name the value.
#[test]
fn bad_configs_are_usage_errors() {
    let serve = |argv: &[&str]| {
        let mut full = vec!["serve"];
        full.extend_from_slice(argv);
        run_serve(ServeCli::try_parse_from(full).expect("clap parse").args).unwrap_err()
    };
    usage_err(serve(&["--workers", "0"]), "--workers: '0' is not accepted; expected a whole number from 1 to 1024");
    usage_err(serve(&["--limit", "-3"]), "--limit: '-3' is not accepted");
    usage_err(serve(&["--limit", "abc"]), "--limit: 'abc' is not accepted");
    usage_err(serve(&["--addr", "nowhere"]), "--addr: 'nowhere' is not accepted");

    let load = |argv: &[&str]| {
        let mut full = vec!["load"];
        full.extend_from_slice(argv);
        run_load(LoadCli::try_parse_from(full).expect("clap parse").args).unwrap_err()
    };
    usage_err(load(&["--rate", "0"]), "--rate: '0' is not accepted");
    usage_err(load(&["--rate", "40,abc"]), "--rate: '40,abc' is not accepted");
    usage_err(load(&["--target", "http://10.0.0.1:9/"]), "10.0.0.1");
    usage_err(load(&["--target", "https://127.0.0.1/"]), "https");
    usage_err(load(&["--seconds", "-1"]), "--seconds: '-1' is not accepted");
    usage_err(load(&["--rate", "100", "--seconds", "601"]), "601");
    usage_err(load(&["--rate", "10,10,10,10,10,10,10", "--seconds", "100"]), "600");
    usage_err(load(&["--rate", "5000,5000", "--seconds", "30"]), "200000");

    let e = load(&["--rate", "1", "--seconds", "0.1", "--csv", "/nonexistent-dir/x.csv"]);
    assert!(!e.is_usage() && e.to_string().contains("/nonexistent-dir/x.csv"), "{e}");
}

// The blocking entry point end to end: --check, a short sweep, --compare
// with the core model, and the CSV file.
#[test]
fn run_load_end_to_end_with_compare_and_csv() {
    let server = start_on_thread(
        ServeConfig::new(ServeSettings { limit: Some(10), max_connections: 64, ..support::settings() }).expect("cfg"),
    );
    let addr = server.addr;
    let csv = std::env::temp_dir().join(format!("bplab-live-test-{}.csv", std::process::id()));
    let target = format!("http://{addr}/");
    let csv_arg = csv.to_string_lossy().into_owned();
    let argv =
        ["load", "--target", &target, "--check", "--compare", "--rate", "20", "--seconds", "0.5", "--csv", &csv_arg];
    run_load(LoadCli::try_parse_from(argv).expect("clap").args).expect("run_load");
    let text = std::fs::read_to_string(&csv).expect("csv written");
    let _ = std::fs::remove_file(&csv);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].ends_with(",queued,partial,model_ok_per_sec,model_p99_ms"), "{text}");
    assert!(lines[1].starts_with("20,"), "{text}");
    // Below capacity the model delivers what the schedule offers: the
    // drawn arrivals (seed 1 draws 15 in 0.5 s at 20 rps), not the nominal rate.
    let fields: Vec<&str> = lines[1].split(',').collect();
    let offered_per_sec = fields[1].parse::<f64>().expect("sent") / 0.5;
    assert_eq!(fields[12], "0", "a complete row: {text}");
    let model_ok: f64 = fields[13].parse().expect("model column");
    assert!((0.75 * offered_per_sec..=1.25 * offered_per_sec).contains(&model_ok), "{text}");
    drop(server);
}

// (f) The same seed yields the same schedule.
#[test]
fn schedule_is_deterministic() {
    let a = schedule(48.0, 20.0, 1, 200_000);
    assert_eq!(a, schedule(48.0, 20.0, 1, 200_000));
    assert_ne!(a, schedule(48.0, 20.0, 2, 200_000));
    assert!((850..1070).contains(&a.len()), "{}", a.len());
    let cfg =
        LoadConfig::new(LoadSettings::lesson(Target::parse("http://127.0.0.1:9/").expect("target"))).expect("cfg");
    assert_eq!(cfg.plan().expect("plan"), cfg.plan().expect("plan"));
}
