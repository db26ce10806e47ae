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

use crate::compare::ModelInputs;
use crate::error::LiveError;
use crate::load::policy::{self, ClientPolicy};
use crate::load::{
    self, CLIENT_TIMEOUT_MS, LoadConfig, LoadSettings, MAX_PLAN_SECONDS, RATE, RateRow, SECONDS, SEED, TIMELINE_MS,
    Target,
};
use crate::measure::{DEFAULT_SAMPLES, MeasureConfig, SAMPLES, measure};
use crate::progress::Progress;
use crate::server::{
    self, ADDR_ACCEPTED, BUDGET_MS, HEADER_TIMEOUT_MS, LIMIT, MAX_CONNECTIONS_FLAG, RETRY_AFTER_S,
    SLOWDOWN_AT_ACCEPTED, SLOWDOWN_FACTOR, SLOWDOWN_FOR_ACCEPTED, SPIN_MS, ServeConfig, ServeSettings, WAIT_MS,
    WORKERS, parse_addr, parse_door, parse_slowdown_at, parse_slowdown_for,
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
    /// How long the deploy lasts (a bounded trigger); only with `--slowdown-at`.
    #[arg(
        long,
        allow_hyphen_values = true,
        value_name = "DURATION",
        help = format!("the deploy ends this long after --slowdown-at (a bounded trigger: requests starting \
                        service later are not slowed); {SLOWDOWN_FOR_ACCEPTED}")
    )]
    pub slowdown_for: Option<String>,
    /// `Retry-After` of the door's 503s, seconds (see [`RETRY_AFTER_S`]).
    #[arg(long, default_value_t = SERVE.retry_after_s.to_string(), allow_hyphen_values = true, help = RETRY_AFTER_S.help())]
    pub retry_after_s: String,
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
    /// Measure the service time first and print the model's prediction
    /// (ok/s, p99) beside each measured row, from the core's adaptive
    /// engine with the server's door, deploy and `/config` changes (with
    /// `--timeline`, also its windows beside the live ones).
    #[arg(long)]
    pub compare: bool,
    /// Also print a per-window table of each rate (see [`TIMELINE_MS`]).
    #[arg(long, value_name = "MS", allow_hyphen_values = true, help = TIMELINE_MS.help())]
    pub timeline: Option<String>,
    /// Retries per request (see [`policy::RETRIES`]).
    #[arg(long, default_value = "0", allow_hyphen_values = true, help = policy::RETRIES.help())]
    pub retries: String,
    /// The backoff's growth: `fixed` or `exponential`.
    #[arg(long, default_value = "fixed", help = format!("how the wait before each retry grows; {}", policy::BACKOFF_ACCEPTED))]
    pub backoff: String,
    /// The backoff's base wait, ms (see [`policy::BACKOFF_MS`]).
    #[arg(long, default_value_t = load::format_rate(policy::DEFAULT_BACKOFF_MS), allow_hyphen_values = true, help = policy::BACKOFF_MS.help())]
    pub backoff_ms: String,
    /// The backoff's cap, ms (see [`policy::BACKOFF_CAP_MS_FLAG`]).
    #[arg(
        long,
        allow_hyphen_values = true,
        help = format!("{} (default 2000, or --backoff-ms if larger)", policy::BACKOFF_CAP_MS_FLAG.help())
    )]
    pub backoff_cap_ms: Option<String>,
    /// The backoff's jitter (AWS "Exponential Backoff And Jitter").
    #[arg(long, default_value = "none", help = format!("jitter on the backoff (docs/client.md); {}", policy::JITTER_ACCEPTED))]
    pub jitter: String,
    /// A retry budget (see [`policy::RETRY_BUDGET_ACCEPTED`]).
    #[arg(long, allow_hyphen_values = true, value_name = "RATIO[,FLOOR_RPS[,MAX_TOKENS]]", help = format!("a retry budget: each retry spends a token, each on-time answer earns RATIO, the clock FLOOR_RPS per second; {}", policy::RETRY_BUDGET_ACCEPTED))]
    pub retry_budget: Option<String>,
    /// SRE adaptive throttling's K (see [`policy::THROTTLE_K`]).
    #[arg(long, allow_hyphen_values = true, value_name = "K", help = policy::THROTTLE_K.help())]
    pub throttle_k: Option<String>,
    /// The throttle's counting window, ms (see [`policy::THROTTLE_WINDOW`]).
    #[arg(long, allow_hyphen_values = true, value_name = "MS", help = format!("{} (default 2000)", policy::THROTTLE_WINDOW.help()))]
    pub throttle_window_ms: Option<String>,
    /// Wait at least a 503's `Retry-After` before retrying it.
    #[arg(long)]
    pub honour_retry_after: bool,
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
        let slowdown_for_ms = match (&self.slowdown_for, slowdown_at_ms) {
            (Some(t), Some(_)) => Some(parse_slowdown_for(t)?),
            (Some(t), None) => {
                return Err(LiveError::OutOfRange {
                    flag: "slowdown-for",
                    value: t.clone(),
                    accepted: "a length only together with --slowdown-at".to_string(),
                });
            }
            (None, _) => None,
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
            slowdown_for_ms,
            retry_after_s: RETRY_AFTER_S.parse(&self.retry_after_s)?,
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
            policy: self.policy()?,
            ..lesson
        })
    }

    /// The client policy flags as the core's client settings.
    fn policy(&self) -> Result<ClientPolicy, LiveError> {
        let max_retries =
            u32::try_from(policy::RETRIES.parse(&self.retries)?).map_err(|_| policy::RETRIES.error(&self.retries))?;
        let backoff =
            policy::parse_backoff(&self.backoff, &self.jitter, &self.backoff_ms, self.backoff_cap_ms.as_deref())?;
        Ok(ClientPolicy {
            retry: bplab_core::stochastic::Retry { max_retries, backoff },
            budget: self.retry_budget.as_deref().map(policy::parse_retry_budget).transpose()?,
            throttle: policy::parse_throttle(self.throttle_k.as_deref(), self.throttle_window_ms.as_deref())?,
            honour_retry_after: self.honour_retry_after,
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

/// SIGINT and SIGTERM (Ctrl-C elsewhere), installed once so that no
/// signal between two waits is lost.
struct Signals {
    #[cfg(unix)]
    int: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    term: Option<tokio::signal::unix::Signal>,
}

impl Signals {
    /// Install the handlers (on the current runtime).
    fn install() -> Self {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Signals { int: signal(SignalKind::interrupt()).ok(), term: signal(SignalKind::terminate()).ok() }
        }
        #[cfg(not(unix))]
        Signals {}
    }

    /// The next signal. If no handler could be installed it never completes.
    async fn next(&mut self) {
        #[cfg(unix)]
        {
            let int = async {
                match self.int.as_mut() {
                    Some(s) => {
                        s.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            let term = async {
                match self.term.as_mut() {
                    Some(s) => {
                        s.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                () = int => {}
                () = term => {}
            }
        }
        #[cfg(not(unix))]
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// Completes on Ctrl-C (or SIGTERM on Unix).
async fn stop_signal() {
    Signals::install().next().await;
}

/// The CSV of `bplab load --csv PATH`: rows are written to a temporary file
/// beside PATH (created before the first request, so a bad path fails
/// first) and renamed over PATH once complete, so an existing file is
/// replaced only by a whole one.
struct CsvOut {
    path: PathBuf,
    tmp: PathBuf,
}

impl CsvOut {
    fn create(path: &std::path::Path) -> Result<Self, LiveError> {
        let name = path.file_name().map_or_else(|| "out.csv".into(), |n| n.to_string_lossy().into_owned());
        let tmp = path.with_file_name(format!(".{name}.bplab-{}.tmp", std::process::id()));
        std::fs::File::create(&tmp).map_err(|source| LiveError::Csv { path: path.to_path_buf(), source })?;
        Ok(CsvOut { path: path.to_path_buf(), tmp })
    }

    /// Write `text` to the temporary file, then rename it over the path.
    fn commit(self, text: &str) -> Result<PathBuf, LiveError> {
        let fail = |source| LiveError::Csv { path: self.path.clone(), source };
        let mut f = std::fs::File::create(&self.tmp).map_err(fail)?;
        f.write_all(text.as_bytes()).and_then(|()| f.sync_all()).map_err(fail)?;
        drop(f);
        std::fs::rename(&self.tmp, &self.path).map_err(fail)?;
        Ok(self.path.clone())
    }

    /// Give up: the existing file stays as it was.
    fn discard(&self) {
        let _ = std::fs::remove_file(&self.tmp);
    }
}

/// Run the service until Ctrl-C, printing the bound address first.
pub fn run_serve(args: ServeArgs) -> Result<(), LiveError> {
    let cfg = args.to_config()?;
    // Raise the soft open-file limit to what the cap needs, or lower the
    // cap to fit the hard limit, and say which.
    let (cap, fitted) = server::fit_to_open_files(cfg.max_connections());
    let cfg = cfg.with_max_connections(cap);
    let line = cfg.stats_config().config_line();
    let mut warnings: Vec<String> = fitted.into_iter().collect();
    warnings.extend(server::start_warnings(&cfg, server::open_file_limit()));
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
/// Every flag is checked, the target resolved and the CSV's temporary file
/// created before the first request.
///
/// On SIGINT or SIGTERM it stops sending, waits for the answers in flight
/// (each up to the client timeout), prints the interrupted rate's row
/// marked `partial`, writes every row so far to `--csv` (partial column 1
/// on the last) and returns [`LiveError::Interrupted`] (exit 130); a second
/// signal exits 130 at once, writing nothing.
pub fn run_load(args: LoadArgs) -> Result<(), LiveError> {
    let cfg = args.to_config()?;
    let quiet = args.quiet;
    let check_only = args.check_only();
    block_on(async move {
        let mut signals = Signals::install();
        // Refuse a non-loopback target before printing or sending anything.
        let addr = cfg.target().resolve(cfg.allow_non_loopback()).await?;
        let csv = match cfg.csv() {
            Some(path) if !check_only => Some(CsvOut::create(path)?),
            _ => None,
        };
        let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
        let tmp = csv.as_ref().map(|c| c.tmp.clone());
        tokio::spawn(async move {
            signals.next().await;
            eprintln!(
                "bplab: interrupted: no more requests are sent; waiting for the answers in flight (a second \
                 signal exits at once)"
            );
            let _ = stop_tx.send(true);
            signals.next().await;
            if let Some(tmp) = tmp {
                let _ = std::fs::remove_file(tmp);
            }
            eprintln!("bplab: interrupted again: exiting at once, nothing written");
            std::process::exit(130);
        });
        let result = load_rows(&cfg, addr, quiet, check_only, load::Stop::new(stop_rx.clone())).await;
        let interrupted = *stop_rx.borrow();
        match (result, csv) {
            (Err(e), csv) => {
                if let Some(c) = csv {
                    c.discard();
                }
                Err(e)
            }
            // Interrupted before any row (during --compare's measurement):
            // the older file stays, not a header-only one.
            (Ok(rows), Some(c)) if interrupted && rows.is_empty() => {
                c.discard();
                Err(LiveError::Interrupted { csv: None })
            }
            (Ok(rows), Some(c)) => {
                let written = c.commit(&load::to_csv(&rows, cfg.compare()))?;
                if interrupted {
                    Err(LiveError::Interrupted { csv: Some(written) })
                } else {
                    no_success(&rows, cfg.client_timeout_ms())
                }
            }
            (Ok(_), None) if interrupted => Err(LiveError::Interrupted { csv: None }),
            (Ok(rows), None) => no_success(&rows, cfg.client_timeout_ms()),
        }
    })
}

/// [`LiveError::NoSuccess`] when rows were measured and none of them got a
/// success status, naming what came back instead (statuses by count, the
/// give-ups at `timeout_ms`, other errors).
fn no_success(rows: &[RateRow], timeout_ms: u64) -> Result<(), LiveError> {
    if rows.is_empty() || rows.iter().any(|r| r.ok > 0) {
        return Ok(());
    }
    let mut statuses: BTreeMap<u16, u64> = BTreeMap::new();
    for r in rows {
        for (&code, &n) in &r.statuses {
            *statuses.entry(code).or_default() += n;
        }
    }
    let sent: u64 = rows.iter().map(|r| r.sent).sum();
    let gaveup: u64 = rows.iter().map(|r| r.gaveup).sum();
    let with_status: u64 = statuses.values().sum();
    let errors = rows
        .iter()
        .map(|r| r.error)
        .sum::<u64>()
        .saturating_sub(with_status - statuses.get(&503).copied().unwrap_or(0));
    let mut parts: Vec<String> = statuses
        .iter()
        .map(|(&code, &n)| {
            let reason = hyper::StatusCode::from_u16(code).ok().and_then(|s| s.canonical_reason()).unwrap_or("");
            format!("{n} × {code} {reason}").trim_end().to_string()
        })
        .collect();
    if gaveup > 0 {
        parts.push(format!("{gaveup} gave up at the {timeout_ms} ms client timeout"));
    }
    if errors > 0 {
        parts.push(format!("{errors} without an HTTP answer (connect, reset or not HTTP)"));
    }
    Err(LiveError::NoSuccess { seen: format!("of {sent} sent, {}", parts.join(", ")) })
}

/// The check, the measurement for the model and the sweep; the rows.
async fn load_rows(
    cfg: &LoadConfig,
    addr: std::net::SocketAddr,
    quiet: bool,
    check_only: bool,
    stop: load::Stop,
) -> Result<Vec<RateRow>, LiveError> {
    if cfg.check() {
        let stats = load::client::get_stats(addr, &cfg.target().host_header()).await?;
        println!("target {}", cfg.target());
        println!("{}", stats.config.config_line());
        if check_only {
            return Ok(Vec::new());
        }
    }
    if cfg.policy().is_active() || cfg.policy().honour_retry_after {
        println!("{}", cfg.policy().describe());
    }
    let model = if cfg.compare() { Some(model_inputs(cfg).await?) } else { None };
    // The header waits for the first row, so a target where nothing
    // listens gives one error line and no table.
    let progress = std::cell::RefCell::new(Progress::new(quiet, cfg.compare()));
    let rows = load::sweep_with_progress(
        cfg,
        model.as_ref(),
        |row| {
            progress.borrow_mut().row(row);
            for note in load::row_notes(row) {
                println!("note: {note}");
            }
            if let Some(note) = &row.model_note {
                println!("note: {note}");
            }
            if let (Some(range), Some(p)) = (&row.model_phase, &row.prediction)
                && range.sensitive(p.ok_per_sec, PHASE_NOTE_SHARE)
            {
                println!("note: {}", range.note(p.ok_per_sec, row.ok_per_sec));
            }
            if let Some(t) = &row.timeline {
                println!("{}", load::format_timeline(row.offered_rps, t));
            }
            let _ = std::io::stdout().flush();
        },
        |tick| progress.borrow_mut().tick(tick),
        stop,
    )
    .await;
    progress.borrow_mut().clear();
    rows
}

/// A row's model range wider than this share of its own ok/s either way
/// gets a note under the row (the 10 % the live comparison is held to).
pub const PHASE_NOTE_SHARE: f64 = 0.1;

/// Measure the service time and print the measurement and the model's
/// inputs.
async fn model_inputs(cfg: &LoadConfig) -> Result<ModelInputs, LiveError> {
    let m = measure(cfg.target(), DEFAULT_SAMPLES, cfg.allow_non_loopback()).await?;
    println!("{}", m.summary());
    let inputs = ModelInputs::from_measurement(&m, cfg)?;
    if let Some(server) = &m.server {
        println!("{}", inputs.describe(server));
    }
    Ok(inputs)
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
