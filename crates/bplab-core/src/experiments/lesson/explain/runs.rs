//! The lesson's evidence: the chosen rate's run re-made with every request
//! kept (the same setup as the model's, so the same draws), and the
//! evenly spaced reference model with its log hook. Also the conversion of
//! any engine run into per-request records, which the adaptive race reuses.

use super::super::LessonReport;
use crate::arrivals::Curve;
use crate::models::admission::{self, AdmissionSettings, Limit};
use crate::statement::{Req, RunLog};
use crate::stochastic::{Outcome, Run, Server, ServiceTime, Setup};

/// The chosen rate with Poisson arrivals.
pub(in crate::experiments) const POISSON: &str = "at/poisson";
/// The chosen rate with evenly spaced arrivals (the reference model).
pub(in crate::experiments) const EVEN: &str = "at/even";

/// Every try of an engine run as a request record: the deadline is the
/// caller's timeout (`f64::INFINITY` without one); a try the caller's
/// throttling rejected is recorded as never sent; a shed request as
/// admitted and never answered, taken off the line when a worker shed it.
pub(in crate::experiments) fn records(
    run: &Run,
    timeout_ms: Option<f64>,
    keep: impl Fn(&crate::stochastic::Request) -> bool,
) -> Vec<Req> {
    let deadline = timeout_ms.unwrap_or(f64::INFINITY);
    run.requests
        .iter()
        .filter(|r| keep(r))
        .map(|r| {
            let mut q = match (r.outcome, r.start_ms, r.end_ms) {
                (Outcome::Ok | Outcome::Late, Some(s), Some(e)) => {
                    Req::answered(r.arrival_ms, s, e, judged_time(e - r.arrival_ms, deadline, r.outcome), deadline)
                }
                (Outcome::Refused, ..) => Req::refused(r.arrival_ms, deadline, 0),
                // Admitted, then taken off the line by a worker and shed unserved.
                (Outcome::Shed, ..) => Req { start_ms: r.start_ms, ..Req::dropped(r.arrival_ms, deadline, 0) },
                (Outcome::Throttled, ..) => Req::throttled(r.arrival_ms, deadline, 0),
                _ => Req::dropped(r.arrival_ms, deadline, 0),
            };
            q.attempt = r.attempt;
            q
        })
        .collect()
}

/// The time in the system the records keep: the measured one, unless float
/// rounding put it on the other side of the deadline from the engine's
/// verdict (`end <= arrival + timeout` and `end − arrival <= timeout` can
/// disagree by one ulp); then the deadline itself, on the engine's side.
fn judged_time(t: f64, deadline: f64, o: Outcome) -> f64 {
    match o {
        Outcome::Ok if t > deadline => deadline,
        Outcome::Late if t <= deadline && deadline.is_finite() => f64::from_bits(deadline.to_bits() + 1),
        _ => t,
    }
}

/// The chosen rate's Poisson run, with every request (`None`: the
/// service text no longer parses, or the engine refuses).
pub(in crate::experiments) fn poisson(r: &LessonReport) -> Option<RunLog> {
    let svc = ServiceTime::parse(&r.service).ok()?;
    let timeout = f64::from(r.client_timeout_ms);
    let server =
        Server { workers: r.workers, line_limit: r.limit, timeout_ms: Some(timeout), ..Server::unbounded(r.workers) };
    let window_ms = r.seconds * 1000.0;
    let run = Setup::poisson(r.at.rate_rps, svc, server, window_ms, u64::from(r.seed)).run(u64::MAX).ok()?;
    Some(RunLog { reqs: records(&run, Some(timeout), |_| true), ..RunLog::new(POISSON, window_ms) })
}

/// The reference model's service time, ms: the mean / workers rounded to
/// whole ms, at least 1 (as the model runs it).
pub(in crate::experiments) fn reference_service_ms(r: &LessonReport) -> u32 {
    libm::round(r.service_mean_ms / f64::from(r.workers.max(1))).clamp(1.0, f64::from(u32::MAX)) as u32
}

/// The reference model at the chosen rate, logged.
pub(in crate::experiments) fn even(r: &LessonReport) -> RunLog {
    let duration_ms = (r.seconds * 1000.0).clamp(1.0, f64::from(u32::MAX)) as u32;
    let service_ms = reference_service_ms(r);
    let s = AdmissionSettings { service_ms, deadline_ms: r.client_timeout_ms.max(service_ms), duration_ms };
    let limit = r.limit.map_or(Limit::None, |l| Limit::Finite(l.saturating_add(r.workers).min(i32::MAX as u32)));
    let mut log = RunLog::new(EVEN, f64::from(duration_ms));
    admission::run_logged(&s, &Curve::flat(r.at.rate_rps, duration_ms).arrivals(duration_ms), limit, &mut |q| {
        log.reqs.push(q);
    });
    log
}
