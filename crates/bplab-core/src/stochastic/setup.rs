//! One complete, seeded run: traffic, service times, server, window.

use super::engine::{serve, server_model, summarisable, summarise_model};
use super::error::{StochasticError, check};
use super::run::{Outcome, Run};
use super::server::Server;
use super::service::ServiceTime;
use super::summary::Summary;
use super::traffic::{MAX_MS, RateSchedule};
use super::tries::{Retained, Source};

/// Everything a run depends on. Same `Setup` → same [`Run`], bit for bit,
/// on every target.
#[derive(Clone, Debug, PartialEq)]
pub struct Setup {
    /// The offered rate over time (Poisson, arrival stream of `seed`).
    pub traffic: RateSchedule,
    /// What each request costs (service stream of `seed`).
    pub service: ServiceTime,
    /// Workers, line limit, client timeout.
    pub server: Server,
    /// Length of the offered window, ms; `1 <= window_ms <= 1e9`.
    pub window_ms: f64,
    /// The run seed: arrivals equal `bplab load`'s schedule for this seed.
    pub seed: u64,
}

impl Setup {
    /// A flat Poisson rate against `server`: the `bplab load` shape.
    pub fn poisson(rate_rps: f64, service: ServiceTime, server: Server, window_ms: f64, seed: u64) -> Self {
        Self { traffic: RateSchedule::constant(rate_rps), service, server, window_ms, seed }
    }

    /// Validates everything and returns the work estimate (expected
    /// arrivals plus schedule steps), or an error naming the value; a work
    /// estimate above `max_arrivals` is [`StochasticError::TooManyArrivals`].
    pub fn validate(&self, max_arrivals: u64) -> Result<u64, StochasticError> {
        self.traffic.validate()?;
        self.service.validate()?;
        self.server.validate()?;
        check("window-ms", self.window_ms, "from 1 to 1e9 ms", |w| (1.0..=MAX_MS).contains(&w))?;
        let estimated = self.traffic.estimate_work(self.window_ms).unwrap_or(u64::MAX);
        if estimated > max_arrivals {
            return Err(StochasticError::TooManyArrivals { estimated, cap: max_arrivals });
        }
        Ok(estimated)
    }

    /// The offered rate of this setup's window, rps (the `offered` column).
    pub fn offered_rps(&self) -> f64 {
        self.traffic.mean_rate_rps(self.window_ms)
    }

    /// Draws the arrivals and service times and runs them. Errors before
    /// allocating when the estimate exceeds `max_arrivals`, and stops with
    /// the same error if the random count overshoots it.
    pub fn run(&self, max_arrivals: u64) -> Result<Run, StochasticError> {
        self.validate(max_arrivals)?;
        let arrivals = self.traffic.generate(self.window_ms, self.seed, max_arrivals)?;
        let services: Vec<f64> = self.service.draws(self.seed).take(arrivals.len()).collect();
        serve(&self.server, &arrivals, &services, self.window_ms)
    }

    /// [`Setup::run`]`(max_arrivals)?.`[`summary`](Run::summary)`(offered_rps)`,
    /// to the bit, without keeping one record per request: arrivals and
    /// service times are drawn as the run reaches them, and a request is
    /// folded into the row once it and every earlier one are resolved, so
    /// memory follows the requests in flight, not the run's length.
    /// `on_ok` gets each on-time answer's latency (end − arrival, ms), in
    /// request order. The errors are `Setup::run`'s; after an error, what
    /// `on_ok` was given is not a run's and should be dropped.
    pub fn summarise(
        &self,
        max_arrivals: u64,
        offered_rps: f64,
        on_ok: impl FnMut(f64),
    ) -> Result<Summary, StochasticError> {
        self.summarise_retaining(max_arrivals, offered_rps, on_ok).map(|(s, _)| s)
    }

    /// [`Setup::summarise`], and the most requests it held at once.
    pub(crate) fn summarise_retaining(
        &self,
        max_arrivals: u64,
        offered_rps: f64,
        mut on_ok: impl FnMut(f64),
    ) -> Result<(Summary, Retained), StochasticError> {
        self.validate(max_arrivals)?;
        let model = server_model(&self.server, &[], &[], self.window_ms);
        if self.server.validate().is_ok() && model.validate().is_ok() && summarisable(&model) {
            let source = Source::new(
                self.traffic.arrivals(self.window_ms, self.seed),
                self.service.draws(self.seed),
                max_arrivals,
            );
            if let Some((fold, served, peak_line, retained)) = summarise_model(&model, source, &mut on_ok) {
                return Ok((fold.finish(offered_rps, self.window_ms, peak_line, served), retained));
            }
        }
        // What the drawn lists would refuse (the lazy run stops there): the
        // whole run gives the error.
        let run = self.run(max_arrivals)?;
        for r in run.requests.iter().filter(|r| r.outcome == Outcome::Ok) {
            on_ok(r.sojourn_ms().unwrap_or(0.0));
        }
        Ok((run.summary(offered_rps), Retained::default()))
    }
}
