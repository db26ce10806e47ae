//! Limiter settings given as text, read the one way `bplab limiter`, the
//! live server's door and the load tool's model of that door all read them:
//! flag names without `--` (`initial-limit`, `backoff-ratio`, …), values as
//! typed. A refused value comes back as [`ControlError::OutOfRange`] naming
//! the setting, quoting the text as typed, with the core's accepted range.

use super::{
    AimdConfig, AimdParams, Algorithm, ControlError, Draws, FixedConfig, Gradient2Config, Gradient2Params,
    GradientConfig, GradientParams, JITTER_MAX, JITTER_MIN, LimiterConfig, VegasConfig, VegasParams, parse_ms_ns,
};

/// What a setting that is not a 32-bit whole number is told.
pub const INT_ACCEPTED: &str = "a whole number from -2147483648 to 2147483647";

/// Every limiter setting name, as the flags spell them.
pub const LIMITER_SETTINGS: [&str; 17] = [
    "initial-limit",
    "min-limit",
    "max-limit",
    "backoff-ratio",
    "timeout-ms",
    "smoothing",
    "alpha",
    "beta",
    "threshold",
    "probe-multiplier",
    "jitter",
    "long-window",
    "rtt-tolerance",
    "queue-size",
    "probe-interval",
    "probe-offset",
    "seed",
];

/// Integer settings whose accepted range excludes every negative number.
const NON_NEGATIVE: [&str; 6] =
    ["initial-limit", "min-limit", "max-limit", "queue-size", "long-window", "probe-interval"];

/// The `'static` spelling of setting `flag` (unknown names read as `limit`).
fn name_of(flag: &str) -> &'static str {
    LIMITER_SETTINGS.iter().find(|s| **s == flag).copied().unwrap_or("limit")
}

fn bad(flag: &str, text: &str, accepted: impl Into<String>) -> ControlError {
    ControlError::OutOfRange { param: name_of(flag), value: text.to_owned(), accepted: accepted.into() }
}

/// Reads settings through `text` (setting name → text as typed).
struct Given<F>(F);

impl<'a, F: Fn(&str) -> Option<&'a str>> Given<F> {
    fn text(&self, flag: &str) -> Option<&'a str> {
        (self.0)(flag)
    }

    /// A 32-bit whole number. A whole number beyond 32 bits given to a setting
    /// that refuses every negative value becomes `i32::MIN`, so the config's
    /// range message (quoting the text) is the one shown.
    fn int(&self, flag: &str) -> Result<Option<i32>, ControlError> {
        let Some(t) = self.text(flag) else { return Ok(None) };
        if let Ok(v) = t.trim().parse::<i32>() {
            return Ok(Some(v));
        }
        let digits = t.trim().strip_prefix('-').unwrap_or(t.trim());
        let whole = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
        if whole && NON_NEGATIVE.contains(&flag) { Ok(Some(i32::MIN)) } else { Err(bad(flag, t, INT_ACCEPTED)) }
    }

    fn num(&self, flag: &str) -> Result<Option<f64>, ControlError> {
        let Some(t) = self.text(flag) else { return Ok(None) };
        t.trim().parse::<f64>().ok().filter(|v| v.is_finite()).map(Some).ok_or_else(|| bad(flag, t, "a number"))
    }

    fn seed(&self) -> Result<u64, ControlError> {
        let Some(t) = self.text("seed") else { return Ok(0) };
        t.trim().parse().map_err(|_| bad("seed", t, format!("a whole number from 0 to {}", u64::MAX)))
    }

    fn list<T>(&self, flag: &str, item: fn(&str) -> Option<T>, expected: &str) -> Result<Vec<T>, ControlError> {
        let Some(t) = self.text(flag) else { return Ok(Vec::new()) };
        t.split(',').map(|s| item(s.trim()).ok_or_else(|| bad(flag, s.trim(), expected))).collect()
    }

    /// A config's range error, quoting the text as typed (a list setting
    /// keeps the offending item the config names).
    fn reject(&self, e: ControlError) -> ControlError {
        match e {
            ControlError::OutOfRange { param, value, accepted } => {
                let listed = matches!(param, "jitter" | "probe-offset");
                let value = if listed { value } else { self.text(param).map_or(value, str::to_owned) };
                ControlError::OutOfRange { param, value, accepted }
            }
            other => other,
        }
    }
}

fn set<T>(slot: &mut T, v: Option<T>) {
    if let Some(v) = v {
        *slot = v;
    }
}

/// The validated config of `algo` from the settings `text` gives (the
/// reference library's default for each one not given). Vegas' jitter and
/// Gradient's probe offsets are the listed draws, then draws from `seed`.
/// A fixed limit takes `initial-limit`. Settings `algo` does not have are
/// not read: checking that none was given is the caller's (it knows how its
/// flags are named).
pub fn limiter_config<'a>(
    algo: Algorithm,
    text: impl Fn(&str) -> Option<&'a str>,
) -> Result<LimiterConfig, ControlError> {
    let f = Given(text);
    let reject = |e| f.reject(e);
    Ok(match algo {
        Algorithm::Fixed => {
            let n = f.int("initial-limit")?.unwrap_or(AimdParams::default().initial_limit);
            LimiterConfig::Fixed(FixedConfig::new(n).map_err(reject)?)
        }
        Algorithm::Aimd => {
            let mut p = AimdParams::default();
            set(&mut p.initial_limit, f.int("initial-limit")?);
            set(&mut p.min_limit, f.int("min-limit")?);
            set(&mut p.max_limit, f.int("max-limit")?);
            set(&mut p.backoff_ratio, f.num("backoff-ratio")?);
            if let Some(t) = f.text("timeout-ms") {
                p.timeout_ns = parse_ms_ns(t.trim())
                    .ok_or_else(|| bad("timeout-ms", t, "a number of ms above 0 with at most 6 decimals"))?;
            }
            LimiterConfig::Aimd(AimdConfig::new(p).map_err(reject)?)
        }
        Algorithm::Vegas => {
            let mut p = VegasParams::default();
            set(&mut p.initial_limit, f.int("initial-limit")?);
            set(&mut p.max_limit, f.int("max-limit")?);
            set(&mut p.smoothing, f.num("smoothing")?);
            set(&mut p.probe_multiplier, f.int("probe-multiplier")?);
            p.alpha = f.int("alpha")?.or(p.alpha);
            p.beta = f.int("beta")?.or(p.beta);
            p.threshold = f.int("threshold")?.or(p.threshold);
            let jitter_item = |s: &str| s.parse::<f64>().ok().filter(|v| v.is_finite());
            let range = format!("a number from {JITTER_MIN:?} (inclusive) to {JITTER_MAX:?} (exclusive)");
            p.jitter = Draws::list(f.list("jitter", jitter_item, &range)?, f.seed()?);
            LimiterConfig::Vegas(VegasConfig::new(p).map_err(reject)?)
        }
        Algorithm::Gradient2 => {
            let mut p = Gradient2Params::default();
            set(&mut p.initial_limit, f.int("initial-limit")?);
            set(&mut p.min_limit, f.int("min-limit")?);
            set(&mut p.max_limit, f.int("max-limit")?);
            set(&mut p.smoothing, f.num("smoothing")?);
            set(&mut p.queue_size, f.int("queue-size")?);
            set(&mut p.long_window, f.int("long-window")?);
            set(&mut p.rtt_tolerance, f.num("rtt-tolerance")?);
            LimiterConfig::Gradient2(Gradient2Config::new(p).map_err(reject)?)
        }
        Algorithm::Gradient => {
            let mut p = GradientParams::default();
            set(&mut p.initial_limit, f.int("initial-limit")?);
            set(&mut p.min_limit, f.int("min-limit")?);
            set(&mut p.max_limit, f.int("max-limit")?);
            set(&mut p.smoothing, f.num("smoothing")?);
            p.queue_size = f.int("queue-size")?.or(p.queue_size);
            set(&mut p.rtt_tolerance, f.num("rtt-tolerance")?);
            set(&mut p.probe_interval, f.int("probe-interval")?);
            set(&mut p.backoff_ratio, f.num("backoff-ratio")?);
            let offset = |s: &str| s.parse::<i32>().ok();
            let offsets = f.list("probe-offset", offset, "a whole number from 0 to probe-interval - 1")?;
            p.offsets = Draws::list(offsets, f.seed()?);
            LimiterConfig::Gradient(GradientConfig::new(p).map_err(reject)?)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(algo: Algorithm, pairs: &[(&'static str, &'static str)]) -> Result<LimiterConfig, ControlError> {
        limiter_config(algo, |k| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| *v))
    }

    #[test]
    fn defaults_and_given_values() {
        assert_eq!(cfg(Algorithm::Aimd, &[]), Ok(LimiterConfig::Aimd(AimdConfig::default())));
        let c = cfg(Algorithm::Gradient2, &[("min-limit", "5")]).unwrap();
        assert!(matches!(c, LimiterConfig::Gradient2(g) if g.params().min_limit == 5));
    }

    #[test]
    fn refusals_quote_the_text_as_typed() {
        let e = cfg(Algorithm::Aimd, &[("backoff-ratio", " 1.5")]).unwrap_err();
        assert!(e.to_string().starts_with("backoff-ratio: ' 1.5' is not accepted; expected a number from 0.5"), "{e}");
        let e = cfg(Algorithm::Gradient2, &[("min-limit", "abc")]).unwrap_err();
        assert_eq!(e.to_string(), format!("min-limit: 'abc' is not accepted; expected {INT_ACCEPTED}"));
        let e = cfg(Algorithm::Gradient2, &[("min-limit", "3000000000")]).unwrap_err();
        assert!(e.to_string().starts_with("min-limit: '3000000000' is not accepted"), "{e}");
        let e = cfg(Algorithm::Vegas, &[("jitter", "0.6,2")]).unwrap_err();
        assert!(e.to_string().starts_with("jitter: '2"), "{e}");
    }
}
