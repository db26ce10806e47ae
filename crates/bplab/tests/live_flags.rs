//! `bplab serve`, `load` and `measure` through the built binary: every bad
//! flag value exits 2 with exactly one stderr line in the core's style
//! (`--flag: 'value' is not accepted; expected <range>`), before anything is
//! bound, resolved or sent; `load` against a port where nothing listens
//! exits 1 with one line.

use std::io::Read as _;
use std::net::{SocketAddr, TcpListener};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use bplab_live::load::{CLIENT_TIMEOUT_MS, MAX_RATES, RATE, SECONDS, SEED};
use bplab_live::measure::{SAMPLES, budget_accepted};
use bplab_live::server::{ADDR_ACCEPTED, HEADER_TIMEOUT_MS, LIMIT, MAX_CONNECTIONS_FLAG, SPIN_MS, WAIT_MS, WORKERS};

/// What a finished run left behind.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    took: Duration,
}

/// Run `bplab args…`, killing it after `limit` (a run that should have been
/// refused at once must not hang the suite).
fn bplab(args: &[&str], limit: Duration) -> Run {
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_bplab"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn bplab");
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("bplab {args:?} still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let took = start.elapsed();
    let mut stdout = String::new();
    let mut stderr = String::new();
    child.stdout.take().expect("stdout").read_to_string(&mut stdout).expect("read stdout");
    child.stderr.take().expect("stderr").read_to_string(&mut stderr).expect("read stderr");
    Run { code: status.code(), stdout, stderr, took }
}

/// A loopback port where nothing listens (bound, then released).
fn closed_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("addr").port()
}

/// A listener nobody else uses: a run that touches it leaves a pending
/// connection behind.
fn watched_listener() -> (TcpListener, SocketAddr) {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    l.set_nonblocking(true).expect("nonblocking");
    let addr = l.local_addr().expect("addr");
    (l, addr)
}

fn assert_untouched(l: &TcpListener, what: &str) {
    match l.accept() {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        Ok((_, peer)) => panic!("{what}: a connection from {peer} reached the listener"),
        Err(e) => panic!("{what}: accept failed: {e}"),
    }
}

/// One bad value: the command line, the flag and value the message must
/// name, and what it must say is accepted.
struct Bad {
    args: Vec<String>,
    flag: &'static str,
    value: String,
    accepted: String,
}

fn bad(sub: &str, extra: &[&str], flag: &'static str, value: &str, accepted: String) -> Bad {
    let mut args: Vec<String> = vec![sub.to_string()];
    args.extend(extra.iter().map(|s| s.to_string()));
    args.push(format!("--{flag}"));
    args.push(value.to_string());
    Bad { args, flag, value: value.to_string(), accepted }
}

#[test]
fn bad_flags_exit_2_with_one_line_naming_flag_and_value() {
    // serve: --addr is a port already in use, so binding before checking
    // the flags would show up as a bind error instead.
    let (busy, busy_addr) = watched_listener();
    let busy_addr = busy_addr.to_string();
    let s = ["--addr", busy_addr.as_str()];
    // load and measure: a listener that must not see a connection.
    let (watched, watched_addr) = watched_listener();
    let target = format!("http://{watched_addr}/");
    let t = ["--target", target.as_str()];
    let rates_list = RATE.list_accepted(MAX_RATES);
    let cases = vec![
        bad("serve", &s, "workers", "0", WORKERS.accepted()),
        bad("serve", &s, "workers", "1025", WORKERS.accepted()),
        bad("serve", &s, "workers", "-1", WORKERS.accepted()),
        bad("serve", &s, "workers", "abc", WORKERS.accepted()),
        bad("serve", &s, "spin-ms", "10001", SPIN_MS.accepted()),
        bad("serve", &s, "wait-ms", "-5", WAIT_MS.accepted()),
        bad("serve", &s, "wait-ms", "1.5", WAIT_MS.accepted()),
        bad("serve", &s, "limit", "-3", LIMIT.accepted()),
        bad("serve", &s, "limit", "abc", LIMIT.accepted()),
        bad("serve", &s, "limit", "100001", LIMIT.accepted()),
        bad("serve", &s, "max-connections", "0", MAX_CONNECTIONS_FLAG.accepted()),
        bad("serve", &s, "header-timeout-ms", "0", HEADER_TIMEOUT_MS.accepted()),
        bad("serve", &[], "addr", "nowhere", ADDR_ACCEPTED.to_string()),
        bad("load", &t, "rate", "0", rates_list.clone()),
        bad("load", &t, "rate", "-5", rates_list.clone()),
        bad("load", &t, "rate", "40,abc", rates_list.clone()),
        bad("load", &t, "rate", "40,,60", rates_list.clone()),
        bad("load", &t, "rate", "10001", rates_list.clone()),
        bad("load", &t, "seconds", "0", SECONDS.accepted()),
        bad("load", &t, "seconds", "-1", SECONDS.accepted()),
        bad("load", &t, "seconds", "601", SECONDS.accepted()),
        bad("load", &t, "seconds", "NaN", SECONDS.accepted()),
        bad("load", &t, "seed", "-1", SEED.accepted()),
        bad("load", &t, "client-timeout-ms", "0", CLIENT_TIMEOUT_MS.accepted()),
        bad("load", &t, "client-timeout-ms", "60001", CLIENT_TIMEOUT_MS.accepted()),
        bad("measure", &t, "samples", "0", SAMPLES.accepted()),
        bad("measure", &t, "samples", "1001", SAMPLES.accepted()),
        bad("measure", &t, "samples", "x", SAMPLES.accepted()),
        bad("measure", &t, "budget-ms", "0", budget_accepted()),
        bad("measure", &t, "budget-ms", "-5", budget_accepted()),
        bad("measure", &t, "budget-ms", "abc", budget_accepted()),
    ];
    for case in &cases {
        let args: Vec<&str> = case.args.iter().map(String::as_str).collect();
        let run = bplab(&args, Duration::from_secs(20));
        let want = format!("bplab: --{}: '{}' is not accepted; expected {}\n", case.flag, case.value, case.accepted);
        assert_eq!(run.code, Some(2), "{args:?}: {}", run.stderr);
        assert_eq!(run.stderr, want, "{args:?}");
        assert_eq!(run.stdout, "", "{args:?}");
    }
    assert_untouched(&watched, "load/measure with a bad flag");
    drop(busy);
}

/// Values the message names as given, with a range that depends on the
/// other flags (plan size) or on the URL.
#[test]
fn plan_and_target_errors_read_the_same_way() {
    let (watched, addr) = watched_listener();
    let target = format!("http://{addr}/");
    let cases: [(&[&str], &str); 5] = [
        (&["--rate", "10,10,10,10,10,10,10", "--seconds", "100"], "--seconds: '100' is not accepted; expected "),
        (&["--rate", "5000,5000", "--seconds", "30"], "--seconds: '30' is not accepted; expected "),
        (&["--target", "https://127.0.0.1/"], "--target: 'https://127.0.0.1/' is not accepted; expected http://"),
        (&["--target", "http://h:99999/"], "--target: 'http://h:99999/' is not accepted; expected http://"),
        (&["--target", "http://10.0.0.1:9/"], "--target: 'http://10.0.0.1:9/' is not accepted; expected a loopback"),
    ];
    for (extra, prefix) in cases {
        let mut args = vec!["load"];
        if !extra.contains(&"--target") {
            args.extend(["--target", target.as_str()]);
        }
        args.extend_from_slice(extra);
        let run = bplab(&args, Duration::from_secs(20));
        assert_eq!(run.code, Some(2), "{args:?}: {}", run.stderr);
        assert_eq!(run.stderr.lines().count(), 1, "{args:?}: {}", run.stderr);
        assert!(run.stderr.starts_with(&format!("bplab: {prefix}")), "{args:?}: {}", run.stderr);
        assert_eq!(run.stdout, "", "{args:?}");
    }
    let run = bplab(&["measure", "--target", "ftp://x/"], Duration::from_secs(20));
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(run.stderr.starts_with("bplab: --target: 'ftp://x/' is not accepted; expected http://"), "{}", run.stderr);
    assert_untouched(&watched, "load with a bad plan");
}

#[test]
fn measure_budget_zero_is_refused_before_contacting_anything() {
    let target = format!("http://127.0.0.1:{}/", closed_port());
    let run = bplab(&["measure", "--target", &target, "--budget-ms", "0"], Duration::from_secs(20));
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert_eq!(run.stderr, format!("bplab: --budget-ms: '0' is not accepted; expected {}\n", budget_accepted()));
    assert!(!run.stderr.contains("connect") && !run.stderr.contains("request"), "{}", run.stderr);
    assert_eq!(run.stdout, "");
    assert!(run.took < Duration::from_secs(5), "took {:?}", run.took);

    // And against a listener: not one connection.
    let (watched, addr) = watched_listener();
    let target = format!("http://{addr}/");
    let run = bplab(&["measure", "--target", &target, "--budget-ms", "0"], Duration::from_secs(20));
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert_untouched(&watched, "measure --budget-ms 0");
}

#[test]
fn load_against_a_closed_port_fails_with_one_line() {
    let port = closed_port();
    let target = format!("http://127.0.0.1:{port}/");
    let run = bplab(&["load", "--target", &target, "--rate", "50", "--seconds", "0.2"], Duration::from_secs(30));
    assert_eq!(run.code, Some(1), "stdout {:?} stderr {:?}", run.stdout, run.stderr);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(run.stderr.starts_with(&format!("bplab: cannot connect to 127.0.0.1:{port}: ")), "{}", run.stderr);
    assert!(run.stderr.contains("failed to connect"), "{}", run.stderr);
    assert_eq!(run.stdout, "", "no table for a target where nothing listens");
}
