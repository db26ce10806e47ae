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

/// The most of a live run's wall time during which some task waited for a
/// CPU (Linux's CPU pressure, `some`) for the run to have measured the
/// server rather than the machine. A request's latency grows by at most the
/// stall time during its life, so at this share the latencies the machine
/// added stay well inside the 10 % the server's settings are checked to,
/// even when all of the stall falls in one of the run's loads.
const MAX_STALL_SHARE: f64 = 0.02;

/// The machine's CPU stall so far, µs: the time during which some runnable
/// task waited for a CPU (`/proc/pressure/cpu`, `some … total=`); `None`
/// where it cannot be read.
fn cpu_stall_us() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/pressure/cpu").ok()?;
    let some = text.lines().find(|l| l.starts_with("some "))?;
    some.split_whitespace().find_map(|f| f.strip_prefix("total="))?.parse().ok()
}

/// The machine's CPU stall over a live run's load, from its start.
struct Watch(std::time::Instant, Option<u64>);

impl Watch {
    fn start() -> Self {
        Watch(std::time::Instant::now(), cpu_stall_us())
    }

    /// Why the machine may have starved the run so far (its latencies then
    /// hold waits for a CPU, the server's and the client's); `None` when
    /// it left every task its CPU.
    fn busy(&self) -> Option<String> {
        let wall_us = self.0.elapsed().as_micros() as f64;
        match (self.1, cpu_stall_us()) {
            (Some(before), Some(after)) => {
                let share = after.saturating_sub(before) as f64 / wall_us.max(1.0);
                (share > MAX_STALL_SHARE).then(|| {
                    format!(
                        "some task waited for a CPU {:.1} % of the run, above {} %",
                        share * 100.0,
                        MAX_STALL_SHARE * 100.0
                    )
                })
            }
            _ => Some("/proc/pressure/cpu cannot be read, so whether the machine starved the run is unknown".into()),
        }
    }
}

/// Fits `files` and checks what holds of any fit, whatever the machine
/// did to the measurement: its figures agree with each other and each
/// model row's verdict is its errors against the tolerances.
fn fit_live(files: &[&Path]) -> serde_json::Value {
    let mut args = vec!["fit", "--json"];
    args.extend(files.iter().map(|p| p.to_str().unwrap()));
    let o = bplab_within(&args, Duration::from_secs(60));
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(v["service"].as_str().unwrap().parse::<bplab_core::stochastic::ServiceTime>().is_ok(), "{v}");
    assert!(!v["sentences"].as_array().unwrap().is_empty(), "{v}");
    let (w, x) = (v["workers"].as_u64().unwrap(), v["workers_estimate"].as_f64().unwrap());
    if let Some(c) = v["capacity_rps"].as_f64() {
        assert_eq!(w, x.round().max(1.0) as u64, "{v}");
        let low = v["low_load"]["mean_ms"].as_f64().unwrap();
        assert!((x - c * low / 1000.0).abs() <= 1e-9 * x.abs().max(1.0), "{v}");
    }
    for r in v["rows"].as_array().unwrap() {
        let ok = r["ok_error"].as_f64().unwrap().abs() <= bplab_core::fit::OK_TOLERANCE;
        let p99 = r["p99_error"].as_f64().is_none_or(|e| e.abs() <= bplab_core::fit::P99_TOLERANCE);
        assert_eq!(r["within"].as_bool(), Some(ok && p99), "{r}");
    }
    v
}

/// Fits `files` and checks the live server's settings: 2 workers, 100 ms,
/// 20/s, the limit (within `slack`) — unless the fit says it is poor, and
/// why, or the machine was `busy` during the run (then the figures are
/// partly the machine's, and only what holds of any fit is checked).
/// Whether the settings were checked.
fn fits_live(files: &[&Path], limit: Option<u64>, slack: u64, busy: Option<&str>) -> bool {
    let v = fit_live(files);
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
        let said = |kind: &str, start: &str| -> Vec<&str> {
            let all = v["sentences"].as_array().unwrap().iter();
            all.filter(|s| s["kind"] == kind)
                .filter_map(|s| s["text"].as_str())
                .filter(|t| t.starts_with(start))
                .collect()
        };
        // A load whose model is off the measurement is said in the verdict
        // (each figure beside its tolerance, then "The fit is poor: …");
        // every other reason in sentences of its own.
        let (why, rows) = (said("poor", ""), said("verdict", "The fit is poor"));
        for r in &poor {
            let of_a_row = r["reason"] == "ok-rate" || r["reason"] == "p99";
            assert!(!(if of_a_row { &rows } else { &why }).is_empty(), "poor ({r}) without saying why: {v}");
        }
        println!("note: this live run was noisy and the fit says so: {why:?} {rows:?}");
        return false;
    }
    if let Some(why) = busy {
        println!("note: the machine was busy during this live run ({why}); the server's settings are not checked: {v}");
        return false;
    }
    assert_eq!(v["workers"], 2, "{v}");
    let (s, c) = (v["mean_service_ms"].as_f64().unwrap(), v["capacity_rps"].as_f64().unwrap());
    assert!((s / 100.0 - 1.0).abs() <= 0.1 && (c / 20.0 - 1.0).abs() <= 0.1, "{s} ms, {c}/s");
    match (v["queue_limit"].as_u64(), limit) {
        (Some(got), Some(want)) => assert!(got.abs_diff(want) <= slack, "limit {got}, want {want}"),
        (got, want) => assert_eq!(got, want, "{v}"),
    }
    true
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
    let watch = Watch::start();
    run_tool("hey", &["-n", "40", "-c", "1", "-o", "csv", &server.1], Some(&low));
    run_tool("hey", &["-z", "4s", "-c", "12", "-q", "5", "-o", "csv", &server.1], Some(&high));
    let _ = fits_live(&[&low, &high], Some(4), 0, watch.busy().as_deref());
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
    let watch = Watch::start();
    run_tool("ab", &["-q", "-n", "40", "-c", "1", "-g", low.to_str().unwrap(), &server.1], None);
    run_tool("ab", &["-q", "-n", "100", "-c", "6", "-g", high.to_str().unwrap(), &server.1], None);
    let _ = fits_live(&[&low, &high], None, 0, watch.busy().as_deref());
}

#[test]
fn live_bplab_load_against_bplab_serve_is_fitted() {
    let _one = one_at_a_time();
    let server = serve("4");
    let tmp = tempfile::tempdir().unwrap();
    let (csv, printed) = (tmp.path().join("load.csv"), tmp.path().join("load.txt"));
    let watch = Watch::start();
    let o = bplab_within(
        &["load", "--target", &server.1, "--rate", "5,40", "--seconds", "5", "--csv", csv.to_str().unwrap(), "-q"],
        Duration::from_secs(60),
    );
    let busy = watch.busy();
    assert!(o.status.success(), "{}", stderr(&o));
    // The printed table carries the note that the client fell behind its
    // schedule; the CSV has no column for it. So the printed output decides
    // whether this run measured the server, for both.
    std::fs::write(&printed, &o.stdout).unwrap();
    if fits_live(&[&printed], Some(4), 0, busy.as_deref()) {
        fits_live(&[&csv], Some(4), 0, None);
    } else {
        fit_live(&[&csv]);
    }
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
    let watch = Watch::start();
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
    let _ = fits_live(&refs, Some(4), 1, watch.busy().as_deref());
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
