//! `bplab limiter` and `bplab codel`: replay a sample log through one
//! controller of the core and print what it decides after each sample.

use std::io::{self, BufRead, Write};

use clap::{Arg, ArgAction, ArgMatches, Command};

use bplab_core::control::{
    Algorithm, Codel, CodelConfig, ControlError, Limiter, LimiterConfig, Sample, limiter_config as limiter_config_from,
    parse_ms_ns, truncate_to_whole_ms,
};

use crate::Failure;

use Algorithm::{Aimd as A, Gradient as G, Gradient2 as G2, Vegas as V};

/// The algorithms `bplab limiter` replays (a fixed limit has nothing to replay).
const REPLAYED: [Algorithm; 4] = [A, V, G2, G];

/// One limiter flag: its value name, help, and the algorithms that have the setting.
struct Setting(&'static str, &'static str, &'static str, &'static [Algorithm]);

const SETTINGS: &[Setting] = &[
    Setting("initial-limit", "N", "Limit before any sample (never clamped)", &[A, V, G2, G]),
    Setting("min-limit", "N", "Floor of the limit", &[A, G2, G]),
    Setting("max-limit", "N", "Ceiling of the limit (maxConcurrency)", &[A, V, G2, G]),
    Setting("backoff-ratio", "X", "Multiplier on a drop", &[A, G]),
    Setting("timeout-ms", "X", "An rtt strictly above this counts as a drop", &[A]),
    Setting("smoothing", "X", "Weight of the new value, 0 to 1", &[V, G2, G]),
    Setting("alpha", "N", "Constant alpha (default 3 × lg(limit))", &[V]),
    Setting("beta", "N", "Constant beta (default 6 × lg(limit))", &[V]),
    Setting("threshold", "N", "Constant threshold (default lg(limit))", &[V]),
    Setting("probe-multiplier", "N", "Probe after jitter × N × limit samples", &[V]),
    Setting("jitter", "J1,J2,…", "Probe jitter draws in [0.5, 1), in order, the last repeating", &[V]),
    Setting("long-window", "N", "Samples of the long-RTT average", &[G2]),
    Setting("rtt-tolerance", "X", "Latency rise tolerated before shrinking, >= 1.0", &[G2, G]),
    Setting("queue-size", "N", "Constant queue size (gradient default: max(4, isqrt(limit)))", &[G2, G]),
    Setting("probe-interval", "N", "Samples between probes; -1 disables", &[G]),
    Setting("probe-offset", "O1,O2,…", "Probe countdown offsets, in order, the last repeating", &[G]),
    Setting("seed", "N", "Seed of the draws not given by --jitter / --probe-offset (default 0)", &[V, G]),
];

fn names(algos: &[Algorithm]) -> String {
    algos.iter().map(|a| a.name()).collect::<Vec<_>>().join(", ")
}

/// `bplab limiter ALGO [flags] < samples`.
pub fn limiter_command() -> Command {
    let mut cmd = Command::new("limiter")
        .about("Replay `rtt_ms inflight dropped` samples through an adaptive limiter")
        .long_about(
            "Reads one sample per line from stdin, `rtt_ms inflight dropped` (rtt_ms above 0 with at most 6 \
             decimals, exact to the ns; inflight a whole number; dropped 0 or 1; blank lines and # comments \
             skipped) and prints the limit after each sample, one integer per line. Netflix concurrency-limits \
             semantics; unset flags take the library's defaults.",
        )
        .arg(Arg::new("algo").value_name("ALGO").required(true).help(format!("One of: {}", names(&REPLAYED))));
    for Setting(flag, value, help, algos) in SETTINGS {
        let help = format!("{help} [{}]", names(algos));
        cmd = cmd.arg(Arg::new(*flag).long(*flag).value_name(*value).allow_negative_numbers(true).help(help));
    }
    cmd
}

/// `bplab codel [flags] < lines`.
pub fn codel_command() -> Command {
    let ms = |name: &'static str, value: &'static str, help: &'static str| {
        Arg::new(name).long(name).value_name(value).allow_negative_numbers(true).help(help)
    };
    Command::new("codel")
        .about("Replay `now_ms queue_delay_ms` calls through request-queue CoDel")
        .long_about(
            "Reads one call per line from stdin, `now_ms queue_delay_ms` (decimals allowed, exact to the ns), or \
             `set TARGET_MS INTERVAL_MS` to change the options at that point; prints `R L` per call: R = 1 when the \
             request is shed, L = the load percentage right after the call. folly Codel semantics.",
        )
        .arg(ms("target-ms", "N", "Target queueing delay, whole ms (default 5; slough timeout = 2 × target)"))
        .arg(ms("interval-ms", "N", "Interval, whole ms (default 100)"))
        .arg(ms("start-ms", "T", "Construction time, ms: the first interval ends there (default 0)"))
        .arg(
            Arg::new("whole-ms")
                .long("whole-ms")
                .action(ArgAction::SetTrue)
                .help("Truncate each delay to whole ms before the call, as fbthrift does"),
        )
}

/// Reads flag values as typed, with messages that quote the text given.
struct Flags<'a>(&'a ArgMatches);

impl Flags<'_> {
    fn text(&self, flag: &str) -> Option<&String> {
        self.0.try_get_one::<String>(flag).ok().flatten()
    }

    fn bad(flag: &str, text: &str, expected: &str) -> Failure {
        Failure::Usage(format!("--{flag}: '{text}' is not accepted; expected {expected}"))
    }

    /// A core range error as a flag error, quoting the text as given.
    fn reject(&self, e: ControlError) -> Failure {
        match e {
            ControlError::OutOfRange { param, value, accepted } => {
                Self::bad(param, self.text(param).map_or(&value, |t| t), &accepted)
            }
            other => Failure::Usage(other.to_string()),
        }
    }
}

/// The config `--…` flags give `algo`, read by the core's one settings reader
/// (the live server's door reads its flags with it too).
fn limiter_config(algo: Algorithm, f: &Flags) -> Result<LimiterConfig, Failure> {
    if algo == Algorithm::Fixed {
        return Err(Failure::Usage("fixed: a constant limit has nothing to replay".into()));
    }
    limiter_config_from(algo, |flag| f.text(flag).map(String::as_str)).map_err(|e| match e {
        ControlError::OutOfRange { param, value, accepted } => Flags::bad(param, &value, &accepted),
        other => Failure::Usage(other.to_string()),
    })
}

/// Runs `bplab limiter`.
pub fn limiter(m: &ArgMatches) -> Result<(), Failure> {
    let name = m.get_one::<String>("algo").map_or("", String::as_str);
    let algo = REPLAYED
        .into_iter()
        .find(|a| a.name() == name)
        .ok_or_else(|| Failure::Usage(format!("unknown algorithm '{name}'; expected one of: {}", names(&REPLAYED))))?;
    let f = Flags(m);
    for Setting(flag, _, _, algos) in SETTINGS {
        if f.text(flag).is_some() && !algos.contains(&algo) {
            return Err(Failure::Usage(format!("--{flag}: not a setting of {name} (only of {})", names(algos))));
        }
    }
    let mut limiter = limiter_config(algo, &f)?.build();
    replay(|n, fields, out| {
        let s = sample(fields).map_err(|why| {
            format!("line {n}: '{}' is not a sample; expected 'rtt_ms inflight dropped': {why}", fields.join(" "))
        })?;
        writeln!(out, "{}", limiter.update(s)).map_err(LineError::Io)
    })
}

/// One sample from its three fields, or why not.
fn sample(fields: &[&str]) -> Result<Sample, String> {
    let [rtt, inflight, dropped] = fields else { return Err(format!("{} field(s) instead of 3", fields.len())) };
    let rtt_ns = parse_ms_ns(rtt)
        .filter(|&ns| ns > 0)
        .ok_or_else(|| format!("rtt_ms '{rtt}' is not a number of ms above 0 with at most 6 decimals"))?;
    let inflight = inflight
        .parse::<i32>()
        .ok()
        .filter(|&i| i >= 0)
        .ok_or_else(|| format!("inflight '{inflight}' is not a whole number from 0 to {}", i32::MAX))?;
    let dropped = match *dropped {
        "0" => false,
        "1" => true,
        other => return Err(format!("dropped '{other}' is not 0 or 1")),
    };
    Ok(Sample::new(rtt_ns, inflight, dropped))
}

/// Runs `bplab codel`.
pub fn codel(m: &ArgMatches) -> Result<(), Failure> {
    let f = Flags(m);
    let whole_ms = |flag: &str, default: i64| -> Result<i64, Failure> {
        let Some(t) = f.text(flag) else { return Ok(default) };
        t.trim().parse().map_err(|_| Flags::bad(flag, t, "a whole number of ms"))
    };
    let defaults = CodelConfig::default();
    let cfg = CodelConfig::new(
        whole_ms("target-ms", defaults.target_ms())?,
        whole_ms("interval-ms", defaults.interval_ms())?,
    )
    .map_err(|e| f.reject(e))?;
    let start_ns = match f.text("start-ms") {
        None => 0,
        Some(t) => parse_ms_ns(t.trim())
            .ok_or_else(|| Flags::bad("start-ms", t, "a number of ms from 0 with at most 6 decimals"))?,
    };
    let truncate = m.get_flag("whole-ms");
    let mut codel = Codel::new(&cfg, start_ns);
    replay(|n, fields, out| {
        let bad = |why: String| {
            format!(
                "line {n}: '{}' is not a call; expected 'now_ms queue_delay_ms' or 'set TARGET_MS INTERVAL_MS': {why}",
                fields.join(" ")
            )
        };
        match fields {
            ["set", target, interval] => {
                let whole = |what: &str, t: &str| {
                    t.parse::<i64>().map_err(|_| bad(format!("{what} '{t}' is not a whole number of ms")))
                };
                let (target, interval) = (whole("TARGET_MS", target)?, whole("INTERVAL_MS", interval)?);
                codel.set_options(target, interval).map_err(|e| format!("line {n}: {e}"))?;
                Ok(())
            }
            [now, delay] => {
                let ms = |what: &str, t: &str| {
                    parse_ms_ns(t).ok_or_else(|| {
                        bad(format!("{what} '{t}' is not a number of ms from 0 with at most 6 decimals"))
                    })
                };
                let (now_ns, delay_ns) = (ms("now_ms", now)?, ms("queue_delay_ms", delay)?);
                let delay_ns = if truncate { truncate_to_whole_ms(delay_ns) } else { delay_ns };
                let shed = codel.overloaded(now_ns, delay_ns);
                writeln!(out, "{} {}", u8::from(shed), codel.load()).map_err(LineError::Io)
            }
            _ => Err(bad(format!("{} field(s)", fields.len())).into()),
        }
    })
}

/// Why a replay line stopped the run.
enum LineError {
    Usage(String),
    Io(io::Error),
}

impl From<String> for LineError {
    fn from(msg: String) -> Self {
        LineError::Usage(msg)
    }
}

/// Feeds every non-blank, non-comment stdin line (split on whitespace, `#`
/// starts a comment) to `step` with its 1-based line number, writing to a
/// buffered stdout that is flushed before any error is returned.
fn replay(mut step: impl FnMut(usize, &[&str], &mut dyn Write) -> Result<(), LineError>) -> Result<(), Failure> {
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut result = Ok(());
    for (i, line) in io::stdin().lock().lines().enumerate() {
        let n = i + 1;
        let line = match line {
            Ok(l) => l,
            Err(e) if e.kind() == io::ErrorKind::InvalidData => {
                result = Err(Failure::Usage(format!("line {n}: not UTF-8 text")));
                break;
            }
            Err(e) => {
                result = Err(Failure::Runtime(format!("reading stdin: {e}")));
                break;
            }
        };
        let content = line.split_once('#').map_or(line.as_str(), |(before, _)| before);
        let fields: Vec<&str> = content.split_whitespace().collect();
        if fields.is_empty() {
            continue;
        }
        match step(n, &fields, &mut out) {
            Ok(()) => {}
            Err(LineError::Usage(msg)) => {
                result = Err(Failure::Usage(msg));
                break;
            }
            Err(LineError::Io(e)) => {
                result = io_failure(e);
                break;
            }
        }
    }
    match out.flush() {
        Ok(()) => result,
        Err(e) => result.and(io_failure(e)),
    }
}

/// A closed pipe (`| head`) ends the replay quietly; other write errors fail.
fn io_failure(e: io::Error) -> Result<(), Failure> {
    if e.kind() == io::ErrorKind::BrokenPipe { Ok(()) } else { Err(Failure::Runtime(format!("writing stdout: {e}"))) }
}
