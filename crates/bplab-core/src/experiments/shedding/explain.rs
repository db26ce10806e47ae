//! Where the shedding numbers come from.

use super::SheddingReport;
use crate::calc::{Explanation, Step, worst_sojourn_ms};
use crate::claim::Equation;
use crate::claim::equation::{div, mul, n, round};
use crate::experiments::{Readout, rps, argmax, step, strings};
use crate::models::shedding::{ShedOutcome, ShedPolicy};

/// Each policy's row at the highest offered rate (the list need not be sorted).
fn at_highest(r: &SheddingReport) -> Vec<&ShedOutcome> {
    r.sweep.iter().filter_map(|rows| argmax(rows.iter().map(|o| o.offered_rps)).and_then(|i| rows.get(i))).collect()
}

/// How long each policy's served p99 stays above the deadline, ms of windows.
fn over_deadline_ms(r: &SheddingReport, o: &ShedOutcome) -> u64 {
    let over = o.window_p99_ms.iter().filter(|&&p| p > u64::from(r.settings.deadline_ms)).count() as u64;
    over * u64::from(r.window_ms)
}

/// The report's explanations: one.
pub(in crate::experiments) fn explanations(r: &SheddingReport) -> Vec<Explanation> {
    vec![explanation(r)]
}

fn explanation(r: &SheddingReport) -> Explanation {
    let s = &r.settings;
    let worst = worst_sojourn_ms(s.bound, s.service_ms);
    let top: Vec<String> = at_highest(r)
        .iter()
        .map(|o| format!("{} {} (p99 {} ms)", o.policy.label(), rps(o.goodput_rps), o.p99_served_ms))
        .collect();
    let hang: Vec<String> =
        r.hangover.iter().map(|o| format!("{} {} ms", o.policy.label(), over_deadline_ms(r, o))).collect();
    let mut steps = vec![Step::eq(
        "door bound (tail-drop)",
        "B = round(capacity × deadline); time in system ≤ B × service",
        Equation::with_result(
            round(mul(div(n(1000.0), n(f64::from(s.service_ms.max(1)))), n(f64::from(s.deadline_ms) / 1000.0))),
            f64::from(s.bound),
            "",
        ),
        &if worst > u64::from(s.deadline_ms) {
            format!(
                "requests: at most {worst} ms in the system, of which at most {} ms waiting; B is rounded up past the {} ms deadline, so tail-drop at B can serve late answers",
                worst.saturating_sub(u64::from(s.service_ms)),
                s.deadline_ms
            )
        } else {
            format!(
                "requests: at most {worst} ms in the system, of which at most {} ms waiting",
                worst.saturating_sub(u64::from(s.service_ms))
            )
        },
    )];
    if !hang.is_empty() {
        steps.push(step(
            "the hangover: windows whose served p99 is past the deadline",
            "count(window p99 > deadline) × window",
            format!("deadline {} ms, windows of {} ms", s.deadline_ms, r.window_ms),
            hang.join(", "),
        ));
    }
    let mut would_change = vec![
        "LIFO's goodput is high because it serves the newest first; the requests that wait longest are the ones it leaves behind: it hides the old, it does not save them.".to_owned(),
    ];
    let late_ms = |p: ShedPolicy| r.hangover.iter().find(|o| o.policy == p).map(|o| over_deadline_ms(r, o));
    if let (Some(f), Some(l), Some(b)) = (late_ms(ShedPolicy::Fifo), late_ms(ShedPolicy::Lifo), late_ms(ShedPolicy::TailDrop)) {
        would_change.push(format!(
            "Without a bound or expiry, FIFO serves late answers for {f} ms of this run's windows and LIFO for {l} ms; tail-drop at B does so for {b} ms."
        ));
    }
    Explanation {
        title: "Shedding policies".into(),
        answer: format!("goodput at the highest offered load: {}", top.join(", ")),
        steps,
        assumes: vec![
            "fifo serves the oldest; tail-drop bounds the door at B; expire drops a request whose wait plus service passes the deadline; lifo serves the newest.".into(),
            "Shed requests cost nothing; served-late ones cost a full service slot.".into(),
            "The server stops taking work at the end of the window; whatever is still queued then counts as shed, with its wait so far.".into(),
        ],
        ignores: strings(&["Retries of shed requests.", "Fairness between clients."]),
        would_change,
        claims: Vec::new(),
    }
}

pub(in crate::experiments) fn readouts(r: &SheddingReport) -> Vec<Readout> {
    let goodput = at_highest(r)
        .iter()
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
        Readout::new("In-system bound (capacity × deadline)", format!("{} requests", r.settings.bound)),
        Readout::new("Goodput at the highest offered load", goodput),
        Readout::new("Worst served p99 in any window (hangover)", hangover),
    ]
}
