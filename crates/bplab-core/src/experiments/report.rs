//! What every experiment's report offers, whichever experiment it is.

use super::{Readout, Report, RunTally};
use crate::calc::Explanation;
use crate::plot::{Focus, Plot};
use crate::table::Table;

/// The experiment-independent face of a report (implemented in each
/// experiment's module, next to its run).
pub trait ExperimentReport: std::fmt::Debug {
    /// The CSV tables, in the registry's order.
    fn tables(&self) -> Vec<Table>;
    /// Where the headline numbers come from.
    fn explanations(&self) -> Vec<Explanation>;
    /// The headline numbers, in display order (names stable per experiment).
    fn readouts(&self) -> Vec<Readout>;
    /// One tally per model run, for conservation checks.
    fn tallies(&self) -> Vec<RunTally>;
    /// The figures, in the registry's chart order (titles from it).
    fn plots(&self) -> Vec<Plot>;
}

/// What each experiment writes for its report type itself, in its
/// `mod.rs`: the CSV tables and the tallies. The registry builds the
/// [`ExperimentReport`] from these and its folder's `plots.rs` and
/// `explain.rs` (`plots`, `explanations`, `readouts`), once for all.
pub(crate) trait Rows {
    /// The CSV tables, in the registry's order.
    fn tables(&self) -> Vec<Table>;
    /// One tally per model run, for conservation checks.
    fn tallies(&self) -> Vec<RunTally>;
}

impl Report {
    /// The CSV tables, in the registry's order.
    pub fn tables(&self) -> Vec<Table> {
        self.view().tables()
    }

    /// Where this report's headline numbers come from.
    pub fn explanations(&self) -> Vec<Explanation> {
        self.view().explanations()
    }

    /// The headline numbers.
    pub fn readouts(&self) -> Vec<Readout> {
        self.view().readouts()
    }

    /// The figures, in the registry's chart order, with `focus` applied.
    pub fn plots(&self, focus: &Focus) -> Vec<Plot> {
        let mut plots = self.view().plots();
        plots.iter_mut().for_each(|p| p.apply(focus));
        plots
    }

    /// One tally per model run.
    pub fn tallies(&self) -> Vec<RunTally> {
        self.view().tallies()
    }

    /// Arrivals (attempts, for collapse) simulated over every run.
    pub fn arrivals_simulated(&self) -> u64 {
        self.tallies().iter().map(|t| t.arrivals).sum()
    }
}
