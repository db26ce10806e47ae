//! `bplab fit` and `bplab tune` end to end: the committed real fixtures
//! (tests/fixtures/fit), bad files, the tune's reproducibility and shards,
//! and a live run of `hey` against `bplab serve` when `hey` is installed.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use bplab_core::fit::tune::{self, Cell, Point, TuneInput};

mod support;
use support::{bplab, bplab_within, stderr, stdout};

fn fixture(name: &str) -> String {
    fixtures().join(name).to_str().unwrap().to_owned()
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/fit")
}

fn fit_json(files: &[&str]) -> serde_json::Value {
    let paths: Vec<String> = files.iter().map(|f| fixture(f)).collect();
    let mut args = vec!["fit", "--json"];
    args.extend(paths.iter().map(String::as_str));
    let o = bplab(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_str(&stdout(&o)).unwrap()
}

#[test]
fn fit_json_gives_the_servers_settings_for_every_tool() {
    // bplab serve --workers 4 --spin-ms 1 --wait-ms 79, with --limit 8 or none.
    let sweeps: [(&[&str], Option<u64>); 6] = [
        (&["hey-c1.csv", "hey-c8q5.csv", "hey-c24q5.csv"], Some(8)),
        (&["ab-c1.tsv", "ab-c12.tsv"], None),
        (&["ab-c1-pct.csv", "ab-c12.tsv"], None),
        (&["bplab-load.csv"], Some(8)),
        (&["bplab-load-timeline.txt"], Some(8)),
        (&["plain-c1.txt", "plain-c8.txt"], None),
    ];
    for (files, limit) in sweeps {
        let v = fit_json(files);
        assert_eq!(v["workers"], 4, "{files:?}");
        let s = v["mean_service_ms"].as_f64().unwrap();
        let c = v["capacity_rps"].as_f64().unwrap();
        assert!((s / 80.0 - 1.0).abs() <= 0.1 && (c / 50.0 - 1.0).abs() <= 0.1, "{files:?}: {s} ms, {c}/s");
        assert_eq!(v["queue_limit"].as_u64(), limit, "{files:?}");
        assert!(v["service"].as_str().unwrap().parse::<bplab_core::stochastic::ServiceTime>().is_ok());
        assert!(!v["sentences"].as_array().unwrap().is_empty());
    }
    // Locust keeps aggregates only: its limit is calibrated on the engine, within one.
    let v = fit_json(&["locust-u2_stats.csv", "locust-u24_stats.csv"]);
    assert_eq!(v["workers"], 4);
    assert!(v["queue_limit"].as_u64().unwrap().abs_diff(8) <= 1, "{}", v["queue_limit"]);
}

#[test]
fn fit_text_shows_model_beside_measurement_and_the_record() {
    let o = bplab(&["fit", &fixture("bplab-load.csv"), "--budget-ms", "400"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for want in [
        "workers          4",
        "queue_limit      8",
        "model beside measurement",
        "Setting. Admission limit",
        "bplab-load.csv (bplab load --csv: 4 load(s), the low-load percentiles, the capacity): 4 effective worker(s)",
    ] {
        assert!(out.contains(want), "missing {want}:\n{out}");
    }
    let o = bplab(&["fit", &fixture("bplab-load.csv"), "--budget-ms", "400", "--export", "haproxy"]);
    assert!(o.status.success() && stdout(&o).contains("maxconn 4 maxqueue"), "{}", stdout(&o));
}

#[test]
fn bad_files_exit_2_with_one_line_naming_the_file_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("run.csv");
    std::fs::write(&bad, "0 80 200\n10 eighty 200\n").unwrap();
    let o = bplab(&["fit", bad.to_str().unwrap()]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.contains("run.csv, line 2: expected `start_ms latency_ms [status]`"), "{e}");
    let o = bplab(&["fit", tmp.path().join("missing.csv").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("missing.csv: cannot read it"), "{}", stderr(&o));
    let o = bplab(&["tune", &fixture("bplab-load.csv"), "--budget-ms", "400", "--factors", "1,x"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--factors: `1,x` is not accepted"), "{}", stderr(&o));
    let o = bplab(&["fit", &fixture("bplab-load.csv"), "--budget-ms", "50", "--export", "nginx"]);
    assert_eq!(o.status.code(), Some(2), "a budget under the service time: {}", stderr(&o));
}

/// F3: the record's worst time is from the caller's send to its answer, the
/// fitted time outside the server included, and it is within the budget.
#[test]
fn the_records_worst_time_includes_the_time_outside_the_server() {
    let o = bplab(&["fit", &fixture("hey-c1.csv"), &fixture("hey-c24q5.csv"), "--budget-ms", "85"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let overhead = fit_json(&["hey-c1.csv", "hey-c24q5.csv"])["overhead_ms"].as_f64().unwrap();
    let o2 = bplab_core::calc::fmt_num(overhead);
    for want in [
        format!("The server's share of the budget: budget − time outside the server = 85 − {o2} = "),
        format!("The worst time from send to answer ((ceil(0 / 4) + 1) × 79.5 + {o2} = "),
        "is at most the budget (85 ms).".to_owned(),
        "A caller whose budget is not 85 ms.".to_owned(),
    ] {
        assert!(out.contains(&want), "missing {want}:\n{out}");
    }
}

/// F3: a fitted service whose own p99 with the time outside the server is
/// past the budget gets no limit, said with its arithmetic; nothing exported.
#[test]
fn no_limit_is_shipped_when_the_services_own_p99_passes_the_budget() {
    let o = bplab(&["fit", &fixture("bplab-load.csv"), "--budget-ms", "90"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(!out.contains("Setting. Admission limit") && !out.contains("Number."), "{out}");
    assert!(
        out.contains("The fitted service time's p99 plus the time outside the server (101 + ")
            && out.contains("is above the budget (90 ms).")
            && out.contains("So no queue limit meets the 90 ms budget"),
        "{out}"
    );
    let v: serde_json::Value = {
        let o = bplab(&["fit", &fixture("bplab-load.csv"), "--budget-ms", "90", "--json"]);
        serde_json::from_str(&stdout(&o)).unwrap()
    };
    assert!(v["limit"].is_null() && v["no_limit"].as_str().unwrap().contains("no queue limit"), "{v}");
    let o = bplab(&["fit", &fixture("bplab-load.csv"), "--budget-ms", "90", "--export", "envoy"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no queue limit meets the 90 ms budget"), "{}", stderr(&o));
}

/// `bplab load`'s printed output from a run on two busy cores, as the tool
/// wrote it: its notes say the client fell behind its schedule at both
/// rates (`bplab load --rate 5,40 --seconds 5` against `bplab serve
/// --workers 2 --spin-ms 1 --wait-ms 99 --limit 4`).
const BEHIND_AT_LOW_LOAD: &str = "\
 offered    sent     ok  refused  gaveup  error  ok_per_sec   p50_ms   p99_ms    done    lost  queued
       5      30     30        0       0      0         6.0    115.7    229.4      30       0       2
note: the client fell behind its schedule at 5 rps: send lag p99 71.7 ms (above 50 ms); the load offered was not the one planned
      40     190     98       92       0      0        19.6    284.4    473.9      98       0       4
note: the client fell behind its schedule at 40 rps: send lag p99 132.1 ms (above 50 ms); the load offered was not the one planned
";

/// The same run's kind where the client kept its schedule at the low load
/// and fell behind only at the high one.
const BEHIND_AT_HIGH_LOAD: &str = "\
 offered    sent     ok  refused  gaveup  error  ok_per_sec   p50_ms   p99_ms    done    lost  queued
       5      30     30        0       0      0         6.0    113.5    206.1      30       0       2
      40     190     98       92       0      0        19.6    283.6    422.9      98       0       4
note: the client fell behind its schedule at 40 rps: send lag p99 59.6 ms (above 50 ms); the load offered was not the one planned
";

/// A client that fell behind while measuring the low-load sample measured
/// its own delay too: the fit says it is poor, and why, with the lag.
#[test]
fn a_client_behind_its_schedule_at_low_load_makes_the_fit_poor() {
    let tmp = tempfile::tempdir().unwrap();
    let fit = |name: &str, text: &str| -> serde_json::Value {
        let path = tmp.path().join(name);
        std::fs::write(&path, text).unwrap();
        let o = bplab(&["fit", "--json", path.to_str().unwrap()]);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_str(&stdout(&o)).unwrap()
    };
    let v = fit("low.txt", BEHIND_AT_LOW_LOAD);
    let behind: Vec<&serde_json::Value> =
        v["reasons"].as_array().unwrap().iter().filter(|r| r["reason"] == "low-load-client-behind").collect();
    assert_eq!(behind.len(), 1, "{v}");
    assert_eq!((behind[0]["index"].as_u64(), behind[0]["send_lag_p99_ms"].as_f64()), (Some(1), Some(71.7)));
    let poor: Vec<&str> = v["sentences"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["kind"] == "poor")
        .filter_map(|s| s["text"].as_str())
        .collect();
    assert!(poor.iter().any(|s| s.contains("fell behind its schedule") && s.contains("71.7 ms")), "{poor:?}");
    let v = fit("high.txt", BEHIND_AT_HIGH_LOAD);
    assert!(!v["reasons"].as_array().unwrap().iter().any(|r| r["reason"] == "low-load-client-behind"), "{v}");
}

fn tune_json(extra: &[&str]) -> serde_json::Value {
    let f = fixture("bplab-load.csv");
    let mut args = vec!["tune", f.as_str(), "--budget-ms", "400", "--factors", "0.5,1,2", "--json"];
    args.extend(extra);
    let o = bplab(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_str(&stdout(&o)).unwrap()
}

#[test]
fn tune_choice_rerun_through_the_engine_reproduces_its_figures() {
    let v = tune_json(&[]);
    let input: TuneInput = serde_json::from_value(v["input"].clone()).unwrap();
    let best = &v["pick"]["best"];
    let point: Point = serde_json::from_value(best["point"].clone()).unwrap();
    let printed: Vec<Cell> = serde_json::from_value(best["cells"].clone()).unwrap();
    let again = tune::run_point(&input, &point).unwrap();
    assert_eq!(printed.len(), input.rates_rps.len() * 3, "every rate × 3 factors");
    assert_eq!(printed.len(), again.len());
    for (p, a) in printed.iter().zip(&again) {
        assert_eq!((p.rate_rps, p.factor, p.p99_ms, p.refused), (a.rate_rps, a.factor, a.p99_ms, a.refused));
        assert!((p.ok_per_sec - a.ok_per_sec).abs() < 1e-9);
    }
    let words: Vec<String> =
        v["sentences"].as_array().unwrap().iter().map(|s| s["text"].as_str().unwrap().to_owned()).collect();
    assert!(words.iter().any(|s| s.starts_with("Robust choice, of the ")), "{words:?}");
}

#[test]
fn tune_shards_written_as_json_lines_merge_to_the_same_choice() {
    let tmp = tempfile::tempdir().unwrap();
    let f = fixture("bplab-load.csv");
    let mut parts = Vec::new();
    for k in 0..3 {
        let part = tmp.path().join(format!("part{k}.jsonl"));
        let shard = format!("{k}/3");
        let args = [
            "tune",
            f.as_str(),
            "--budget-ms",
            "400",
            "--factors",
            "0.5,1,2",
            "--shard",
            &shard,
            "--jsonl",
            part.to_str().unwrap(),
        ];
        let o = bplab(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        parts.push(part.to_str().unwrap().to_owned());
    }
    let lines: usize = parts.iter().map(|p| std::fs::read_to_string(p).unwrap().lines().count()).sum();
    let whole = tune_json(&[]);
    assert_eq!(lines as u64, whole["pick"]["points"].as_u64().unwrap());
    let mut merge = vec!["--merge"];
    merge.extend(parts.iter().map(String::as_str));
    assert_eq!(tune_json(&merge)["pick"]["best"], whole["pick"]["best"]);
}

/// One live run at a time: the load tools and the server share two cores
/// with the rest of the suite, and a starved caller measures itself.
static LIVE: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    LIVE.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A free loopback port (bound, then released).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// `bplab serve` for the live runs: 2 workers × (1 ms spin + 99 ms wait),
/// so capacity 20/s; killed when dropped.
struct Server(Child, String);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(limit: &str) -> Server {
    let addr = format!("127.0.0.1:{}", free_port());
    let child = Command::new(env!("CARGO_BIN_EXE_bplab"))
        .args(["serve", "--workers", "2", "--spin-ms", "1", "--wait-ms", "99", "--limit", limit, "--addr", &addr])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let ready = (0..50).any(|_| {
        std::thread::sleep(Duration::from_millis(100));
        std::net::TcpStream::connect(&addr).is_ok()
    });
    assert!(ready, "bplab serve did not start on {addr}");
    let url = format!("http://{addr}/");
    Server(child, url)
}

/// Whether `tool` runs here; prints the note of a skipped live run if not.
fn installed(tool: &str, probe: &[&str]) -> bool {
    let ok = Command::new(tool).args(probe).stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok();
    if !ok {
        println!("note: {tool} is not installed; its live run is skipped (its committed fixtures ran above)");
    }
    ok
}

/// Runs `tool args…`, writing its stdout to `out` when asked.
fn run_tool(tool: &str, args: &[&str], out: Option<&Path>) {
    let o = Command::new(tool).args(args).stderr(Stdio::null()).output().unwrap();
    if let Some(path) = out {
        assert!(!o.stdout.is_empty(), "{tool} {args:?} printed nothing");
        std::fs::write(path, o.stdout).unwrap();
    }
}

/// Fits `files` and checks the live server's settings: 2 workers, 100 ms,
/// 20/s, the limit (within `slack`).
fn fits_live(files: &[&Path], limit: Option<u64>, slack: u64) {
    let mut args = vec!["fit", "--json"];
    args.extend(files.iter().map(|p| p.to_str().unwrap()));
    let o = bplab_within(&args, Duration::from_secs(60));
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    // A live run on a machine whose cores are busy can starve the caller
    // (latency and rate that are the client's, not the server's). Then the
    // issue's other branch applies: the fit must say it is poor, and why.
    let poor: Vec<&serde_json::Value> = v["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["reason"] != "no-status" && r["reason"] != "approximate-distribution")
        .collect();
    if !poor.is_empty() {
        let said: Vec<&str> = v["sentences"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["kind"] == "poor")
            .filter_map(|s| s["text"].as_str())
            .collect();
        assert!(!said.is_empty(), "poor without saying why: {v}");
        println!("note: this live run was noisy and the fit says so: {said:?}");
        return;
    }
    assert_eq!(v["workers"], 2, "{v}");
    let (s, c) = (v["mean_service_ms"].as_f64().unwrap(), v["capacity_rps"].as_f64().unwrap());
    assert!((s / 100.0 - 1.0).abs() <= 0.1 && (c / 20.0 - 1.0).abs() <= 0.1, "{s} ms, {c}/s");
    match (v["queue_limit"].as_u64(), limit) {
        (Some(got), Some(want)) => assert!(got.abs_diff(want) <= slack, "limit {got}, want {want}"),
        (got, want) => assert_eq!(got, want, "{v}"),
    }
}

#[test]
fn live_hey_against_bplab_serve_is_fitted() {
    if !installed("hey", &["-h"]) {
        return;
    }
    let _one = one_at_a_time();
    let server = serve("4");
    let tmp = tempfile::tempdir().unwrap();
    let (low, high) = (tmp.path().join("low.csv"), tmp.path().join("high.csv"));
    run_tool("hey", &["-n", "40", "-c", "1", "-o", "csv", &server.1], Some(&low));
    run_tool("hey", &["-z", "4s", "-c", "12", "-q", "5", "-o", "csv", &server.1], Some(&high));
    fits_live(&[&low, &high], Some(4), 0);
}

#[test]
fn live_ab_against_bplab_serve_is_fitted() {
    if !installed("ab", &["-V"]) {
        return;
    }
    let _one = one_at_a_time();
    let server = serve("off");
    let tmp = tempfile::tempdir().unwrap();
    let (low, high) = (tmp.path().join("low.tsv"), tmp.path().join("high.tsv"));
    run_tool("ab", &["-q", "-n", "40", "-c", "1", "-g", low.to_str().unwrap(), &server.1], None);
    run_tool("ab", &["-q", "-n", "100", "-c", "6", "-g", high.to_str().unwrap(), &server.1], None);
    fits_live(&[&low, &high], None, 0);
}

#[test]
fn live_bplab_load_against_bplab_serve_is_fitted() {
    let _one = one_at_a_time();
    let server = serve("4");
    let tmp = tempfile::tempdir().unwrap();
    let csv = tmp.path().join("load.csv");
    let o = bplab_within(
        &["load", "--target", &server.1, "--rate", "5,40", "--seconds", "5", "--csv", csv.to_str().unwrap(), "-q"],
        Duration::from_secs(60),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    fits_live(&[&csv], Some(4), 0);
}

#[test]
fn live_locust_against_bplab_serve_is_fitted() {
    if !installed("locust", &["--version"]) {
        return;
    }
    let _one = one_at_a_time();
    let server = serve("4");
    let tmp = tempfile::tempdir().unwrap();
    let locustfile = fixtures().join("locustfile.py");
    let mut files = Vec::new();
    for users in ["1", "12"] {
        let prefix = tmp.path().join(format!("u{users}"));
        let o = Command::new("locust")
            .args(["-f", locustfile.to_str().unwrap(), "--headless", "-u", users, "-r", users, "-t", "6s"])
            .args(["-H", &server.1, "--csv", prefix.to_str().unwrap(), "--only-summary"])
            .env("PACING_S", "0.25")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        let _ = o; // locust exits 1 when any request failed: the 503s are the point.
        files.push(tmp.path().join(format!("u{users}_stats.csv")));
    }
    let refs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    fits_live(&refs, Some(4), 1);
}

/// F4: without a saturated load the capacity is not measured, and the
/// record claims no drain rate under overload.
#[test]
fn without_a_saturated_load_the_record_claims_no_drain_rate() {
    let o = bplab(&["fit", &fixture("hey-c1.csv"), "--budget-ms", "100"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("capacity_rps     -") && out.contains("Criterion. "), "{out}");
    assert!(!out.contains("drain rate"), "{out}");
    let o = bplab(&["fit", &fixture("hey-c1.csv"), &fixture("hey-c24q5.csv"), "--budget-ms", "100"]);
    assert!(stdout(&o).contains("Under overload, delivered answers hold near the drain rate"), "{}", stdout(&o));
}
