//! Small DOM helpers. Every lookup returns `Option`/`Result`: a missing
//! element is a no-op, never a panic.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{Document, Element, HtmlElement, HtmlInputElement};

/// The page's document, if there is one.
pub fn document() -> Option<Document> {
    web_sys::window()?.document()
}

/// Creates `<tag>` with the given attributes.
pub fn el(doc: &Document, tag: &str, attrs: &[(&str, &str)]) -> Result<Element, JsValue> {
    made(doc, tag, attrs, None)
}

/// Creates `<tag>` with attributes and text content.
pub fn text_el(doc: &Document, tag: &str, attrs: &[(&str, &str)], text: &str) -> Result<Element, JsValue> {
    made(doc, tag, attrs, Some(text))
}

/// One call into JS for the element, its attributes and its text (`make`):
/// building the page set about 2,900 attributes, each a call of its own with
/// two strings to decode. The attributes go as one string, names and values
/// separated by NUL; one that holds a NUL itself is set the slow way.
fn made(doc: &Document, tag: &str, attrs: &[(&str, &str)], text: Option<&str>) -> Result<Element, JsValue> {
    if attrs.is_empty() || attrs.iter().any(|(k, v)| k.contains('\0') || v.contains('\0')) {
        let e = doc.create_element(tag)?;
        for (k, v) in attrs {
            e.set_attribute(k, v)?;
        }
        if let Some(t) = text {
            e.set_text_content(Some(t));
        }
        return Ok(e);
    }
    let mut packed = String::with_capacity(attrs.iter().map(|(k, v)| k.len() + v.len() + 2).sum());
    for (i, (k, v)) in attrs.iter().enumerate() {
        if i > 0 {
            packed.push('\0');
        }
        packed.push_str(k);
        packed.push('\0');
        packed.push_str(v);
    }
    make(doc, tag, &packed, text)
}

/// Appends `child` to `parent` and returns the child.
pub fn add(parent: &Element, child: Element) -> Result<Element, JsValue> {
    parent.append_child(&child)?;
    Ok(child)
}

/// A listener `on` added: removed and dropped by [`clear_listeners`].
struct Listener {
    target: web_sys::EventTarget,
    event: String,
    cb: Closure<dyn FnMut(web_sys::Event)>,
}

thread_local! {
    static LISTENERS: RefCell<Vec<Listener>> = const { RefCell::new(Vec::new()) };
}

/// Registers `f` for `event` on `target` until the page is mounted again
/// ([`clear_listeners`]): a re-mount frees every closure of the last one.
pub fn on(target: &web_sys::EventTarget, event: &str, f: impl FnMut(web_sys::Event) + 'static) -> Result<(), JsValue> {
    let cb = Closure::<dyn FnMut(web_sys::Event)>::new(f);
    target.add_event_listener_with_callback(event, cb.as_ref().unchecked_ref())?;
    LISTENERS.with(|l| l.borrow_mut().push(Listener { target: target.clone(), event: event.to_owned(), cb }));
    Ok(())
}

/// Removes every listener added by [`on`] and drops its closure (and what it held).
pub fn clear_listeners() {
    let all = LISTENERS.with(|l| std::mem::take(&mut *l.borrow_mut()));
    for l in all {
        let _ = l.target.remove_event_listener_with_callback(&l.event, l.cb.as_ref().unchecked_ref());
    }
}

/// How many listeners [`on`] holds now (tests check that a re-mount does not grow it).
pub fn listener_count() -> usize {
    LISTENERS.with(|l| l.borrow().len())
}

/// A callback that runs at most once, whichever of its triggers fires first.
type Once = Rc<RefCell<Option<Job>>>;

/// Runs `f` once, in the next animation frame, so that what it draws is
/// painted in that frame; or after 100 ms if no frame comes first (an
/// off-screen cross-origin iframe gets no frames). Without a window, or if
/// neither can be scheduled, runs it in a later task or now. Whatever `f`
/// does, its slot is taken before it runs, so the other trigger never runs
/// it twice.
fn next_frame(f: Job) {
    let Some(w) = web_sys::window() else {
        f();
        return;
    };
    let slot: Once = Rc::new(RefCell::new(Some(f)));
    let fire = |slot: Once| {
        move || {
            // `take` in its own statement: the borrow ends before `f` runs.
            let f = slot.borrow_mut().take();
            if let Some(f) = f {
                run_guarded(f, "a frame callback");
            }
        }
    };
    let by_frame = Closure::once_into_js(fire(slot.clone()));
    let by_timer = Closure::once_into_js(fire(slot.clone()));
    let framed = w.request_animation_frame(by_frame.unchecked_ref()).is_ok();
    let timed = w.set_timeout_with_callback_and_timeout_and_arguments_0(by_timer.unchecked_ref(), 100).is_ok();
    if !framed && !timed {
        fire(slot)();
    }
}

/// Runs `f` in a later task (`setTimeout(f, ms)`), or now without a window.
/// (Generic callers box their closure here: one copy of the wasm-bindgen
/// glue for all of them.)
pub fn later(ms: i32, f: impl FnOnce() + 'static) {
    later_boxed(ms, Box::new(f));
}

fn later_boxed(ms: i32, f: Job) {
    let Some(w) = web_sys::window() else {
        f();
        return;
    };
    let cb = Closure::once_into_js(move || run_guarded(f, "a task"));
    if w.set_timeout_with_callback_and_timeout_and_arguments_0(cb.unchecked_ref(), ms).is_err() {
        guarded(&cb, "a task");
    }
}

/// Runs `f` under [`guarded`].
fn run_guarded(f: Job, what: &str) {
    guarded(&Closure::once_into_js(f), what);
}

/// The page's helpers, `bplabDom` of `web/dom-helpers.js` (a classic
/// script the page runs before the glue; not `inline_js`, which the
/// worker's `--target no-modules` glue cannot carry).
#[wasm_bindgen(js_namespace = bplabDom)]
extern "C" {
    /// Calls `f`; if it throws (a JS exception, or a trap), every section
    /// marked `data-drawing` stops being busy and the error is logged as
    /// `what` failed. (The `&str` also gives the import a JS shim, which
    /// looks `bplabDom` up only when called, like the other helpers: the
    /// worker has no `bplabDom`.)
    pub fn guarded(f: &JsValue, what: &str);

    /// `<tag>` made by `doc`, with the attributes packed as `name NUL value
    /// NUL name NUL value …` and, when given, the text.
    #[wasm_bindgen(catch)]
    fn make(doc: &Document, tag: &str, attrs: &str, text: Option<&str>) -> Result<Element, JsValue>;

    /// Gives attribute `attr` to the elements under `at` matching
    /// `selector` whose box meets the viewport.
    #[wasm_bindgen(catch)]
    pub fn mark_on_screen(at: &Element, selector: &str, attr: &str) -> Result<(), JsValue>;

    /// Calls `f` with the name of each widget placeholder (`section.stub`,
    /// id `w-<name>`) under `at` once it comes on screen or within a
    /// screen below; the last page's observer stops.
    #[wasm_bindgen(catch)]
    pub fn watch(at: &Element, f: &Closure<dyn FnMut(String)>) -> Result<(), JsValue>;
}

/// Runs `web/dom-helpers.js` unless `bplabDom` exists: a wasm-bindgen
/// test page does not have the page's scripts.
#[cfg(test)]
pub(crate) fn helpers_for_tests() {
    if !js_sys::Reflect::has(&js_sys::global(), &JsValue::from_str("bplabDom")).unwrap_or(false) {
        let _ = js_sys::eval(include_str!("../../../web/dom-helpers.js"));
    }
}

/// Work waiting for the next frame, in order.
type Job = Box<dyn FnOnce()>;

thread_local! {
    static FRAME_JOBS: RefCell<std::collections::VecDeque<Job>> = RefCell::new(std::collections::VecDeque::new());
    static FRAME_PUMP: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// How many frames have run jobs (the tests tell frames apart by it).
    #[cfg(test)]
    static PUMPS: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Main-thread time one frame's jobs may take before the rest waits for
/// the next frame (ms, measured: at 4× CPU throttling this is a quarter of
/// the work it is on an unthrottled core).
pub const FRAME_BUDGET_MS: f64 = 10.0;

/// Runs `f` in the next frame after the jobs queued before it; when those
/// jobs have used [`FRAME_BUDGET_MS`], in a later frame (one frame never
/// draws every widget that answered during it). Called from a job, `f`
/// runs in the frame after.
pub fn in_frame(f: impl FnOnce() + 'static) {
    in_frame_boxed(Box::new(f));
}

fn in_frame_boxed(f: Job) {
    FRAME_JOBS.with(|q| q.borrow_mut().push_back(f));
    if !FRAME_PUMP.with(|p| p.replace(true)) {
        next_frame(Box::new(frame_pump));
    }
}

/// Runs `f` in a later task once no frame job is waiting (now queued
/// ones first, in their frames): background work that must not delay
/// what is drawn in frames.
pub fn after_frames(f: impl FnOnce() + 'static) {
    fn wait(f: Job) {
        if FRAME_JOBS.with(|q| q.borrow().is_empty()) {
            later_boxed(0, f);
        } else {
            in_frame_boxed(Box::new(move || later_boxed(0, Box::new(move || wait(f)))));
        }
    }
    wait(Box::new(f));
}

/// Runs the jobs queued before this frame (one queued by a job of this
/// frame waits for the next one) until the budget is used.
fn frame_pump() {
    #[cfg(test)]
    PUMPS.with(|p| p.set(p.get() + 1));
    let t0 = crate::worker::now();
    let mut left = FRAME_JOBS.with(|q| q.borrow().len());
    while left > 0 {
        left -= 1;
        let Some(job) = FRAME_JOBS.with(|q| q.borrow_mut().pop_front()) else { break };
        run_guarded(job, "a redraw");
        if crate::worker::now() - t0 > FRAME_BUDGET_MS {
            break;
        }
    }
    if FRAME_JOBS.with(|q| q.borrow().is_empty()) {
        FRAME_PUMP.with(|p| p.set(false));
    } else {
        next_frame(Box::new(frame_pump));
    }
}

/// The element as an input, if it is one.
pub fn input(e: &Element) -> Option<HtmlInputElement> {
    e.dyn_ref::<HtmlInputElement>().cloned()
}

/// Shows (`Some`) or hides (`None`) a message element.
pub fn show_msg(e: &Element, msg: Option<&str>) {
    if let Some(h) = e.dyn_ref::<HtmlElement>() {
        if msg.is_none() && h.hidden() && e.first_child().is_none() {
            return; // hidden and empty already: no DOM write
        }
        h.set_hidden(msg.is_none());
    }
    e.set_text_content(msg);
}

/// Logs to the console as an error (kept for the panic hook and bugs).
pub fn log_error(msg: &str) {
    web_sys::console::error_1(&JsValue::from_str(msg));
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)] // a test fails loudly
mod tests {
    use std::cell::RefCell;
    use std::rc::Rc;

    use wasm_bindgen_test::wasm_bindgen_test;

    use super::{PUMPS, in_frame};

    wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

    /// Queues `n` jobs that each take 15 ms (more than a frame's budget)
    /// and note the frame they ran in.
    fn slow_jobs(n: usize, seen: &Rc<RefCell<Vec<u32>>>) {
        for _ in 0..n {
            let seen = seen.clone();
            in_frame(move || {
                let t0 = crate::worker::now();
                while crate::worker::now() - t0 < 15.0 {}
                seen.borrow_mut().push(PUMPS.with(std::cell::Cell::get));
            });
        }
    }

    async fn until(seen: &Rc<RefCell<Vec<u32>>>, n: usize) {
        for _ in 0..10_000 {
            if seen.borrow().len() >= n {
                return;
            }
            let p = js_sys::Promise::new(&mut |done, _| super::later(1, move || drop(done.call0(&done))));
            let _ = wasm_bindgen_futures::JsFuture::from(p).await;
        }
        panic!("the jobs never ran");
    }

    // Slow jobs keep to the frame budget: one per frame, in order.
    #[wasm_bindgen_test]
    async fn frames_keep_to_the_budget() {
        super::helpers_for_tests();
        let seen = Rc::new(RefCell::new(Vec::new()));
        slow_jobs(3, &seen);
        until(&seen, 3).await;
        let frames = seen.borrow().clone();
        assert!(frames.windows(2).all(|w| w[0] < w[1]), "one slow job per frame: {frames:?}");
    }
}
