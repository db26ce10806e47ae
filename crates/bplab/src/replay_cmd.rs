//! `bplab limiter` and `bplab codel`: replay a sample log through one
//! controller of the core and print what it decides after each sample.

use clap::{ArgMatches, Command};

use crate::Failure;

/// `bplab limiter ALGO [flags] < samples`.
pub fn limiter_command() -> Command {
    Command::new("limiter").about("Replay `rtt_ms inflight dropped` samples through an adaptive limiter")
}

/// `bplab codel [flags] < lines`.
pub fn codel_command() -> Command {
    Command::new("codel").about("Replay `now_ms queue_delay_ms` calls through request-queue CoDel")
}

/// Runs `bplab limiter`.
pub fn limiter(_m: &ArgMatches) -> Result<(), Failure> {
    Err(Failure::Usage("limiter: not built yet".into()))
}

/// Runs `bplab codel`.
pub fn codel(_m: &ArgMatches) -> Result<(), Failure> {
    Err(Failure::Usage("codel: not built yet".into()))
}
