//! `bplab limit` and `bplab littles`: the calculators on the terminal.

use clap::ArgMatches;

use bplab_core::calc::{self, Explanation, LimitInput, LittlesInput, fmt_num};

use crate::Failure;

/// The calculator input `i` of the core's table, parsed and range-checked
/// by the table itself (`None` when the flag is absent).
fn input(m: &ArgMatches, i: usize) -> Result<Option<f64>, Failure> {
    let p = &calc::CALC_PARAMS[i];
    m.get_one::<String>(p.name).map(|text| p.parse(text)).transpose().map_err(Failure::from)
}

fn print_explanation(e: &Explanation) {
    print!("{}", e.to_text());
}

/// `bplab limit --workers N --budget-ms B --service-ms S [--export TARGET]`.
pub fn limit(m: &ArgMatches) -> Result<(), Failure> {
    // Defaults for absent flags are refused by the calculator with its own message.
    let workers = input(m, calc::WORKERS)?.unwrap_or(calc::CALC_PARAMS[calc::WORKERS].default) as u32;
    let budget_ms = input(m, calc::BUDGET)?.unwrap_or(0.0);
    let service_ms = input(m, calc::SERVICE)?.unwrap_or(0.0);
    let given = LimitInput { workers, budget_ms, service_ms };
    match m.get_one::<String>("export") {
        None => print_limit(given),
        Some(name) => {
            let target = calc::EdgeTarget::parse(name)?;
            print!("{}", calc::export(target, &given, &calc::limit(given)?));
            Ok(())
        }
    }
}

fn print_limit(input: LimitInput) -> Result<(), Failure> {
    let workers = input.workers;
    let r = calc::limit(input)?;
    for (label, value) in r.lines() {
        println!("{label}: {value}");
    }
    println!("  the two differ by the {workers} request(s) in service");
    println!();
    print_explanation(&r.explanation);
    println!();
    print!("{}", r.record.to_text());
    Ok(())
}

/// `bplab measure`: the service time measured at low load, then the limit
/// derived from it exactly as `bplab limit` derives it.
pub fn measure(m: &ArgMatches) -> Result<(), Failure> {
    use clap::FromArgMatches;
    let args = bplab_live::MeasureArgs::from_arg_matches(m).map_err(|e| Failure::Usage(e.to_string()))?;
    // Every flag, --budget-ms included, is checked before anything is sent.
    let cfg = args.to_config()?;
    let measured = bplab_live::run_measure(&cfg)?;
    let workers = measured.server.as_ref().map_or(1, |s| s.workers);
    let workers = u32::try_from(workers).unwrap_or(u32::MAX);
    println!(
        "deriving the limit from the measured p50 service time, {workers} worker(s), budget {} ms",
        fmt_num(cfg.budget_ms())
    );
    println!();
    print_limit(LimitInput { workers, budget_ms: cfg.budget_ms(), service_ms: measured.p50_ms })
}

/// `bplab littles` with any two of the three quantities.
pub fn littles(m: &ArgMatches) -> Result<(), Failure> {
    let input = LittlesInput {
        arrivals_rps: input(m, calc::ARRIVALS)?,
        latency_ms: input(m, calc::LATENCY)?,
        in_flight: input(m, calc::IN_FLIGHT)?,
    };
    let r = calc::littles(input)?;
    println!("arrivals   λ = {} /s", calc::show(r.arrivals_rps));
    println!("latency    W = {} ms", calc::show(r.latency_ms));
    println!("in flight  L = {}", calc::show(r.in_flight));
    println!();
    print_explanation(&r.explanation);
    Ok(())
}
