//! `bplab serve`, `load` and `measure` through the built binary: every bad
//! flag value exits 2 with exactly one stderr line in the core's style
//! (`--flag: 'value' is not accepted; expected <range>`), before anything is
//! bound, resolved or sent; `load` against a port where nothing listens,
//! a target that is not HTTP or one that never answers exits 1 with one
//! line saying which; a name other than localhost is refused before any
//! lookup; a real SIGINT/SIGTERM to `load` keeps the completed rows (exit
//! 130) and a second one exits at once, leaving an older CSV whole.

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

/// A `bplab` child whose stdout lines arrive on a channel.
struct Child {
    child: std::process::Child,
    lines: std::sync::mpsc::Receiver<String>,
}

/// Start `bplab args…` with stdout read line by line.
fn spawn(args: &[&str]) -> Child {
    let mut child = Command::new(env!("CARGO_BIN_EXE_bplab"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn bplab");
    let out = child.stdout.take().expect("stdout");
    let (tx, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead as _;
        for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    Child { child, lines }
}

impl Child {
    /// The first stdout line for which `pick` is true (or panic after `limit`).
    fn line(&self, what: &str, limit: Duration, pick: impl Fn(&str) -> bool) -> String {
        let until = Instant::now() + limit;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) if pick(&l) => return l,
                Ok(_) => {}
                Err(e) => panic!("{what}: no such line within {limit:?} ({e})"),
            }
        }
    }

    fn signal(&self, name: &str) {
        let pid = self.child.id().to_string();
        let ok = Command::new("kill").args([&format!("-{name}"), pid.as_str()]).status().expect("kill");
        assert!(ok.success(), "kill -{name} {pid}");
    }

    /// Exit code and stderr, waiting at most `limit`.
    fn finish(mut self, limit: Duration) -> (Option<i32>, String, Vec<String>) {
        let until = Instant::now() + limit;
        let status = loop {
            if let Some(s) = self.child.try_wait().expect("wait") {
                break s;
            }
            if Instant::now() > until {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("still running after {limit:?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut stderr = String::new();
        self.child.stderr.take().expect("stderr").read_to_string(&mut stderr).expect("stderr");
        // Every line up to the end of stdout (the reader thread ends there).
        let mut rest = Vec::new();
        while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(30)) {
            rest.push(line);
        }
        (status.code(), stderr, rest)
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A fresh directory holding `rows.csv` with older content: the
/// directory, the file and the file as an argument.
fn older_csv(tag: &str) -> (std::path::PathBuf, std::path::PathBuf, String) {
    let dir = std::env::temp_dir().join(format!("bplab-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let csv = dir.join("rows.csv");
    std::fs::write(&csv, "an older file\n").expect("old csv");
    let arg = csv.to_string_lossy().into_owned();
    (dir, csv, arg)
}

/// The server's `arrived` counter, from `GET /stats` on `url`.
fn arrived(url: &str) -> u64 {
    use std::io::Write as _;
    let addr = url.trim_start_matches("http://").trim_end_matches('/');
    let mut s = std::net::TcpStream::connect(addr).expect("connect");
    s.write_all(b"GET /stats HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n").expect("write");
    let mut text = String::new();
    s.read_to_string(&mut text).expect("read");
    let body = text.split("\r\n\r\n").nth(1).expect("body");
    let at = body.find("\"arrived\":").expect("arrived") + "\"arrived\":".len();
    body[at..].split(|c: char| !c.is_ascii_digit()).next().and_then(|n| n.parse().ok()).expect("a number")
}

/// `bplab serve` on a free loopback port with `extra` flags; its target URL.
fn serve(extra: &[&str]) -> (Child, String) {
    let mut args = vec!["serve", "--addr", "127.0.0.1:0"];
    args.extend_from_slice(extra);
    let server = spawn(&args);
    let line = server.line("serve", Duration::from_secs(30), |l| l.starts_with("bplab-live listening on "));
    let url = line.split_whitespace().nth(3).expect("url").to_string();
    (server, url)
}

// A real SIGINT to a real `bplab load`: it stops sending, waits for its
// answers, prints the interrupted rate's row marked partial, writes the
// completed rows (and the partial one, flagged) to the CSV by renaming a
// whole file over the old one, and exits 130.
#[test]
fn sigint_keeps_the_completed_rows_in_the_csv() {
    let (_server, url) = serve(&["--workers", "2", "--spin-ms", "0", "--wait-ms", "5"]);
    let (dir, csv, csv_arg) = older_csv("sigint");
    let load = spawn(&["load", "--target", &url, "--rate", "20,30,40", "--seconds", "5", "--csv", &csv_arg, "-q"]);
    let first = load.line("the first row", Duration::from_secs(60), |l| l.trim_start().starts_with("20 "));
    assert_eq!(std::fs::read_to_string(&csv).expect("csv"), "an older file\n", "untouched until the end");
    // Signal once the 30 rps window is sending (the server has seen more
    // arrivals than the first window sent), not between two windows.
    let sent: u64 = first.split_whitespace().nth(1).expect("sent").parse().expect("a count");
    let until = Instant::now() + Duration::from_secs(60);
    while arrived(&url) <= sent + 5 {
        assert!(Instant::now() < until, "the second window never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    load.signal("INT");
    let (code, stderr, rest) = load.finish(Duration::from_secs(60));
    assert_eq!(code, Some(130), "stderr: {stderr}");
    assert!(stderr.contains("bplab: interrupted; the completed rows are in "), "{stderr}");
    let partial = rest.iter().find(|l| l.ends_with("  partial")).expect("a partial row");
    assert!(partial.trim_start().starts_with("30 "), "{rest:?}");
    let text = std::fs::read_to_string(&csv).expect("csv");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0].ends_with(",queued,partial"), "{text}");
    assert!(lines[1].starts_with(&format!("20,{sent},")) && lines[1].ends_with(",0"), "{text}");
    assert!(lines[2].starts_with("30,") && lines[2].ends_with(",1"), "{text}");
    let leftovers: Vec<_> = std::fs::read_dir(&dir).expect("dir").map(|e| e.expect("entry").file_name()).collect();
    assert_eq!(leftovers.len(), 1, "no temporary file left: {leftovers:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

// A second signal exits at once, while answers are still in flight, and
// writes nothing: the older file at the CSV path stays whole.
#[test]
fn a_second_signal_exits_at_once_and_leaves_the_old_file() {
    let (_server, url) = serve(&["--workers", "1", "--spin-ms", "0", "--wait-ms", "3000"]);
    let (dir, csv, csv_arg) = older_csv("sigterm");
    let args = ["load", "--target", &url, "--rate", "5", "--seconds", "10", "--client-timeout-ms", "60000"];
    let load = spawn(&[&args[..], &["--csv", &csv_arg, "-q"]].concat());
    // Once the server has seen a request, the handlers are installed and
    // that request is in flight for 3 s.
    let until = Instant::now() + Duration::from_secs(60);
    while arrived(&url) == 0 {
        assert!(Instant::now() < until, "load never sent");
        std::thread::sleep(Duration::from_millis(20));
    }
    load.signal("TERM");
    std::thread::sleep(Duration::from_millis(300));
    load.signal("INT");
    let started = Instant::now();
    let (code, stderr, _) = load.finish(Duration::from_secs(30));
    assert_eq!(code, Some(130), "stderr: {stderr}");
    assert!(stderr.contains("interrupted again: exiting at once, nothing written"), "{stderr}");
    assert!(started.elapsed() < Duration::from_secs(30));
    assert_eq!(std::fs::read_to_string(&csv).expect("csv"), "an older file\n");
    let entries = std::fs::read_dir(&dir).expect("dir").count();
    assert_eq!(entries, 1, "the temporary file is removed");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A loopback listener that answers every connection with `reply` (or
/// never, holding it open, when `None`).
fn fake_server(reply: Option<&'static [u8]>) -> SocketAddr {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = l.local_addr().expect("addr");
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for s in l.incoming() {
            let Ok(mut s) = s else { continue };
            match reply {
                Some(bytes) => {
                    std::thread::spawn(move || {
                        use std::io::Write as _;
                        let mut buf = [0u8; 1024];
                        let _ = s.set_read_timeout(Some(Duration::from_millis(200)));
                        let _ = s.read(&mut buf);
                        let _ = s.write_all(bytes);
                        let _ = s.shutdown(std::net::Shutdown::Write);
                        let _ = s.read(&mut buf);
                    });
                }
                None => held.push(s),
            }
        }
    });
    addr
}

// A target that is not HTTP, or never answers, is a failure with one line
// saying which; so is /stats or measure against garbage.
#[test]
fn not_http_or_silent_targets_exit_1_with_a_diagnosis() {
    let garbage = format!("http://{}/", fake_server(Some(b"SSH-2.0-OpenSSH_9.6\r\nnot http at all\r\n\r\n")));
    let silent = format!("http://{}/", fake_server(None));
    let cases: [(&[&str], &str); 5] = [
        (&["load", "--target", &garbage, "--rate", "20", "--seconds", "0.5"], "does not speak HTTP/1.1"),
        (
            &["load", "--target", &silent, "--rate", "10", "--seconds", "0.3", "--client-timeout-ms", "300"],
            "never answers (every request gave up after the 300 ms client timeout)",
        ),
        (&["load", "--target", &garbage, "--check"], "the answer is not HTTP/1.1"),
        (&["measure", "--target", &garbage], "the answer is not HTTP/1.1"),
        (&["load", "--target", &silent, "--check"], "no answer within 5 s"),
    ];
    for (args, says) in cases {
        let run = bplab(args, Duration::from_secs(60));
        assert_eq!(run.code, Some(1), "{args:?}: {}", run.stderr);
        assert_eq!(run.stderr.lines().count(), 1, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(says), "{args:?}: {}", run.stderr);
        assert_eq!(run.stdout, "", "{args:?}: no table");
    }
}

// A name other than localhost is refused before any lookup (.invalid would
// fail to resolve, which would read differently); localhost works as 127.0.0.1.
#[test]
fn names_are_refused_before_any_lookup() {
    let run = bplab(&["load", "--target", "http://example.invalid/", "--rate", "1"], Duration::from_secs(20));
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("names other than localhost are not looked up"), "{}", run.stderr);
    let (_server, url) = serve(&["--spin-ms", "0", "--wait-ms", "1"]);
    let local = url.replace("127.0.0.1", "api.localhost");
    let run = bplab(&["load", "--target", &local, "--check"], Duration::from_secs(30));
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.contains("workers 1 spin 0ms wait 1ms limit off"), "{}", run.stdout);
}

/// `GET path` on `url`'s host; the body.
fn body_of(url: &str, path: &str) -> String {
    use std::io::Write as _;
    let addr = url.trim_start_matches("http://").trim_end_matches('/');
    let mut s = std::net::TcpStream::connect(addr).expect("connect");
    s.write_all(format!("GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n").as_bytes()).expect("write");
    let mut text = String::new();
    s.read_to_string(&mut text).expect("read");
    text.split("\r\n\r\n").nth(1).expect("body").to_string()
}

// N10: under `ulimit -n 300` (soft and hard), the default cap of 1,024
// connections could never be reached (accepts fail first), so idle
// connections were never shed. `serve` lowers the cap to fit, (300 − 65) / 2
// = 117, and says so on stderr; /stats reports the cap it serves with.
#[cfg(unix)]
#[test]
fn serve_fits_its_connection_cap_to_a_low_open_file_limit() {
    let mut child = Command::new("sh")
        .args(["-c", "ulimit -n 300 && exec \"$0\" serve --addr 127.0.0.1:0 --spin-ms 0 --wait-ms 1"])
        .arg(env!("CARGO_BIN_EXE_bplab"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn sh");
    let out = child.stdout.take().expect("stdout");
    let (tx, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead as _;
        for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut server = Child { child, lines };
    let line = server.line("serve", Duration::from_secs(30), |l| l.starts_with("bplab-live listening on "));
    let url = line.split_whitespace().nth(3).expect("url").to_string();
    let stats = body_of(&url, "/stats");
    assert!(stats.contains("\"max_connections\":117"), "{stats}");
    let _ = server.child.kill();
    let _ = server.child.wait();
    let mut stderr = String::new();
    server.child.stderr.take().expect("stderr").read_to_string(&mut stderr).expect("stderr");
    assert!(stderr.contains("lowered the connection cap to 117 (2 × 117 + 65 = 299 descriptors)"), "{stderr}");
}

// N4: a target that answers 500 or 404 to everything (or refuses all with
// 503) is a failure: exit 1 with one line naming the statuses seen, after
// the table. Before, these runs exited 0.
#[test]
fn a_run_without_a_success_status_exits_1_naming_the_statuses() {
    let cases: [(&'static [u8], &str); 3] = [
        (
            b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            "500 Internal Server Error",
        ),
        (b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", "404 Not Found"),
        (
            b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            "503 Service Unavailable",
        ),
    ];
    for (reply, says) in cases {
        let url = format!("http://{}/", fake_server(Some(reply)));
        for extra in [&[][..], &["--retries", "2", "--backoff-ms", "10"][..]] {
            let args = [&["load", "--target", &url, "--rate", "20", "--seconds", "0.5"][..], extra].concat();
            let run = bplab(&args, Duration::from_secs(60));
            assert_eq!(run.code, Some(1), "{args:?}: {}", run.stderr);
            assert_eq!(run.stderr.lines().count(), 1, "{args:?}: {}", run.stderr);
            assert!(run.stderr.contains("no request was answered with a success status (2xx): of "), "{}", run.stderr);
            assert!(run.stderr.contains(&format!(" × {says}")), "{args:?}: {}", run.stderr);
            assert!(run.stdout.contains(" offered "), "the table is printed first: {}", run.stdout);
        }
    }
}

// N7: a signal during --compare's service measurement (before any row)
// leaves an older CSV as it was, not a header-only file.
#[test]
fn a_signal_before_the_first_row_leaves_the_old_csv() {
    let (_server, url) = serve(&["--workers", "1", "--spin-ms", "0", "--wait-ms", "300"]);
    let (dir, csv, csv_arg) = older_csv("measuring");
    let load =
        spawn(&["load", "--target", &url, "--rate", "5", "--seconds", "1", "--compare", "--csv", &csv_arg, "-q"]);
    // The measurement's requests take 300 ms each, one at a time.
    let until = Instant::now() + Duration::from_secs(60);
    while arrived(&url) == 0 {
        assert!(Instant::now() < until, "the measurement never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    load.signal("INT");
    let (code, stderr, _) = load.finish(Duration::from_secs(120));
    assert_eq!(code, Some(130), "stderr: {stderr}");
    assert_eq!(std::fs::read_to_string(&csv).expect("csv"), "an older file\n", "{stderr}");
    assert_eq!(std::fs::read_dir(&dir).expect("dir").count(), 1, "no temporary file left");
    let _ = std::fs::remove_dir_all(&dir);
}
