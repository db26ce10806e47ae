//! The experiment widgets' readouts and highlights, taken from the core's
//! report and the charts crate: no per-experiment code here.

use bplab_charts::Focus;
use bplab_core::Report;

/// One readout: its name and its value text.
pub type Readout = (&'static str, String);

/// The highlights of the charts.
pub fn focus(report: &Report) -> Focus {
    Focus::of(report)
}

/// The readouts of `report`, in display order (names are stable per experiment).
pub fn readouts(report: &Report) -> Vec<Readout> {
    report.readouts().into_iter().map(|r| (r.name, r.value)).collect()
}
