//! A validated experiment run: the experiment plus checked parameters.

use super::{Exec, Experiment, ExperimentId, Params, Report, Sequential};
use crate::error::ConfigError;

/// Work caps that keep any input from hanging the tab or exhausting memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caps {
    /// Most arrivals (attempts, for collapse) in one model run.
    pub max_run_arrivals: u64,
    /// Most arrivals summed over every run of the experiment.
    pub max_total_arrivals: u64,
    /// Most timeline windows.
    pub max_windows: u64,
}

impl Caps {
    /// The model contract's caps plus 50 million per experiment (the CLI).
    pub const CLI: Caps = Caps { max_run_arrivals: 10_000_000, max_total_arrivals: 50_000_000, max_windows: 100_000 };
    /// Tighter caps for the page, where every slider move reruns the experiment.
    pub const PAGE: Caps = Caps { max_run_arrivals: 2_000_000, max_total_arrivals: 4_000_000, max_windows: 20_000 };
}

/// A checked experiment run, ready to [`Scenario::run`].
#[derive(Clone, Debug)]
pub struct Scenario {
    experiment: &'static Experiment,
    params: Params,
}

/// Upper estimates of the arrivals an experiment will simulate.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Estimate {
    /// Largest single run.
    pub max_run: u64,
    /// All runs together.
    pub total: u64,
}

impl Estimate {
    /// Adds `runs` runs of `arrivals` each.
    pub fn add(&mut self, arrivals: u64, runs: u64) {
        self.max_run = self.max_run.max(arrivals);
        self.total = self.total.saturating_add(arrivals.saturating_mul(runs));
    }
}

impl Scenario {
    /// Checks `params` against the ranges, the experiment's cross-field
    /// rules and `caps`.
    pub fn new(params: impl Into<Params>, caps: Caps) -> Result<Self, ConfigError> {
        let params = params.into();
        params.check_ranges()?;
        let experiment = params.experiment();
        let window = experiment.window_param;
        let (estimate, windows) = params.estimate()?;
        if windows > caps.max_windows {
            return Err(ConfigError::TooManyWindows { windows, cap: caps.max_windows, window });
        }
        if estimate.max_run > caps.max_run_arrivals {
            return Err(ConfigError::TooManyArrivals {
                scope: "one run",
                estimated: estimate.max_run,
                cap: caps.max_run_arrivals,
                window,
            });
        }
        if estimate.total > caps.max_total_arrivals {
            return Err(ConfigError::TooManyArrivals {
                scope: "the experiment",
                estimated: estimate.total,
                cap: caps.max_total_arrivals,
                window,
            });
        }
        Ok(Self { experiment, params })
    }

    /// The article defaults of `id` (always valid).
    pub fn defaults(id: ExperimentId) -> Self {
        Self { experiment: Experiment::get(id), params: Params::defaults(id) }
    }

    /// The experiment.
    pub fn experiment(&self) -> &'static Experiment {
        self.experiment
    }

    /// The checked parameters.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// Runs every model of the experiment on the calling thread.
    pub fn run(&self) -> Report {
        self.run_with(&Sequential)
    }

    /// Runs every model of the experiment, independent runs through `exec`
    /// (the bytes are the same whatever the executor).
    pub fn run_with(&self, exec: &dyn Exec) -> Report {
        self.params.run(exec)
    }

    /// The chosen point alone (the experiment's preview), on the calling
    /// thread; `None` when the experiment has none (its full run is cheap).
    pub fn preview(&self) -> Option<Report> {
        self.params.preview(&Sequential)
    }
}
