//! Every experiment's report returns one plot per registry chart, titled as
//! the registry says, with some data in each at the defaults.

use crate::{EXPERIMENTS, Scenario};

use super::Focus;

#[test]
fn every_report_plots_its_registry_charts() {
    for e in EXPERIMENTS {
        let report = Scenario::defaults(e.id).run();
        let plots = report.plots(&Focus::default());
        assert_eq!(plots.len(), e.charts.len(), "{}", e.name);
        for (p, c) in plots.iter().zip(e.charts) {
            assert_eq!(p.title, c.title, "{}", e.name);
            assert!(!p.x_key.is_empty() && !p.x_desc.is_empty() && !p.y_desc.is_empty(), "{}", c.file);
            assert!(p.series.iter().any(|s| s.points.len() >= 2), "{}: no line", c.file);
        }
    }
}

#[test]
fn a_focus_reaches_the_plots_of_its_quantity() {
    let e = EXPERIMENTS.iter().find(|e| e.name == "collapse").unwrap();
    let plots = Scenario::defaults(e.id).run().plots(&Focus::line("offered_rps", 150.0, "offered 150"));
    assert!(plots.iter().all(|p| p.vlines.iter().any(|m| m.label == "offered 150")));
}
