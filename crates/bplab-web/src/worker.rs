//! The core in dedicated Web Workers ([`WORKERS`] of them, each widget
//! always on the same one): runs and sweeps are computed off the main
//! thread, which only renders and answers input.
//!
//! The worker is a *classic* script (a module blob worker does not start
//! from file://): wasm-bindgen's own `--target no-modules` glue for this
//! wasm (`scripts/build-web.sh`), then `web/worker.js`, joined and
//! compacted by `scripts/worker-glue.mjs` (terser; nothing rewritten). It
//! has no `bplabDom` (`web/dom-helpers.js`): nothing the worker runs
//! touches the DOM. The page carries its text in `<script
//! type="text/plain" id="bplab-worker-src">` and starts it from a Blob URL,
//! so the same code path serves `index.html` and the single-file
//! `bplab.html` (CSP `worker-src blob:`). Each worker gets the page's
//! compiled `WebAssembly.Module` (`wasm_bindgen::module()`) in its first
//! message: one binary, compiled once, never fetched twice (the workers and
//! the page share its compiled code: a function compiled for one is
//! compiled for all).
//!
//! A request carries the experiment and its parameters as `(name, text)`
//! pairs, applied with `Params::set` exactly as typed; the worker answers
//! the chosen point first when the experiment names a cheap preview, then
//! the full run, each as the bytes of its view (`View::encode`), which the main thread
//! deserializes and draws. A newer request for the same widget makes older
//! ones stale: the worker skips them and the widget ignores their answers
//! (by generation). Where workers are unavailable, or the worker fails, the
//! same requests run on the main thread, each phase in its own task.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use bplab_core::{Caps, ConfigError, Experiment, Params, Report, Scenario};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use crate::dom;

/// Which answer of a request this is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// The chosen point only (the experiment's cheap preview).
    Preview,
    /// The full run: the last answer of the request.
    Full,
}

/// What the main thread needs of a run, computed where the run ran (the
/// worker, or the main thread without one): the CSV texts, explanations,
/// readouts and figures. The page never deserializes a whole report, which
/// would need a `Deserialize` for every report type of every experiment
/// (its weight: `docs/performance.md`); these few generic types are all it
/// reads back.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct View {
    /// `(file, csv)` per table, in the registry's order.
    pub tables: Vec<(String, String)>,
    /// Where the headline numbers come from.
    pub explanations: Vec<bplab_core::calc::Explanation>,
    /// `(name, value)` per readout, in display order.
    pub readouts: Vec<(String, String)>,
    /// The figures, in the registry's chart order (no page highlights).
    pub plots: Vec<bplab_core::plot::Plot>,
}

impl View {
    /// The view of `r`. Its explanations leave out the arithmetic as data
    /// and the claims, which only the checks read.
    pub fn of(r: &Report) -> View {
        let mut explanations = r.explanations();
        for x in &mut explanations {
            x.claims.clear();
            for s in &mut x.steps {
                s.eq = None;
            }
        }
        View {
            tables: r.tables().iter().map(|t| (t.spec.file.to_owned(), t.csv())).collect(),
            explanations,
            readouts: r.readouts().into_iter().map(|x| (x.name.to_owned(), x.value)).collect(),
            plots: r.plots(&bplab_core::plot::Focus::default()),
        }
    }

    /// The bytes the worker posts (postcard: a compact binary serde form,
    /// moved to the main thread without a copy and read back in one pass,
    /// where a JS object graph made thousands of objects on both threads).
    pub fn encode(&self) -> Result<Vec<u8>, String> {
        postcard::to_allocvec(self).map_err(|e| format!("the run's view: {e}"))
    }

    /// The view `encode` gave these bytes for.
    pub fn decode(bytes: &[u8]) -> Result<View, String> {
        postcard::from_bytes(bytes).map_err(|e| format!("the worker's answer: {e}"))
    }

    /// The CSV text of `file`.
    pub fn csv(&self, file: &str) -> Option<&str> {
        self.tables.iter().find(|(f, _)| f == file).map(|(_, c)| c.as_str())
    }
}

/// A run's view as it arrived: the worker's bytes are decoded only when
/// the answer is drawn, in its frame, so an answer another one replaced
/// before that frame (a preview the full run overtook) is never decoded,
/// and the message task that brings it stays short.
pub enum Payload {
    /// Computed on this thread.
    View(View),
    /// The worker's bytes (`View::encode`).
    Bytes(js_sys::Uint8Array),
}

impl Payload {
    /// The view.
    pub fn view(self) -> Result<View, String> {
        match self {
            Payload::View(v) => Ok(v),
            Payload::Bytes(b) => {
                let t0 = now();
                let r = View::decode(&b.to_vec());
                measure("bplab:receive", t0);
                r
            }
        }
    }
}

/// One answer to a request.
pub struct Answer {
    /// Preview or full.
    pub phase: Phase,
    /// The run's view, or why it could not be computed.
    pub report: Result<Payload, String>,
    /// Time spent computing it (ms, `performance.now()` where it ran).
    pub compute_ms: f64,
    /// Computed in the worker (`false`: on the main thread).
    pub in_worker: bool,
}

/// Called with each answer of a request (preview first, then full).
pub type OnAnswer = Rc<dyn Fn(Answer)>;

/// The `(name, text)` pairs that reproduce `p` from `exp`'s defaults (what
/// the link carries): the request the worker applies.
pub fn param_pairs(_exp: &Experiment, p: &Params) -> Vec<(String, String)> {
    p.changed().into_iter().map(|(n, v)| (n.to_owned(), v)).collect()
}

/// The checked scenario of `exp` with `pairs` applied to its defaults.
pub fn scenario(exp: &'static Experiment, pairs: &[(String, String)]) -> Result<Scenario, ConfigError> {
    if let Some((name, _)) = pairs.iter().find(|(n, _)| exp.param(n).is_none()) {
        return Err(ConfigError::Unknown {
            what: "parameter",
            name: name.clone(),
            accepted: exp.params.iter().map(|s| s.name).collect::<Vec<_>>().join(", "),
        });
    }
    let mut p = exp.defaults();
    p.apply(pairs)?;
    Scenario::new(p, Caps::PAGE)
}

/// The report of one phase: `None` for a preview the experiment does not have.
fn run_phase(exp: &'static Experiment, pairs: &[(String, String)], phase: Phase) -> Option<Result<View, String>> {
    let sc = match scenario(exp, pairs) {
        Ok(sc) => sc,
        Err(e) => return Some(Err(e.to_string())),
    };
    match phase {
        Phase::Full => Some(Ok(View::of(&sc.run()))),
        Phase::Preview => sc.preview().map(|r| Ok(View::of(&r))),
    }
}

fn to_js<T: serde::Serialize>(v: &T) -> Result<JsValue, JsError> {
    // Default serializer: u64 beyond 2^53 become BigInt, so every number comes back exact.
    v.serialize(&serde_wasm_bindgen::Serializer::new()).map_err(|e| JsError::new(&e.to_string()))
}

/// Worker side: one phase of a page request. `pairs` is an array of
/// `[name, text]`; returns the view's bytes (`View::encode`), or `null` when the
/// experiment has no preview. Called by `web/worker.js`; not part of the API.
#[wasm_bindgen(js_name = __bplab_compute)]
pub fn worker_compute(experiment: JsValue, pairs: JsValue, preview: bool) -> Result<JsValue, JsError> {
    let name = experiment.as_string().ok_or_else(|| JsError::new("compute: expected an experiment name"))?;
    let exp = Experiment::named(&name).map_err(|e| JsError::new(&e.to_string()))?;
    let pairs: Vec<(String, String)> =
        serde_wasm_bindgen::from_value(pairs).map_err(|e| JsError::new(&format!("compute: {e}")))?;
    let phase = if preview { Phase::Preview } else { Phase::Full };
    match run_phase(exp, &pairs, phase) {
        None => Ok(JsValue::NULL),
        Some(Ok(r)) => r.encode().map(|b| js_sys::Uint8Array::from(b.as_slice()).into()).map_err(|e| JsError::new(&e)),
        Some(Err(e)) => Err(JsError::new(&e)),
    }
}

struct Job {
    key: &'static str,
    exp: &'static Experiment,
    pairs: Vec<(String, String)>,
    done: OnAnswer,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Requests go to the worker.
    Worker,
    /// No worker (unavailable or failed): requests run on the main thread.
    Local,
}

/// Workers the page starts. Each widget's requests always go to the same
/// one (its lane, given at its first request, the lanes taken in turn), so
/// a widget's newer request still makes its older ones stale in that
/// worker's queue; two let two widgets compute at once (at first load every
/// widget asks at once: one worker answered them one after another, the
/// last long after the first, `docs/performance.md`). A phone has cores to
/// spare for them; a page on a two-core machine shares its cores the same
/// way it would with one
/// worker computing twice as long. An embed (one widget, one lane) starts one.
const WORKERS: usize = 2;

thread_local! {
    /// Workers to start: [`WORKERS`], or 1 for a page of one widget ([`warm`]).
    static WANTED: std::cell::Cell<usize> = const { std::cell::Cell::new(WORKERS) };
}

struct Pool {
    mode: Mode,
    /// The workers (empty on the main thread).
    workers: Vec<web_sys::Worker>,
    /// Each widget's worker (an index into `workers`).
    lanes: HashMap<&'static str, u32>,
    next_id: u32,
    jobs: HashMap<u32, Job>,
    /// The newest request per key: older ones are stale.
    latest: HashMap<&'static str, u32>,
    /// Kept alive for the worker's lifetime.
    _handlers: Vec<Closure<dyn FnMut(web_sys::MessageEvent)>>,
}

thread_local! {
    static POOL: RefCell<Option<Pool>> = const { RefCell::new(None) };
}

fn with_pool<R>(f: impl FnOnce(&mut Pool) -> R) -> R {
    POOL.with(|cell| {
        let mut slot = cell.borrow_mut();
        let pool = slot.get_or_insert_with(start_pool);
        f(pool)
    })
}

/// Starts the workers now (they boot while the page is built), if they are
/// not running yet: one for a page of `widgets` = 1 (an embed has one lane),
/// else [`WORKERS`].
pub fn warm(widgets: usize) {
    WANTED.with(|w| w.set(widgets.clamp(1, WORKERS)));
    with_pool(|_| ());
}

#[wasm_bindgen(js_namespace = bplabDom)] // web/dom-helpers.js
extern "C" {
    /// A Blob URL of the worker's source text from the page, if the build
    /// put it there (the single file unpacks it into
    /// `globalThis.__bplabWorkerSrc` before the wasm starts; the served page
    /// carries it as text in `#bplab-worker-src`). Made in JS: the text
    /// never crosses into the wasm and back (what that saved:
    /// `docs/performance.md`).
    #[wasm_bindgen(catch)]
    fn worker_url() -> Result<Option<String>, JsValue>;
}

fn start_pool() -> Pool {
    let mut pool = Pool {
        mode: Mode::Local,
        workers: Vec::new(),
        lanes: HashMap::new(),
        next_id: 0,
        jobs: HashMap::new(),
        latest: HashMap::new(),
        _handlers: Vec::new(),
    };
    let no_worker = web_sys::window()
        .map(|w| js_sys::Reflect::get(&w, &JsValue::from_str("Worker")).map_or(true, |v| !v.is_function()))
        .unwrap_or(true);
    if no_worker {
        return pool;
    }
    // No worker text in this page (wasm-bindgen tests): the main thread, without a word.
    let Some(url) = worker_url().transpose() else { return pool };
    match url.and_then(|url| spawn_all(&url, &mut pool)) {
        Ok(()) => pool.mode = Mode::Worker,
        Err(e) => {
            warn(&format!("bplab: no worker ({}); computing on the main thread", describe(&e)));
            for w in pool.workers.drain(..) {
                w.terminate();
            }
            pool._handlers.clear();
        }
    }
    pool
}

/// Starts the workers wanted from one Blob URL of the worker's source
/// ([`worker_url`]), then revokes it.
fn spawn_all(url: &str, pool: &mut Pool) -> Result<(), JsValue> {
    let mut started = Ok(());
    for _ in 0..WANTED.with(std::cell::Cell::get) {
        match spawn(url) {
            Ok((worker, handlers)) => {
                pool.workers.push(worker);
                pool._handlers.extend(handlers);
            }
            Err(e) => {
                started = Err(e);
                break;
            }
        }
    }
    let _ = web_sys::Url::revoke_object_url(url);
    started
}

fn describe(v: &JsValue) -> String {
    v.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())).or_else(|| v.as_string()).unwrap_or_default()
}

fn warn(msg: &str) {
    web_sys::console::warn_1(&JsValue::from_str(msg));
}

type Handlers = Vec<Closure<dyn FnMut(web_sys::MessageEvent)>>;

/// One worker from the worker script at `url`, sent the page's module.
fn spawn(url: &str) -> Result<(web_sys::Worker, Handlers), JsValue> {
    let worker = web_sys::Worker::new(url)?;
    let on_msg = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(|e: web_sys::MessageEvent| on_message(&e.data()));
    worker.set_onmessage(Some(on_msg.as_ref().unchecked_ref()));
    // A script error in the worker (it could not start, or threw outside a request).
    let on_err = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(|e: web_sys::MessageEvent| {
        e.prevent_default();
        let msg = js_sys::Reflect::get(&e, &JsValue::from_str("message")).ok().and_then(|m| m.as_string());
        go_local(&msg.unwrap_or_else(|| "the worker failed".to_owned()));
    });
    worker.set_onerror(Some(on_err.as_ref().unchecked_ref()));
    let init = js_sys::Object::new();
    js_sys::Reflect::set(&init, &JsValue::from_str("init"), &wasm_bindgen::module())?;
    // Measurement only (scripts/measure-page.mjs sets it to the CPU throttling
    // rate): the worker then runs as slowly as the throttled page (web/worker.js).
    if let Some(slow) =
        js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("__bplabWorkerSlow")).ok().and_then(|v| v.as_f64())
    {
        js_sys::Reflect::set(&init, &JsValue::from_str("slow"), &JsValue::from_f64(slow))?;
    }
    worker.post_message(&init)?;
    Ok((worker, vec![on_msg, on_err]))
}

/// The worker cannot be used: every pending request runs on the main thread.
fn go_local(why: &str) {
    let jobs = POOL.with(|cell| {
        let mut slot = cell.borrow_mut();
        let Some(pool) = slot.as_mut() else { return Vec::new() };
        if pool.mode == Mode::Local {
            return Vec::new();
        }
        warn(&format!("bplab: the worker stopped ({why}); computing on the main thread"));
        pool.mode = Mode::Local;
        for w in pool.workers.drain(..) {
            w.terminate();
        }
        let mut ids: Vec<u32> = pool.jobs.keys().copied().collect();
        ids.sort_unstable();
        ids
    });
    for id in jobs {
        schedule_local(id, Phase::Preview);
    }
}

fn get(v: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(v, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// A message from the worker: `{ready}`, or `{id, phase, ok | err | dropped, ms}`.
fn on_message(data: &JsValue) {
    let ready = get(data, "ready");
    if ready.as_bool() == Some(false) {
        go_local(&get(data, "error").as_string().unwrap_or_default());
        return;
    }
    if ready.is_truthy() {
        return;
    }
    let Some(id) = get(data, "id").as_f64().map(|x| x as u32) else { return };
    let phase = if get(data, "phase").as_string().as_deref() == Some("preview") { Phase::Preview } else { Phase::Full };
    let ms = get(data, "ms").as_f64().unwrap_or(0.0);
    let dropped = get(data, "dropped").is_truthy();
    let done = with_pool(|p| {
        let job = p.jobs.get(&id)?;
        let done = job.done.clone();
        if dropped || phase == Phase::Full {
            p.jobs.remove(&id);
        }
        Some(done)
    });
    let Some(done) = done.filter(|_| !dropped) else { return };
    let err = get(data, "err");
    let report = if err.is_undefined() {
        get(data, "ok")
            .dyn_into::<js_sys::Uint8Array>()
            .map(Payload::Bytes)
            .map_err(|_| "the worker's answer: not bytes".to_owned())
    } else {
        Err(err.as_string().unwrap_or_default())
    };
    done(Answer { phase, report, compute_ms: ms, in_worker: true });
}

thread_local! {
    /// `globalThis.__bplabMeasure` was set before the page started
    /// (scripts/profile-page.mjs): every draw and receive is measured.
    static DETAILED: bool = js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("__bplabMeasure"))
        .is_ok_and(|v| v.is_truthy());
}

/// Records `name` from `t0` to now in the page's performance timeline
/// (scripts/measure-page.mjs reads `bplab:mount`; scripts/profile-page.mjs
/// where the main thread's time goes). Only the mount's are kept unless
/// `__bplabMeasure` asks for every one: each entry costs main-thread time,
/// a few ms per frame at 4× CPU throttling.
pub fn measure(name: &str, t0: f64) {
    if !name.starts_with("bplab:mount") && !DETAILED.with(|d| *d) {
        return;
    }
    let Some(p) = web_sys::window().and_then(|w| w.performance()) else { return };
    let Ok(f) = js_sys::Reflect::get(&p, &JsValue::from_str("measure")) else { return };
    let opts = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&opts, &JsValue::from_str("start"), &JsValue::from_f64(t0));
    if let Some(f) = f.dyn_ref::<js_sys::Function>() {
        let _ = f.call2(&p, &JsValue::from_str(name), &opts);
    }
}

/// `performance.now()`, or 0 without a window.
pub fn now() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// Runs `phase` of job `id` on the main thread in a later task, unless it is stale by then.
fn schedule_local(id: u32, phase: Phase) {
    let Some(window) = web_sys::window() else { return };
    let cb = Closure::once_into_js(move || {
        let job = with_pool(|p| {
            let job = p.jobs.get(&id)?;
            if p.latest.get(job.key) != Some(&id) {
                p.jobs.remove(&id);
                return None;
            }
            Some((job.exp, job.pairs.clone(), job.done.clone()))
        });
        let Some((exp, pairs, done)) = job else { return };
        let t0 = now();
        match (phase, run_phase(exp, &pairs, phase)) {
            (Phase::Preview, None) => schedule_local(id, Phase::Full),
            (Phase::Preview, Some(report)) => {
                done(Answer { phase, report: report.map(Payload::View), compute_ms: now() - t0, in_worker: false });
                schedule_local(id, Phase::Full);
            }
            (Phase::Full, report) => {
                with_pool(|p| p.jobs.remove(&id));
                let report = report.unwrap_or_else(|| Err("no run".to_owned())).map(Payload::View);
                done(Answer { phase, report, compute_ms: now() - t0, in_worker: false });
            }
        }
    });
    let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(cb.unchecked_ref(), 0);
}

/// A request made before its widget was built ([`prefetch`]): its answers
/// so far, kept until the widget takes them, and then where they go.
struct Early {
    pairs: Vec<(String, String)>,
    id: u32,
    got: Vec<Answer>,
    /// The widget asked for it (its answers are handed over in a later task).
    claimed: bool,
    to: Option<OnAnswer>,
}

thread_local! {
    static EARLY: RefCell<Book> = const { RefCell::new(Book::new()) };
}

/// Asks for `exp` run with `p` for widget `key`, which is not built yet:
/// the answers wait until the widget's first [`compute`] with the same
/// parameters takes them.
pub fn prefetch(key: &'static str, exp: &'static Experiment, p: &Params) {
    let pairs = param_pairs(exp, p);
    let sink: OnAnswer = Rc::new(move |a: Answer| early_answer(key, a));
    let id = post(key, exp, pairs.clone(), sink);
    EARLY.with(|e| e.borrow_mut().insert(key, Early { pairs, id, got: Vec::new(), claimed: false, to: None }));
}

/// Forgets every request made before its widget (a new mount).
pub fn forget_early() {
    EARLY.with(|e| *e.borrow_mut() = Book::new());
}

/// The early requests, one per widget at most (a list: a handful of
/// entries, and no map type of its own in the wasm).
struct Book(Vec<(&'static str, Early)>);

impl Book {
    const fn new() -> Book {
        Book(Vec::new())
    }
    fn get_mut(&mut self, key: &str) -> Option<&mut Early> {
        self.0.iter_mut().find(|(k, _)| *k == key).map(|(_, e)| e)
    }
    fn remove(&mut self, key: &str) {
        self.0.retain(|(k, _)| *k != key);
    }
    fn insert(&mut self, key: &'static str, e: Early) {
        self.remove(key);
        self.0.push((key, e));
    }
    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// An answer to `key`'s early request: kept (`None`), or, once the widget
/// has taken the ones before it, where to pass it on (so they reach it in
/// the order they came).
fn keep_or_pass(book: &mut Book, key: &'static str, a: Answer) -> Option<(OnAnswer, Answer)> {
    let x = book.get_mut(key)?;
    let Some(to) = x.to.clone() else {
        x.got.push(a);
        return None;
    };
    if a.phase == Phase::Full {
        book.remove(key);
    }
    Some((to, a))
}

/// Whether `key`'s early request is the one it asks for now: the same
/// `pairs`, not taken yet, and still its newest request (`newest`). If not,
/// it is forgotten (its answers, if any, reach nobody).
fn claim(book: &mut Book, key: &'static str, pairs: &[(String, String)], newest: Option<u32>) -> bool {
    let Some(x) = book.get_mut(key) else { return false };
    if x.claimed || x.pairs != pairs || newest != Some(x.id) {
        book.remove(key);
        return false;
    }
    x.claimed = true;
    true
}

/// The answers of `key`'s claimed early request kept so far, in order;
/// later ones go to `done` as they come ([`keep_or_pass`]).
fn take_kept(book: &mut Book, key: &'static str, done: &OnAnswer) -> Vec<Answer> {
    let Some(x) = book.get_mut(key).filter(|x| x.claimed) else { return Vec::new() };
    x.to = Some(done.clone());
    let got = std::mem::take(&mut x.got);
    if got.iter().any(|a| a.phase == Phase::Full) {
        book.remove(key);
    }
    got
}

fn early_answer(key: &'static str, a: Answer) {
    if let Some((to, a)) = EARLY.with(|e| keep_or_pass(&mut e.borrow_mut(), key, a)) {
        to(a);
    }
}

/// Whether `key`'s request made before it was built is the one it asks
/// for now ([`claim`]): then `done` gets its answers, those kept so far in
/// a later task (the widget asking is borrowed while it asks) and the rest
/// as they come. An answer that comes between the two is kept too, so
/// none overtakes another (a full run handed over before its preview would
/// leave the widget waiting for a full run).
fn adopt(key: &'static str, pairs: &[(String, String)], done: &OnAnswer) -> bool {
    let newest = with_pool(|p| p.latest.get(key).copied());
    let taken = EARLY.with(|e| claim(&mut e.borrow_mut(), key, pairs, newest));
    if taken {
        let done = done.clone();
        dom::later(0, move || {
            for a in EARLY.with(|e| take_kept(&mut e.borrow_mut(), key, &done)) {
                done(a);
            }
        });
    }
    taken
}

/// Asks for `exp` run with `p` on behalf of widget `key`; `done` gets the
/// preview (when the experiment has one) and then the full run. A newer
/// request with the same key makes this one stale. The widget's first
/// request takes over the one [`prefetch`] made for it, if any.
pub fn compute(key: &'static str, exp: &'static Experiment, p: &Params, done: OnAnswer) {
    let pairs = param_pairs(exp, p);
    if !adopt(key, &pairs, &done) {
        post(key, exp, pairs, done);
    }
}

/// Posts the request (or schedules it here without a worker); its id.
fn post(key: &'static str, exp: &'static Experiment, pairs: Vec<(String, String)>, done: OnAnswer) -> u32 {
    let posted = with_pool(|pool| {
        pool.next_id = pool.next_id.wrapping_add(1);
        let id = pool.next_id;
        pool.latest.insert(key, id);
        let next = u32::try_from(pool.lanes.len() % pool.workers.len().max(1)).unwrap_or(0);
        let lane = *pool.lanes.entry(key).or_insert(next);
        let msg = match (pool.mode, pool.workers.get(lane as usize)) {
            (Mode::Worker, Some(w)) => Some((w.clone(), request(id, key, exp.name, &pairs))),
            _ => None,
        };
        pool.jobs.insert(id, Job { key, exp, pairs, done });
        (id, msg)
    });
    let id = posted.0;
    match posted {
        (_, Some((worker, Ok(msg)))) => {
            if let Err(e) = worker.post_message(&msg) {
                go_local(&describe(&e));
            }
        }
        (_, Some((_, Err(e)))) => go_local(&describe(&e)),
        (id, None) => schedule_local(id, Phase::Preview),
    }
    id
}

fn request(id: u32, key: &str, experiment: &str, pairs: &[(String, String)]) -> Result<JsValue, JsValue> {
    let msg = js_sys::Object::new();
    let set = |k: &str, v: &JsValue| js_sys::Reflect::set(&msg, &JsValue::from_str(k), v).map(|_| ());
    set("id", &JsValue::from(id))?;
    set("key", &JsValue::from_str(key))?;
    set("call", &JsValue::from_str("compute"))?;
    let args = js_sys::Array::new();
    args.push(&JsValue::from_str(experiment));
    args.push(&to_js(&pairs.to_vec()).map_err(JsValue::from)?);
    set("args", &args)?;
    Ok(msg.into())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)] // a test fails loudly
mod tests {
    use std::cell::RefCell;
    use std::rc::Rc;

    use wasm_bindgen_test::wasm_bindgen_test;

    use super::{Answer, Book, Early, OnAnswer, Payload, Phase, View, claim, keep_or_pass, take_kept};

    wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

    fn answer(phase: Phase, ms: f64) -> Answer {
        let view = View { tables: Vec::new(), explanations: Vec::new(), readouts: Vec::new(), plots: Vec::new() };
        Answer { phase, report: Ok(Payload::View(view)), compute_ms: ms, in_worker: true }
    }

    fn book(id: u32) -> Book {
        let mut b = Book::new();
        b.insert("w", Early { pairs: vec![("a".into(), "1".into())], id, got: Vec::new(), claimed: false, to: None });
        b
    }

    type Seen = Rc<RefCell<Vec<(Phase, f64)>>>;

    fn recorder() -> (OnAnswer, Seen) {
        let seen = Rc::new(RefCell::new(Vec::new()));
        let s = seen.clone();
        (Rc::new(move |a: Answer| s.borrow_mut().push((a.phase, a.compute_ms))), seen)
    }

    // The full run lands after the widget claimed the early request but
    // before the kept preview was handed over: it waits behind the preview.
    #[wasm_bindgen_test]
    fn an_early_full_run_does_not_overtake_its_preview() {
        let mut b = book(7);
        assert!(keep_or_pass(&mut b, "w", answer(Phase::Preview, 1.0)).is_none());
        let pairs = vec![("a".to_owned(), "1".to_owned())];
        assert!(claim(&mut b, "w", &pairs, Some(7)));
        assert!(keep_or_pass(&mut b, "w", answer(Phase::Full, 2.0)).is_none(), "kept, not passed on");
        let (done, seen) = recorder();
        for a in take_kept(&mut b, "w", &done) {
            done(a);
        }
        assert_eq!(*seen.borrow(), vec![(Phase::Preview, 1.0), (Phase::Full, 2.0)]);
        assert!(b.is_empty(), "a full run ends the early request");
    }

    #[wasm_bindgen_test]
    fn answers_after_the_hand_over_go_straight_to_the_widget() {
        let mut b = book(3);
        let pairs = vec![("a".to_owned(), "1".to_owned())];
        assert!(claim(&mut b, "w", &pairs, Some(3)));
        let (done, seen) = recorder();
        assert!(take_kept(&mut b, "w", &done).is_empty());
        let (to, a) = keep_or_pass(&mut b, "w", answer(Phase::Preview, 1.0)).unwrap();
        to(a);
        let (to, a) = keep_or_pass(&mut b, "w", answer(Phase::Full, 2.0)).unwrap();
        to(a);
        assert_eq!(*seen.borrow(), vec![(Phase::Preview, 1.0), (Phase::Full, 2.0)]);
        assert!(b.is_empty());
    }

    #[wasm_bindgen_test]
    fn other_parameters_a_newer_request_or_a_second_claim_forget_it() {
        let pairs = vec![("a".to_owned(), "1".to_owned())];
        let mut b = book(3);
        assert!(!claim(&mut b, "w", &[("a".to_owned(), "2".to_owned())], Some(3)));
        assert!(b.is_empty());
        let mut b = book(3);
        assert!(!claim(&mut b, "w", &pairs, Some(4)));
        assert!(b.is_empty());
        let mut b = book(3);
        assert!(claim(&mut b, "w", &pairs, Some(3)));
        assert!(!claim(&mut b, "w", &pairs, Some(3)));
        assert!(b.is_empty());
        let (done, _) = recorder();
        assert!(take_kept(&mut b, "w", &done).is_empty(), "the widget asked again: nothing is handed over");
    }
}
