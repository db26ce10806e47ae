//! The command-line grammar. `run`'s parameter flags are generated from each
//! experiment's own parameter specs in the core, so they cannot drift from
//! what the models take, and `bplab run <experiment> --help` lists exactly
//! that experiment's flags with their ranges and defaults.

use clap::{Arg, ArgAction, Args, Command};

use bplab_core::{EXPERIMENTS, Experiment, ParamSpec, calc};

/// Every experiment parameter name of the registry, once each, in order.
pub fn all_param_specs() -> Vec<&'static ParamSpec> {
    let mut out: Vec<&'static ParamSpec> = Vec::new();
    for s in EXPERIMENTS.iter().flat_map(|e| e.params) {
        if !out.iter().any(|o| o.name == s.name) {
            out.push(s);
        }
    }
    out
}

/// A parameter flag: label, unit, what it does, the accepted range and,
/// for one experiment, its default.
fn param_arg(s: &'static ParamSpec, default: Option<String>) -> Arg {
    let default = default.unwrap_or_else(|| "each experiment's own".to_owned());
    let help = format!("{} [default: {default}]", s.help_line());
    let value_name = if s.unit.is_empty() { "VALUE" } else { s.unit };
    Arg::new(s.name).long(s.name).value_name(value_name).allow_hyphen_values(true).help(help)
}

/// `bplab run <name>`: the flags of the experiments in `selected`, with
/// their ranges and defaults; every other experiment's flag is accepted but
/// hidden, so using it is refused with a message naming the experiment.
fn experiment_command(name: &'static str, about: String, selected: &[&'static Experiment]) -> Command {
    let mut cmd = Command::new(name).about(about);
    let mut shown: Vec<&str> = Vec::new();
    for e in selected {
        for s in e.params {
            if shown.contains(&s.name) {
                continue;
            }
            shown.push(s.name);
            let default = match selected {
                [one] => one.defaults().get(s.name),
                _ => None,
            };
            cmd = cmd.arg(param_arg(s, default));
        }
    }
    let has_duration = shown.contains(&"duration-ms");
    cmd = cmd.arg(
        Arg::new("duration")
            .long("duration")
            .value_name("5s|7500ms")
            .conflicts_with("duration-ms")
            .hide(!has_duration)
            .help("run window as a duration (same as --duration-ms)"),
    );
    for s in all_param_specs().into_iter().filter(|s| !shown.contains(&s.name)) {
        cmd = cmd.arg(param_arg(s, None).hide(true));
    }
    cmd
}

fn run_command() -> Command {
    let mut cmd = Command::new("run")
        .about("Run experiments; write CSVs, PNG charts, manifest.json and report.html")
        .subcommand_required(true)
        .subcommand_value_name("EXPERIMENT")
        .subcommand_help_heading("Experiments")
        .arg(
            Arg::new("output-dir")
                .long("output-dir")
                .value_name("DIR")
                .default_value("bplab-out")
                .global(true)
                .display_order(1000)
                .help("where to write; each experiment gets a folder named like golden/ (bp-post1, …)"),
        )
        .arg(
            Arg::new("no-charts")
                .long("no-charts")
                .action(ArgAction::SetTrue)
                .global(true)
                .display_order(1001)
                .help("skip PNG charts"),
        )
        .arg(
            Arg::new("quiet")
                .long("quiet")
                .short('q')
                .action(ArgAction::SetTrue)
                .global(true)
                .display_order(1002)
                .help("no summary table"),
        );
    for e in EXPERIMENTS {
        cmd = cmd.subcommand(experiment_command(e.name, format!("{}: {}", e.title, e.lesson), &[e]));
    }
    let all: Vec<&'static Experiment> = EXPERIMENTS.iter().collect();
    cmd.subcommand(experiment_command(
        "all",
        "Every experiment; each flag applies to the experiments that take it".into(),
        &all,
    ))
}

/// A calculator flag from the core's table: name, help and accepted range.
fn calc_arg(i: usize) -> Arg {
    let p = &calc::CALC_PARAMS[i];
    Arg::new(p.spec.name).long(p.spec.name).value_name("N").allow_negative_numbers(true).help(format!(
        "{}; {}",
        p.spec.help,
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
        .subcommand(crate::fit_cmd::fit_command())
        .subcommand(crate::fit_cmd::tune_command())
}
