//! The experiment widgets' readouts and highlights, taken from the core's
//! report and the charts crate: no per-experiment code here.

use bplab_core::Report;

/// One readout: its name and its value text.
pub type Readout = (&'static str, String);

/// The readouts of `report`, in display order (names are stable per experiment).
pub fn readouts(report: &Report) -> Vec<Readout> {
    report.readouts().into_iter().map(|r| (r.name, r.value)).collect()
}
