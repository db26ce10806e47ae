//! `bplab limit --export`: the snippets are valid where they go. nginx and
//! HAProxy check their own configs (`nginx -t`, `haproxy -c`); the Envoy YAML
//! is parsed and its field paths asserted; the tower snippet is the
//! committed `crates/bplab-export-check/src/generated.rs`, which the
//! workspace build compiles. nginx and HAProxy also run for real on
//! loopback in front of a service that holds every request, to show they
//! admit the bound and refuse the rest at once with a 503 and Retry-After.
//! nginx and haproxy must be installed
//! (`scripts/install-tools.sh --only edge`): a missing one fails the test.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod support;
use support::bplab;

const LESSON: [&str; 6] = ["--workers", "1", "--budget-ms", "230", "--service-ms", "21"];

fn export(target: &str, inputs: &[&str]) -> String {
    let mut args = vec!["limit"];
    args.extend_from_slice(inputs);
    args.extend_from_slice(&["--export", target]);
    let o = bplab(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(o.stderr.is_empty(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

/// The tool on PATH or in the sbin directories; panics (fails the test)
/// when absent, because CI installs it.
fn tool(name: &str) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/usr/local/sbin", "/sbin"].map(PathBuf::from))
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("{name} is not installed: run `bash scripts/install-tools.sh --only edge`"))
}

fn ran(what: &str, o: &Output) -> String {
    let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "{what} rejected the config:\n{text}");
    text
}

#[test]
fn nginx_accepts_the_export() {
    let nginx = tool("nginx");
    for inputs in [&LESSON[..], &["--workers", "4", "--budget-ms", "230", "--service-ms", "12"]] {
        let conf = export("nginx", inputs);
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let file = dir.join("nginx.conf");
        std::fs::write(&file, &conf).unwrap();
        // pid and the error log go to the temp dir from the command line, so the
        // check needs nothing under /var or /run (the file sets neither).
        let o = Command::new(&nginx)
            .arg("-t")
            .arg("-p")
            .arg(format!("{}/", dir.display()))
            .arg("-e")
            .arg(dir.join("error.log"))
            .arg("-g")
            .arg(format!("pid {};", dir.join("nginx.pid").display()))
            .arg("-c")
            .arg(&file)
            .output()
            .expect("run nginx -t");
        let text = ran("nginx -t", &o);
        assert!(text.contains("syntax is ok") && text.contains("test is successful"), "{text}");
        assert!(!text.contains("[warn]"), "nginx warned:\n{text}");
    }
}

#[test]
fn haproxy_accepts_the_export() {
    let haproxy = tool("haproxy");
    for inputs in [&LESSON[..], &["--workers", "4", "--budget-ms", "230", "--service-ms", "12"]] {
        let cfg = export("haproxy", inputs);
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("haproxy.cfg");
        std::fs::write(&file, &cfg).unwrap();
        let o = Command::new(&haproxy).arg("-c").arg("-f").arg(&file).output().expect("run haproxy -c");
        let text = ran("haproxy -c", &o);
        assert!(!text.contains("[WARNING]") && !text.contains("[ALERT]"), "haproxy warned:\n{text}");
    }
}

#[test]
fn envoy_yaml_has_the_v3_circuit_breakers() {
    let y: serde_yaml::Value = serde_yaml::from_str(&export("envoy", &LESSON)).expect("valid YAML");
    let cluster = &y["static_resources"]["clusters"][0];
    assert_eq!(cluster["name"].as_str(), Some("bplab_service"));
    assert_eq!(cluster["type"].as_str(), Some("STATIC"));
    let sock = &cluster["load_assignment"]["endpoints"][0]["lb_endpoints"][0]["endpoint"]["address"]["socket_address"];
    assert_eq!((sock["address"].as_str(), sock["port_value"].as_u64()), (Some("127.0.0.1"), Some(8081)));
    let thresholds = cluster["circuit_breakers"]["thresholds"].as_sequence().expect("thresholds is a list");
    assert_eq!(thresholds.len(), 1);
    let t = thresholds[0].as_mapping().unwrap();
    let got: Vec<(&str, String)> = t
        .iter()
        .map(|(k, v)| {
            let v = v.as_u64().map_or_else(|| v.as_str().unwrap().to_owned(), |n| n.to_string());
            (k.as_str().unwrap(), v)
        })
        .collect();
    let want =
        [("priority", "DEFAULT"), ("max_connections", "1"), ("max_requests", "1"), ("max_pending_requests", "9")];
    assert_eq!(got, want.map(|(k, v)| (k, v.to_owned())));

    let y: serde_yaml::Value =
        serde_yaml::from_str(&export("envoy", &["--workers", "4", "--budget-ms", "230", "--service-ms", "12"]))
            .unwrap();
    let t = &y["static_resources"]["clusters"][0]["circuit_breakers"]["thresholds"][0];
    assert_eq!(t["max_requests"].as_u64(), Some(4));
    assert_eq!(t["max_pending_requests"].as_u64(), Some(72));
}

#[test]
fn tower_snippet_is_the_committed_generated_rs() {
    let generated = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bplab-export-check/src/generated.rs");
    let committed = std::fs::read_to_string(&generated).expect("read generated.rs");
    assert_eq!(
        committed,
        export("tower", &LESSON),
        "crates/bplab-export-check/src/generated.rs is stale; regenerate it with \
         `bplab limit --workers 1 --budget-ms 230 --service-ms 21 --export tower > crates/bplab-export-check/src/generated.rs`"
    );
}

#[test]
fn every_export_opens_with_the_record() {
    for target in ["nginx", "haproxy", "envoy", "tower"] {
        let s = export(target, &LESSON);
        let c = if target == "tower" { "//" } else { "#" };
        for field in ["Setting.", "Criterion.", "Measurement.", "Number.", "What would reverse it."] {
            assert!(s.contains(&format!("\n{c} {field} ")), "{target} lacks {field}:\n{s}");
        }
    }
}

#[test]
fn a_bad_target_is_one_line_and_exit_2() {
    let mut args = vec!["limit"];
    args.extend_from_slice(&LESSON);
    args.extend_from_slice(&["--export", "x"]);
    let o = bplab(&args);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    assert_eq!(
        String::from_utf8(o.stderr).unwrap(),
        "bplab: --export: 'x' is not accepted; expected one of nginx, haproxy, envoy, tower\n"
    );
}

/// What one client saw.
struct Answer {
    status: u16,
    retry_after: bool,
    body: String,
}

/// Runs the proxy `start` builds (given the config with the placeholder
/// ports replaced) in front of a service that holds every request, sends
/// `clients` requests at once and returns the answers and the requests the
/// service saw before it was let go. Loopback only; every wait is bounded.
fn overload(conf: &str, clients: usize, refused: usize, start: impl Fn(&Path) -> Command) -> (Vec<Answer>, usize) {
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream};
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    use std::sync::{Arc, Condvar, Mutex};
    use std::time::{Duration, Instant};

    let service = TcpListener::bind("127.0.0.1:0").unwrap();
    let listen = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let upstream = service.local_addr().unwrap();
    let seen = Arc::new(AtomicUsize::new(0));
    let release = Arc::new((Mutex::new(false), Condvar::new()));
    {
        let (seen, release) = (seen.clone(), release.clone());
        std::thread::spawn(move || {
            for conn in service.incoming().flatten() {
                let (seen, release) = (seen.clone(), release.clone());
                std::thread::spawn(move || {
                    let mut conn = conn;
                    conn.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
                    let (mut buf, mut got) = ([0u8; 4096], Vec::new());
                    while !got.windows(4).any(|w| w == b"\r\n\r\n") {
                        match conn.read(&mut buf) {
                            Ok(0) | Err(_) => return,
                            Ok(n) => got.extend_from_slice(&buf[..n]),
                        }
                    }
                    seen.fetch_add(1, SeqCst);
                    let (lock, cv) = &*release;
                    let _go = cv.wait_timeout_while(lock.lock().unwrap(), Duration::from_secs(20), |go| !*go).unwrap();
                    let _ = conn.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok");
                });
            }
        });
    }
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("proxy.conf");
    let conf = conf.replace("127.0.0.1:8080", &listen.to_string()).replace("127.0.0.1:8081", &upstream.to_string());
    std::fs::write(&file, conf).unwrap();
    let mut child = start(&file).spawn().expect("start the proxy");
    // Stops the proxy (SIGTERM to the process this test started) however the test ends.
    struct Stop(std::process::Child);
    impl Drop for Stop {
        fn drop(&mut self) {
            let _ = Command::new("kill").arg("-TERM").arg(self.0.id().to_string()).status();
            let _ = self.0.wait();
        }
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(listen).is_err() {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("the proxy exited: {status}");
        }
        assert!(Instant::now() < deadline, "the proxy did not listen within 10 s");
        std::thread::sleep(Duration::from_millis(50));
    }
    let _stop = Stop(child);
    let done = Arc::new(AtomicUsize::new(0));
    let handles: Vec<_> = (0..clients)
        .map(|_| {
            let done = done.clone();
            let h = std::thread::spawn(move || {
                let mut s = TcpStream::connect(listen).unwrap();
                s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
                s.write_all(b"GET / HTTP/1.1\r\nHost: bplab\r\nConnection: close\r\n\r\n").unwrap();
                let mut text = String::new();
                let _ = s.read_to_string(&mut text);
                done.fetch_add(1, SeqCst);
                let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
                Answer {
                    status: head.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0),
                    retry_after: head.lines().any(|l| l.to_ascii_lowercase().starts_with("retry-after:")),
                    body: body.to_owned(),
                }
            });
            std::thread::sleep(Duration::from_millis(5));
            h
        })
        .collect();
    // The refused come back while the rest are held; then let the service answer.
    while done.load(SeqCst) < refused && Instant::now() < deadline + Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let held = seen.load(SeqCst);
    *release.0.lock().unwrap() = true;
    release.1.notify_all();
    (handles.into_iter().map(|h| h.join().unwrap()).collect(), held)
}

fn refusals(answers: &[Answer]) -> usize {
    for a in answers.iter().filter(|a| a.status != 200) {
        assert_eq!(a.status, 503, "body {:?}", a.body);
        assert!(a.retry_after && a.body.starts_with("overloaded"), "{:?}", a.body);
    }
    answers.iter().filter(|a| a.status == 503).count()
}

#[test]
fn nginx_holds_ten_and_refuses_the_rest_at_once() {
    let nginx = tool("nginx");
    let (answers, held) = overload(&export("nginx", &LESSON), 12, 2, |file| {
        let dir = file.parent().unwrap();
        let mut c = Command::new(&nginx);
        c.arg("-p").arg(format!("{}/", dir.display())).arg("-e").arg(dir.join("error.log"));
        c.arg("-g").arg(format!("daemon off; pid {};", dir.join("nginx.pid").display())).arg("-c").arg(file);
        c
    });
    assert_eq!(held, 10, "in flight at the proxy: 9 queued + 1 in service");
    assert_eq!(refusals(&answers), 2);
}

#[test]
fn haproxy_serves_one_queues_nine_and_refuses_the_rest_at_once() {
    let haproxy = tool("haproxy");
    // Same queue of 9 with a 9 s queue timeout, so a slow machine cannot time the queue out.
    let conf = export("haproxy", &["--workers", "1", "--budget-ms", "10000", "--service-ms", "1000"]);
    assert!(conf.contains("maxconn 1 maxqueue 9") && conf.contains("timeout queue 9000ms"), "{conf}");
    let (answers, held) = overload(&conf, 11, 1, |file| {
        let mut c = Command::new(&haproxy);
        c.arg("-db").arg("-f").arg(file);
        c
    });
    assert_eq!(held, 1, "maxconn 1: one request at the service");
    assert_eq!(refusals(&answers), 1, "9 wait in the queue, the 11th is refused");
}
