//! `bplab`: the backpressure lab on the command line.
//!
//! Exit codes: 0 success, 2 bad input (one line naming the flag, the value
//! and the accepted range; nothing written), 1 any other failure.

mod calc_cmd;
mod cli;
mod fit_cmd;
mod manifest;
mod output;
mod png;
mod replay_cmd;
mod report_html;
mod run_cmd;
mod threads;

use std::process::ExitCode;

/// A failure, split by who has to fix it.
#[derive(Debug)]
pub enum Failure {
    /// Bad input: exit code 2.
    Usage(String),
    /// Anything else (I/O, drawing): exit code 1.
    Runtime(String),
}

impl From<bplab_core::ConfigError> for Failure {
    /// Core messages that name a parameter start with it; on the terminal
    /// that name is a flag, so it gets its `--`.
    fn from(e: bplab_core::ConfigError) -> Self {
        let msg = e.to_string();
        Failure::Usage(if e.param().is_some() { format!("--{msg}") } else { msg })
    }
}

impl From<bplab_live::LiveError> for Failure {
    fn from(e: bplab_live::LiveError) -> Self {
        if e.is_usage() { Failure::Usage(e.to_string()) } else { Failure::Runtime(e.to_string()) }
    }
}

/// Parses a live subcommand's arguments and runs it.
fn live<A: clap::FromArgMatches>(
    m: &clap::ArgMatches,
    run: fn(A) -> Result<(), bplab_live::LiveError>,
) -> Result<(), Failure> {
    let args = A::from_arg_matches(m).map_err(|e| Failure::Usage(e.to_string()))?;
    match run(args) {
        // An interrupted `load` kept its data and exits 130, as shells expect.
        Err(e) if e.exit_code() == 130 => {
            eprintln!("bplab: {e}");
            std::process::exit(130)
        }
        r => Ok(r?),
    }
}

/// A reader that stops reading (`bplab limit … | head`) closes the pipe;
/// the next print then fails with `BrokenPipe`, which `println!` turns into a
/// panic. That is not a failure of the lab: end quietly, with the status a
/// shell gives a process stopped by SIGPIPE, and let every other panic
/// report as usual.
fn quiet_on_closed_stdout() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if msg.starts_with("failed printing to stdout") && msg.contains("Broken pipe") {
            std::process::exit(141);
        }
        default(info);
    }));
}

fn main() -> ExitCode {
    quiet_on_closed_stdout();
    let matches = match cli::command().try_get_matches() {
        Ok(m) => m,
        Err(e) => {
            // clap prints help/version to stdout and usage errors to stderr.
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let result = match matches.subcommand() {
        Some(("run", m)) => run_cmd::run(m),
        Some(("limit", m)) => calc_cmd::limit(m),
        Some(("littles", m)) => calc_cmd::littles(m),
        Some(("serve", m)) => live(m, bplab_live::run_serve),
        Some(("load", m)) => live(m, bplab_live::run_load),
        Some(("measure", m)) => calc_cmd::measure(m),
        Some(("limiter", m)) => replay_cmd::limiter(m),
        Some(("codel", m)) => replay_cmd::codel(m),
        Some(("fit", m)) => fit_cmd::run_fit(m),
        Some(("tune", m)) => fit_cmd::run_tune(m),
        _ => Err(Failure::Usage(
            "expected a subcommand: run, limit, littles, serve, load, measure, limiter, codel, fit, tune (see bplab --help)"
                .into(),
        )),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(msg)) => {
            eprintln!("bplab: {msg}");
            ExitCode::from(2)
        }
        Err(Failure::Runtime(msg)) => {
            eprintln!("bplab: {msg}");
            ExitCode::from(1)
        }
    }
}
