//! What every `bplab` integration test needs: run the built binary with
//! arguments (and optional stdin) and get its exit status and output back,
//! killing it if it runs past a limit, so a run that should have been
//! refused at once cannot hang the suite. One copy for every test file.
#![allow(dead_code)] // each test binary uses part of it

use std::io::{Read, Write};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long any one `bplab` run may take before the test fails.
pub const LIMIT: Duration = Duration::from_secs(120);

/// Runs `bplab args…` with no stdin.
pub fn bplab(args: &[&str]) -> Output {
    run(args, None, LIMIT)
}

/// Runs `bplab args…` with `stdin` piped in.
pub fn bplab_stdin(args: &[&str], stdin: &str) -> Output {
    run(args, Some(stdin), LIMIT)
}

/// Runs `bplab args…`, killing it (and failing) after `limit`.
pub fn bplab_within(args: &[&str], limit: Duration) -> Output {
    run(args, None, limit)
}

/// Stderr as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Stdout as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn reader(pipe: Option<impl Read + Send + 'static>) -> JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(mut p) = pipe {
            let _ = p.read_to_end(&mut buf);
        }
        buf
    })
}

fn wait(child: &mut Child, args: &[&str], limit: Duration) -> ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait for bplab") {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("bplab {args:?} still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn run(args: &[&str], stdin: Option<&str>, limit: Duration) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_bplab"))
        .args(args)
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn bplab");
    let out = reader(child.stdout.take());
    let err = reader(child.stderr.take());
    if let (Some(text), Some(mut pipe)) = (stdin, child.stdin.take()) {
        // A refused run may exit before reading its input: a broken pipe is fine.
        let _ = pipe.write_all(text.as_bytes());
    }
    let status = wait(&mut child, args, limit);
    Output { status, stdout: out.join().expect("stdout reader"), stderr: err.join().expect("stderr reader") }
}

/// A `bplab serve` started for a test; killed when dropped, so a failing
/// assertion never leaves it running.
pub struct Served {
    child: Child,
    /// The `http://…` address it printed on its first line.
    pub url: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `bplab serve args…` (give `--addr 127.0.0.1:0`) and waits for the
/// address it binds.
pub fn serve(args: &[&str]) -> Served {
    use std::io::{BufRead, BufReader};
    let mut child = Command::new(env!("CARGO_BIN_EXE_bplab"))
        .arg("serve")
        .args(args)
        .stdout(Stdio::piped())
        .spawn()
        .expect("start bplab serve");
    let mut first = String::new();
    if let Some(out) = child.stdout.take() {
        let _ = BufReader::new(out).read_line(&mut first);
    }
    let url = first.split_whitespace().find(|w| w.starts_with("http://")).map(str::to_owned);
    let mut served = Served { child, url: String::new() };
    match url {
        Some(url) => served.url = url,
        None => panic!("bplab serve {args:?} printed no address: {first}"),
    }
    served
}
