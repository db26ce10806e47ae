//! One M/M/2 run of `engine-memory.sh`: Poisson arrivals at 80 rps, two
//! workers, exponential service with mean 20 ms, no line limit, callers
//! that give up after 2 s while the server still serves them (the lesson's
//! `--rate 80 --workers 2 --service exp:20 --limit off`), seed 1, for
//! `CUSTOMERS / 80` seconds. Prints the row and the answers' latency
//! histogram's largest value, so both modes can be checked equal:
//!
//! * `kept`: every request kept, then summarised (`Setup::run` +
//!   `Run::summary`, plus the answers' latencies as a list: the lesson's
//!   path before the summarised runs);
//! * `summarised`: `Setup::summarise`, the lesson's path now.
//!
//! Built by the script against this tree's core (its own Cargo.toml); not
//! a cargo target of bplab-core. Usage: `mm2 kept|summarised CUSTOMERS`.

use bplab_core::stochastic::{Abandon, Outcome, Server, ServiceTime, Setup};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(mode), Some(n)) = (args.get(1), args.get(2).and_then(|n| n.parse::<f64>().ok())) else {
        eprintln!("usage: mm2 kept|summarised CUSTOMERS");
        std::process::exit(2);
    };
    let server = Server { workers: 2, line_limit: None, timeout_ms: Some(2000.0), abandon: Abandon::Served };
    let setup = Setup::poisson(80.0, ServiceTime::Exp { mean_ms: 20.0 }, server, n / 80.0 * 1000.0, 1);
    let cap = 100_000_000;
    let (row, top) = match mode.as_str() {
        "kept" => {
            let run = setup.run(cap).expect("run");
            let ok: Vec<f64> =
                run.requests.iter().filter(|r| r.outcome == Outcome::Ok).filter_map(|r| r.sojourn_ms()).collect();
            (run.summary(80.0), ok.iter().copied().fold(0.0, f64::max))
        }
        "summarised" => {
            let mut top = 0.0f64;
            let row = setup.summarise(cap, 80.0, |v| top = top.max(v)).expect("run");
            (row, top)
        }
        _ => {
            eprintln!("mode: kept or summarised, not {mode:?}");
            std::process::exit(2);
        }
    };
    println!("{row:?} top_ms={top}");
}
