//! The `bplab` binary end to end: golden CSVs byte for byte, manifests,
//! calculators, and a table of bad inputs (exit 2, one line, no files).

use std::path::Path;
use std::process::{Command, Output};

fn bplab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bplab")).args(args).output().expect("run bplab")
}

fn golden_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../golden")
}

#[test]
fn run_all_reproduces_the_nine_goldens_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let o = bplab(&["run", "all", "--output-dir", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut n = 0;
    for dir in std::fs::read_dir(golden_dir()).unwrap() {
        let dir = dir.unwrap().path();
        for f in std::fs::read_dir(&dir).unwrap() {
            let f = f.unwrap().path();
            let rel = f.strip_prefix(golden_dir()).unwrap();
            let got = std::fs::read(out.join(rel)).unwrap_or_else(|e| panic!("{}: {e}", rel.display()));
            assert_eq!(got, std::fs::read(&f).unwrap(), "{} differs", rel.display());
            n += 1;
        }
        let manifest: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join(dir.file_name().unwrap()).join("manifest.json")).unwrap())
                .unwrap();
        assert_eq!(manifest["at_defaults"], true);
        for file in manifest["files"].as_array().unwrap().iter().filter(|f| f["kind"] == "csv") {
            assert_eq!(file["golden_match"], true, "{file}");
        }
        let png_count = manifest["files"].as_array().unwrap().iter().filter(|f| f["kind"] == "png").count();
        assert_eq!(png_count, 2);
        let html = std::fs::read_to_string(out.join(dir.file_name().unwrap()).join("report.html")).unwrap();
        assert!(html.contains("data:image/png;base64,") && html.contains("<table>"));
    }
    assert_eq!(n, 9);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(stdout.matches(" match").count(), 9, "{stdout}");
}

#[test]
fn other_parameters_run_and_say_they_are_not_the_defaults() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("o");
    let o = bplab(&[
        "run",
        "admission",
        "--service-ms",
        "7",
        "--duration",
        "7500ms",
        "--limits",
        "none,10,none",
        "--no-charts",
        "--output-dir",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let csv = std::fs::read_to_string(out.join("bp-post2/bp-post2-limit-sweep.csv")).unwrap();
    let labels: Vec<&str> = csv.lines().skip(1).map(|l| l.split(',').next().unwrap()).collect();
    assert_eq!(labels, ["none", "10", "none"]);
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("bp-post2/manifest.json")).unwrap()).unwrap();
    assert_eq!(m["at_defaults"], false);
    assert_eq!(m["budget_b"], 29);
    assert_eq!(m["parameters"]["duration_ms"], 7500);
    assert!(m["files"][0].get("golden_match").is_none());
}

#[test]
fn calculators_print_the_lesson_numbers() {
    let o = bplab(&["limit", "--workers", "1", "--budget-ms", "230", "--service-ms", "21"]);
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success());
    assert!(s.contains("queue limit (the course lesson's formula, rounded half-up): 10"), "{s}");
    assert!(s.contains("in-system bound (capacity × budget, Post 2): 11"), "{s}");
    assert!(
        s.contains("1 × (230 − 21) / 21") && s.contains("It assumes:") && s.contains("What would reverse it."),
        "{s}"
    );
    let o = bplab(&["littles", "--arrivals-rps", "48", "--latency-ms", "230"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("in flight  L = 11.04"));
}

#[test]
fn bad_input_exits_2_with_one_line_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let cases: &[(&[&str], &[&str])] = &[
        (&["run", "admission", "--service-ms", "0"], &["--service-ms", "'0'", "1 to 60000"]),
        (&["run", "admission", "--service-ms", "abc"], &["--service-ms", "'abc'"]),
        (&["run", "all", "--deadline-ms", "5"], &["--deadline-ms", "5", "service-ms 10"]),
        (&["run", "collapse", "--duration-ms", "-5"], &["--duration-ms", "'-5'"]),
        (&["run", "collapse", "--duration", "5x"], &["--duration", "'5x'", "5s or 7500ms"]),
        (&["run", "collapse", "--offered", "75.5"], &["--offered", "75.5", "whole numbers"]),
        (&["run", "shedding", "--offered", ""], &["--offered", "comma-separated"]),
        (&["run", "admission", "--limits", "0,none"], &["--limits", "'0'"]),
        (&["run", "priority", "--critical-share", "1"], &["--critical-share", "'1'", "below 1"]),
        (&["run", "priority", "--critical-share", "NaN"], &["--critical-share", "'NaN'"]),
        (&["run", "priority", "--duration-ms", "200"], &["--duration-ms", "200", "deadline-ms 200"]),
        (&["run", "collapse", "--max-retries", "11"], &["--max-retries", "'11'", "0 to 10"]),
        (&["run", "admission", "--max-retries", "3"], &["--max-retries", "not used", "admission"]),
        (&["run", "admission", "--duration-ms", "3600000", "--offered", "1000000"], &["arrivals", "cap"]),
        (&["run", "shaping", "--window-ms", "1", "--duration-ms", "3600000"], &["--window-ms", "windows", "cap"]),
        (&["run", "shaping", "--valley-rps", "inf"], &["--valley-rps", "'inf'"]),
        (&["run", "nonsense"], &["nonsense"]),
        (&["limit", "--budget-ms", "20", "--service-ms", "21"], &["--budget-ms", "20", "above 21"]),
        (&["limit", "--workers", "0", "--budget-ms", "230", "--service-ms", "21"], &["--workers", "0"]),
        (&["limit", "--workers", "x", "--budget-ms", "230", "--service-ms", "21"], &["--workers", "'x'"]),
        (&["littles", "--arrivals-rps", "48"], &["exactly two", "1 given"]),
        (&["littles", "--arrivals-rps", "-1", "--latency-ms", "3"], &["--arrivals-rps", "-1"]),
    ];
    for (args, needles) in cases {
        let out = tmp.path().join("never");
        let mut full: Vec<&str> = args.to_vec();
        if args[0] == "run" {
            full.extend(["--output-dir", out.to_str().unwrap()]);
        }
        let o = bplab(&full);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        for n in *needles {
            assert!(err.contains(n), "{args:?}: '{n}' not in: {err}");
        }
        if args[1] != "nonsense" {
            assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: one line: {err}");
        }
        assert!(!out.exists(), "{args:?} wrote {}", out.display());
        let leftovers: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(leftovers.len(), 1, "{args:?} left {leftovers:?}");
    }
    let o = bplab(&["run", "admission", "--output-dir", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a folder"));
}

#[test]
fn serve_load_and_measure_are_wired_end_to_end() {
    use std::io::{BufRead, BufReader};
    let mut server = Command::new(env!("CARGO_BIN_EXE_bplab"))
        .args(["serve", "--workers", "1", "--spin-ms", "1", "--wait-ms", "9", "--limit", "5", "--addr", "127.0.0.1:0"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("start bplab serve");
    let mut first = String::new();
    BufReader::new(server.stdout.take().unwrap()).read_line(&mut first).unwrap();
    let url = first.split_whitespace().find(|w| w.starts_with("http://")).map(str::to_owned);
    let result = std::panic::catch_unwind(|| {
        let url = url.expect("bound address on the first line");
        let o = bplab(&["measure", "--target", &url, "--samples", "5", "--budget-ms", "100"]);
        let s = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{s}{}", String::from_utf8_lossy(&o.stderr));
        assert!(
            s.contains("workers 1 spin 1ms wait 9ms limit 5") && s.contains("queue limit (the course lesson's formula"),
            "{s}"
        );
        let o = bplab(&[
            "load",
            "--target",
            &url,
            "--check",
            "--rate",
            "200",
            "--seconds",
            "1",
            "--client-timeout-ms",
            "500",
        ]);
        let s = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{s}{}", String::from_utf8_lossy(&o.stderr));
        let row = s.lines().find(|l| l.trim_start().starts_with("200")).expect("a row for 200 rps");
        let cols: Vec<&str> = row.split_whitespace().collect();
        assert!(cols[3].parse::<u64>().unwrap() > 0, "2x overload with limit 5 refuses some: {row}");
        let o = bplab(&["load", "--target", &url, "--rate", "0"]);
        assert_eq!(o.status.code(), Some(2));
    });
    let _ = server.kill();
    let _ = server.wait();
    if let Err(e) = result {
        std::panic::resume_unwind(e);
    }
}
