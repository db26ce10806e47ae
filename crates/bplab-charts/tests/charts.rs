//! Every plot of every experiment renders, at the defaults, on degenerate
//! runs and on emptied reports, and its layout keeps the rules at the
//! widths a figure is shown at (a 320 px phone, a 720 px tablet, a
//! 1,400 px desktop, the CLI's PNG): no overlapping texts, none outside
//! the canvas or under 11 px, no label on the data, markers unclipped.

use bplab_charts::{
    ChartError, LIMIT_CURVE_TITLE, Layout, MIN_FONT_PX, TextKind, Theme, height_for, limit_curve, render,
};
use bplab_core::calc::LimitInput;
use bplab_core::plot::{Focus, Plot, XAxis};
use bplab_core::{Caps, EXPERIMENTS, Experiment, ExperimentId, Report, Scenario};
use plotters::prelude::*;

/// Canvas widths as measured in Chromium: a figure on a 320 px page (254 to
/// 290 px), in a 320 px embed, on a 480 px page, two side by side on a
/// 720 px page or three on a 1,400 px one (about 330 to 460 px), at its
/// widest (640 px), and the CLI's PNG (960 px).
const WIDTHS: [u32; 7] = [254, 288, 330, 414, 461, 640, 960];

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

fn svg_sized(plot: &Plot, size: (u32, u32), theme: &Theme) -> Result<(String, Layout), ChartError> {
    fonts();
    let mut out = String::new();
    let layout = {
        let area = SVGBackend::with_string(&mut out, size).into_drawing_area();
        render(&area, plot, theme)?
    };
    Ok((out, layout))
}

fn svg(plot: &Plot) -> String {
    svg_sized(plot, (720, 400), &Theme::LIGHT).unwrap_or_else(|e| panic!("{}: {e}", plot.title)).0
}

fn lines(svg: &str) -> usize {
    svg.matches("<polyline").count() + svg.matches("<path").count() + svg.matches("<line").count()
}

/// Text as the SVG backend writes it (it escapes `&`, `<`, `>`).
fn escaped(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// Every rule at every width; returns the layouts.
fn clean_at_every_width(what: &str, plot: &Plot) -> Vec<Layout> {
    WIDTHS
        .iter()
        .map(|&w| {
            let (_, layout) = svg_sized(plot, (w, height_for(w, plot)), &Theme::LIGHT).unwrap();
            let problems = layout.problems(MIN_FONT_PX);
            assert!(problems.is_empty(), "{what} at {w} px: {problems:#?}");
            // Every marker label is drawn whole (not clipped, not dropped).
            for m in plot.vlines.iter().chain(&plot.hlines) {
                let shown = layout.texts.iter().any(|t| t.text == m.label);
                let off_axis = !layout.texts.iter().any(|t| t.kind == TextKind::Tick);
                assert!(shown || off_axis || !m.at.is_finite(), "{what} at {w} px: marker {:?} missing", m.label);
            }
            layout
        })
        .collect()
}

fn all_plots(report: &Report, focus: &Focus) -> Vec<Plot> {
    report.plots(focus)
}

#[test]
fn every_plot_draws_at_defaults_and_keeps_the_layout_rules() {
    for e in EXPERIMENTS {
        let report = Scenario::defaults(e.id).run();
        for (plot, spec) in all_plots(&report, &Focus::default()).iter().zip(e.charts) {
            let out = svg(plot);
            assert!(out.contains(&escaped(spec.title)), "{} lacks its title", spec.file);
            assert!(lines(&out) > 10, "{}: only {} lines", spec.file, lines(&out));
            let layouts = clean_at_every_width(spec.file, plot);
            assert!(layouts[0].min_font_px() >= MIN_FONT_PX && layouts[6].min_font_px() > MIN_FONT_PX);
        }
    }
}

/// Settings far from the defaults, given by name as the CLI and URL give
/// them (only the names `id` uses).
fn odd(id: ExperimentId, pairs: &[(&str, &str)]) -> Report {
    let e = Experiment::get(id);
    let mut p = e.defaults();
    for (name, v) in pairs {
        if e.param(name).is_some() {
            p.set(name, v).unwrap_or_else(|err| panic!("{id:?} {name}={v}: {err}"));
        }
    }
    Scenario::new(p, Caps::CLI).unwrap_or_else(|err| panic!("{id:?}: {err}")).run()
}

#[test]
fn odd_settings_keep_the_layout_rules() {
    let cases = [
        odd(ExperimentId::Admission, &[("service-ms", "7")]),
        odd(ExperimentId::Lesson, &[("rate", "40,48,60,100,120"), ("at-rate", "120")]),
        odd(ExperimentId::Lesson, &[("workers", "4"), ("service", "lognormal:p50=20,p99=60")]),
        odd(ExperimentId::Adaptive, &[("slowdown-factor", "3.5"), ("controllers", "fixed,codel")]),
        odd(ExperimentId::Adaptive, &[("rate-schedule", "40@0,80@15000")]),
        odd(ExperimentId::Shedding, &[("offered", "50,400")]),
        odd(ExperimentId::Shaping, &[("bursts", "1,80"), ("gate-rate-rps", "300")]),
    ];
    let focus = Focus::line("offered_rps", 150.0, "offered 150").and(Focus::ring("limit", 20.0));
    for r in &cases {
        for (plot, spec) in all_plots(r, &focus).iter().zip(Experiment::get(r.id()).charts) {
            clean_at_every_width(spec.file, plot);
        }
    }
}

#[test]
fn coinciding_lines_are_named_in_a_note() {
    // Before the deploy and below capacity every controller delivers the same answers.
    let r = odd(ExperimentId::Adaptive, &[("slowdown-factor", "1")]);
    let plots = r.plots(&Focus::default());
    let ok = plots.iter().find(|p| p.title.starts_with("Delivered")).unwrap();
    let (_, layout) = svg_sized(ok, (640, height_for(640, ok)), &Theme::LIGHT).unwrap();
    assert!(!layout.notes.is_empty(), "identical lines are named");
    assert!(layout.notes.iter().any(|n| n.contains("one line")), "{:?}", layout.notes);
    assert!(layout.texts.iter().any(|t| t.kind == TextKind::Legend && t.text.contains("one line")));
}

#[test]
fn reference_markers_and_focus_are_drawn() {
    let focus = Focus::line("offered_rps", 150.0, "offered 150");
    let admission = Scenario::defaults(ExperimentId::Admission).run().plots(&focus);
    let sweep = svg(&admission[0]);
    assert!(sweep.contains("B = 20"), "B marker missing");
    assert!(sweep.contains("none"), "the unlimited category is labelled");
    assert!(sweep.contains("utilization (%)"));
    assert_eq!(admission[0].rings.len(), 1, "the plateau limit is ringed");
    let collapse = Scenario::defaults(ExperimentId::Collapse).run().plots(&focus);
    let goodput = svg(&collapse[0]);
    assert!(goodput.contains("capacity 100 rps") && goodput.contains("offered 150"));
    let priority = Scenario::defaults(ExperimentId::Priority).run().plots(&Focus::default());
    let prot = svg(&priority[0]);
    assert!(prot.contains("ceiling 400 rps") && prot.contains("SLO 99 %"));
    let Report::Shaping(shaping) = Scenario::defaults(ExperimentId::Shaping).run() else { unreachable!() };
    let burst = format!("burst {}", shaping.timeline.burst);
    let plots = Report::Shaping(shaping).plots(&Focus::default());
    assert!(svg(&plots[1]).contains(&burst), "the timeline's burst is marked on the sweep");
}

/// One offered rate, 1 ms windows (priority needs the window after the deadline).
fn tiny(id: ExperimentId) -> Report {
    let duration = if id == ExperimentId::Priority { "2" } else { "1" };
    odd(
        id,
        &[
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
        ],
    )
}

#[test]
fn degenerate_runs_draw() {
    for e in EXPERIMENTS {
        let report = tiny(e.id);
        for plot in report.plots(&Focus::line("offered_rps", 1.0, "offered 1")) {
            for w in WIDTHS {
                let out = svg_sized(&plot, (w, height_for(w, &plot)), &Theme::DARK);
                assert!(out.is_ok(), "{}: {:?}", plot.title, out.err());
            }
        }
    }
}

/// The report's plots with no data at all, three ways: every series and
/// band without points (no rings either; the texts, axes, categories and
/// markers stay), then without the series and bands themselves, then
/// without categories and markers too (a categorical marker has no place
/// then). Written on the plots, so it serves every experiment as it is.
fn emptied(report: &Report) -> [Vec<Plot>; 3] {
    let bare = |mut p: Plot| {
        p.series.iter_mut().for_each(|s| s.points.clear());
        p.bands.iter_mut().for_each(|b| b.points.clear());
        p.rings.clear();
        p
    };
    let plots: Vec<Plot> = report.plots(&Focus::default()).into_iter().map(bare).collect();
    let none: Vec<Plot> = plots.iter().cloned().map(|p| Plot { series: Vec::new(), bands: Vec::new(), ..p }).collect();
    let nothing = none
        .iter()
        .cloned()
        .map(|p| {
            let x = if matches!(p.x, XAxis::Categories(_)) { XAxis::Categories(Vec::new()) } else { p.x };
            Plot { x, vlines: Vec::new(), hlines: Vec::new(), ..p }
        })
        .collect();
    [plots, none, nothing]
}

#[test]
fn empty_reports_draw() {
    for e in EXPERIMENTS {
        for plots in emptied(&Scenario::defaults(e.id).run()) {
            assert_eq!(plots.len(), e.charts.len(), "{}", e.name);
            for (plot, spec) in plots.iter().zip(e.charts) {
                assert!(svg(plot).contains(&escaped(spec.title)));
                clean_at_every_width(spec.file, plot);
            }
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
    for plot in r.plots(&Focus::line("offered_rps", 1e300, "far")) {
        for w in WIDTHS {
            assert!(svg_sized(&plot, (w, height_for(w, &plot)), &Theme::LIGHT).is_ok());
        }
    }
    // A plot of nothing but non-finite values and a zero-sized canvas.
    let mut p = Plot::new("nothing", "x", "x", "y");
    p.series.push(bplab_core::plot::Series::new("nan", bplab_core::plot::Role::Series(9), vec![(f64::NAN, 1.0)]));
    p.hlines.push(bplab_core::plot::Marker::new(f64::INFINITY, "inf", bplab_core::plot::Role::Budget));
    assert!(svg_sized(&p, (1, 1), &Theme::LIGHT).is_ok());
    assert!(svg_sized(&p, (640, 360), &Theme::DARK).is_ok());
}

#[test]
fn themes_colour_the_background() {
    let plot = &Scenario::defaults(ExperimentId::Collapse).run().plots(&Focus::default())[0];
    let (light, _) = svg_sized(plot, (640, 400), &Theme::LIGHT).unwrap();
    let (dark, _) = svg_sized(plot, (640, 400), &Theme::DARK).unwrap();
    assert!(light.contains("#FFFFFF"), "light background");
    assert!(dark.contains("#161B22") && !dark.contains("#FFFFFF"), "dark background, no white");
}

fn limit_svg(input: LimitInput, range: (f64, f64)) -> Result<(String, Layout), ChartError> {
    svg_sized(&limit_curve(&input, range)?, (720, 400), &Theme::LIGHT)
}

#[test]
fn limit_curve_draws_the_lesson() {
    let lesson = LimitInput { workers: 1, budget_ms: 230.0, service_ms: 21.0 };
    let (out, _) = limit_svg(lesson, (0.0, 500.0)).unwrap();
    assert!(out.contains(LIMIT_CURVE_TITLE));
    assert!(out.contains("230 ms → queue 10 (in system 11)"), "current point label");
    assert!(lines(&out) > 10);
    clean_at_every_width("limit curve", &limit_curve(&lesson, (0.0, 500.0)).unwrap());
    // Degenerate ranges still draw; an invalid input is a typed error.
    assert!(limit_svg(lesson, (f64::NAN, f64::INFINITY)).is_ok());
    assert!(limit_svg(lesson, (230.0, 230.0)).is_ok());
    let bad = LimitInput { budget_ms: 20.0, ..lesson };
    assert!(matches!(limit_svg(bad, (0.0, 500.0)), Err(ChartError::Input(_))));
}

#[test]
#[ignore = "writes PNGs to $BPLAB_CHARTS_DUMP for eyeballing"]
fn dump() {
    let Ok(dir) = std::env::var("BPLAB_CHARTS_DUMP") else { return };
    fonts();
    for e in EXPERIMENTS {
        let report = Scenario::defaults(e.id).run();
        for (plot, spec) in report.plots(&Focus::default()).iter().zip(e.charts) {
            for (w, theme, tag) in [(288, Theme::LIGHT, "288"), (640, Theme::DARK, "640-dark")] {
                let path = format!("{dir}/{}-{tag}.png", spec.file.trim_end_matches(".png"));
                let area = BitMapBackend::new(&path, (w, height_for(w, plot))).into_drawing_area();
                let _ = render(&area, plot, &theme);
            }
        }
    }
}

/// D5 (page audit 2): a marker label moved into the legend is listed once.
/// The metastable goodput chart's "80 % of capacity" was listed twice at
/// 320 px (the "20 %" one beside its line), so the legend named the 20 %
/// line wrongly. Every plot, every width: no legend entry twice.
#[test]
fn no_legend_entry_is_listed_twice() {
    for e in EXPERIMENTS {
        let report = Scenario::defaults(e.id).run();
        for (plot, spec) in all_plots(&report, &Focus::default()).iter().zip(e.charts) {
            for &w in &WIDTHS {
                let (_, layout) = svg_sized(plot, (w, height_for(w, plot)), &Theme::LIGHT).unwrap();
                let legend: Vec<&str> =
                    layout.texts.iter().filter(|t| t.kind == TextKind::Legend).map(|t| t.text.as_str()).collect();
                for (i, t) in legend.iter().enumerate() {
                    assert!(
                        !legend[i + 1..].contains(t),
                        "{} at {w} px: legend lists {t:?} twice: {legend:?}",
                        spec.file
                    );
                }
            }
        }
    }
}
