//! `bplab serve --limit <controller>` and `bplab load --timeline` through the
//! built binary: every bad controller, deploy or timeline flag exits 2 with
//! exactly one stderr line in the house style (`--flag: 'value' is not
//! accepted; expected <range>`), before anything is bound.

use std::net::TcpListener;
use std::time::Duration;

mod support;

/// Run `bplab args…` (killed after 30 s: a refused run must not hang);
/// exit code and stderr.
fn bplab(args: &[&str]) -> (Option<i32>, String) {
    let o = support::bplab_within(args, Duration::from_secs(30));
    (o.status.code(), support::stderr(&o))
}

#[test]
fn bad_controller_flags_exit_2_with_one_line() {
    // A port that is taken: a run that got as far as binding would fail
    // with a bind error (exit 1), not a usage error.
    let taken = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = taken.local_addr().expect("addr").to_string();
    let cases: [(&[&str], &str); 12] = [
        (
            &["--limit", "fast"],
            "--limit: 'fast' is not accepted; expected a whole number from 0 to 100000 (requests), or off, aimd, vegas, gradient2, gradient or codel",
        ),
        (
            &["--limit", "gradient2", "--min-limit", "abc"],
            "--min-limit: 'abc' is not accepted; expected a whole number from -2147483648 to 2147483647",
        ),
        (
            &["--limit", "gradient2", "--min-limit", "-1"],
            "--min-limit: '-1' is not accepted; expected a whole number from 0 to 2147483647",
        ),
        (
            &["--limit", "aimd", "--backoff-ratio", "1.5"],
            "--backoff-ratio: '1.5' is not accepted; expected a number from 0.5",
        ),
        (
            &["--limit", "aimd", "--timeout-ms", "0"],
            "--timeout-ms: '0' is not accepted; expected a number of ms above 0",
        ),
        (&["--limit", "gradient2", "--rtt-tolerance", "0.5"], "--rtt-tolerance: '0.5' is not accepted; expected"),
        (
            &["--limit", "codel", "--target-ms", "0"],
            "--target-ms: '0' is not accepted; expected a whole number of ms from 1",
        ),
        (
            &["--limit", "aimd", "--target-ms", "5"],
            "--target-ms: '5' is not accepted; expected a setting of --limit codel only (not of aimd)",
        ),
        (
            &["--limit", "10", "--min-limit", "5"],
            "--min-limit: '5' is not accepted; expected a setting of --limit aimd, gradient2, gradient only (not of --limit 10)",
        ),
        (
            &["--slowdown-at", "soon"],
            "--slowdown-at: 'soon' is not accepted; expected a duration after the server starts",
        ),
        (
            &["--slowdown-at", "10s", "--slowdown-factor", "0"],
            "--slowdown-factor: '0' is not accepted; expected a number above 0 to 100",
        ),
        (&["--budget-ms", "0"], "--budget-ms: '0' is not accepted; expected a whole number from 1 to 600000 (ms)"),
    ];
    for (flags, message) in cases {
        let mut args = vec!["serve", "--addr", addr.as_str()];
        args.extend_from_slice(flags);
        let (code, stderr) = bplab(&args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with(&format!("bplab: {message}")), "{args:?}: {stderr}");
    }
    let (code, stderr) = bplab(&["serve", "--addr", &addr, "--slowdown-factor", "3"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(
        stderr,
        "bplab: --slowdown-factor: '3' is not accepted; expected a factor only together with --slowdown-at\n"
    );
    let (code, stderr) = bplab(&["load", "--target", &format!("http://{addr}/"), "--rate", "10", "--timeline", "5"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(stderr, "bplab: --timeline: '5' is not accepted; expected a whole number from 10 to 60000 (ms)\n");
}
