//! Every registry chart draws to SVG at the defaults, on degenerate runs and
//! on emptied reports; the calculator chart draws the lesson's numbers.

use bplab_charts::{ChartError, Focus, LIMIT_CURVE_TITLE, draw, draw_limit_curve};
use bplab_core::calc::LimitInput;
use bplab_core::{Caps, ChartId, EXPERIMENTS, Experiment, ExperimentId, Report, Scenario};
use plotters::prelude::*;

const SIZE: (u32, u32) = (720, 400);

/// The CLI's embedded font, registered once for every family the charts use.
fn fonts() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let ttf: &'static [u8] = include_bytes!("../../bplab/assets/DejaVuSans.ttf");
        for family in ["sans-serif", "serif", "monospace"] {
            for style in [FontStyle::Normal, FontStyle::Bold] {
                assert!(plotters::style::register_font(family, style, ttf).is_ok());
            }
        }
    });
}

fn svg(chart: ChartId, report: &Report, focus: &Focus) -> Result<String, ChartError> {
    fonts();
    let mut out = String::new();
    {
        let area = SVGBackend::with_string(&mut out, SIZE).into_drawing_area();
        draw(&area, chart, report, focus)?;
    }
    Ok(out)
}

fn lines(svg: &str) -> usize {
    svg.matches("<polyline").count() + svg.matches("<path").count() + svg.matches("<line").count()
}

/// Text as the SVG backend writes it (it escapes `&`, `<`, `>`).
fn escaped(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

#[test]
fn every_chart_draws_at_defaults() {
    for e in EXPERIMENTS {
        let report = Scenario::defaults(e.id).run();
        for spec in e.charts {
            let out = svg(spec.id, &report, &Focus::default()).unwrap_or_else(|err| panic!("{:?}: {err}", spec.id));
            assert!(out.contains(&escaped(spec.title)), "{:?} lacks its title", spec.id);
            assert!(lines(&out) > 10, "{:?}: only {} lines", spec.id, lines(&out));
        }
    }
}

#[test]
fn every_chart_draws_with_focus() {
    let focus = Focus { admission_limit: Some(20), offered_rps: Some(150.0), burst: Some(8) };
    for e in EXPERIMENTS {
        let report = Scenario::defaults(e.id).run();
        for spec in e.charts {
            assert!(svg(spec.id, &report, &focus).is_ok(), "{:?}", spec.id);
        }
    }
}

#[test]
fn reference_markers_are_drawn() {
    let focus = Focus { admission_limit: Some(20), offered_rps: Some(150.0), burst: Some(8) };
    let admission = Scenario::defaults(ExperimentId::Admission).run();
    let sweep = svg(ChartId::AdmissionLimitSweep, &admission, &focus).unwrap();
    assert!(sweep.contains("B = 20"), "B marker missing");
    assert!(sweep.contains("none"), "the unlimited category is labelled");
    assert!(sweep.contains("utilization (%)"));
    let collapse = Scenario::defaults(ExperimentId::Collapse).run();
    let goodput = svg(ChartId::CollapseGoodput, &collapse, &focus).unwrap();
    assert!(goodput.contains("capacity 100 rps") && goodput.contains("offered 150"));
    let priority = Scenario::defaults(ExperimentId::Priority).run();
    let prot = svg(ChartId::PriorityProtection, &priority, &Focus::default()).unwrap();
    assert!(prot.contains("ceiling 400 rps") && prot.contains("SLO 99 %"));
    let shaping = Scenario::defaults(ExperimentId::Shaping).run();
    assert!(svg(ChartId::ShapingBurstSweep, &shaping, &focus).unwrap().contains("burst 8"));
}

/// One offered rate, 1 ms windows (priority needs the window after the deadline).
fn tiny(id: ExperimentId) -> Report {
    let mut p = Experiment::get(id).defaults();
    let duration = if id == ExperimentId::Priority { "2" } else { "1" };
    let tiny = [
        ("offered", "1"),
        ("limits", "none"),
        ("bursts", "1"),
        ("service-ms", "1"),
        ("deadline-ms", "1"),
        ("duration-ms", duration),
        ("window-ms", "1"),
        ("valley-ms", "1"),
        ("spike-ms", "1"),
        ("rate", "1"),
        ("seconds", "0.001"),
        ("replicas", "1"),
    ];
    let specs = p.specs();
    for (name, text) in tiny.into_iter().filter(|(n, _)| specs.iter().any(|s| s.name == *n)) {
        p.set(name, text).unwrap_or_else(|e| panic!("{id:?}: {e}"));
    }
    Scenario::new(p, Caps::CLI).unwrap_or_else(|e| panic!("{id:?}: {e}")).run()
}

#[test]
fn degenerate_runs_draw() {
    for e in EXPERIMENTS {
        let report = tiny(e.id);
        for spec in e.charts {
            let out = svg(spec.id, &report, &Focus { offered_rps: Some(1.0), ..Focus::default() });
            assert!(out.is_ok(), "{:?}: {:?}", spec.id, out.err());
        }
    }
}

/// Every row vector cleared: no data at all.
fn emptied(report: &Report) -> Report {
    let mut r = report.clone();
    match &mut r {
        Report::Collapse(c) => (c.no_retry.clear(), c.retry.clear()).0,
        Report::Admission(a) => (a.sweep.clear(), a.no_control.clear(), a.limited.clear()).0,
        Report::Shaping(s) => {
            s.sweep.clear();
            (s.timeline.offered_rps.clear(), s.timeline.token_rps.clear(), s.timeline.leaky_rps.clear()).0
        }
        Report::Shedding(s) => (s.sweep.clear(), s.hangover.clear()).0,
        Report::Priority(p) => (p.protection.clear(), p.burst.clear()).0,
        Report::Lesson(l) => (l.rates.clear(), l.at.counts.clear()).0,
        Report::Adaptive(a) => a.lanes.clear(),
    }
    r
}

#[test]
fn empty_reports_draw() {
    for e in EXPERIMENTS {
        let report = emptied(&Scenario::defaults(e.id).run());
        for spec in e.charts {
            let out = svg(spec.id, &report, &Focus::default()).unwrap_or_else(|err| panic!("{:?}: {err}", spec.id));
            assert!(out.contains(&escaped(spec.title)));
        }
    }
}

#[test]
fn huge_and_zero_values_draw() {
    let Report::Shedding(mut s) = Scenario::defaults(ExperimentId::Shedding).run() else { unreachable!() };
    for o in &mut s.hangover {
        o.window_p99_ms.iter_mut().for_each(|p| *p = u64::MAX);
    }
    for runs in &mut s.sweep {
        runs.iter_mut().for_each(|o| o.goodput_rps = 0.0);
    }
    let r = Report::Shedding(s);
    assert!(svg(ChartId::SheddingHangover, &r, &Focus::default()).is_ok());
    assert!(svg(ChartId::SheddingSweep, &r, &Focus { offered_rps: Some(1e300), ..Focus::default() }).is_ok());
}

#[test]
fn wrong_report_is_a_typed_error() {
    let report = Scenario::defaults(ExperimentId::Collapse).run();
    let err = svg(ChartId::PriorityBurst, &report, &Focus::default()).unwrap_err();
    assert_eq!(err, ChartError::WrongReport { chart: ChartId::PriorityBurst, report: ExperimentId::Collapse });
}

fn limit_svg(input: LimitInput, range: (f64, f64)) -> Result<String, ChartError> {
    fonts();
    let mut out = String::new();
    {
        let area = SVGBackend::with_string(&mut out, SIZE).into_drawing_area();
        draw_limit_curve(&area, &input, range)?;
    }
    Ok(out)
}

#[test]
fn limit_curve_draws_the_lesson() {
    let lesson = LimitInput { workers: 1, budget_ms: 230.0, service_ms: 21.0 };
    let out = limit_svg(lesson, (0.0, 500.0)).unwrap();
    assert!(out.contains(LIMIT_CURVE_TITLE));
    assert!(out.contains("230 ms → queue 10 (in system 11)"), "current point label");
    assert!(lines(&out) > 10);
    // Degenerate ranges still draw; an invalid input is a typed error.
    assert!(limit_svg(lesson, (f64::NAN, f64::INFINITY)).is_ok());
    assert!(limit_svg(lesson, (230.0, 230.0)).is_ok());
    let bad = LimitInput { budget_ms: 20.0, ..lesson };
    assert!(matches!(limit_svg(bad, (0.0, 500.0)), Err(ChartError::Input(_))));
}

#[test]
#[ignore = "writes SVGs to $BPLAB_CHARTS_DUMP for eyeballing"]
fn dump() {
    let Ok(dir) = std::env::var("BPLAB_CHARTS_DUMP") else { return };
    let focus = Focus { admission_limit: Some(28), offered_rps: Some(150.0), burst: Some(8) };
    for e in EXPERIMENTS {
        let report = Scenario::defaults(e.id).run();
        for spec in e.charts {
            let out = svg(spec.id, &report, &focus).unwrap_or_default();
            std::fs::write(format!("{dir}/{}.svg", spec.file.trim_end_matches(".png")), out).unwrap_or_default();
        }
    }
    let lesson = LimitInput { workers: 1, budget_ms: 230.0, service_ms: 21.0 };
    std::fs::write(format!("{dir}/limit.svg"), limit_svg(lesson, (0.0, 500.0)).unwrap_or_default()).unwrap_or_default();
}
