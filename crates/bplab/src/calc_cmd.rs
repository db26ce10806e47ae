//! `bplab limit` and `bplab littles`: the calculators on the terminal.

use clap::ArgMatches;

use bplab_core::calc::{self, Explanation, LimitInput, LittlesInput, fmt_num};

use crate::Failure;

fn number(m: &ArgMatches, name: &str, accepted: &str) -> Result<Option<f64>, Failure> {
    match m.get_one::<String>(name) {
        None => Ok(None),
        Some(text) => match text.trim().parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(Some(v)),
            _ => Err(Failure::Usage(format!("--{name}: '{text}' is not accepted; expected {accepted}"))),
        },
    }
}

fn print_explanation(e: &Explanation) {
    print!("{}", e.to_text());
}

/// `bplab limit --workers N --budget-ms B --service-ms S [--export TARGET]`.
pub fn limit(m: &ArgMatches) -> Result<(), Failure> {
    let workers_text = m.get_one::<String>("workers").map_or("1", String::as_str);
    let workers: u32 = workers_text.trim().parse().map_err(|_| {
        Failure::Usage(format!("--workers: '{workers_text}' is not accepted; expected a whole number from 1 to 100000"))
    })?;
    let budget_ms = number(m, "budget-ms", "a number above 0 to 10000000 (ms)")?.unwrap_or(0.0);
    let service_ms = number(m, "service-ms", "a number above 0 to 1000000 (ms)")?.unwrap_or(0.0);
    let input = LimitInput { workers, budget_ms, service_ms };
    match m.get_one::<String>("export") {
        None => print_limit(input),
        Some(name) => {
            let target = calc::EdgeTarget::parse(name)?;
            print!("{}", calc::export(target, &input, &calc::limit(input)?));
            Ok(())
        }
    }
}

fn print_limit(input: LimitInput) -> Result<(), Failure> {
    let workers = input.workers;
    let r = calc::limit(input)?;
    println!("queue limit (behind the workers, seed 003): {}", r.queue_limit);
    println!("in-system bound (capacity × budget, Post 2): {}", r.in_system_limit);
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
        arrivals_rps: number(m, "arrivals-rps", "a number above 0 to 1000000000 (per second)")?,
        latency_ms: number(m, "latency-ms", "a number above 0 to 1000000000 (ms)")?,
        in_flight: number(m, "in-flight", "a number above 0 to 1000000000000 (requests)")?,
    };
    let r = calc::littles(input)?;
    println!("arrivals   λ = {} /s", fmt_num(r.arrivals_rps));
    println!("latency    W = {} ms", fmt_num(r.latency_ms));
    println!("in flight  L = {}", fmt_num(r.in_flight));
    println!();
    print_explanation(&r.explanation);
    Ok(())
}
