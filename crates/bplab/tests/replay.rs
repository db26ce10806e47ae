//! `bplab limiter` and `bplab codel` end to end: every worked vector of
//! adaptive.md and codel.md piped through the built binary, output compared
//! exactly, and bad inputs (exit 2, one line on stderr).

mod support;
use support::bplab_stdin;

/// Runs `args` on `input` and checks stdout is `want` (one item per line).
fn check(args: &str, input: &str, want: &[&str]) {
    let args: Vec<&str> = args.split_whitespace().collect();
    let o = bplab_stdin(&args, input);
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    let got = String::from_utf8(o.stdout).unwrap();
    let want: String = want.iter().map(|l| format!("{l}\n")).collect();
    assert_eq!(got, want, "{args:?}");
}

/// Runs `args` on `input` and checks exit code 2 and one stderr line containing `needle`.
fn bad(args: &str, input: &str, needle: &str) {
    let args: Vec<&str> = args.split_whitespace().collect();
    let o = bplab_stdin(&args, input);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(err.starts_with("bplab: ") && err.contains(needle), "{args:?}: {err}");
}

fn limits(s: &str) -> Vec<&str> {
    s.split_whitespace().collect()
}

#[test]
fn aimd_vectors() {
    check("limiter aimd", "10 10 0\n10 10 0\n10 11 0\n10 5 1\n10 5 0\n", &limits("21 21 22 20 20"));
    check("limiter aimd", "5000 50 0\n5000.000001 50 0\n1 0 1\n1 10 0\n", &limits("21 20 20 21"));
    check(
        "limiter aimd --initial-limit 100 --min-limit 1 --max-limit 102 --backoff-ratio 0.5 --timeout-ms 100",
        "1 60 0\n1 60 0\n1 60 0\n1 60 1\n1 60 1\n100.5 0 0\n",
        &limits("101 102 102 51 25 12"),
    );
}

#[test]
fn vegas_vectors() {
    let v1 = "10 20 0\n10 10 0\n10 12 0\n20 20 0\n12 20 0\n10.5 20 0\n10 20 1\n5 20 1\n";
    check("limiter vegas --jitter 0.8654838936883285", v1, &limits("20 26 26 25 25 26 25 25"));
    check(
        "limiter vegas --initial-limit 100 --smoothing 0.5 --max-limit 120 --jitter 0.8654838936883285",
        "10 100 0\n10 100 0\n10 100 0\n10 100 0\n30 100 0\n30 100 1\n",
        &limits("100 106 112 116 115 114"),
    );
    check(
        "limiter vegas --initial-limit 4 --probe-multiplier 1 --jitter 0.5,0.75",
        "10 1 0\n30 1 0\n20 1 0\n40 4 0\n50 4 1\n50 5 0\n50 5 1\n",
        &limits("4 4 4 5 4 4 3"),
    );
}

#[test]
fn gradient2_vectors() {
    check(
        "limiter gradient2",
        "10 20 0\n10 20 0\n10 20 1\n10 9 0\n10 11 0\n40 20 0\n40 20 0\n",
        &limits("20 21 22 22 22 21 20"),
    );
    check(
        "limiter gradient2 --initial-limit 50 --min-limit 1 --smoothing 1.0 --queue-size 2 --rtt-tolerance 1.0",
        "10 50 0\n20 50 0\n40 50 0\n5 50 0\n5 50 0\n",
        &limits("52 41 25 27 29"),
    );
    let input = format!("{}10 1 0\n10 1 0\n10 1 0\n80 20 0\n80 20 0\n200 20 0\n20 20 0\n", "100 1 0\n".repeat(10));
    check(
        "limiter gradient2 --long-window 3 --min-limit 1 --smoothing 1.0",
        &input,
        &limits("20 20 20 20 20 20 20 20 20 20 20 20 20 22 26 30 34"),
    );
}

#[test]
fn gradient_vectors() {
    check(
        "limiter gradient --probe-offset 360",
        "10 50 0\n10 30 0\n10 20 0\n40 64 0\n10 10 1\n5 60 0\n",
        &limits("57 64 64 59 58 65"),
    );
    check(
        "limiter gradient --probe-interval 3 --probe-offset 0,1",
        "10 50 0\n10 50 0\n10 50 0\n10 50 0\n20 5 0\n20 60 0\n10 60 0\n10 60 0\n",
        &limits("57 64 72 8 12 16 20 24"),
    );
    check(
        "limiter gradient --initial-limit 10 --min-limit 1 --queue-size 6 --smoothing 1.0 --backoff-ratio 0.5 \
         --probe-interval -1",
        "10 10 0\n10 10 1\n10 10 1\n10 10 1\n40 12 0\n40 12 0\n",
        &limits("16 8 6 6 9 10"),
    );
}

#[test]
fn comments_and_blank_lines_are_skipped() {
    check("limiter aimd", "# rtt inflight dropped\n\n  10 10 0  # grows\n\t\n10 10 0\n", &["21", "21"]);
}

#[test]
fn codel_vectors() {
    let v1 = "0 1\n10 1\n20 2\n30 15\n35 30\n40 25\n50 3\n60 1\n111 2\n120 12\n";
    let mut want1 = vec!["0 10"; 8];
    want1.extend(["0 20", "0 20"]);
    check("codel", v1, &want1);
    let v2 = "0 1\n10 1\n111 6\n130 8\n150 12\n200 7\n212 9\n220 11\n230 10\n240 10.000001\n250 6\n300 25\n\
              313 4\n320 30\n414 12\n420 12\n";
    let want2 = "0 10, 0 10, 0 60, 0 60, 0 60, 0 60, 0 90, 1 90, 0 90, 1 90, 0 60, 1 60, 0 40, 1 40, 0 100, 0 100";
    check("codel", v2, &want2.split(", ").collect::<Vec<_>>());
    check("codel", "110 100\n200 50\n200 50\n310 2\n400 20\n", &["0 100", "0 100", "1 100", "0 20", "1 20"]);
    check(
        "codel --target-ms 10 --interval-ms 50 --start-ms 1000 --whole-ms",
        "1000 30\n1000.5 30\n1000.5 20.9\n1000.5 21\n1200 3\n1200 40\n",
        &["0 100", "0 100", "0 100", "1 100", "0 15", "1 15"],
    );
}

#[test]
fn codel_set_changes_the_target_at_once() {
    // Min 7 ms: load 70 at target 5; `set 2 1000` makes the slough 4 ms (load 100, capped)
    // and sheds 5 ms at once, the flag having been set by the boundary at 10.
    check("codel", "0 7\n10 7\nset 2 1000\n20 5\n", &["0 70", "0 70", "1 100"]);
    bad("codel", "0 7\nset 5 5\n", "line 2: set: target 5 ms with interval 5 ms is not accepted");
}

#[test]
fn bad_inputs_exit_2_with_one_line() {
    bad("limiter aimd", "10 10 0\n10 10 0\nabc\n", "line 3: 'abc' is not a sample; expected 'rtt_ms inflight dropped'");
    bad("limiter aimd", "10 -1 0\n", "line 1: '10 -1 0' is not a sample");
    bad("limiter aimd", "10 1 2\n", "dropped '2' is not 0 or 1");
    bad("limiter aimd", "0 1 0\n", "rtt_ms '0' is not a number of ms above 0");
    bad("limiter aimd", "1.0000001 1 0\n", "at most 6 decimals");
    bad("limiter bbr", "", "unknown algorithm 'bbr'; expected one of: aimd, vegas, gradient2, gradient");
    bad("limiter vegas --min-limit 5", "", "--min-limit: not a setting of vegas (only of aimd, gradient2, gradient)");
    bad("limiter aimd --long-window 5", "", "--long-window: not a setting of aimd (only of gradient2)");
    bad(
        "limiter aimd --backoff-ratio 1.5",
        "",
        "--backoff-ratio: '1.5' is not accepted; expected a number from 0.5 (inclusive) to 1.0 (exclusive)",
    );
    bad("limiter gradient --backoff-ratio 1.01", "", "expected a number from 0.5 to 1.0 (both inclusive)");
    bad("limiter aimd --timeout-ms 0", "", "--timeout-ms: '0' is not accepted; expected a number of ms above 0");
    bad("limiter aimd --initial-limit abc", "", "--initial-limit: 'abc' is not accepted");
    bad("limiter gradient2 --rtt-tolerance 0.9", "", "--rtt-tolerance: '0.9' is not accepted");
    bad("limiter gradient --probe-interval 0", "", "or -1 to disable probing");
    bad("limiter gradient --probe-interval 3 --probe-offset 0,3", "", "--probe-offset: '3' is not accepted");
    bad("limiter vegas --jitter 0.5,1.5", "", "--jitter: '1.5' is not accepted; expected a number from 0.5");
    bad("limiter vegas --smoothing nan", "", "--smoothing: 'nan' is not accepted; expected a number");
    bad("codel --target-ms 0", "", "--target-ms: '0' is not accepted; expected a whole number of ms from 1");
    bad("codel --start-ms -5", "", "--start-ms: '-5' is not accepted");
    bad("codel", "0 1\n5 x\n", "line 2: '5 x' is not a call");
    bad("codel", "0 1 2\n", "line 1: '0 1 2' is not a call");
}

#[test]
fn output_before_a_bad_line_is_kept() {
    let o = bplab_stdin(&["limiter", "aimd"], "10 10 0\nnope\n");
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "21\n");
}
