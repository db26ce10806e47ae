//! The experiment widgets' readouts and highlights, taken from the core's
//! report and the charts crate: no per-experiment code here.

use crate::worker::View;

/// One readout: its name and its value text.
pub type Readout = (String, String);

/// The readouts of `report`, in display order (names are stable per experiment).
pub fn readouts(report: &View) -> Vec<Readout> {
    report.readouts.clone()
}
