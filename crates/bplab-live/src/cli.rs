//! Command-line arguments (`clap::Args`) and the blocking `run_*` entry
//! points the `bplab` binary calls for `serve`, `load` and `measure`.
//!
//! Flag values that need range checks are taken as text or plain numbers
//! and validated here, so every bad value comes back as a usage
//! [`LiveError`] (see [`LiveError::is_usage`]) naming the value.

use std::future::Future;
use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;

use crate::compare::{ModelInputs, Prediction};
use crate::error::LiveError;
use crate::load::{self, LoadConfig, Target, parse_rates};
use crate::measure::measure;
use crate::server::{self, ServeConfig, parse_limit};

/// The lesson's sweep, used when `--rate` is not given.
pub const DEFAULT_RATES: &str = "40,48,60,100";

/// `bplab serve`: run the live service.
#[derive(Debug, Clone, clap::Args)]
pub struct ServeArgs {
    /// Worker slots: requests in service at once (1..=1024).
    #[arg(long, default_value_t = 1)]
    pub workers: usize,
    /// CPU busy-spin per request, ms (0..=10000).
    #[arg(long, default_value_t = 2)]
    pub spin_ms: u64,
    /// Sleep per request after the spin, slot still held, ms (0..=60000).
    #[arg(long, default_value_t = 18)]
    pub wait_ms: u64,
    /// Requests allowed to wait for a slot (0..=100000), or `off` for no limit.
    #[arg(long, default_value = "off", allow_hyphen_values = true)]
    pub limit: String,
    /// Listen address; port 0 picks a free port (printed on start).
    #[arg(long, default_value = "127.0.0.1:8081")]
    pub addr: String,
    /// Open connections at once (1..=16384); more wait in the accept backlog.
    #[arg(long, default_value_t = 1024)]
    pub max_connections: usize,
    /// Time a client gets to send the request head, ms (1..=600000).
    #[arg(long, default_value_t = 5000)]
    pub header_timeout_ms: u64,
}

/// `bplab load`: open-loop Poisson load against a running service.
#[derive(Debug, Clone, clap::Args)]
pub struct LoadArgs {
    /// Target URL (http only; loopback only unless --allow-non-loopback).
    #[arg(long, default_value = "http://127.0.0.1:8081/")]
    pub target: String,
    /// Offered rates, requests per second, comma-separated (default
    /// 40,48,60,100; with --check and no --rate, only the check runs).
    #[arg(long, allow_hyphen_values = true)]
    pub rate: Option<String>,
    /// Sending window per rate, seconds (0.1..=600; rates x seconds <= 600).
    #[arg(long, default_value_t = 20.0, allow_hyphen_values = true)]
    pub seconds: f64,
    /// Seed of the arrival schedule.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Give up on a request this long after its send time, ms (1..=60000).
    #[arg(long, default_value_t = 2000)]
    pub client_timeout_ms: u64,
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
    /// prediction (ok/s, p99) beside each measured row.
    #[arg(long)]
    pub compare: bool,
}

/// `bplab measure`: service time at low load.
#[derive(Debug, Clone, clap::Args)]
pub struct MeasureArgs {
    /// Target URL (http only; loopback only unless --allow-non-loopback).
    #[arg(long, default_value = "http://127.0.0.1:8081/")]
    pub target: String,
    /// Sequential requests to measure after 3 warm-up requests (1..=1000).
    #[arg(long, default_value_t = 30)]
    pub samples: usize,
    /// Latency budget to derive the admission limit for, ms (the lesson's 230).
    #[arg(long, default_value_t = 230.0, allow_hyphen_values = true)]
    pub budget_ms: f64,
    /// Allow a target outside 127.0.0.0/8 and ::1 (only hosts you own).
    #[arg(long)]
    pub allow_non_loopback: bool,
}

impl ServeArgs {
    /// Validate into a [`ServeConfig`].
    pub fn to_config(&self) -> Result<ServeConfig, LiveError> {
        let addr: SocketAddr = self.addr.trim().parse().map_err(|_| LiveError::Unparsable {
            name: "addr",
            value: self.addr.clone(),
            expected: "IP:PORT, e.g. 127.0.0.1:8080 or [::1]:0",
        })?;
        ServeConfig::new(
            self.workers,
            self.spin_ms,
            self.wait_ms,
            parse_limit(&self.limit)?,
            addr,
            self.max_connections,
            self.header_timeout_ms,
        )
    }
}

impl LoadArgs {
    /// Validate into a [`LoadConfig`] (the default rates when `--rate` is
    /// absent).
    pub fn to_config(&self) -> Result<LoadConfig, LiveError> {
        let rates = parse_rates(self.rate.as_deref().unwrap_or(DEFAULT_RATES))?;
        LoadConfig::new(
            Target::parse(&self.target)?,
            rates,
            self.seconds,
            self.seed,
            self.client_timeout_ms,
            self.check,
            self.csv.clone(),
            self.allow_non_loopback,
            self.compare,
        )
    }

    /// True when the run is the acceptance check alone (`--check`, no `--rate`).
    pub fn check_only(&self) -> bool {
        self.check && self.rate.is_none()
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
    block_on(async move {
        let bound = server::bind(cfg).await?;
        println!("bplab-live listening on http://{}/  ({})", bound.local_addr(), cfg.stats_config().config_line());
        let _ = std::io::stdout().flush();
        bound.run(stop_signal()).await?;
        println!("bplab-live stopped");
        Ok(())
    })
}

/// Run the load sweep (and `--check` / `--compare`), printing the table.
pub fn run_load(args: LoadArgs) -> Result<(), LiveError> {
    let cfg = args.to_config()?;
    let check_only = args.check_only();
    block_on(async move {
        // Refuse a non-loopback target before printing or sending anything.
        let addr = cfg.target().resolve(cfg.allow_non_loopback()).await?;
        if cfg.check() {
            let stats = load::client::get_stats(addr, &cfg.target().host_header()).await?;
            println!("target {}", cfg.target());
            println!("{}", stats.config.config_line());
            if check_only {
                return Ok(());
            }
        }
        // Create the CSV file up front so a bad path fails before the sweep.
        let csv_error = |path: &std::path::Path, source| LiveError::Csv { path: path.to_path_buf(), source };
        let mut csv_file = match cfg.csv() {
            Some(path) => Some((path, std::fs::File::create(path).map_err(|e| csv_error(path, e))?)),
            None => None,
        };
        let predictions = if cfg.compare() { predictions_for(&cfg).await? } else { Vec::new() };
        println!("{}", load::header(cfg.compare()));
        let rows = load::sweep(&cfg, &predictions, |row| {
            println!("{}", load::format_row(row, cfg.compare()));
            let _ = std::io::stdout().flush();
        })
        .await?;
        if let Some((path, file)) = csv_file.as_mut() {
            file.write_all(load::to_csv(&rows, cfg.compare()).as_bytes()).map_err(|e| csv_error(path, e))?;
        }
        Ok(())
    })
}

/// Measure, print the measurement and the model's assumptions, and predict
/// every rate of the sweep.
async fn predictions_for(cfg: &LoadConfig) -> Result<Vec<Prediction>, LiveError> {
    let m = measure(cfg.target(), 30, cfg.allow_non_loopback()).await?;
    println!("{}", m.summary());
    let inputs = ModelInputs::from_measurement(&m, cfg)?;
    println!("{}", inputs.describe());
    cfg.rates_rps().iter().map(|&rate| inputs.predict(rate)).collect()
}

/// Measure the service time, print the summary and return the measurement
/// (the `bplab` binary then derives the limit from it).
pub fn run_measure(args: &MeasureArgs) -> Result<crate::Measurement, LiveError> {
    let target = Target::parse(&args.target)?;
    crate::error::check_range("samples", args.samples, 1, crate::measure::MAX_SAMPLES, "1..=1000")?;
    block_on(async move {
        let m = measure(&target, args.samples, args.allow_non_loopback).await?;
        println!("{}", m.summary());
        Ok(m)
    })
}
