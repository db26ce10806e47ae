//! Command-line arguments (`clap::Args`) and the blocking `run_*` entry
//! points the `bplab` binary calls for `serve`, `load` and `measure`.
//!
//! Every flag value is taken as text and validated here against its flag
//! spec ([`crate::flags`]) before anything is bound, resolved or sent, so a
//! bad value comes back as a usage [`LiveError`] (see
//! [`LiveError::is_usage`]) reading `--flag: 'value' is not accepted;
//! expected <range>`. The defaults come from [`ServeSettings::DEFAULT`] and
//! [`LoadSettings::lesson`]; the `--help` ranges from the flag specs.

use std::collections::BTreeMap;
use std::future::Future;
use std::io::Write as _;
use std::path::PathBuf;

use crate::compare::{ModelInputs, Prediction};
use crate::error::LiveError;
use crate::load::{
    self, CLIENT_TIMEOUT_MS, LoadConfig, LoadSettings, MAX_PLAN_SECONDS, RATE, RateRow, SECONDS, SEED, TIMELINE_MS,
    Target,
};
use crate::measure::{DEFAULT_SAMPLES, MeasureConfig, SAMPLES, measure};
use crate::progress::Progress;
use crate::server::{
    self, ADDR_ACCEPTED, BUDGET_MS, HEADER_TIMEOUT_MS, LIMIT, MAX_CONNECTIONS_FLAG, SLOWDOWN_AT_ACCEPTED,
    SLOWDOWN_FACTOR, SPIN_MS, ServeConfig, ServeSettings, WAIT_MS, WORKERS, parse_addr, parse_door, parse_slowdown_at,
};

const SERVE: ServeSettings = ServeSettings::DEFAULT;

/// The default target: the default `serve` address.
fn default_target() -> String {
    format!("http://{}/", SERVE.addr)
}

fn rates_text(rates: &[f64]) -> String {
    rates.iter().map(|&r| load::format_rate(r)).collect::<Vec<_>>().join(",")
}

fn rate_help() -> String {
    format!(
        "offered rates, comma-separated (default {}; with --check and no --rate, only the check runs); {}",
        rates_text(&load::LESSON_RATES_RPS),
        RATE.list_accepted(load::MAX_RATES)
    )
}

fn seconds_help() -> String {
    format!("{}; rates × seconds at most {MAX_PLAN_SECONDS}", SECONDS.help())
}

/// `bplab serve`: run the live service.
#[derive(Debug, Clone, clap::Args)]
pub struct ServeArgs {
    /// Worker slots (see [`WORKERS`]).
    #[arg(long, default_value_t = SERVE.workers.to_string(), allow_hyphen_values = true, help = WORKERS.help())]
    pub workers: String,
    /// CPU busy-spin per request, ms (see [`SPIN_MS`]).
    #[arg(long, default_value_t = SERVE.spin_ms.to_string(), allow_hyphen_values = true, help = SPIN_MS.help())]
    pub spin_ms: String,
    /// Sleep per request after the spin, ms (see [`WAIT_MS`]).
    #[arg(long, default_value_t = SERVE.wait_ms.to_string(), allow_hyphen_values = true, help = WAIT_MS.help())]
    pub wait_ms: String,
    /// The door: requests allowed to wait for a slot, `off`, or an adaptive
    /// controller's name (see [`LIMIT`] and [`crate::server::parse_door`]).
    #[arg(long, default_value = "off", allow_hyphen_values = true, help = LIMIT.help())]
    pub limit: String,
    /// A completion slower than this is a dropped sample (see [`BUDGET_MS`]).
    #[arg(long, allow_hyphen_values = true, help = BUDGET_MS.help())]
    pub budget_ms: Option<String>,
    /// The deploy: from this long after start, spin and wait are multiplied
    /// by `--slowdown-factor`.
    #[arg(
        long,
        allow_hyphen_values = true,
        value_name = "DURATION",
        help = format!("the deploy: requests starting service after this take --slowdown-factor times their spin \
                        and wait; {SLOWDOWN_AT_ACCEPTED}")
    )]
    pub slowdown_at: Option<String>,
    /// The deploy's multiplier (see [`SLOWDOWN_FACTOR`]); only with `--slowdown-at`.
    #[arg(long, allow_hyphen_values = true, help = format!("{} (default 2)", SLOWDOWN_FACTOR.help()))]
    pub slowdown_factor: Option<String>,
    /// Controller setting (as `bplab limiter`).
    #[arg(long, allow_hyphen_values = true, value_name = "N", help = server::setting_help("initial-limit"))]
    pub initial_limit: Option<String>,
    /// Controller setting (as `bplab limiter`).
    #[arg(long, allow_hyphen_values = true, value_name = "N", help = server::setting_help("min-limit"))]
    pub min_limit: Option<String>,
    /// Controller setting (as `bplab limiter`).
    #[arg(long, allow_hyphen_values = true, value_name = "N", help = server::setting_help("max-limit"))]
    pub max_limit: Option<String>,
    /// Controller setting (as `bplab limiter`).
    #[arg(long, allow_hyphen_values = true, value_name = "X", help = server::setting_help("backoff-ratio"))]
    pub backoff_ratio: Option<String>,
    /// Controller setting (as `bplab limiter`).
    #[arg(long, allow_hyphen_values = true, value_name = "X", help = server::setting_help("timeout-ms"))]
    pub timeout_ms: Option<String>,
    /// Controller setting (as `bplab limiter`).
    #[arg(long, allow_hyphen_values = true, value_name = "X", help = server::setting_help("smoothing"))]
    pub smoothing: Option<String>,
    /// Controller setting (as `bplab limiter`).
    #[arg(long, allow_hyphen_values = true, value_name = "N", help = server::setting_help("alpha"))]
    pub alpha: Option<String>,
    /// Controller setting (as `bplab limiter`).
    #[arg(long, allow_hyphen_values = true, value_name = "N", help = server::setting_help("beta"))]
    pub beta: Option<String>,
    /// Controller setting (as `bplab limiter`).
    #[arg(long, allow_hyphen_values = true, value_name = "N", help = server::setting_help("threshold"))]
    pub threshold: Option<String>,
    /// Controller setting (as `bplab limiter`).
    #[arg(long, allow_hyphen_values = true, value_name = "N", help = server::setting_help("probe-multiplier"))]
    pub probe_multiplier: Option<String>,
    /// Controller setting (as `bplab limiter`).
    #[arg(long, allow_hyphen_values = true, value_name = "N", help = server::setting_help("long-window"))]
    pub long_window: Option<String>,
    /// Controller setting (as `bplab limiter`).
    #[arg(long, allow_hyphen_values = true, value_name = "X", help = server::setting_help("rtt-tolerance"))]
    pub rtt_tolerance: Option<String>,
    /// Controller setting (as `bplab limiter`).
    #[arg(long, allow_hyphen_values = true, value_name = "N", help = server::setting_help("queue-size"))]
    pub queue_size: Option<String>,
    /// Controller setting (as `bplab limiter`).
    #[arg(long, allow_hyphen_values = true, value_name = "N", help = server::setting_help("probe-interval"))]
    pub probe_interval: Option<String>,
    /// Controller setting (as `bplab limiter`).
    #[arg(long, allow_hyphen_values = true, value_name = "N", help = server::setting_help("seed"))]
    pub seed: Option<String>,
    /// CoDel setting (as `bplab codel`).
    #[arg(long, allow_hyphen_values = true, value_name = "N", help = server::setting_help("target-ms"))]
    pub target_ms: Option<String>,
    /// CoDel setting (as `bplab codel`).
    #[arg(long, allow_hyphen_values = true, value_name = "N", help = server::setting_help("interval-ms"))]
    pub interval_ms: Option<String>,
    /// Listen address; port 0 picks a free port (printed on start).
    #[arg(long, default_value_t = SERVE.addr.to_string(), help = format!("listen address; {ADDR_ACCEPTED}"))]
    pub addr: String,
    /// Open connections at once (see [`MAX_CONNECTIONS_FLAG`]).
    #[arg(
        long,
        default_value_t = SERVE.max_connections.to_string(),
        allow_hyphen_values = true,
        help = MAX_CONNECTIONS_FLAG.help()
    )]
    pub max_connections: String,
    /// Time a client gets to send the request head, ms (see
    /// [`HEADER_TIMEOUT_MS`]).
    #[arg(
        long,
        default_value_t = SERVE.header_read_timeout_ms.to_string(),
        allow_hyphen_values = true,
        help = HEADER_TIMEOUT_MS.help()
    )]
    pub header_timeout_ms: String,
}

/// `bplab load`: open-loop Poisson load against a running service.
#[derive(Debug, Clone, clap::Args)]
pub struct LoadArgs {
    /// Target URL (http only; loopback only unless --allow-non-loopback).
    #[arg(long, default_value_t = default_target())]
    pub target: String,
    /// Offered rates, requests per second, comma-separated (see [`RATE`]);
    /// absent = the lesson's sweep, or only the check with `--check`.
    #[arg(long, allow_hyphen_values = true, help = rate_help())]
    pub rate: Option<String>,
    /// Sending window per rate, seconds (see [`SECONDS`]).
    #[arg(long, default_value_t = load::format_rate(load::DEFAULT_SECONDS), allow_hyphen_values = true, help = seconds_help())]
    pub seconds: String,
    /// Seed of the arrival schedule (see [`SEED`]).
    #[arg(long, default_value_t = load::DEFAULT_SEED.to_string(), allow_hyphen_values = true, help = SEED.help())]
    pub seed: String,
    /// Give up on a request this long after its send time, ms (see
    /// [`CLIENT_TIMEOUT_MS`]).
    #[arg(
        long,
        default_value_t = load::DEFAULT_CLIENT_TIMEOUT_MS.to_string(),
        allow_hyphen_values = true,
        help = CLIENT_TIMEOUT_MS.help()
    )]
    pub client_timeout_ms: String,
    /// First print the server's configuration line from /stats.
    #[arg(long)]
    pub check: bool,
    /// Also write the table as CSV to FILE.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Allow a target outside 127.0.0.0/8 and ::1 (only hosts you own).
    #[arg(long)]
    pub allow_non_loopback: bool,
    /// Measure the service time first and print the core admission model's
    /// prediction (ok/s, p99) beside each measured row (with `--timeline`,
    /// also the adaptive model's timeline beside the live one).
    #[arg(long)]
    pub compare: bool,
    /// Also print a per-window table of each rate (see [`TIMELINE_MS`]).
    #[arg(long, value_name = "MS", allow_hyphen_values = true, help = TIMELINE_MS.help())]
    pub timeline: Option<String>,
    /// No live progress line (it is drawn only when stdout is a terminal);
    /// the rows are printed as each rate finishes either way.
    #[arg(short, long)]
    pub quiet: bool,
}

/// `bplab measure`: service time at low load.
#[derive(Debug, Clone, clap::Args)]
pub struct MeasureArgs {
    /// Target URL (http only; loopback only unless --allow-non-loopback).
    #[arg(long, default_value_t = default_target())]
    pub target: String,
    /// Sequential requests to measure after the warm-up (see [`SAMPLES`]).
    #[arg(long, default_value_t = DEFAULT_SAMPLES.to_string(), allow_hyphen_values = true, help = SAMPLES.help())]
    pub samples: String,
    /// Latency budget to derive the admission limit for, ms (the range is
    /// the core limit calculator's, see [`crate::measure::budget_accepted`]).
    #[arg(
        long,
        default_value_t = crate::measure::DEFAULT_BUDGET_MS.to_string(),
        allow_hyphen_values = true,
        help = format!("latency budget to derive the admission limit for; {}", crate::measure::budget_accepted())
    )]
    pub budget_ms: String,
    /// Allow a target outside 127.0.0.0/8 and ::1 (only hosts you own).
    #[arg(long)]
    pub allow_non_loopback: bool,
}

impl ServeArgs {
    /// The controller settings given, by flag name without `--`, as typed.
    fn controller_settings(&self) -> BTreeMap<String, String> {
        let all = [
            ("initial-limit", &self.initial_limit),
            ("min-limit", &self.min_limit),
            ("max-limit", &self.max_limit),
            ("backoff-ratio", &self.backoff_ratio),
            ("timeout-ms", &self.timeout_ms),
            ("smoothing", &self.smoothing),
            ("alpha", &self.alpha),
            ("beta", &self.beta),
            ("threshold", &self.threshold),
            ("probe-multiplier", &self.probe_multiplier),
            ("long-window", &self.long_window),
            ("rtt-tolerance", &self.rtt_tolerance),
            ("queue-size", &self.queue_size),
            ("probe-interval", &self.probe_interval),
            ("seed", &self.seed),
            ("target-ms", &self.target_ms),
            ("interval-ms", &self.interval_ms),
        ];
        all.into_iter().filter_map(|(name, v)| v.as_ref().map(|t| (name.to_string(), t.clone()))).collect()
    }

    /// Validate every flag into a [`ServeConfig`] (nothing is bound yet).
    pub fn to_config(&self) -> Result<ServeConfig, LiveError> {
        let given = self.controller_settings();
        let door = parse_door(&self.limit, &given)?;
        let slowdown_at_ms = self.slowdown_at.as_deref().map(parse_slowdown_at).transpose()?;
        let slowdown_factor = match (&self.slowdown_factor, slowdown_at_ms) {
            (Some(t), Some(_)) => SLOWDOWN_FACTOR.parse(t)?,
            (Some(t), None) => {
                return Err(LiveError::OutOfRange {
                    flag: SLOWDOWN_FACTOR.name,
                    value: t.clone(),
                    accepted: "a factor only together with --slowdown-at".to_string(),
                });
            }
            (None, _) => SERVE.slowdown_factor,
        };
        let cfg = ServeConfig::new(ServeSettings {
            workers: WORKERS.parse_usize(&self.workers)?,
            spin_ms: SPIN_MS.parse(&self.spin_ms)?,
            wait_ms: WAIT_MS.parse(&self.wait_ms)?,
            limit: door.queue_limit(),
            addr: parse_addr(&self.addr)?,
            max_connections: MAX_CONNECTIONS_FLAG.parse_usize(&self.max_connections)?,
            header_read_timeout_ms: HEADER_TIMEOUT_MS.parse(&self.header_timeout_ms)?,
            budget_ms: self.budget_ms.as_deref().map(|t| BUDGET_MS.parse(t)).transpose()?,
            slowdown_at_ms,
            slowdown_factor,
        })?;
        Ok(cfg.with_door(door, given))
    }
}

impl LoadArgs {
    /// Validate every flag into a [`LoadConfig`] (the lesson's rates when
    /// `--rate` is absent). Nothing is resolved or sent yet.
    pub fn to_config(&self) -> Result<LoadConfig, LiveError> {
        let lesson = LoadSettings::lesson(Target::parse(&self.target)?);
        LoadConfig::new(LoadSettings {
            rates_rps: match &self.rate {
                Some(text) => load::parse_rates(text)?,
                None => lesson.rates_rps.clone(),
            },
            seconds: SECONDS.parse(&self.seconds)?,
            seed: SEED.parse(&self.seed)?,
            client_timeout_ms: CLIENT_TIMEOUT_MS.parse(&self.client_timeout_ms)?,
            check: self.check,
            csv: self.csv.clone(),
            allow_non_loopback: self.allow_non_loopback,
            compare: self.compare,
            timeline_ms: self.timeline.as_deref().map(|t| TIMELINE_MS.parse(t)).transpose()?,
            ..lesson
        })
    }

    /// True when the run is the acceptance check alone (`--check`, no `--rate`).
    pub fn check_only(&self) -> bool {
        self.check && self.rate.is_none()
    }
}

impl MeasureArgs {
    /// Validate every flag, `--budget-ms` included, into a
    /// [`MeasureConfig`] before anything is resolved or sent.
    pub fn to_config(&self) -> Result<MeasureConfig, LiveError> {
        MeasureConfig::new(
            Target::parse(&self.target)?,
            SAMPLES.parse_usize(&self.samples)?,
            crate::measure::parse_budget_ms(&self.budget_ms)?,
            self.allow_non_loopback,
        )
    }
}

/// Build the runtime (2 worker threads) and run `fut` on it.
fn block_on<T>(fut: impl Future<Output = Result<T, LiveError>>) -> Result<T, LiveError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|source| LiveError::Io { context: "cannot start the async runtime", source })?
        .block_on(fut)
}

/// Completes on Ctrl-C (or SIGTERM on Unix). If no handler can be
/// installed it never completes.
async fn stop_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = term => {}
    }
}

/// Run the service until Ctrl-C, printing the bound address first.
pub fn run_serve(args: ServeArgs) -> Result<(), LiveError> {
    let cfg = args.to_config()?;
    let line = cfg.stats_config().config_line();
    let warnings = server::start_warnings(&cfg, server::open_file_limit());
    block_on(async move {
        let bound = server::bind(cfg).await?;
        for w in &warnings {
            eprintln!("bplab-live: {w}");
        }
        println!("bplab-live listening on http://{}/  ({line})", bound.local_addr());
        let _ = std::io::stdout().flush();
        bound.run(stop_signal()).await?;
        println!("bplab-live stopped");
        Ok(())
    })
}

/// Run the load sweep (and `--check` / `--compare`), printing the table
/// row by row as each rate finishes, under a live progress line when stdout
/// is a terminal (not with `-q/--quiet`).
/// Every flag is checked, the target resolved and the CSV file created
/// before the first request.
pub fn run_load(args: LoadArgs) -> Result<(), LiveError> {
    let cfg = args.to_config()?;
    let quiet = args.quiet;
    let check_only = args.check_only();
    block_on(async move {
        // Refuse a non-loopback target before printing or sending anything.
        let addr = cfg.target().resolve(cfg.allow_non_loopback()).await?;
        // Create the CSV file up front so a bad path fails before any request.
        let csv_error = |path: &std::path::Path, source| LiveError::Csv { path: path.to_path_buf(), source };
        let mut csv_file = match cfg.csv() {
            Some(path) if !check_only => Some((path, std::fs::File::create(path).map_err(|e| csv_error(path, e))?)),
            _ => None,
        };
        if cfg.check() {
            let stats = load::client::get_stats(addr, &cfg.target().host_header()).await?;
            println!("target {}", cfg.target());
            println!("{}", stats.config.config_line());
            if check_only {
                return Ok(());
            }
        }
        let (predictions, service_ms) = if cfg.compare() { predictions_for(&cfg).await? } else { (Vec::new(), None) };
        // The header waits for the first row, so a target where nothing
        // listens gives one error line and no table.
        let progress = std::cell::RefCell::new(Progress::new(quiet, cfg.compare()));
        let rows = load::sweep_with_progress(
            &cfg,
            &predictions,
            |row| {
                progress.borrow_mut().row(row);
                print_timeline(&cfg, row, service_ms);
            },
            |tick| progress.borrow_mut().tick(tick),
        )
        .await;
        progress.borrow_mut().clear();
        let rows = rows?;
        if let Some((path, file)) = csv_file.as_mut() {
            file.write_all(load::to_csv(&rows, cfg.compare()).as_bytes()).map_err(|e| csv_error(path, e))?;
        }
        Ok(())
    })
}

/// Measure, print the measurement and the model's assumptions, and predict
/// every rate of the sweep; also return the service time the models use.
async fn predictions_for(cfg: &LoadConfig) -> Result<(Vec<Prediction>, Option<f64>), LiveError> {
    let m = measure(cfg.target(), DEFAULT_SAMPLES, cfg.allow_non_loopback()).await?;
    println!("{}", m.summary());
    let inputs = ModelInputs::from_measurement(&m, cfg)?;
    println!("{}", inputs.describe());
    if let Some(door) = m.server.as_ref().map(|s| s.door_name()).filter(|d| !matches!(*d, "fixed" | "off")) {
        println!(
            "note: the per-rate model has no {door} door (it runs queue limit off); the timeline model \
             (--timeline) runs the server's controller"
        );
    }
    let predictions = cfg.rates_rps().iter().map(|&rate| inputs.predict(rate)).collect::<Result<_, _>>()?;
    Ok((predictions, Some(inputs.service_ms)))
}

/// Print a row's timeline (`--timeline`), with the adaptive model's
/// windows beside it when `service_ms` was measured (`--compare`).
fn print_timeline(cfg: &LoadConfig, row: &RateRow, service_ms: Option<f64>) {
    let Some(t) = &row.timeline else { return };
    let mut t = t.clone();
    if let Some(service_ms) = service_ms {
        let arrivals = load::schedule(row.offered_rps, cfg.seconds(), cfg.seed(), load::MAX_PLAN_REQUESTS);
        match crate::timeline_model::model_timeline(&t, &arrivals, service_ms, cfg.client_timeout_ms(), cfg.seconds()) {
            Ok(m) => t.model = Some(m),
            Err(e) => eprintln!("bplab: no model timeline: {e}"),
        }
    }
    println!("{}", load::format_timeline(row.offered_rps, &t));
    let _ = std::io::stdout().flush();
}

/// Measure the service time, print the summary and return the measurement
/// (the `bplab` binary then derives the limit from it with
/// [`MeasureConfig::budget_ms`]). `cfg` comes from
/// [`MeasureArgs::to_config`], so every flag was checked before this sends
/// anything.
pub fn run_measure(cfg: &MeasureConfig) -> Result<crate::Measurement, LiveError> {
    block_on(async move {
        let m = measure(cfg.target(), cfg.samples(), cfg.allow_non_loopback()).await?;
        println!("{}", m.summary());
        Ok(m)
    })
}
