//! Parameters: the one spec type ([`ParamSpec`]: name, label, unit, accepted
//! range, help, slider span), the value types that read and print it
//! ([`ParamValue`]), the specs and constants several experiments share, and
//! the `experiment_params!` macro with which each experiment declares its
//! own parameter struct in its folder (`experiments/<name>/params.rs`).
//!
//! The registry (`experiments/mod.rs`) wraps those structs in
//! [`crate::Params`], whose name-based `set` / `get` / `spec` the CLI, the
//! page, the JS API and the fuzz harness use. The calculators' table
//! (`calc::CALC_PARAMS`) and the live crate's flags use the same
//! [`ParamSpec`] for their ranges and messages.

use std::fmt::Debug;

use crate::error::ConfigError;
use crate::models::admission::Limit;
use crate::stochastic::ServiceTime;

mod shared;
mod value;

pub use shared::*;
pub use value::{Named, QueueLimit};

/// The shape of a parameter's value (what the text looks like).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// A whole number.
    Int,
    /// A real number.
    Real,
    /// A whole number, or `B` / empty for capacity × deadline.
    IntOrBudget,
    /// Comma-separated real numbers.
    RealList,
    /// Comma-separated whole numbers.
    IntList,
    /// Comma-separated whole numbers or `none`.
    LimitList,
    /// A whole number, or `off` for none.
    IntOrOff,
    /// A service-time distribution (`fixed:21`, `exp:21`, …).
    Service,
    /// A rate, or steps `RATE@START_MS,…`.
    Schedule,
    /// One of these names.
    Name(&'static [&'static str]),
    /// 1 to `max` comma-separated names, each one of these.
    NameList(&'static [&'static str], usize),
    /// One preset name: choosing it sets other parameters of the experiment
    /// (explicitly given values override it, whatever their order; see
    /// [`crate::Params::apply`]).
    Preset(&'static [&'static str]),
}

/// The accepted numeric range of a parameter, with each bound's
/// inclusiveness stated. For names and service times the range is unused.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Range {
    /// Lowest accepted value (inclusive unless `min_exclusive`).
    pub min: f64,
    /// Highest accepted value (inclusive unless `max_exclusive`).
    pub max: f64,
    /// `min` itself is refused.
    pub min_exclusive: bool,
    /// `max` itself is refused.
    pub max_exclusive: bool,
}

impl Range {
    /// `min ..= max`.
    pub const fn from_to(min: f64, max: f64) -> Self {
        Self { min, max, min_exclusive: false, max_exclusive: false }
    }

    /// `(min, max]`: above `min`, up to and including `max`.
    pub const fn above_to(min: f64, max: f64) -> Self {
        Self { min, max, min_exclusive: true, max_exclusive: false }
    }

    /// `(min, max)`: strictly between.
    pub const fn between(min: f64, max: f64) -> Self {
        Self { min, max, min_exclusive: true, max_exclusive: true }
    }

    /// No numeric range (names, service times).
    pub const NONE: Range = Range::from_to(0.0, 0.0);

    /// Whether `v` is finite and inside.
    pub fn contains(&self, v: f64) -> bool {
        let lo = if self.min_exclusive { v > self.min } else { v >= self.min };
        let hi = if self.max_exclusive { v < self.max } else { v <= self.max };
        v.is_finite() && lo && hi
    }

    /// In words: "from 1 to 60000", "above 0 to 100000", "above 0 below 1".
    pub fn words(&self) -> String {
        let lo = if self.min_exclusive { "above" } else { "from" };
        let hi = if self.max_exclusive { "below" } else { "to" };
        format!("{lo} {} {hi} {}", self.min, self.max)
    }
}

/// A slider's span on the page: a sensible part of the accepted range. The
/// typed input still accepts the whole range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SliderSpan {
    /// Left end.
    pub min: f64,
    /// Right end.
    pub max: f64,
    /// Step.
    pub step: f64,
    /// The slider is one of its experiment's main controls (at most three,
    /// declared with [`main`] in the experiment's own parameter specs): the
    /// page shows them beside the headline readout and the main chart at
    /// every width, and the other controls under "More settings".
    pub main: bool,
}

/// A slider span (for the spec tables).
pub const fn span(min: f64, max: f64, step: f64) -> Option<SliderSpan> {
    Some(SliderSpan { min, max, step, main: false })
}

/// `spec` as one of its experiment's main controls (see [`SliderSpan::main`]);
/// a main control is a slider, so a spec without one is returned unchanged
/// (and the registry's test refuses an experiment with no main control).
pub const fn main(spec: ParamSpec) -> ParamSpec {
    match spec.slider {
        Some(s) => ParamSpec { slider: Some(SliderSpan { main: true, ..s }), ..spec },
        None => spec,
    }
}

/// `spec`, made a main control when its name is one of `names` (the
/// `article { …, main: [...] }` group of [`experiment_params!`]).
pub const fn main_if(spec: ParamSpec, names: &[&str]) -> ParamSpec {
    let mut rest = names;
    while let Some((n, tail)) = rest.split_first() {
        if same(n.as_bytes(), spec.name.as_bytes()) {
            return main(spec);
        }
        rest = tail;
    }
    spec
}

/// `a == b`, in a const fn.
const fn same(a: &[u8], b: &[u8]) -> bool {
    let (mut a, mut b) = (a, b);
    loop {
        match (a.split_first(), b.split_first()) {
            (None, None) => return true,
            (Some((x, ta)), Some((y, tb))) if *x == *y => (a, b) = (ta, tb),
            _ => return false,
        }
    }
}

/// Name, label, unit, accepted range and help of one parameter: the one spec
/// type behind every experiment flag, calculator input and live flag.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParamSpec {
    /// CLI flag (without `--`) and URL key.
    pub name: &'static str,
    /// Visible label.
    pub label: &'static str,
    /// Unit shown beside the value (empty: none).
    pub unit: &'static str,
    /// Value shape.
    pub kind: ParamKind,
    /// Accepted numbers (each item's, for lists).
    pub range: Range,
    /// One line on what it does.
    pub help: &'static str,
    /// The page's slider span (inside the accepted range), or `None` for
    /// lists and names, which are typed only.
    pub slider: Option<SliderSpan>,
}

impl ParamSpec {
    /// One of its experiment's main controls ([`main`]).
    pub const fn is_main(&self) -> bool {
        matches!(self.slider, Some(SliderSpan { main: true, .. }))
    }
}

/// Most entries a list parameter accepts.
pub const MAX_LIST_LEN: usize = 64;

impl ParamSpec {
    /// What is accepted, in words, e.g. "a whole number from 1 to 60000 (ms)".
    pub fn accepted(&self) -> String {
        let range = self.range.words();
        let unit = if self.unit.is_empty() { String::new() } else { format!(" ({})", self.unit) };
        match self.kind {
            ParamKind::Int => format!("a whole number {range}{unit}"),
            ParamKind::Real => format!("a number {range}{unit}"),
            ParamKind::IntOrBudget => format!("a whole number {range}{unit}, or B for capacity × deadline"),
            ParamKind::RealList => format!("1 to {MAX_LIST_LEN} comma-separated numbers, each {range}{unit}"),
            ParamKind::IntList => format!("1 to {MAX_LIST_LEN} comma-separated whole numbers, each {range}{unit}"),
            ParamKind::LimitList => {
                format!("1 to {MAX_LIST_LEN} comma-separated whole numbers {range} or 'none'{unit}")
            }
            ParamKind::IntOrOff => format!("a whole number {range}{unit}, or off"),
            ParamKind::Service => crate::stochastic::GRAMMAR.to_owned(),
            ParamKind::Schedule => format!(
                "a rate {range}{unit}, or up to {MAX_LIST_LEN} steps RATE@START_MS, e.g. 40@0,80@15000 (the first starting at 0)"
            ),
            ParamKind::Name(names) | ParamKind::Preset(names) => format!("one of {}", names.join(", ")),
            ParamKind::NameList(names, max) => format!("1 to {max} of {}, comma-separated", names.join(", ")),
        }
    }

    /// The `--help` line: label, what it does, what is accepted (with the unit).
    pub fn help_line(&self) -> String {
        format!("{}: {}; {}", self.label, self.help, self.accepted())
    }

    /// The refusal of `value` (as given).
    pub fn refuse(&self, value: &str) -> ConfigError {
        ConfigError::OutOfRange { param: self.name, value: value.to_owned(), accepted: self.accepted() }
    }

    /// Parses one whole number and checks the range; a refusal quotes `whole`.
    pub(crate) fn int(&self, text: &str, whole: &str) -> Result<u32, ConfigError> {
        let v: i64 = text.trim().parse().map_err(|_| self.refuse(whole))?;
        if self.range.contains(v as f64) {
            u32::try_from(v).map_err(|_| self.refuse(whole))
        } else {
            Err(self.refuse(whole))
        }
    }

    /// Parses one real number and checks the range; a refusal quotes `whole`.
    pub(crate) fn real(&self, text: &str, whole: &str) -> Result<f64, ConfigError> {
        let v: f64 = text.trim().parse().map_err(|_| self.refuse(whole))?;
        if self.range.contains(v) { Ok(v) } else { Err(self.refuse(whole)) }
    }

    /// A comma-separated list of 1 to [`MAX_LIST_LEN`] items.
    pub(crate) fn list<T>(
        &self,
        text: &str,
        mut one: impl FnMut(&str) -> Result<T, ConfigError>,
    ) -> Result<Vec<T>, ConfigError> {
        let items: Vec<&str> = text.split(',').collect();
        if text.trim().is_empty() || items.len() > MAX_LIST_LEN {
            return Err(self.refuse(text));
        }
        // An empty item ("1,2,,3") is named by its place, not quoted as ''.
        if let Some(i) = items.iter().position(|t| t.trim().is_empty()) {
            return Err(ConfigError::OutOfRange {
                param: self.name,
                value: text.to_owned(),
                accepted: format!("{}; item {} of {} is empty", self.accepted(), i + 1, items.len()),
            });
        }
        items.into_iter().map(&mut one).collect()
    }

    /// Checks an already-typed number against the range (whole numbers only
    /// for [`ParamKind::Int`]).
    pub fn check(&self, v: f64) -> Result<f64, ConfigError> {
        let whole = !matches!(self.kind, ParamKind::Int) || v.fract() == 0.0;
        if whole && self.range.contains(v) { Ok(v) } else { Err(self.refuse(&short_number(v))) }
    }
}

/// `v` as text that reads back as `v`, in exponent form when the plain one
/// is long (1e-300, not "0.000…" over 302 characters).
pub fn short_number(v: f64) -> String {
    let s = v.to_string();
    if s.len() > 20 && v.is_finite() { format!("{v:e}") } else { s }
}

/// A value type a parameter can have: it reads the text the CLI and the URL
/// carry, and prints text that reads back as the same value.
pub trait ParamValue: Sized {
    /// Reads `text` as `spec` describes; a refusal names the parameter, the
    /// value as given and what is accepted.
    fn parse(spec: &ParamSpec, text: &str) -> Result<Self, ConfigError>;
    /// The text [`ParamValue::parse`] reads back as the same value.
    fn show(&self) -> String;
}

/// Serializes a parameter value as its text (for `serde(serialize_with)`
/// on fields whose type has no serde form of its own).
pub fn as_text<T: ParamValue, S: serde::Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&v.show())
}

fn join<T>(items: &[T], f: impl Fn(&T) -> String) -> String {
    items.iter().map(f).collect::<Vec<_>>().join(",")
}

impl ParamValue for u32 {
    fn parse(spec: &ParamSpec, text: &str) -> Result<Self, ConfigError> {
        spec.int(text, text)
    }
    fn show(&self) -> String {
        self.to_string()
    }
}

impl ParamValue for f64 {
    fn parse(spec: &ParamSpec, text: &str) -> Result<Self, ConfigError> {
        spec.real(text, text)
    }
    fn show(&self) -> String {
        self.to_string()
    }
}

/// A whole number, or `B` (or empty) for capacity × deadline (`None`).
impl ParamValue for Option<u32> {
    fn parse(spec: &ParamSpec, text: &str) -> Result<Self, ConfigError> {
        let t = text.trim();
        if t.is_empty() || t.eq_ignore_ascii_case("b") { Ok(None) } else { spec.int(t, t).map(Some) }
    }
    fn show(&self) -> String {
        self.map_or_else(|| "B".to_owned(), |n| n.to_string())
    }
}

impl ParamValue for Vec<f64> {
    fn parse(spec: &ParamSpec, text: &str) -> Result<Self, ConfigError> {
        // A list of reals whose model counts whole units (collapse's rates)
        // says so in its kind, and is refused here as its help says.
        if spec.kind == ParamKind::IntList {
            return spec.list(text, |t| spec.int(t, t).map(f64::from));
        }
        spec.list(text, |t| spec.real(t, t))
    }
    fn show(&self) -> String {
        join(self, |v| v.to_string())
    }
}

impl ParamValue for Vec<u32> {
    fn parse(spec: &ParamSpec, text: &str) -> Result<Self, ConfigError> {
        spec.list(text, |t| spec.int(t, t))
    }
    fn show(&self) -> String {
        join(self, |v| v.to_string())
    }
}

/// Admission limits: whole numbers or `none`.
impl ParamValue for Vec<Limit> {
    fn parse(spec: &ParamSpec, text: &str) -> Result<Self, ConfigError> {
        spec.list(text, |t| {
            if t.trim().eq_ignore_ascii_case("none") { Ok(Limit::None) } else { spec.int(t, t).map(Limit::Finite) }
        })
    }
    fn show(&self) -> String {
        join(self, |l| l.label())
    }
}

impl ParamValue for ServiceTime {
    fn parse(spec: &ParamSpec, text: &str) -> Result<Self, ConfigError> {
        // The refusal says what is wrong (p99 below p50, a share over 100 %).
        ServiceTime::parse(text.trim()).map_err(|e| ConfigError::OutOfRange {
            param: spec.name,
            value: crate::calc::quote(text),
            accepted: e.accepted(),
        })
    }
    fn show(&self) -> String {
        self.to_string()
    }
}

/// A rate schedule: `RATE` or `RATE@START_MS,…` (starts strictly
/// increasing, the first at 0); a single rate is one step at 0.
impl ParamValue for Vec<(f64, u32)> {
    fn parse(s: &ParamSpec, text: &str) -> Result<Self, ConfigError> {
        let t = text.trim();
        if !t.contains('@') {
            return Ok(vec![(s.real(t, text)?, 0)]);
        }
        let steps = s.list(t, |item| {
            let (r, at) = item.split_once('@').ok_or_else(|| s.refuse(text))?;
            let at: u32 = at.trim().parse().map_err(|_| s.refuse(text))?;
            Ok((s.real(r, text)?, at))
        })?;
        let ordered = steps.first().is_some_and(|f| f.1 == 0) && steps.windows(2).all(|w| w[0].1 < w[1].1);
        if ordered { Ok(steps) } else { Err(s.refuse(text)) }
    }
    fn show(&self) -> String {
        match self.as_slice() {
            [(r, 0)] => r.to_string(),
            steps => join(steps, |(r, at)| format!("{r}@{at}")),
        }
    }
}

/// One experiment's parameter struct, as `experiment_params!` generates it:
/// the specs in display order and name-based access to the typed fields.
pub trait ParamSet: Clone + Debug + Default + PartialEq {
    /// Every parameter, in display order.
    fn specs() -> &'static [ParamSpec];

    /// Sets the parameter `name` from text; `None` when the struct has no
    /// parameter of that name.
    fn set_named(&mut self, name: &str, text: &str) -> Option<Result<(), ConfigError>>;

    /// The text of parameter `name`, which [`ParamSet::set_named`] reads back.
    fn get_named(&self, name: &str) -> Option<String>;

    /// Re-checks every field against its spec (fields may be set in code,
    /// not only from text): round-tripping through text applies exactly the
    /// parse-time checks.
    fn check_ranges(&self) -> Result<(), ConfigError> {
        let mut probe = self.clone();
        for s in Self::specs() {
            if let Some(text) = self.get_named(s.name)
                && let Some(r) = probe.set_named(s.name, &text)
            {
                r?;
            }
        }
        Ok(())
    }
}

/// The `after_set` of a parameter struct that needs none.
pub fn no_hook<T>(_: &mut T, _: &ParamSpec) {}

/// Declares an experiment's parameter struct: per field its doc, Rust type,
/// default and [`ParamSpec`] (a shared constant from this module or a spec
/// written in place). Generates the struct, its `Default`, `SPECS` (in field
/// order) and its [`ParamSet`] impl. An optional `after_set: path;` names a
/// `fn(&mut Self, &ParamSpec)` called after every successful set (the
/// adaptive experiment applies its presets there).
///
/// A first line `article { valley_rps: …, valley_ms: …, spike_rps: …,
/// spike_ms: …, main: ["deadline-ms"] };` (the `main` list optional: those
/// fields made main controls, see [`main`]) declares the field group the articles' curve experiments
/// share, first and in this order: `service_ms`, `deadline_ms` and
/// `duration_ms` at the articles' defaults, then the bursty curve at the
/// defaults given.
#[macro_export]
#[doc(hidden)]
macro_rules! experiment_params {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            article {
                valley_rps: $valley_rps:expr,
                valley_ms: $valley_ms:expr,
                spike_rps: $spike_rps:expr,
                spike_ms: $spike_ms:expr
                $(, main: [$($main:literal),* $(,)?])? $(,)?
            };
            $($fields:tt)*
        }
        $($after:tt)*
    ) => {
        $crate::experiment_params! {
            $(#[$meta])*
            pub struct $name {
                /// Fixed service time, ms.
                service_ms: u32 = $crate::params::ARTICLE_SERVICE_MS, $crate::params::main_if($crate::params::SERVICE_MS, &[$($($main),*)?]);
                /// Client deadline, ms.
                deadline_ms: u32 = $crate::params::ARTICLE_DEADLINE_MS, $crate::params::main_if($crate::params::DEADLINE_MS, &[$($($main),*)?]);
                /// Run window, ms.
                duration_ms: u32 = $crate::params::ARTICLE_DURATION_MS, $crate::params::main_if($crate::params::DURATION_MS, &[$($($main),*)?]);
                /// Valley rate of the bursty curve, rps.
                valley_rps: f64 = $valley_rps, $crate::params::main_if($crate::params::VALLEY_RPS, &[$($($main),*)?]);
                /// Valley length, ms.
                valley_ms: u32 = $valley_ms, $crate::params::main_if($crate::params::VALLEY_MS, &[$($($main),*)?]);
                /// Spike rate, rps.
                spike_rps: f64 = $spike_rps, $crate::params::main_if($crate::params::SPIKE_RPS, &[$($($main),*)?]);
                /// Spike length, ms.
                spike_ms: u32 = $spike_ms, $crate::params::main_if($crate::params::SPIKE_MS, &[$($($main),*)?]);
                $($fields)*
            }
            $($after)*
        }
    };
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $(
                $(#[$fmeta:meta])*
                $field:ident : $ty:ty = $default:expr, $spec:expr;
            )+
        }
    ) => {
        $crate::experiment_params! {
            $(#[$meta])*
            pub struct $name {
                $( $(#[$fmeta])* $field: $ty = $default, $spec; )+
            }
            after_set: $crate::params::no_hook;
        }
    };
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $(
                $(#[$fmeta:meta])*
                $field:ident : $ty:ty = $default:expr, $spec:expr;
            )+
        }
        after_set: $hook:path;
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, serde::Serialize)]
        pub struct $name {
            $( $(#[$fmeta])* pub $field: $ty, )+
        }

        impl Default for $name {
            fn default() -> Self {
                Self { $($field: $default),+ }
            }
        }

        impl $name {
            /// Every parameter, in display order.
            pub const SPECS: &'static [$crate::params::ParamSpec] = &[$($spec),+];
        }

        impl $crate::params::ParamSet for $name {
            fn specs() -> &'static [$crate::params::ParamSpec] {
                Self::SPECS
            }

            fn set_named(&mut self, name: &str, text: &str) -> Option<Result<(), $crate::ConfigError>> {
                $(
                    {
                        const SPEC: $crate::params::ParamSpec = $spec;
                        if name == SPEC.name {
                            let r = <$ty as $crate::params::ParamValue>::parse(&SPEC, text).map(|v| {
                                self.$field = v;
                                $hook(self, &SPEC);
                            });
                            return Some(r);
                        }
                    }
                )+
                None
            }

            fn get_named(&self, name: &str) -> Option<String> {
                $(
                    {
                        const SPEC: $crate::params::ParamSpec = $spec;
                        if name == SPEC.name {
                            return Some($crate::params::ParamValue::show(&self.$field));
                        }
                    }
                )+
                None
            }
        }
    };
}

#[cfg(test)]
mod main_controls {
    use super::{SERVICE_MS, WORKERS, main, main_if};
    use crate::EXPERIMENTS;

    #[test]
    fn every_experiment_declares_one_to_three_main_sliders_including_its_main_param() {
        for e in EXPERIMENTS {
            let mains: Vec<&str> = e.params.iter().filter(|s| s.is_main()).map(|s| s.name).collect();
            assert!((1..=3).contains(&mains.len()), "{}: {} main controls: {mains:?}", e.name, mains.len());
            assert!(mains.contains(&e.main_param), "{}: its main_param {} is not a main control", e.name, e.main_param);
        }
    }

    #[test]
    fn d11_an_empty_list_item_is_named_by_its_place_and_tiny_numbers_stay_short() {
        let e = crate::Experiment::named("lesson").unwrap();
        let mut p = e.defaults();
        let msg = p.set("rate", "1,2,,3").unwrap_err().to_string();
        assert!(msg.contains("'1,2,,3'") && msg.ends_with("item 3 of 4 is empty"), "{msg}");
        assert_eq!(super::short_number(1e-300), "1e-300");
        assert_eq!(super::short_number(0.25), "0.25");
        assert_eq!(super::short_number(1e-300).parse::<f64>().unwrap(), 1e-300);
        let m = crate::Experiment::named("metastable").unwrap();
        let msg = m.defaults().set("seconds", "1e-300").unwrap_err().to_string();
        assert!(msg.starts_with("seconds: '1e-300' is not accepted"), "{msg}");
        let a = crate::Experiment::named("adaptive").unwrap();
        let msg = a.defaults().set("slowdown-factor", "1e-300").unwrap_err().to_string();
        assert!(msg.starts_with("slowdown-factor: '1e-300' is not accepted"), "{msg}");
    }

    #[test]
    fn main_marks_only_the_spec_it_is_given_and_needs_a_slider() {
        assert!(main(WORKERS).is_main());
        assert!(!WORKERS.is_main(), "the shared spec is untouched");
        assert!(main_if(SERVICE_MS, &["deadline-ms", "service-ms"]).is_main());
        assert!(!main_if(SERVICE_MS, &["service", "service-m", "deadline-ms"]).is_main());
        let no_slider = super::ParamSpec { slider: None, ..WORKERS };
        assert!(!main(no_slider).is_main(), "a main control is a slider");
    }
}
