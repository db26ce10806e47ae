//! The one registry of experiments. Each experiment has one home, a module
//! that owns its name, article, parameters and defaults, validation, work
//! estimate, run, tables, explanation and readouts (its `DEF` and its report
//! type's [`ExperimentReport`] impl). The [`registry!`] line below is the
//! only other place that names it: it generates [`ExperimentId`],
//! [`Report`] and [`EXPERIMENTS`], so dispatch is written once and a missing
//! entry is a compile error. The CLI, the page and the tests iterate
//! [`EXPERIMENTS`]; nothing else lists them.

mod exec;
mod readout;
mod report;
mod scenario;
mod shared;

pub use exec::{Exec, Job, Sequential, par_map};
pub use readout::{Readout, RunTally};
pub use report::ExperimentReport;
pub use scenario::{Caps, Scenario};

use crate::params::{ParamKey, Params};
use crate::table::TableSpec;
pub(crate) use scenario::Estimate;
pub(crate) use shared::{argmax, base_defaults, poisson_bound, rps, service_time, step, strings};

/// Declares the experiments: `Variant => module::ReportType`, in page order.
macro_rules! registry {
    ($($variant:ident => $module:ident :: $report:ident),+ $(,)?) => {
        $(mod $module; pub use $module::$report;)+

        /// Identifies one experiment (generated from the registry, in page order).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
        #[allow(missing_docs)]
        pub enum ExperimentId { $($variant),+ }

        /// What one experiment produced: its typed report (built once per run
        /// and passed by reference, so variant sizes do not matter).
        #[derive(Clone, Debug, PartialEq, serde::Serialize)]
        #[allow(missing_docs, clippy::large_enum_variant)]
        pub enum Report { $($variant($report)),+ }

        /// All experiments, in page order; `EXPERIMENTS[id as usize].id == id`.
        pub static EXPERIMENTS: &[Experiment] = &[$($module::DEF),+];

        impl Report {
            /// Which experiment produced it.
            pub fn id(&self) -> ExperimentId {
                match self { $(Report::$variant(_) => ExperimentId::$variant),+ }
            }

            /// The experiment-independent view of the report.
            pub fn view(&self) -> &dyn ExperimentReport {
                match self { $(Report::$variant(r) => r),+ }
            }
        }

        // The registry is in enum order: `Experiment::get` indexes it.
        const _: () = {
            let ids = [$(ExperimentId::$variant),+];
            let mut i = 0;
            while i < ids.len() {
                assert!(ids[i] as usize == i);
                i += 1;
            }
        };
    };
}

pub use crate::stochastic::{Bucket, Door, SimOut, Trace, simulate};
pub use adaptive::Lane;
pub use lesson::{Histogram, Interval, RateResult};
pub use shaping::{Ceiling, Timeline};

registry! {
    Collapse => collapse::CollapseReport,
    Admission => admission::AdmissionReport,
    Shaping => shaping::ShapingReport,
    Shedding => shedding::SheddingReport,
    Priority => priority::PriorityReport,
    Lesson => lesson::LessonReport,
    Adaptive => adaptive::AdaptiveReport,
}

/// Identifies one chart (the charts crate draws each).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum ChartId {
    CollapseGoodput,
    CollapseAmplification,
    AdmissionLimitSweep,
    AdmissionPlateau,
    ShapingTimeline,
    ShapingBurstSweep,
    SheddingSweep,
    SheddingHangover,
    PriorityProtection,
    PriorityBurst,
    LessonSweep,
    LessonLatency,
    AdaptiveLimit,
    AdaptiveP99,
    AdaptiveOk,
}

/// A chart's id, PNG file name and title.
#[derive(Clone, Copy, Debug)]
pub struct ChartSpec {
    /// Which chart.
    pub id: ChartId,
    /// PNG file name.
    pub file: &'static str,
    /// Title drawn above it.
    pub title: &'static str,
}

/// Validates parameters; returns the work estimate and the timeline windows.
pub(crate) type CheckFn = fn(&Params) -> Result<(Estimate, u64), crate::ConfigError>;
/// Runs every model of the experiment, independent runs through `exec`.
pub(crate) type RunFn = fn(&Params, &dyn Exec) -> Report;

/// One experiment of the lab: its registry entry.
#[derive(Debug)]
pub struct Experiment {
    /// Which experiment.
    pub id: ExperimentId,
    /// Command-line and URL name, e.g. `admission`.
    pub name: &'static str,
    /// Human title.
    pub title: &'static str,
    /// The article it reproduces.
    pub post: &'static str,
    /// Output folder, e.g. `bp-post2` (named like `golden/`).
    pub dir: &'static str,
    /// One sentence: what it shows.
    pub lesson: &'static str,
    /// CSV tables in output order.
    pub tables: &'static [TableSpec],
    /// Charts in output order.
    pub charts: &'static [ChartSpec],
    /// Parameters it uses (others are an error for it).
    pub params: &'static [ParamKey],
    /// The control a reader reaches for first (the page marks it).
    pub main_param: ParamKey,
    pub(crate) defaults: fn() -> Params,
    pub(crate) check: CheckFn,
    pub(crate) run: RunFn,
    /// Cheaper parameters showing the chosen point first (the page computes
    /// these in the frame of the input, then the full run in a later frame).
    pub(crate) preview: Option<fn(&Params) -> Params>,
}

impl Experiment {
    /// The article defaults.
    pub fn defaults(&self) -> Params {
        (self.defaults)()
    }

    /// Parameters for a first, cheap answer at the chosen point, when the
    /// full run may not fit in one frame; `None` when the full run is cheap.
    pub fn preview(&self, p: &Params) -> Option<Params> {
        self.preview.map(|f| f(p))
    }

    /// Whether this experiment uses `key`.
    pub fn uses(&self, key: ParamKey) -> bool {
        self.params.contains(&key)
    }

    /// The experiment with this id (the registry is in id order).
    pub fn get(id: ExperimentId) -> &'static Experiment {
        &EXPERIMENTS[id as usize]
    }

    /// The experiment named `name`.
    pub fn named(name: &str) -> Result<&'static Experiment, crate::ConfigError> {
        EXPERIMENTS.iter().find(|e| e.name == name).ok_or_else(|| crate::ConfigError::Unknown {
            what: "experiment",
            name: name.to_owned(),
            accepted: EXPERIMENTS.iter().map(|e| e.name).collect::<Vec<_>>().join(", "),
        })
    }
}
