//! A reader that closes the pipe early (`bplab … | head`) ends the command
//! quietly, never with a panic message.

use std::process::{Command, Stdio};

/// Runs `bplab ARGS` with its standard output on a pipe whose read end is
/// already closed, so the first write fails with `BrokenPipe`
/// deterministically (no race with a reader).
fn run_into_closed_pipe(args: &[&str]) -> (Option<i32>, String) {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_bplab"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .expect("run bplab");
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Where the `run` case writes its files (inside the target folder).
const OUT: &str = concat!(env!("CARGO_TARGET_TMPDIR"), "/pipe-run");

#[test]
fn a_closed_stdout_ends_each_printing_command_quietly() {
    for args in [
        &["limit", "--budget-ms", "230", "--service-ms", "21"][..],
        &["littles", "--arrivals-rps", "40", "--latency-ms", "21"][..],
        &["run", "admission", "--no-charts", "--output-dir", OUT][..],
    ] {
        let (code, stderr) = run_into_closed_pipe(args);
        assert!(!stderr.contains("panicked"), "bplab {args:?} panicked on a closed pipe: {stderr}");
        assert_ne!(code, Some(101), "bplab {args:?} exited as a panic: {stderr}");
    }
}
