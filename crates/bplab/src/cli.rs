//! The command-line grammar. `run`'s parameter flags are generated from the
//! core's parameter registry, so they cannot drift from what the models take.

use clap::{Arg, ArgAction, Args, Command};

use bplab_core::{EXPERIMENTS, PARAMS, calc};

/// Names accepted by `bplab run`.
pub fn experiment_names() -> Vec<&'static str> {
    EXPERIMENTS.iter().map(|e| e.name).chain(["all"]).collect()
}

fn run_command() -> Command {
    let mut cmd = Command::new("run")
        .about("Run experiments; write CSVs, PNG charts, manifest.json and report.html")
        .arg(Arg::new("experiment").required(true).value_parser(experiment_names()).help("which experiment (or all)"))
        .arg(
            Arg::new("output-dir")
                .long("output-dir")
                .value_name("DIR")
                .default_value("bplab-out")
                .help("where to write; each experiment gets a folder named like golden/ (bp-post1, …)"),
        )
        .arg(
            Arg::new("duration")
                .long("duration")
                .value_name("5s|7500ms")
                .conflicts_with("duration-ms")
                .help("run window as a duration (same as --duration-ms)"),
        )
        .arg(Arg::new("no-charts").long("no-charts").action(ArgAction::SetTrue).help("skip PNG charts"))
        .arg(Arg::new("quiet").long("quiet").short('q').action(ArgAction::SetTrue).help("no summary table"));
    for p in PARAMS {
        let help = format!("{} ({}); {}", p.label, p.unit, p.help);
        cmd = cmd.arg(Arg::new(p.name).long(p.name).value_name(p.unit).allow_hyphen_values(true).help(help));
    }
    cmd
}

/// A calculator flag from the core's table: name, help and accepted range.
fn calc_arg(i: usize) -> Arg {
    let p = &calc::CALC_PARAMS[i];
    Arg::new(p.name).long(p.name).value_name("N").allow_negative_numbers(true).help(format!(
        "{}; {}",
        p.help,
        p.accepted()
    ))
}

/// The whole `bplab` command.
pub fn command() -> Command {
    Command::new("bplab")
        .version(env!("CARGO_PKG_VERSION"))
        .about("Backpressure lab: deterministic overload models, explainable limits")
        .subcommand_required(true)
        .arg_required_else_help(true)
        .subcommand(run_command())
        .subcommand(
            Command::new("limit")
                .about("Admission limit from workers, latency budget and service time (both conventions)")
                .arg(calc_arg(calc::WORKERS).default_value("1"))
                .arg(calc_arg(calc::BUDGET).required(true))
                .arg(calc_arg(calc::SERVICE).required(true))
                .arg(
                    Arg::new("export")
                        .long("export")
                        .value_name("TARGET")
                        .help("print configuration carrying the limit instead: nginx, haproxy, envoy or tower"),
                ),
        )
        .subcommand(
            Command::new("littles")
                .about("Little's law L = λ·W: give any two, it solves the third")
                .arg(calc_arg(calc::ARRIVALS))
                .arg(calc_arg(calc::LATENCY))
                .arg(calc_arg(calc::IN_FLIGHT)),
        )
        .subcommand(bplab_live::ServeArgs::augment_args(
            Command::new("serve")
                .about("Run a real HTTP service: workers, CPU spin, wait, and an admission limit at the door"),
        ))
        .subcommand(bplab_live::LoadArgs::augment_args(
            Command::new("load")
                .about("Open-loop Poisson load against a service; one row per rate (the course lesson's table)"),
        ))
        .subcommand(bplab_live::MeasureArgs::augment_args(
            Command::new("measure").about("Measure service time at low load and derive the admission limit"),
        ))
        .subcommand(crate::replay_cmd::limiter_command())
        .subcommand(crate::replay_cmd::codel_command())
}
