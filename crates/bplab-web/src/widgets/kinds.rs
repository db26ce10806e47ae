//! What differs between the five experiment widgets: the main slider, the
//! readouts (computed results with an accessible name) and the chart focus.
//! The numbers come from the core's report; this only picks and formats.

use bplab_charts::Focus;
use bplab_core::calc::fmt_num;
use bplab_core::models::admission::Limit;
use bplab_core::models::priority::ClassPolicy;
use bplab_core::models::shaping::GateKind;
use bplab_core::{ExperimentId, ParamKey, Report};

/// One readout: its name and its value text.
pub type Readout = (&'static str, String);

/// The slider the measurement and the keyboard user reach for first.
pub fn main_param(id: ExperimentId) -> ParamKey {
    match id {
        ExperimentId::Collapse => ParamKey::DeadlineMs,
        ExperimentId::Admission => ParamKey::PlateauLimit,
        ExperimentId::Shaping => ParamKey::WindowBurst,
        ExperimentId::Shedding => ParamKey::DeadlineMs,
        ExperimentId::Priority => ParamKey::CriticalShare,
    }
}

/// The highlights of the charts.
pub fn focus(report: &Report) -> Focus {
    match report {
        Report::Admission(r) => Focus { admission_limit: Some(r.plateau_limit), ..Focus::default() },
        Report::Shaping(r) => Focus { burst: Some(r.timeline.burst), ..Focus::default() },
        _ => Focus::default(),
    }
}

fn rps(v: f64) -> String {
    format!("{} rps", fmt_num(v))
}

fn pct(v: f64) -> String {
    format!("{}%", fmt_num(v))
}

/// The readouts of `report`, in display order (names are stable per experiment).
pub fn readouts(report: &Report) -> Vec<Readout> {
    match report {
        Report::Collapse(r) => {
            let cap = 1000.0 / f64::from(r.settings.service_ms.max(1));
            let (plain, retry) = (r.no_retry.last(), r.retry.last());
            let at = plain.map_or(String::new(), |o| format!(" at {} rps offered", o.offered_rps));
            vec![
                ("Capacity (1000 / service)", rps(cap)),
                (
                    "Goodput at the highest offered load, no retry",
                    plain.map_or("–".into(), |o| rps(o.goodput_rps) + &at),
                ),
                ("Goodput at the highest offered load, with retries", retry.map_or("–".into(), |o| rps(o.goodput_rps))),
                (
                    "Effective load with retries",
                    retry.map_or("–".into(), |o| {
                        let amp = if o.offered_rps > 0 { o.effective_rps / f64::from(o.offered_rps) } else { 0.0 };
                        format!("{} (× {})", rps(o.effective_rps), fmt_num(amp))
                    }),
                ),
                ("Wasted work with retries", retry.map_or("–".into(), |o| pct(o.wasted_pct))),
            ]
        }
        Report::Admission(r) => {
            let chosen = r.sweep.iter().find(|o| o.limit == Limit::Finite(r.plateau_limit));
            let (open, held) = (r.no_control.last(), r.limited.last());
            vec![
                ("B = capacity × deadline", format!("{} requests", r.budget)),
                ("Chosen limit", format!("{} requests", r.plateau_limit)),
                (
                    "Goodput and utilization at the chosen limit (bursty curve)",
                    chosen.map_or("not in the limit sweep".into(), |o| {
                        format!("{}, {} busy", rps(o.goodput_rps), pct(o.utilization_pct))
                    }),
                ),
                (
                    "Goodput at the highest offered load, no control vs limited",
                    match (open, held) {
                        (Some(a), Some(b)) => format!("{} vs {}", rps(a.goodput_rps), rps(b.goodput_rps)),
                        _ => "–".into(),
                    },
                ),
            ]
        }
        Report::Shaping(r) => {
            let burst = r.timeline.burst;
            // The core runs both gates at exactly the timeline burst (`at_burst`).
            let at = |gate: GateKind| {
                r.at_burst.iter().find(|o| o.gate == gate).map_or("–".into(), |o| {
                    format!(
                        "gate {} ms, server {} ms; downstream peak {}",
                        o.gate_delay_p99_ms,
                        o.server_wait_p99_ms,
                        rps(o.downstream_peak_rps)
                    )
                })
            };
            vec![
                ("Timeline burst", format!("{burst} requests")),
                ("Token bucket: p99 wait at the gate and at the server", at(GateKind::TokenBucket)),
                ("Leaky bucket: p99 wait at the gate and at the server", at(GateKind::LeakyBucket)),
            ]
        }
        Report::Shedding(r) => {
            let goodput = r
                .sweep
                .iter()
                .filter_map(|row| row.last())
                .map(|o| format!("{} {}", o.policy.label(), rps(o.goodput_rps)))
                .collect::<Vec<_>>()
                .join(" · ");
            let hangover = r
                .hangover
                .iter()
                .map(|o| format!("{} {} ms", o.policy.label(), o.window_p99_ms.iter().max().copied().unwrap_or(0)))
                .collect::<Vec<_>>()
                .join(" · ");
            vec![
                ("In-system bound (capacity × deadline)", format!("{} requests", r.settings.bound)),
                ("Goodput at the highest offered load", goodput),
                ("Worst served p99 in any window (hangover)", hangover),
            ]
        }
        Report::Priority(r) => {
            let last = |p: ClassPolicy| r.protection.iter().rfind(|o| o.policy == p);
            let both = |f: fn(&bplab_core::models::priority::PriorityOutcome) -> f64| match (
                last(ClassPolicy::Blind),
                last(ClassPolicy::Priority),
            ) {
                (Some(b), Some(p)) => format!("blind {} vs priority {}", pct(f(b)), pct(f(p))),
                _ => "–".into(),
            };
            let held = r
                .protection
                .iter()
                .filter(|o| o.policy == ClassPolicy::Priority && o.slo_met())
                .map(|o| o.offered_rps())
                .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))));
            vec![
                ("Ceiling = capacity / critical share", rps(r.ceiling_rps)),
                ("Critical success at the highest offered load", both(|o| o.critical_success_pct())),
                ("Background success at the highest offered load", both(|o| o.background_success_pct())),
                ("Highest offered load with the critical SLO met (priority)", held.map_or("none".into(), rps)),
            ]
        }
    }
}
