//! `bplab fit` and `bplab tune`: the user's own load-test files, fitted and
//! raced. Reading the files is the only thing done here; parsing, fitting,
//! the sentences and the race are the core's (`bplab_core::fit`).

use std::io::Write as _;

use clap::{Arg, ArgAction, ArgMatches, Command};

use bplab_core::calc::{EdgeTarget, fmt_num};
use bplab_core::fit::explain::{Subject, explain};
use bplab_core::fit::record::{FitLimit, record};
use bplab_core::fit::tune::{self, Scored, TuneInput};
use bplab_core::fit::{self, Fit, FitError};

use crate::Failure;

fn files_arg() -> Arg {
    Arg::new("files")
        .value_name("FILE")
        .num_args(1..)
        .required(true)
        .help(format!("load-test output, one file per offered rate or a sweep file: {}", fit::FORMATS))
}

fn seed_arg() -> Arg {
    Arg::new("seed")
        .long("seed")
        .value_name("N")
        .default_value("1")
        .help("seed of the engine's arrivals and service draws")
}

/// `bplab fit FILE… [--json] [--budget-ms B [--export TARGET]]`.
pub fn fit_command() -> Command {
    Command::new("fit")
        .about("Fit the model to your own load test (hey, ab, Locust, bplab load, plain): workers, service, capacity, limit")
        .arg(files_arg())
        .arg(Arg::new("json").long("json").action(ArgAction::SetTrue).help("print the fit as one JSON object"))
        .arg(seed_arg())
        .arg(
            Arg::new("budget-ms")
                .long("budget-ms")
                .value_name("MS")
                .help("also derive the admission limit for this latency budget, with its record"),
        )
        .arg(
            Arg::new("export")
                .long("export")
                .value_name("TARGET")
                .requires("budget-ms")
                .help("print the configuration carrying the limit: nginx, haproxy, envoy or tower"),
        )
}

/// `bplab tune FILE… --budget-ms B`.
pub fn tune_command() -> Command {
    Command::new("tune")
        .about("Race the fixed limit, CoDel and four adaptive controllers on your fitted service through a deploy")
        .arg(files_arg())
        .arg(Arg::new("budget-ms").long("budget-ms").value_name("MS").required(true).help("the p99 latency budget"))
        .arg(
            Arg::new("factors")
                .long("factors")
                .value_name("LIST")
                .default_value("0.5,1,2,3")
                .help("deploy factors on the service time, comma-separated (1 to 8, each above 0 to 100)"),
        )
        .arg(seed_arg())
        .arg(
            Arg::new("json")
                .long("json")
                .action(ArgAction::SetTrue)
                .help("print the input and the pick as one JSON object"),
        )
        .arg(
            Arg::new("jsonl")
                .long("jsonl")
                .value_name("FILE")
                .help("write every grid point run, one JSON line each (- for stdout)"),
        )
        .arg(
            Arg::new("shard")
                .long("shard")
                .value_name("K/N")
                .requires("jsonl")
                .help("run only the grid points whose id is K modulo N (with --jsonl; merge the shards with --merge)"),
        )
        .arg(
            Arg::new("merge")
                .long("merge")
                .value_name("JSONL")
                .num_args(1..)
                .conflicts_with("shard")
                .help("pick from grid points already run (--jsonl files) instead of running them"),
        )
}

fn usage(e: FitError) -> Failure {
    Failure::Usage(e.to_string())
}

/// Largest file read, bytes (the core reads at most 2,000,000 rows).
const MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;

/// Reads and parses every file; a file that cannot be read is named.
fn read_levels(m: &ArgMatches) -> Result<Vec<fit::Level>, Failure> {
    let mut levels = Vec::new();
    for path in m.get_many::<String>("files").into_iter().flatten() {
        // The core caps the rows; this caps what is read before it counts them.
        let size = std::fs::metadata(path).map(|md| md.len()).unwrap_or(0);
        if size > MAX_FILE_BYTES {
            return Err(Failure::Usage(format!(
                "{path}: {size} bytes, more than the {MAX_FILE_BYTES} a file may hold: give a shorter run"
            )));
        }
        let text = std::fs::read_to_string(path).map_err(|e| Failure::Usage(format!("{path}: cannot read it: {e}")))?;
        levels.extend(fit::read(path, &text).map_err(usage)?);
    }
    Ok(levels)
}

fn seed(m: &ArgMatches) -> Result<u64, Failure> {
    let t = m.get_one::<String>("seed").map_or("1", String::as_str);
    t.trim().parse().map_err(|_| {
        Failure::Usage(format!("--seed: `{t}` is not accepted; expected a whole number from 0 to {}", u64::MAX))
    })
}

fn budget(m: &ArgMatches) -> Result<Option<f64>, Failure> {
    let p = &bplab_core::calc::CALC_PARAMS[bplab_core::calc::BUDGET];
    m.get_one::<String>("budget-ms").map(|t| p.parse(t)).transpose().map_err(Failure::from)
}

fn fitted(m: &ArgMatches) -> Result<Fit, Failure> {
    fit::fit(read_levels(m)?, seed(m)?).map_err(usage)
}

fn opt(x: Option<f64>) -> String {
    x.map_or("-".to_owned(), fmt_num)
}

fn signed_pct(x: Option<f64>) -> String {
    x.map_or("-".to_owned(), |e| format!("{:+.0}%", e * 100.0))
}

fn print_fit(f: &Fit) {
    println!("workers          {}", f.workers);
    println!("mean_service_ms  {}", fmt_num(f.mean_service_ms));
    println!("capacity_rps     {}", opt(f.capacity_rps));
    println!("queue_limit      {}", f.queue_limit.map_or("none".to_owned(), |q| q.to_string()));
    println!("service          {}", f.service);
    println!("overhead_ms      {}", fmt_num(f.overhead_ms));
    println!();
    println!("model beside measurement (engine seed {}; ok/s, p50 and p99 in ms: measured / model / error)", f.seed);
    println!("{:<32} {:>6} {:>4} {:>22} {:>22} {:>22}", "file (load)", "sent/s", "sat", "ok/s", "p50_ms", "p99_ms");
    for r in &f.rows {
        let name = format!("{} ({})", r.file, r.index);
        println!(
            "{:<32} {:>6} {:>4} {:>22} {:>22} {:>22}",
            name,
            fmt_num(r.sent_rps),
            if r.saturated { "yes" } else { "no" },
            format!(
                "{} / {} / {}",
                fmt_num(r.measured.ok_per_sec),
                fmt_num(r.model.ok_per_sec),
                signed_pct(Some(r.ok_error))
            ),
            format!("{} / {} / {}", opt(r.measured.p50_ms), opt(r.model.p50_ms), signed_pct(r.p50_error)),
            format!("{} / {} / {}", opt(r.measured.p99_ms), opt(r.model.p99_ms), signed_pct(r.p99_error)),
        );
    }
    println!();
    for s in explain(Subject::Fit(f)) {
        println!("{}", s.text);
    }
}

/// `bplab fit`.
pub fn run_fit(m: &ArgMatches) -> Result<(), Failure> {
    let f = fitted(m)?;
    let rec = match budget(m)? {
        Some(b) => Some(record(&f, b)?),
        None => None,
    };
    if let Some(name) = m.get_one::<String>("export") {
        let target = EdgeTarget::parse(name)?;
        match &rec {
            Some(FitLimit::Record(r)) => print!("{}", r.export(target)),
            // Nothing to carry: no limit meets the budget.
            Some(FitLimit::NoLimit(why)) => return Err(Failure::Usage(why.clone())),
            None => {}
        }
        return Ok(());
    }
    if m.get_flag("json") {
        let mut v = serde_json::to_value(&f).map_err(|e| Failure::Runtime(e.to_string()))?;
        v["sentences"] =
            serde_json::to_value(explain(Subject::Fit(&f))).map_err(|e| Failure::Runtime(e.to_string()))?;
        match &rec {
            Some(FitLimit::Record(r)) => {
                v["limit"] = serde_json::to_value(&r.result).map_err(|e| Failure::Runtime(e.to_string()))?;
            }
            Some(FitLimit::NoLimit(why)) => {
                v["limit"] = serde_json::Value::Null;
                v["no_limit"] = serde_json::Value::String(why.clone());
            }
            None => {}
        }
        println!("{v}");
        return Ok(());
    }
    print_fit(&f);
    match rec {
        Some(FitLimit::Record(r)) => {
            println!();
            for (label, value) in r.result.lines() {
                println!("{label}: {value}");
            }
            println!();
            print!("{}", r.result.record.to_text());
        }
        Some(FitLimit::NoLimit(why)) => {
            println!();
            println!("{why}");
        }
        None => {}
    }
    Ok(())
}

fn factors(m: &ArgMatches) -> Result<Vec<f64>, Failure> {
    let t = m.get_one::<String>("factors").map_or("0.5,1,2,3", String::as_str);
    t.split(',')
        .map(|s| s.trim().parse::<f64>().ok().filter(|f| f.is_finite()))
        .collect::<Option<Vec<f64>>>()
        .ok_or_else(|| {
            Failure::Usage(format!(
                "--factors: `{t}` is not accepted; expected 1 to 8 comma-separated numbers above 0 to 100"
            ))
        })
}

fn shard(m: &ArgMatches) -> Result<(usize, usize), Failure> {
    let Some(t) = m.get_one::<String>("shard") else { return Ok((0, 1)) };
    let bad = || Failure::Usage(format!("--shard: `{t}` is not accepted; expected K/N with 0 <= K < N <= 10000"));
    let (k, n) = t.split_once('/').ok_or_else(bad)?;
    let (k, n): (usize, usize) = (k.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
    if n == 0 || k >= n || n > 10_000 {
        return Err(bad());
    }
    Ok((k, n))
}

/// The race's input from the fit: the measured send rates (at most 8, the
/// highest kept), the fitted service and workers.
pub fn tune_input(f: &Fit, budget_ms: f64, factors: Vec<f64>, seed: u64) -> TuneInput {
    let mut rates: Vec<f64> = f.rows.iter().map(|r| (r.sent_rps * 10.0).round() / 10.0).filter(|r| *r > 0.0).collect();
    rates.sort_by(f64::total_cmp);
    rates.dedup();
    let rates = rates.split_off(rates.len().saturating_sub(tune::MAX_CELLS_AXIS));
    TuneInput { service: f.service, workers: f.workers, rates_rps: rates, factors, budget_ms, seed }
}

fn read_jsonl(paths: Vec<&String>) -> Result<Vec<Scored>, Failure> {
    let mut out = Vec::new();
    for p in paths {
        let text = std::fs::read_to_string(p).map_err(|e| Failure::Usage(format!("{p}: cannot read it: {e}")))?;
        for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            out.push(serde_json::from_str(line).map_err(|e| {
                Failure::Usage(format!(
                    "{p}, line {}: expected one grid point as bplab tune --jsonl writes it ({e})",
                    i + 1
                ))
            })?);
        }
    }
    Ok(out)
}

/// `bplab tune`.
pub fn run_tune(m: &ArgMatches) -> Result<(), Failure> {
    let f = fitted(m)?;
    let b = budget(m)?.unwrap_or(0.0);
    let input = tune_input(&f, b, factors(m)?, seed(m)?);
    input.validate().map_err(usage)?;
    let (k, n) = shard(m)?;
    let scored = match m.get_many::<String>("merge") {
        // Scored again against this run's budget: the lines keep the runs, not a verdict.
        Some(paths) => {
            read_jsonl(paths.collect())?.into_iter().map(|s| Scored::new(s.point, s.cells, input.budget_ms)).collect()
        }
        None => tune::run_shard(&input, k, n).map_err(usage)?,
    };
    if let Some(path) = m.get_one::<String>("jsonl") {
        let mut text = String::new();
        for s in &scored {
            text.push_str(&serde_json::to_string(s).map_err(|e| Failure::Runtime(e.to_string()))?);
            text.push('\n');
        }
        if path == "-" {
            std::io::stdout().write_all(text.as_bytes()).map_err(|e| Failure::Runtime(e.to_string()))?;
        } else {
            std::fs::write(path, text).map_err(|e| Failure::Runtime(format!("{path}: {e}")))?;
        }
        if m.get_one::<String>("shard").is_some() {
            return Ok(());
        }
    }
    let Some(p) = tune::pick(&scored) else {
        return Err(Failure::Usage("no grid point to pick from".into()));
    };
    if m.get_flag("json") {
        let v = serde_json::json!({
            "input": input,
            "pick": p,
            "sentences": explain(Subject::Tune(&input, &p)),
        });
        println!("{v}");
        return Ok(());
    }
    if m.get_one::<String>("jsonl").is_some_and(|p| p == "-") {
        return Ok(());
    }
    let rates: Vec<String> = input.rates_rps.iter().map(|r| fmt_num(*r)).collect();
    println!("workers {}  service {}  rates_rps {}  budget_ms {}", f.workers, f.service, rates.join(","), fmt_num(b));
    println!();
    println!("{:<10} {:>9} {:>6}  settings", "controller", "goodput/s", "meets");
    for s in &p.per_controller {
        let set: Vec<String> = s.point.settings.iter().map(|(k, v)| format!("--{k} {v}")).collect();
        println!(
            "{:<10} {:>9} {:>6}  {}",
            s.point.controller.name(),
            fmt_num(s.goodput_rps),
            format!("{}/{}", s.meets, s.cells.len()),
            set.join(" ")
        );
    }
    println!();
    println!("the choice at each rate and factor (ok/s, p99 ms):");
    for c in &p.best.cells {
        println!(
            "  rate {:>7} factor {:>4}: ok/s {:>7}  p99 {:>6}  refused {}",
            fmt_num(c.rate_rps),
            fmt_num(c.factor),
            fmt_num(c.ok_per_sec),
            c.p99_ms.map_or("-".to_owned(), |p| p.to_string()),
            c.refused
        );
    }
    println!();
    for s in explain(Subject::Tune(&input, &p)) {
        println!("{}", s.text);
    }
    println!();
    println!("in the library's form:");
    println!("{}", tune::library_form(&p.best.point));
    if let Some(r) = &p.runner_up {
        println!("runner-up:");
        println!("{}", tune::library_form(&r.point));
    }
    if let Some(fixed) = p.per_controller.iter().find(|s| s.point.controller == tune::Controller::Fixed)
        && let Some(edge) = tune::edge_form(&fixed.point, f.workers)
    {
        println!();
        println!(
            "the best fixed limit at the edge (bplab fit … --budget-ms B --export TARGET prints a whole config with its record):"
        );
        println!("{edge}");
    }
    Ok(())
}
