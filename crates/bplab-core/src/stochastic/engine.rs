//! The one discrete-event loop for the multi-worker FIFO queue: `workers`
//! servers, one line, a [`Door`], callers with a [`super::Client`] policy.
//! The lesson's runs, the adaptive race and the live timeline model all
//! run here; the five article models keep their own loops (`models.md`).
//!
//! # Event order
//!
//! Events leave the [`EventQueue`] in `(time, kind, seq)` order, a total
//! order (`docs/engine.md`):
//!
//! 1. **give-up**: a caller's deadline `arrival + timeout` (only when it
//!    matters: the line drops abandoned requests, or the caller retries). A
//!    caller still waiting in the line leaves it ([`Abandon::Dropped`]) or
//!    leaves its request there ([`Abandon::Served`]); either way it may
//!    retry from now. A request in service whose work ends exactly at the
//!    deadline is on time, so its caller does not give up;
//! 2. **completion**: a worker finishes (the answer is on time iff
//!    `end <= arrival + timeout`), feeds a limiter door its sample, and at
//!    once takes the line's head (CoDel decides there);
//! 3. **arrival**: a first try, in schedule order;
//! 4. **retry**: a retry, in the order it was scheduled.
//!
//! Within a kind, ties leave first in, first out. So at one instant a
//! waiting caller whose deadline is now is gone before a worker freed at
//! that instant looks at the line, a completion frees its worker before an
//! arrival looks for one, and a first try goes before a retry. Times are
//! compared as plain f64.
//!
//! A try that reaches the server: the client's throttle may reject it
//! locally (never sent, never retried); else the door admits it (it takes a
//! free worker, or waits) or refuses it (the caller may retry after its
//! backoff, or the refusal's Retry-After if honoured).
//!
//! Cost: one heap push/pop per served try on a heap of at most `workers`
//! entries, a deque push/pop per give-up, a heap push/pop per retry, so
//! `O(n log workers)`; the line is a ring buffer. When only waiting
//! callers' deadlines matter (dropped, no retries) the line, which holds
//! exactly the waiting requests in deadline order, is the give-up lane: the
//! queue is shown its head's deadline, and a caller whose request starts
//! in time never becomes an event (its give-up would do nothing).
//!
//! Memory: [`Model::run`] keeps one [`Request`] per try, because its
//! [`Run`] lists them. [`super::Setup::summarise`] runs the same loop on a
//! [`Kept`] window instead (`super::tries`): first tries drawn as they
//! arrive, and each try folded into the row once it and every earlier one
//! are resolved, so it holds the tries in flight, not the run.

use std::collections::VecDeque;

use super::client::{ClientState, NoRetry};
use super::door::Door;
use super::error::StochasticError;
use super::model::Model;
use super::queue::{EventQueue, Kind};
use super::run::{Outcome, Request, Run, Tally};
use super::server::{Abandon, Server};
use super::summary::{Fold, Served};
use super::timeline::{Recorder, Window};
use super::tries::{Retained, Source, Tries, Window as Kept};

/// Largest arrival or service time accepted by [`serve`], ms.
pub const MAX_TIME_MS: f64 = 1e15;

/// Runs `arrivals_ms` (ascending) with one service time each through
/// `server`. Areas are measured over `[0, window_ms)`; the run goes on until
/// every request is resolved. Errors (before any work) on an invalid server,
/// unsorted or out-of-range times, or lists of different lengths.
pub fn serve(server: &Server, arrivals_ms: &[f64], service_ms: &[f64], window_ms: f64) -> Result<Run, StochasticError> {
    server.validate()?;
    server_model(server, arrivals_ms, service_ms, window_ms).run()
}

/// The engine model [`serve`] runs: `server`'s workers behind its line,
/// its callers' timeout and abandonment.
pub(crate) fn server_model<'a>(
    server: &Server,
    arrivals_ms: &'a [f64],
    service_ms: &'a [f64],
    window_ms: f64,
) -> Model<'a> {
    let mut m = Model::new(arrivals_ms, service_ms, server.workers, window_ms);
    m.door = Door::line(server.line_limit);
    m.client.timeout_ms = server.timeout_ms;
    m.client.abandon = server.abandon;
    m
}

/// Per-try state beside the public [`Request`] (kept only for a limiter
/// door or retries), in 16 bytes.
#[derive(Clone, Copy, Debug)]
struct Meta {
    /// The backoff drawn before it, ms; NaN for a first try (a drawn
    /// backoff is a finite number: [`super::Backoff::validate`]).
    prev_backoff_ms: f64,
    /// Requests in the system right after it was admitted (a limiter's sample).
    inflight: i32,
    /// Its caller gave up on it already (a later shed is not the caller's failure).
    abandoned: bool,
}

impl Meta {
    /// A first try's.
    const FIRST: Meta = Meta { prev_backoff_ms: f64::NAN, inflight: 0, abandoned: false };

    /// The backoff drawn before it (`None` for a first try).
    fn prev_backoff_ms(&self) -> Option<f64> {
        (!self.prev_backoff_ms.is_nan()).then_some(self.prev_backoff_ms)
    }
}

/// Runs a validated model. The loop is compiled three times: without a
/// timeline (`TL`) and without client policies that act during the run
/// (`CL`: retries, a budget, throttling), so the lesson's plain runs pay for
/// neither; with a timeline without policies; and with both. `TL` and `CL`
/// only let the compiler drop code: a loop with them set and no timeline
/// (`tl()` is `None`) or no policy (every policy call does nothing) runs the
/// same events to the same bits, so the one combination no experiment runs
/// (policies without a timeline) takes the loop with both instead of a
/// fourth copy of it (its weight in wasm: `docs/performance.md`).
pub(crate) fn simulate_model(m: &Model<'_>) -> Run {
    let c = &m.client;
    let policies = c.retry.max_retries > 0 || c.budget.is_some() || c.throttle.is_some();
    let tries = first_tries(m);
    match (m.timeline_ms.is_some(), policies) {
        (false, false) => Loop::<false, false, _>::new(m, tries, None).run(),
        (true, false) => Loop::<true, false, _>::new(m, tries, None).run(),
        (_, true) => Loop::<true, true, _>::new(m, tries, None).run(),
    }
}

/// Whether [`summarise_model`] can run `m`: first tries only (no retries,
/// no present requests), drawn by the run, and nothing a try's own record
/// must remember beside it (a limiter's samples).
pub(crate) fn summarisable(m: &Model<'_>) -> bool {
    m.arrivals_ms.is_empty()
        && m.service_ms.is_empty()
        && m.present.is_empty()
        && m.client.retry.max_retries == 0
        && !matches!(m.door, Door::Limit(_))
}

/// Runs `m` (validated, [`summarisable`]) on the first tries `source`
/// draws, keeping only the tries in flight (`super::tries`): the same
/// events, to the same bits, as [`simulate_model`] on the drawn lists.
/// Gives the row's [`Fold`] and served counts, the run's peak line, and
/// what the window held at most; `None` if the source stopped early.
pub(crate) fn summarise_model(
    m: &Model<'_>,
    source: Source<'_>,
    on_ok: impl FnMut(f64),
) -> Option<(Fold, Served, u64, Retained)> {
    // Neither the timeline nor the areas are in the row: `TL` off, and the
    // areas are not measured (the events are the same either way).
    let m = Model { timeline_ms: None, areas: false, ..m.clone() };
    let c = &m.client;
    let policies = c.budget.is_some() || c.throttle.is_some();
    let mut source = Some(source);
    let (window, horizon_ms, peak_line) = if policies {
        let mut l = Loop::<true, true, _>::new(&m, Kept::new(on_ok), source.take());
        l.events();
        source = l.source.take();
        (l.requests, l.horizon_ms, l.peak_line)
    } else {
        let mut l = Loop::<false, false, _>::new(&m, Kept::new(on_ok), source.take());
        l.events();
        source = l.source.take();
        (l.requests, l.horizon_ms, l.peak_line)
    };
    if source.is_none_or(|s| s.failed()) {
        return None;
    }
    let (fold, served, retained) = window.finish(horizon_ms);
    Some((fold, served, peak_line, retained))
}

/// Every first try of `m`, not yet sent.
fn first_tries(m: &Model<'_>) -> Vec<Request> {
    // With retries, room for as many again: the first retry would double
    // the vector anyway, and growing it copies every try.
    let n = m.arrivals_ms.len();
    let room = if m.client.retry.max_retries > 0 { n.saturating_mul(2) } else { n };
    let mut requests: Vec<Request> = Vec::with_capacity(room);
    requests.extend(m.arrivals_ms.iter().zip(m.service_ms).map(|(&a, &s)| unsent(a, s)));
    requests
}

/// A first try arriving at `arrival_ms` with work `service_ms`, not yet sent.
#[inline(always)]
fn unsent(arrival_ms: f64, service_ms: f64) -> Request {
    Request { arrival_ms, service_ms, start_ms: None, end_ms: None, outcome: Outcome::Refused, attempt: 0 }
}

/// The loop's state. `TL`: a timeline is recorded; `CL`: the client has
/// policies (retries, budget, throttling); `S`: where the tries are kept
/// (all of them, or those in flight).
struct Loop<'m, 'a, 's, const TL: bool, const CL: bool, S: Tries> {
    m: &'m Model<'a>,
    door: Door,
    client: ClientState,
    queue: EventQueue<'a>,
    requests: S,
    /// Draws the first tries as they arrive (`None`: they are in the
    /// model's lists, and in `requests` from the start).
    source: Option<Source<'s>>,
    /// The drawn first try the queue shows next, until it arrives.
    drawn: Option<Request>,
    meta: Vec<Meta>,
    line: VecDeque<u32>,
    /// Live entries of `line` (abandoned ones stay in it until dequeued).
    waiting: u32,
    free: u32,
    /// Admitted and unresolved (at most the tries, which are numbered in 32 bits).
    in_system: u32,
    timeout_ms: f64,
    give_ups: bool,
    /// Only waiting callers' deadlines matter (dropped, no retries): the
    /// line holds exactly the waiting requests, in deadline order, so the
    /// queue is shown its head's deadline instead of one give-up per request.
    line_give_ups: bool,
    dropped_leave: bool,
    peak_line: u64,
    last_ms: f64,
    in_system_area: f64,
    in_line_area: f64,
    busy_area: f64,
    tally: Tally,
    timeline: Option<Recorder>,
    /// The latest time a caller resolved (`Request::resolved_ms`), 0 before any.
    horizon_ms: f64,
    /// [`Door::limit`] of a door whose limit never moves (read once).
    fixed_limit: i32,
    /// The timeline window of the event being handled ([`Self::enter`]).
    win: usize,
    /// The indices of [`Model::present`]'s requests (after the first tries).
    present: std::ops::Range<usize>,
}

impl<'m, 'a, 's, const TL: bool, const CL: bool, S: Tries> Loop<'m, 'a, 's, TL, CL, S> {
    fn new(m: &'m Model<'a>, requests: S, source: Option<Source<'s>>) -> Self {
        let n = m.arrivals_ms.len();
        let room = if m.client.retry.max_retries > 0 { n.saturating_mul(2) } else { n };
        // Only a limiter's samples and retries read it.
        let uses_meta = matches!(m.door, Door::Limit(_)) || m.client.retry.max_retries > 0;
        let mut meta = Vec::new();
        if uses_meta {
            meta.reserve_exact(room);
            meta.resize(n, Meta::FIRST);
        }
        let split = m.slowdown.map_or(f64::INFINITY, |s| s.at_ms);
        let timeline = m.timeline_ms.map(|w| Recorder::new(m.window_ms, w, split));
        let present = n..n + m.present.len();
        let mut l = Self {
            m,
            door: m.door.clone(),
            client: ClientState::new(m.client, m.seed),
            queue: EventQueue::new(m.arrivals_ms, m.workers as usize),
            requests,
            source,
            drawn: None,
            meta,
            line: VecDeque::new(),
            waiting: 0,
            free: m.workers,
            in_system: 0,
            timeout_ms: m.client.timeout_ms.unwrap_or(f64::INFINITY),
            give_ups: m.client.gives_up(),
            line_give_ups: m.client.gives_up() && m.client.retry.max_retries == 0,
            dropped_leave: m.client.abandon == Abandon::Dropped,
            peak_line: 0,
            last_ms: 0.0,
            in_system_area: 0.0,
            in_line_area: 0.0,
            busy_area: 0.0,
            tally: Tally::default(),
            timeline,
            horizon_ms: 0.0,
            fixed_limit: m.door.limit(m.workers),
            win: 0, // the window of time 0, where `enter_present` dispatches
            present,
        };
        if !m.present.is_empty() {
            l.enter_present();
        }
        l.draw();
        l
    }

    /// Shows the queue the source's next first try and holds its record
    /// until it arrives (no source: nothing to do, the model's lists are in
    /// the queue and in `requests` already).
    #[inline(always)]
    fn draw(&mut self) {
        if let Some((a, s, i)) = self.source.as_mut().and_then(Source::next) {
            self.drawn = Some(unsent(a, s));
            self.queue.show_arrival(a, i);
        }
    }

    /// Puts [`Model::present`]'s requests in the system: those in service
    /// on their workers until `start + service` (0 at the earliest), the
    /// rest in the line in the order given. Their callers have left.
    #[cold]
    fn enter_present(&mut self) {
        let uses_meta = matches!(self.m.door, Door::Limit(_)) || self.m.client.retry.max_retries > 0;
        for (k, p) in self.m.present.iter().enumerate() {
            let i = self.present.start + k;
            let end = p.start_ms.map(|s| (s + p.service_ms).max(0.0));
            self.requests.push(Request {
                arrival_ms: p.arrival_ms,
                service_ms: p.service_ms,
                start_ms: p.start_ms,
                end_ms: end,
                outcome: Outcome::Ok, // pending: admitted, not yet resolved
                attempt: 0,
            });
            if uses_meta {
                self.meta.push(Meta { inflight: p.inflight, abandoned: true, ..Meta::FIRST });
            }
            self.in_system += 1;
            match end {
                Some(end) => {
                    self.free -= 1;
                    self.queue.push_completion(end, i as u32);
                }
                None => {
                    self.line.push_back(i as u32);
                    self.waiting += 1;
                }
            }
        }
        self.peak_line = u64::from(self.waiting);
        self.dispatch(0.0);
    }

    /// The timeline, if recorded (`None` at compile time without `TL`).
    #[inline(always)]
    fn tl(&mut self) -> Option<&mut Recorder> {
        if TL { self.timeline.as_mut() } else { None }
    }

    /// An event at `t` begins: finds its timeline window once, for every
    /// count the event makes (all at `t`).
    #[inline(always)]
    fn enter(&mut self, t: f64) {
        if let Some(tl) = self.tl() {
            self.win = tl.index(t);
        }
    }

    /// The timeline's window of the event at `t` ([`Self::enter`]; a
    /// `match`, not `and_then`: a closure is an out-of-line call at the
    /// page's opt-level "z").
    #[inline(always)]
    fn window(&mut self) -> Option<&mut Window> {
        let i = self.win;
        match self.tl() {
            Some(tl) => tl.window_mut(i),
            None => None,
        }
    }

    /// Moves the horizon to `t` if later (`f64::max` without its call: no
    /// time here is NaN or -0).
    #[inline(always)]
    fn resolved_at(&mut self, t: f64) {
        if t > self.horizon_ms {
            self.horizon_ms = t;
        }
    }

    /// Accumulates the areas from the last event to `now` (clipped to the
    /// window), if the model measures them.
    #[inline(always)]
    fn advance(&mut self, now: f64) {
        if self.m.areas && self.last_ms < self.m.window_ms {
            self.add_areas(now);
        }
        self.last_ms = now;
    }

    /// [`Self::advance`]'s areas.
    #[inline(never)]
    fn add_areas(&mut self, now: f64) {
        let to = now.min(self.m.window_ms);
        let dt = to - self.last_ms;
        self.in_system_area += f64::from(self.in_system) * dt;
        self.in_line_area += f64::from(self.waiting) * dt;
        self.busy_area += f64::from(self.m.workers - self.free) * dt;
        let (from, count) = (self.last_ms, u64::from(self.in_system));
        if let Some(t) = self.tl() {
            t.area(from, to, count);
        }
    }

    /// After an arrival or a completion: the door's limit and the requests
    /// in the system, in the event's window.
    #[inline(always)]
    fn note(&mut self) {
        if TL {
            let limit = if self.door.limit_moves() { self.door.limit(self.m.workers) } else { self.fixed_limit };
            let (n, i) = (u64::from(self.in_system), self.win);
            if let Some(tl) = self.tl() {
                tl.note_in(i, limit, n);
            }
        }
    }

    /// Runs every event, then the areas to the window's end.
    fn events(&mut self) {
        while let Some(kind) = self.queue.next_kind() {
            // Each arm takes its own kind, so `take` is specialised per lane.
            let take = |q: &mut EventQueue<'_>, k| {
                let e = q.take(k);
                (e.time_ms, e.id as usize)
            };
            let (t, i) = match kind {
                Kind::GiveUp => take(&mut self.queue, Kind::GiveUp),
                Kind::Completion => take(&mut self.queue, Kind::Completion),
                Kind::Arrival => take(&mut self.queue, Kind::Arrival),
                Kind::Retry => take(&mut self.queue, Kind::Retry),
            };
            self.enter(t);
            match kind {
                Kind::GiveUp => self.give_up(t, i),
                Kind::Completion => self.complete(t, i),
                Kind::Arrival | Kind::Retry => {
                    let first = kind == Kind::Arrival;
                    if first && let Some(r) = self.drawn.take() {
                        self.requests.push(r);
                    }
                    if first {
                        self.tally.first_tries += 1;
                    } else {
                        self.tally.retries += 1;
                    }
                    if let Some(w) = self.window() {
                        if first {
                            w.first_tries += 1;
                        } else {
                            w.retries += 1;
                        }
                    }
                    self.arrive(t, i);
                    self.draw();
                }
            }
            self.requests.settle(self.horizon_ms);
        }
        if self.last_ms < self.m.window_ms {
            self.advance(self.m.window_ms);
        }
    }
}

impl<const TL: bool, const CL: bool> Loop<'_, '_, '_, TL, CL, Vec<Request>> {
    fn run(mut self) -> Run {
        self.events();
        let window_ms = self.m.window_ms;
        let (timeline, answers_before_ms, answers_after_ms, answers_drained) = self
            .timeline
            .map(|t| {
                let drained = t.drained();
                let (w, before, after) = t.finish(window_ms);
                (w, before, after, drained)
            })
            .unwrap_or_default();
        Run {
            requests: self.requests,
            server: self.m.server(),
            window_ms,
            peak_line: self.peak_line,
            in_system_area: self.in_system_area,
            in_line_area: self.in_line_area,
            busy_area: self.busy_area,
            tally: self.tally,
            timeline,
            answers_before_ms,
            answers_after_ms,
            answers_drained,
            horizon_ms: self.horizon_ms,
        }
    }
}

impl<const TL: bool, const CL: bool, S: Tries> Loop<'_, '_, '_, TL, CL, S> {
    /// A try (first or retry) reaches the client's send at `t`.
    #[inline]
    fn arrive(&mut self, t: f64, i: usize) {
        self.advance(t);
        if CL && !self.client.send(t) {
            self.tally.throttled += 1;
            self.resolved_at(t);
            if let Some(r) = self.requests.get_mut(i) {
                r.outcome = Outcome::Throttled;
            }
            if let Some(w) = self.window() {
                w.throttled += 1;
            }
            self.note();
            return;
        }
        if !self.door.admits(u64::from(self.in_system), u64::from(self.waiting), self.free) {
            self.tally.refused += 1;
            self.resolved_at(t);
            self.refused(t, i);
            self.note();
            return;
        }
        self.in_system += 1;
        if let Some(m) = self.meta.get_mut(i) {
            m.inflight = i32::try_from(self.in_system).unwrap_or(i32::MAX);
        }
        if let Some(r) = self.requests.get_mut(i) {
            r.outcome = Outcome::Ok; // pending: admitted, not yet resolved
        }
        if self.free > 0 && !self.door.at_dequeue() {
            self.start(t, i);
        } else {
            self.line.push_back(i as u32);
            self.waiting += 1;
            self.dispatch(t);
            self.peak_line = self.peak_line.max(u64::from(self.waiting));
            self.watch_line();
        }
        if self.give_ups && !self.line_give_ups {
            // Dropped without retries: only a waiting caller's deadline matters.
            let waits = self.requests.get(i).is_some_and(|r| r.start_ms.is_none() && r.outcome == Outcome::Ok);
            if waits || self.m.client.retry.max_retries > 0 {
                let a = self.requests.get(i).map_or(t, |r| r.arrival_ms);
                let deadline = a + self.timeout_ms;
                // A try in service that ends by its deadline is answered on
                // time: its give-up would do nothing (`give_up` returns), and
                // leaving it out keeps the other events' order.
                let on_time = self
                    .requests
                    .get(i)
                    .is_some_and(|r| r.outcome == Outcome::Ok && r.end_ms.is_some_and(|e| e <= deadline));
                if !on_time {
                    self.queue.push_give_up(deadline, i as u32);
                }
            }
        }
        self.note();
    }

    /// A refusal at the door or a shed at `t`: the window count and the retry.
    fn refused(&mut self, t: f64, i: usize) {
        if let Some(w) = self.window() {
            w.refused += 1;
        }
        self.retry(t, i, self.m.retry_after_ms);
    }

    /// Free workers take the line's head until one is busy or the line is empty.
    #[inline(always)]
    fn dispatch(&mut self, t: f64) {
        while self.free > 0 {
            let Some(j) = self.line.pop_front() else { return };
            let j = j as usize;
            let Some(r) = self.requests.get(j) else { continue };
            if r.outcome != Outcome::Ok {
                continue; // left the line when its caller gave up
            }
            self.waiting -= 1;
            if self.door.sheds(t, r.arrival_ms) {
                self.in_system -= 1;
                self.resolved_at(t);
                if let Some(r) = self.requests.get_mut(j) {
                    r.outcome = Outcome::Shed;
                    r.start_ms = Some(t);
                }
                if !self.present.contains(&j) {
                    self.tally.shed += 1;
                    if let Some(w) = self.window() {
                        w.refused += 1;
                    }
                }
                // A caller that gave up already is not there to retry.
                if !self.meta.get(j).is_some_and(|m| m.abandoned) {
                    self.retry(t, j, self.m.retry_after_ms);
                }
                continue;
            }
            self.start(t, j);
        }
    }

    #[inline(always)]
    fn start(&mut self, t: f64, i: usize) {
        let slowdown = self.m.slowdown;
        if let Some(r) = self.requests.get_mut(i) {
            let service = slowdown.map_or(r.service_ms, |s| s.service_ms(t, r.service_ms));
            let end = t + service;
            r.start_ms = Some(t);
            r.end_ms = Some(end);
            self.free -= 1;
            self.queue.push_completion(end, i as u32);
            self.requests.started(t);
        }
    }

    #[inline]
    fn complete(&mut self, t: f64, i: usize) {
        self.advance(t);
        self.in_system -= 1;
        self.free += 1;
        let Some(r) = self.requests.get_mut(i) else { return };
        let deadline = r.arrival_ms + self.timeout_ms;
        let on_time = t <= deadline;
        // A present request's caller has left: never an answer, and outside
        // the tally and the timeline's counts.
        let present = self.present.contains(&i);
        let answered = on_time && !present;
        r.outcome = if answered { Outcome::Ok } else { Outcome::Late };
        let arrival = r.arrival_ms;
        self.requests.completed(i, t);
        // The caller resolved at the answer, or at its deadline.
        self.resolved_at(if on_time { t } else { deadline });
        let inflight = self.meta.get(i).map_or(0, |m| m.inflight);
        self.door.learn(t - arrival, inflight, !on_time);
        if answered {
            self.tally.ok += 1;
            if CL {
                self.client.success(t);
            }
            let w = self.win;
            if let Some(tl) = self.tl() {
                tl.answer_in(t, w, t - arrival);
            }
        } else if !present {
            self.tally.late += 1;
            if let Some(w) = self.window() {
                w.late += 1;
            }
        }
        if !self.line.is_empty() {
            self.dispatch(t);
            self.watch_line();
        }
        self.note();
    }

    /// With `line_give_ups`, shows the queue the line head's deadline.
    #[inline(always)]
    fn watch_line(&mut self) {
        if self.line_give_ups {
            let head = self.line.front().and_then(|&j| self.requests.get(j as usize).map(|r| (r, j)));
            self.queue.set_give_up(head.map(|(r, j)| (r.arrival_ms + self.timeout_ms, j)));
        }
    }

    /// The caller of try `i` reaches its deadline `t`.
    fn give_up(&mut self, t: f64, i: usize) {
        let Some(r) = self.requests.get(i).copied() else { return };
        if r.outcome != Outcome::Ok || r.end_ms.is_some_and(|e| e <= t) {
            return; // resolved already, or answered exactly on time
        }
        if r.start_ms.is_none() && self.dropped_leave {
            self.advance(t);
            self.waiting -= 1;
            self.in_system -= 1;
            self.tally.dropped += 1;
            self.resolved_at(r.arrival_ms + self.timeout_ms);
            if let Some(q) = self.requests.get_mut(i) {
                q.outcome = Outcome::Dropped;
            }
            let inflight = self.meta.get(i).map_or(0, |m| m.inflight);
            self.door.learn(t - r.arrival_ms, inflight, true);
            if let Some(w) = self.window() {
                w.dropped += 1;
            }
            if self.line_give_ups {
                // The line's head (`watch_line`): every waiting request left before it.
                self.line.pop_front();
                self.watch_line();
                return;
            }
        }
        if let Some(m) = self.meta.get_mut(i) {
            m.abandoned = true;
        }
        self.retry(t, i, None);
    }

    /// Try `i` failed at `t`: schedule its caller's next try, if the policy allows.
    #[inline]
    fn retry(&mut self, t: f64, i: usize, retry_after_ms: Option<f64>) {
        if !CL || self.m.client.retry.max_retries == 0 {
            return;
        }
        self.schedule_retry(t, i, retry_after_ms);
    }

    #[inline(never)]
    fn schedule_retry(&mut self, t: f64, i: usize, retry_after_ms: Option<f64>) {
        let Some(r) = self.requests.get(i).copied() else { return };
        let prev = self.meta.get(i).and_then(Meta::prev_backoff_ms);
        match self.client.retry(t, r.attempt, prev, retry_after_ms, self.m.window_ms) {
            Ok((at, backoff)) => {
                let Ok(id) = u32::try_from(self.requests.len()) else { return };
                self.requests.push(Request {
                    arrival_ms: at,
                    start_ms: None,
                    end_ms: None,
                    outcome: Outcome::Refused,
                    attempt: r.attempt + 1,
                    ..r
                });
                self.meta.push(Meta { prev_backoff_ms: backoff, ..Meta::FIRST });
                self.queue.push_retry(at, id);
            }
            Err(NoRetry::Denied) => self.tally.budget_denied += 1,
            Err(NoRetry::Exhausted | NoRetry::PastWindow) => {}
        }
    }
}
