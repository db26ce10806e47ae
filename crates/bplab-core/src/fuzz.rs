//! A seeded generator of configurations over the whole parameter space, with
//! the edges weighted in, and the invariants every run must keep. Used by the
//! native fuzz test, `scripts/fuzz.sh` and the browser (wasm) fuzz test, so
//! all three draw the same cases from the same seed.
//!
//! Each case is a list of text edits drawn from the experiment's own specs
//! ([`crate::Experiment::params`]), applied through [`Params::apply`] exactly
//! as the CLI applies flags, then [`Scenario::new`] with the given caps. A case ends in a refusal (a [`ConfigError`]) or a result whose
//! invariants [`check`] verifies; anything else is a bug.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

use crate::params::{MAX_LIST_LEN, ParamKind, ParamSpec};
use crate::{Caps, ConfigError, EXPERIMENTS, Experiment, ExperimentId, Params, Scenario};

/// One generated configuration: an experiment and the text typed into some
/// of its parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct FuzzCase {
    /// Which experiment.
    pub experiment: ExperimentId,
    /// `(flag name, text)` edits, applied in order.
    pub edits: Vec<(&'static str, String)>,
}

/// How a case ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// A typed value was refused (clear message).
    InputRefused(ConfigError),
    /// The parameters were refused as a whole (cross-field rule or work cap).
    RunRefused(ConfigError),
    /// The run finished and kept every invariant; arrivals simulated.
    Ran(u64),
}

/// Draws cases from a seeded ChaCha generator.
#[derive(Clone, Debug)]
pub struct FuzzGen {
    rng: ChaCha8Rng,
    /// This case may type values outside the accepted range.
    hostile: bool,
}

impl FuzzGen {
    /// A generator; the same seed always gives the same cases.
    pub fn new(seed: u64) -> Self {
        Self { rng: ChaCha8Rng::seed_from_u64(seed), hostile: false }
    }

    fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.rng.next_u64() % n }
    }

    fn unit(&mut self) -> f64 {
        (self.rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items.get(self.below(items.len() as u64) as usize).copied().unwrap_or("")
    }

    /// A value for one scalar: edges (min, max, one step inside each bound,
    /// the smallest positive, subnormals) weighted in, then uniform and
    /// log-uniform draws; hostile cases add values outside the range.
    fn scalar(&mut self, s: &ParamSpec, whole: bool) -> String {
        let (lo, hi) = (s.range.min, s.range.max);
        let uniform = lo + (hi - lo) * self.unit();
        let log_uniform = if hi > 0.0 { libm::exp(libm::log(hi.max(1e-300)) * self.unit()) } else { uniform };
        if self.hostile && self.below(4) == 0 {
            return match self.below(3) {
                0 => format!("{}", hi * 2.0 + 1.0),
                1 => format!("{}", lo - 1.0),
                _ => self.pick(&["", "abc", "NaN", "inf", "-0", "1e400", " 7 ", "1,2", "5e-324"]).to_owned(),
            };
        }
        let v = if whole {
            match self.below(8) {
                0 => lo,
                1 => hi,
                2 => lo + 1.0,
                3 => hi - 1.0,
                4 | 5 => uniform,
                _ => log_uniform.max(lo),
            }
        } else {
            match self.below(10) {
                0 => f64::from_bits(1),       // the smallest positive value, a subnormal
                1 => f64::MIN_POSITIVE / 4.0, // a subnormal
                2 => 1e-10,
                3 => f64::MIN_POSITIVE,
                4 => hi,
                5 => hi * (1.0 - f64::EPSILON), // one step inside the maximum
                6 | 7 => uniform,
                _ => log_uniform,
            }
        };
        let v =
            if v <= lo && s.range.min_exclusive { f64::from_bits(lo.to_bits() + 1).max(f64::from_bits(1)) } else { v };
        let v = if v >= hi && s.range.max_exclusive { hi * (1.0 - f64::EPSILON) } else { v };
        if whole { format!("{}", libm::trunc(v)) } else { format!("{v:e}") }
    }

    fn list(&mut self, s: &ParamSpec, whole: bool, limits: bool) -> String {
        let len = match self.below(6) {
            0 => 1,
            1 => MAX_LIST_LEN,
            2 if self.hostile => MAX_LIST_LEN + 1, // outside
            _ => 1 + self.below(6) as usize,
        };
        let mut items: Vec<String> = Vec::with_capacity(len);
        for _ in 0..len {
            let dup = !items.is_empty() && self.below(4) == 0;
            let item = if dup {
                items.last().cloned().unwrap_or_default()
            } else if limits && self.below(5) == 0 {
                "none".to_owned()
            } else {
                self.scalar(s, whole)
            };
            items.push(item);
        }
        items.join(",")
    }

    fn value(&mut self, s: &ParamSpec) -> String {
        match s.kind {
            ParamKind::Int => self.scalar(s, true),
            ParamKind::Real => self.scalar(s, false),
            ParamKind::IntOrBudget => {
                if self.below(4) == 0 {
                    "B".to_owned()
                } else {
                    self.scalar(s, true)
                }
            }
            ParamKind::RealList => self.list(s, false, false),
            ParamKind::IntList => self.list(s, true, false),
            ParamKind::LimitList => self.list(s, true, true),
            ParamKind::IntOrOff => {
                if self.below(4) == 0 {
                    "off".to_owned()
                } else {
                    self.scalar(s, true)
                }
            }
            ParamKind::Service => self.service(),
            ParamKind::Schedule => {
                if self.below(3) == 0 {
                    format!("{}@0,{}@{}", self.scalar(s, false), self.scalar(s, false), 1 + self.below(60_000))
                } else {
                    self.scalar(s, false)
                }
            }
            ParamKind::NameList(names, max) => {
                let n = 1 + self.below(max as u64) as usize;
                let picked: Vec<&str> = (0..n).map(|_| self.pick(names)).collect();
                if self.hostile && self.below(3) == 0 { format!("{},nope", picked.join(",")) } else { picked.join(",") }
            }
            ParamKind::Name(names) | ParamKind::Preset(names) => {
                if self.hostile && self.below(3) == 0 {
                    "nope".to_owned()
                } else {
                    self.pick(names).to_owned()
                }
            }
        }
    }

    /// A service-time text: each form with edge values, and junk when hostile.
    fn service(&mut self) -> String {
        if self.hostile && self.below(3) == 0 {
            return self
                .pick(&["", "fixed", "fixed:0", "exp:-1", "lognormal:p50=60,p99=20", "mix:20,101%x2", "x:1"])
                .to_owned();
        }
        let ms = self.pick(&["0.001", "1", "21", "250", "60000"]);
        match self.below(4) {
            0 => format!("fixed:{ms}"),
            1 => format!("exp:{ms}"),
            2 => format!("lognormal:p50={ms},p99={}", self.pick(&["0.002", "2", "60", "1000", "600000"])),
            _ => format!("mix:{ms},{}%x{}", self.pick(&["0", "5", "50", "100"]), self.pick(&["1", "10", "1000"])),
        }
    }

    /// The next case: a random experiment, each of its parameters edited
    /// with probability 1/2.
    pub fn next_case(&mut self) -> FuzzCase {
        let exp = &EXPERIMENTS[self.below(EXPERIMENTS.len() as u64) as usize];
        // One case in eight types values outside the accepted range.
        self.hostile = self.below(8) == 0;
        let mut edits = Vec::new();
        for spec in exp.params {
            if self.below(2) == 0 {
                edits.push((spec.name, self.value(spec)));
            }
        }
        FuzzCase { experiment: exp.id, edits }
    }
}

/// A checked claim's kind and the variant shown ("claim" or a fallback's name).
pub type ClaimKind = (&'static str, &'static str);

/// Applies `case` and runs it under `caps`; `Err` names the broken invariant.
pub fn check(case: &FuzzCase, caps: Caps) -> Result<Verdict, String> {
    check_claims(case, caps).map(|(v, _)| v)
}

/// [`check`], and every claim the explanations state re-evaluated against
/// the run's evidence ([`crate::claim::check_report`]; a statement against
/// the request logs of the runs it names): `(kind, variant)` of each claim
/// checked, `variant` "statement" for a typed statement. The experiment's preview (the page's first answer),
/// when it has one, is checked the same way against its own evidence.
pub fn check_claims(case: &FuzzCase, caps: Caps) -> Result<(Verdict, Vec<ClaimKind>), String> {
    let exp = Experiment::get(case.experiment);
    let mut p: Params = exp.defaults();
    if let Some((name, _)) = case.edits.iter().find(|(n, _)| exp.param(n).is_none()) {
        return Err(format!("unknown parameter {name}"));
    }
    if let Err(e) = p.apply(&case.edits) {
        if e.to_string().is_empty() {
            return Err("an empty refusal message".into());
        }
        return Ok((Verdict::InputRefused(e), Vec::new()));
    }
    let sc = match Scenario::new(p, caps) {
        Ok(sc) => sc,
        Err(e) => return Ok((Verdict::RunRefused(e), Vec::new())),
    };
    let (simulated, mut claims) = check_report(exp, &sc.run(), caps)?;
    if let Some(preview) = sc.preview() {
        let (_, more) = check_report(exp, &preview, caps).map_err(|why| format!("preview: {why}"))?;
        claims.extend(more);
    }
    Ok((Verdict::Ran(simulated), claims))
}

/// The invariants of one report of `exp` and its claims: the arrivals it
/// simulated and `(kind, variant)` of each claim checked.
fn check_report(exp: &Experiment, report: &crate::Report, caps: Caps) -> Result<(u64, Vec<ClaimKind>), String> {
    let mut simulated = 0u64;
    for t in report.tallies() {
        if !t.conserved() {
            return Err(format!("{}: counts not conserved: {t:?}", exp.name));
        }
        if let Some(bad) = t.pcts.iter().find(|v| !(0.0..=100.0).contains(*v)) {
            return Err(format!("{}: {}: percentage {bad} outside [0, 100]", exp.name, t.label));
        }
        if let Some((p50, p99)) = t.quantiles
            && p50 > p99
        {
            return Err(format!("{}: {}: p50 {p50} > p99 {p99}", exp.name, t.label));
        }
        if t.arrivals > caps.max_run_arrivals {
            return Err(format!(
                "{}: {}: {} arrivals in one run, cap {}",
                exp.name, t.label, t.arrivals, caps.max_run_arrivals
            ));
        }
        simulated = simulated.saturating_add(t.arrivals);
    }
    if simulated > caps.max_total_arrivals {
        return Err(format!("{}: {simulated} arrivals simulated, cap {}", exp.name, caps.max_total_arrivals));
    }
    for e in report.explanations() {
        let text = e.to_text();
        if e.answer.is_empty() || text.contains("NaN") {
            return Err(format!("{}: explanation is empty or says NaN: {text}", exp.name));
        }
    }
    for t in report.tables() {
        let cols = t.spec.columns().count();
        if t.rows.iter().any(|r| r.len() != cols) {
            return Err(format!("{}: {}: a row with the wrong column count", exp.name, t.spec.file));
        }
    }
    let claims = crate::claim::check_report(exp.name, report)?;
    Ok((simulated, claims.iter().map(|c| (c.kind, c.variant)).collect()))
}

/// Caps for fuzzing: the page's per-run cap, a smaller per-experiment total
/// so a million cases finish in minutes.
pub const FUZZ_CAPS: Caps = Caps { max_run_arrivals: 200_000, max_total_arrivals: 400_000, max_windows: 20_000 };

/// The lesson's same-bytes reference case (it lives in the lesson's folder).
pub use crate::experiments::lesson::hooks::PINNED_EDITS;

/// The adaptive race's reference case (it lives in the adaptive folder).
pub use crate::experiments::adaptive::hooks::PINNED_EDITS as PINNED_ADAPTIVE_EDITS;

/// SHA-256 of [`pinned_csv`]: the `lesson` CSVs at [`PINNED_EDITS`], then the
/// `adaptive` CSVs at [`PINNED_ADAPTIVE_EDITS`]. Both cases live in their
/// folders; this hash stays here because it covers the two together (the
/// browser test compares with it).
pub const PINNED_SHA256: &str = "7e38966b3f1b92768e3d03340373855a80080ca077ffd0b53130641cd2648856";

fn csvs(id: ExperimentId, edits: &[(&str, &str)]) -> Result<String, ConfigError> {
    let mut p = Params::defaults(id);
    p.apply(edits)?;
    let report = Scenario::new(p, Caps::PAGE)?.run();
    Ok(report.tables().iter().map(|t| t.csv()).collect())
}

/// The CSVs of both reference cases (lesson, then adaptive), concatenated:
/// hash them with SHA-256.
pub fn pinned_csv() -> Result<String, ConfigError> {
    Ok(csvs(ExperimentId::Lesson, &PINNED_EDITS)? + &csvs(ExperimentId::Adaptive, &PINNED_ADAPTIVE_EDITS)?)
}
