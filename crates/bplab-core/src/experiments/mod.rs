//! The one registry of experiments. Each experiment has one home, a folder
//! that owns its name, article, parameters (`params.rs`: the typed struct,
//! each field's spec and default), validation, work estimate, run, tables,
//! explanation and readouts (its `DEF`, its `check` / `run` / `preview` and
//! its report type's [`ExperimentReport`] impl). The [`registry!`] line below
//! is the only other place that names it: it generates [`ExperimentId`],
//! [`Params`], [`Report`] and [`EXPERIMENTS`], so dispatch is written once
//! and a missing entry is a compile error. The CLI, the page and the tests
//! iterate [`EXPERIMENTS`]; nothing else lists them.

mod any;
mod exec;
mod readout;
mod report;
mod scenario;
mod shared;

pub use exec::{Exec, Job, Sequential, par_map};
pub use readout::{Readout, RunTally};
pub use report::ExperimentReport;
use report::Rows;
pub use scenario::{Caps, Scenario};

use crate::params::{ParamSet, ParamSpec};
use crate::table::TableSpec;
pub(crate) use scenario::Estimate;
pub(crate) use shared::{argmax, deadline_covers_service, poisson_bound, rps};

/// Declares the experiments: `Variant => module::{ParamsType, ReportType}`,
/// in page order. Each module provides `DEF`, `check(&ParamsType)`,
/// `run(&ParamsType, &dyn Exec) -> ReportType` and
/// `preview(&ParamsType, &dyn Exec) -> Option<ReportType>` (the chosen
/// point alone, where the full run is not cheap).
macro_rules! registry {
    ($($variant:ident => $module:ident :: { $params:ident, $report:ident }),+ $(,)?) => {
        $(pub mod $module; pub use $module::{$params, $report};)+

        /// Identifies one experiment (generated from the registry, in page order).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
        #[allow(missing_docs)]
        pub enum ExperimentId { $($variant),+ }

        /// What one experiment produced: its typed report (built once per run
        /// and passed by reference, so variant sizes do not matter).
        #[derive(Clone, Debug, PartialEq, serde::Serialize)]
        #[allow(missing_docs, clippy::large_enum_variant)]
        pub enum Report { $($variant($report)),+ }

        /// The parameters of one experiment run, whichever experiment: its
        /// typed struct (fields set in code) with name-based access (the
        /// CLI's flags, the URL's keys, the JS API's object keys).
        #[derive(Clone, Debug, PartialEq, serde::Serialize)]
        #[serde(untagged)]
        #[allow(missing_docs)]
        pub enum Params { $($variant($params)),+ }

        $(impl From<$params> for Params {
            fn from(p: $params) -> Self {
                Params::$variant(p)
            }
        })+

        // Each report's face: its own tables and tallies ([`report::Rows`]),
        // its folder's `plots::plots`, `explain::explanations` and
        // `explain::readouts`.
        $(impl ExperimentReport for $report {
            fn tables(&self) -> Vec<crate::table::Table> {
                report::Rows::tables(self)
            }

            fn tallies(&self) -> Vec<RunTally> {
                report::Rows::tallies(self)
            }

            fn plots(&self) -> Vec<crate::plot::Plot> {
                $module::plots::plots(self)
            }

            fn explanations(&self) -> Vec<crate::calc::Explanation> {
                $module::explain::explanations(self)
            }

            fn readouts(&self) -> Vec<Readout> {
                $module::explain::readouts(self)
            }
        })+

        /// All experiments, in page order; `EXPERIMENTS[id as usize].id == id`.
        pub static EXPERIMENTS: &[Experiment] = &[$($module::DEF),+];

        /// Each experiment's words to avoid (its folder's `hooks::lint`), on
        /// lower-cased explanation text.
        pub(crate) fn lint_hook(id: ExperimentId, lower: &str) -> Result<(), String> {
            match id { $(ExperimentId::$variant => $module::hooks::lint(lower)),+ }
        }

        impl Report {
            /// Every request of the runs its explanations' statements name,
            /// re-run with the models' log hooks (its folder's
            /// `hooks::request_logs`): the statement checker's evidence.
            pub fn request_logs(&self) -> crate::statement::Logs {
                match self { $(Report::$variant(r) => $module::hooks::request_logs(r)),+ }
            }

            /// Which experiment produced it.
            pub fn id(&self) -> ExperimentId {
                match self { $(Report::$variant(_) => ExperimentId::$variant),+ }
            }

            /// The experiment-independent view of the report.
            pub fn view(&self) -> &dyn ExperimentReport {
                match self { $(Report::$variant(r) => r),+ }
            }
        }

        impl Params {
            /// The defaults of experiment `id` (the article's or the lesson's).
            pub fn defaults(id: ExperimentId) -> Self {
                match id { $(ExperimentId::$variant => Params::$variant($params::default())),+ }
            }

            /// Which experiment these parameters are for.
            pub fn id(&self) -> ExperimentId {
                match self { $(Params::$variant(_) => ExperimentId::$variant),+ }
            }

            /// Every parameter of the experiment, in display order.
            pub fn specs(&self) -> &'static [ParamSpec] {
                match self { $(Params::$variant(_) => $params::SPECS),+ }
            }

            fn set_named(&mut self, name: &str, text: &str) -> Option<Result<(), crate::ConfigError>> {
                match self { $(Params::$variant(p) => p.set_named(name, text)),+ }
            }

            /// The text of parameter `name` (`None`: the experiment has none of that name).
            pub fn get(&self, name: &str) -> Option<String> {
                match self { $(Params::$variant(p) => p.get_named(name)),+ }
            }

            /// Re-checks every value against its spec.
            pub fn check_ranges(&self) -> Result<(), crate::ConfigError> {
                match self { $(Params::$variant(p) => p.check_ranges()),+ }
            }

            pub(crate) fn estimate(&self) -> Result<(Estimate, u64), crate::ConfigError> {
                match self { $(Params::$variant(p) => $module::check(p)),+ }
            }

            pub(crate) fn run(&self, exec: &dyn Exec) -> Report {
                match self { $(Params::$variant(p) => Report::$variant($module::run(p, exec))),+ }
            }

            /// The chosen point alone, at most the full run's work: the page
            /// shows it first, then the full run (sweeps included); every
            /// number it has is the full run's. `None` when the full run is cheap.
            pub(crate) fn preview(&self, exec: &dyn Exec) -> Option<Report> {
                match self { $(Params::$variant(p) => $module::preview(p, exec).map(Report::$variant)),+ }
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

registry! {
    Collapse => collapse::{CollapseParams, CollapseReport},
    Admission => admission::{AdmissionParams, AdmissionReport},
    Shaping => shaping::{ShapingParams, ShapingReport},
    Shedding => shedding::{SheddingParams, SheddingReport},
    Priority => priority::{PriorityParams, PriorityReport},
    Lesson => lesson::{LessonParams, LessonReport},
    Adaptive => adaptive::{AdaptiveParams, AdaptiveReport},
    Metastable => metastable::{MetastableParams, MetastableReport},
}

/// A chart's PNG file name and title (its plot comes from the report:
/// [`Report::plots`], in the same order).
#[derive(Clone, Copy, Debug)]
pub struct ChartSpec {
    /// PNG file name.
    pub file: &'static str,
    /// Title drawn above it.
    pub title: &'static str,
}

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
    /// Its parameters, in display order (its params struct's `SPECS`; any
    /// other name is an error for it).
    pub params: &'static [ParamSpec],
    /// The name of the control a reader reaches for first (the page marks it).
    pub main_param: &'static str,
    /// The name of the parameter that sets its run window (`duration-ms`,
    /// `seconds`): what a run-size refusal tells the user to shorten.
    pub window_param: &'static str,
}

impl Experiment {
    /// The article defaults.
    pub fn defaults(&self) -> Params {
        Params::defaults(self.id)
    }

    /// The spec of its parameter `name`, if it has one.
    pub fn param(&self, name: &str) -> Option<&'static ParamSpec> {
        self.params.iter().find(|s| s.name == name)
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
