//! SCORM 1.2 reporting, when the page runs inside a course platform (LMS).
//!
//! **Finding the LMS.** `window.API` on this window and up the parent
//! frames, then on `window.opener` and its parents. A frame of another origin
//! throws `SecurityError` on access: that ends the walk (the API is reachable
//! only from the same origin). No API found: nothing here does anything.
//!
//! **Reporting.** `LMSInitialize("")` at start (a "not attempted" status
//! becomes "incomplete"). A pick is what the learner commits (a click, Space
//! or Enter on an option, the Check button), never an option passed over
//! with the arrow keys (`view`). A question's first pick counts; later picks
//! still show the reasons but change no score. After each first pick:
//! `cmi.core.score.raw` = 100 × right first picks / questions on the page
//! (rounded), `score.min` 0, `score.max` 100, and `cmi.core.lesson_status`:
//! "incomplete" until every question on the page is answered, then "passed"
//! or "failed" against the LMS's `cmi.student_data.mastery_score` (the
//! manifest's `adlcp:masteryscore`) when it has one, else "completed". The
//! picks go to `cmi.suspend_data` (JSON, at most 4096 characters) and
//! `LMSCommit("")` follows. A later pick that differs from the last one
//! kept rewrites the suspend data only (the learner's last choice, the fourth
//! item of its entry). A relaunch reads the suspend data back and shows
//! each question answered with the learner's last choice; the score stays
//! the first pick's and is not written again. On `pagehide`:
//! `cmi.core.session_time` (the time since `LMSInitialize`, `HHHH:MM:SS.SS`),
//! `cmi.core.exit` ("suspend" while incomplete) and `LMSFinish("")`.

use std::cell::RefCell;

use super::json::J;
use js_sys::{Array, Function, Reflect};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

/// The longest `cmi.suspend_data` SCORM 1.2 allows.
const SUSPEND_MAX: usize = 4096;

/// One answered question: its first pick (what is scored) and the learner's last choice.
#[derive(Clone, Debug, PartialEq)]
pub struct Pick {
    /// `widget:id`.
    pub key: String,
    /// The first pick's option index.
    pub first: usize,
    /// Whether the first pick was right (per the model when it was made).
    pub right: bool,
    /// The last option the learner committed (`first` until they pick again).
    pub last: usize,
}

/// A whole, non-negative option index in suspend data.
fn index(n: f64) -> Option<usize> {
    (n.fract() == 0.0 && (0.0..=f64::from(u16::MAX)).contains(&n)).then_some(n as usize)
}

/// The suspend data: `{"v":1,"a":[["widget:id",first,right],…]}`, with the
/// last choice as a fourth item when it differs from the first pick.
pub fn suspend(picks: &[Pick]) -> String {
    let a = picks
        .iter()
        .map(|p| {
            let mut t = vec![J::Str(p.key.clone()), J::Num(p.first as f64), J::Bool(p.right)];
            if p.last != p.first {
                t.push(J::Num(p.last as f64));
            }
            J::Arr(t)
        })
        .collect();
    J::Obj(vec![("v".to_owned(), J::Num(1.0)), ("a".to_owned(), J::Arr(a))]).to_json()
}

/// The picks in suspend data (entries with or without the last choice);
/// none when it is empty or not ours.
pub fn resume(data: &str) -> Vec<Pick> {
    let Ok(v) = J::parse(data) else { return Vec::new() };
    let Some(J::Arr(a)) = v.get("a") else { return Vec::new() };
    a.iter()
        .filter_map(|x| {
            let J::Arr(t) = x else { return None };
            let (k, first, right, last) = match t.as_slice() {
                [J::Str(k), J::Num(p), J::Bool(r)] => (k, index(*p)?, *r, None),
                [J::Str(k), J::Num(p), J::Bool(r), J::Num(l)] => (k, index(*p)?, *r, Some(index(*l)?)),
                _ => return None,
            };
            Some(Pick { key: k.clone(), first, right, last: last.unwrap_or(first) })
        })
        .collect()
}

/// Milliseconds as SCORM 1.2's `CMITimespan`, `HHHH:MM:SS.SS` (hundredths
/// rounded down; at most 9999 hours).
pub fn session_time(elapsed_ms: f64) -> String {
    let cs = if elapsed_ms.is_finite() && elapsed_ms > 0.0 {
        (elapsed_ms / 10.0).floor().min(35_999_999_999.0)
    } else {
        0.0
    };
    let cs = cs as u64;
    let (h, m, s, c) = (cs / 360_000, cs / 6_000 % 60, cs / 100 % 60, cs % 100);
    format!("{h:04}:{m:02}:{s:02}.{c:02}")
}

struct Lms {
    api: JsValue,
    questions: Vec<String>,
    picks: Vec<Pick>,
    finished: bool,
    /// `Date.now()` at `LMSInitialize` (ms), for `cmi.core.session_time`.
    started_ms: f64,
}

thread_local! {
    static LMS: RefCell<Option<Lms>> = const { RefCell::new(None) };
}

/// `API` on `win` or one of its parents; `None` at a frame of another origin.
fn api_up_from(win: JsValue) -> Option<JsValue> {
    let mut w = win;
    for _ in 0..32 {
        let api = Reflect::get(&w, &JsValue::from_str("API")).ok()?; // SecurityError: stop
        if api.is_object() && Reflect::get(&api, &JsValue::from_str("LMSInitialize")).ok()?.is_function() {
            return Some(api);
        }
        let parent = Reflect::get(&w, &JsValue::from_str("parent")).ok()?;
        if parent.is_undefined() || parent.is_null() || js_sys::Object::is(&parent, &w) {
            return None;
        }
        w = parent;
    }
    None
}

fn find_api() -> Option<JsValue> {
    let win: JsValue = web_sys::window()?.into();
    api_up_from(win.clone()).or_else(|| {
        let opener = Reflect::get(&win, &JsValue::from_str("opener")).ok()?;
        if opener.is_null() || opener.is_undefined() { None } else { api_up_from(opener) }
    })
}

/// Calls `api.method(args…)`; its result as text ("" when it threw).
fn call(api: &JsValue, method: &str, args: &[&str]) -> String {
    let Some(f) = Reflect::get(api, &JsValue::from_str(method)).ok().and_then(|f| f.dyn_into::<Function>().ok()) else {
        return String::new();
    };
    let a: Array = args.iter().map(|s| JsValue::from_str(s)).collect();
    f.apply(api, &a).ok().and_then(|v| v.as_string()).unwrap_or_default()
}

/// Looks for the LMS and starts the session (once, at page start).
pub fn start() {
    let Some(api) = find_api() else { return };
    if call(&api, "LMSInitialize", &[""]) != "true" {
        crate::dom::log_error("bplab: the LMS refused LMSInitialize; not reporting");
        return;
    }
    let status = call(&api, "LMSGetValue", &["cmi.core.lesson_status"]);
    if status.is_empty() || status == "not attempted" {
        call(&api, "LMSSetValue", &["cmi.core.lesson_status", "incomplete"]);
        call(&api, "LMSCommit", &[""]);
    }
    let saved = call(&api, "LMSGetValue", &["cmi.suspend_data"]);
    let picks = if saved.is_empty() { Vec::new() } else { resume(&saved) };
    let started_ms = js_sys::Date::now();
    LMS.with(|l| *l.borrow_mut() = Some(Lms { api, questions: Vec::new(), picks, finished: false, started_ms }));
    let Some(w) = web_sys::window() else { return };
    let cb = Closure::<dyn FnMut()>::new(finish);
    let _ = w.add_event_listener_with_callback("pagehide", cb.as_ref().unchecked_ref());
    cb.forget();
}

/// A question on the page (`widget:id`), counted from the start even if its
/// widget is not built yet; the learner's last choice on it, if the LMS
/// kept their answer.
pub fn register(key: &str) -> Option<usize> {
    LMS.with(|l| {
        let mut l = l.borrow_mut();
        let lms = l.as_mut()?;
        if !lms.questions.iter().any(|q| q == key) {
            lms.questions.push(key.to_owned());
        }
        lms.picks.iter().find(|p| p.key == key).map(|p| p.last)
    })
}

/// The learner committed `pick` of question `key`; `right` per the model
/// now. The first pick is scored; a later one different from the last kept
/// is written to the suspend data only.
pub fn answered(key: &str, pick: usize, right: bool) {
    LMS.with(|l| {
        let mut l = l.borrow_mut();
        let Some(lms) = l.as_mut() else { return };
        if lms.finished {
            return;
        }
        match lms.picks.iter_mut().find(|p| p.key == key) {
            Some(p) if p.last == pick => {}
            Some(p) => {
                p.last = pick;
                keep(lms);
                call(&lms.api, "LMSCommit", &[""]);
            }
            None => {
                lms.picks.push(Pick { key: key.to_owned(), first: pick, right, last: pick });
                report(lms);
            }
        }
    });
}

/// Writes the suspend data (the picks), when it fits SCORM 1.2's limit.
fn keep(lms: &Lms) {
    let data = suspend(&lms.picks);
    if data.len() <= SUSPEND_MAX {
        call(&lms.api, "LMSSetValue", &["cmi.suspend_data", &data]);
    } else {
        crate::dom::log_error("bplab: the answers exceed SCORM 1.2's 4096 characters of suspend data; not kept");
    }
}

fn report(lms: &Lms) {
    let shown = |k: &String| lms.questions.contains(k);
    let total = lms.questions.len().max(1);
    let answered = lms.picks.iter().filter(|p| shown(&p.key)).count();
    let right = lms.picks.iter().filter(|p| p.right && shown(&p.key)).count();
    let raw = (100.0 * right as f64 / total as f64).round();
    let status = if answered < lms.questions.len() {
        "incomplete"
    } else {
        match call(&lms.api, "LMSGetValue", &["cmi.student_data.mastery_score"]).trim().parse::<f64>() {
            Ok(m) if raw >= m => "passed",
            Ok(_) => "failed",
            Err(_) => "completed",
        }
    };
    let api = &lms.api;
    call(api, "LMSSetValue", &["cmi.core.score.min", "0"]);
    call(api, "LMSSetValue", &["cmi.core.score.max", "100"]);
    call(api, "LMSSetValue", &["cmi.core.score.raw", &format!("{raw}")]);
    call(api, "LMSSetValue", &["cmi.core.lesson_status", status]);
    keep(lms);
    call(api, "LMSCommit", &[""]);
}

/// Ends the session (pagehide).
fn finish() {
    LMS.with(|l| {
        let mut l = l.borrow_mut();
        let Some(lms) = l.as_mut() else { return };
        if lms.finished {
            return;
        }
        lms.finished = true;
        let done = lms.picks.iter().filter(|p| lms.questions.contains(&p.key)).count() >= lms.questions.len();
        let spent = session_time(js_sys::Date::now() - lms.started_ms);
        call(&lms.api, "LMSSetValue", &["cmi.core.session_time", &spent]);
        call(&lms.api, "LMSSetValue", &["cmi.core.exit", if done { "" } else { "suspend" }]);
        call(&lms.api, "LMSFinish", &[""]);
    });
}

/// After the page has mounted: a page that asks no question is completed on launch.
pub fn mounted() {
    LMS.with(|l| {
        if let Some(lms) = l.borrow().as_ref()
            && lms.questions.is_empty()
        {
            call(&lms.api, "LMSSetValue", &["cmi.core.lesson_status", "completed"]);
            call(&lms.api, "LMSCommit", &[""]);
        }
    });
}
