//! The typed result of one experiment.

use super::{AdmissionReport, CollapseReport, ExperimentId, PriorityReport, ShapingReport, SheddingReport};
use crate::table::Table;

/// What one experiment produced: typed rows for charts and explanations,
/// renderable to the experiment's CSV tables.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[allow(missing_docs)]
pub enum Report {
    Collapse(CollapseReport),
    Admission(AdmissionReport),
    Shaping(ShapingReport),
    Shedding(SheddingReport),
    Priority(PriorityReport),
}

impl Report {
    /// Which experiment produced it.
    pub fn id(&self) -> ExperimentId {
        match self {
            Report::Collapse(_) => ExperimentId::Collapse,
            Report::Admission(_) => ExperimentId::Admission,
            Report::Shaping(_) => ExperimentId::Shaping,
            Report::Shedding(_) => ExperimentId::Shedding,
            Report::Priority(_) => ExperimentId::Priority,
        }
    }

    /// The CSV tables, in the registry's order.
    pub fn tables(&self) -> Vec<Table> {
        match self {
            Report::Collapse(r) => r.tables(),
            Report::Admission(r) => r.tables(),
            Report::Shaping(r) => r.tables(),
            Report::Shedding(r) => r.tables(),
            Report::Priority(r) => r.tables(),
        }
    }
}
