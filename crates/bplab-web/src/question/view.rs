//! The question on the page: a labelled radio group (fieldset, legend,
//! radio inputs) and a Check button above the widget; the widget's results
//! stay hidden (`.predicting` on its section) until the learner picks; then
//! the verdict is announced in a polite live region and every option's
//! reason is shown.
//!
//! **A pick is a commitment**: a click (or a screen reader's activation) on
//! an option, Space or Enter on it, or the Check button with an option
//! selected. The arrow keys only move the selection through the group, as
//! they must for a keyboard learner to reach C or D at all: an option passed
//! over on the way is never graded, revealed or reported.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{Document, Element, HtmlInputElement};

use super::expr::Env;
use super::schema::{Question, Resolved};
use super::scorm;
use crate::dom::{self, add, el, input, on, show_msg, text_el};

struct State {
    resolved: Option<Resolved>,
    /// The option last committed (restored from the LMS on a relaunch).
    picked: Option<usize>,
    /// An arrow key is being handled: the `change` it causes is a selection, not a pick.
    arrowing: bool,
}

/// Keys that move the selection in a radio group without committing it.
const MOVE_KEYS: [&str; 4] = ["ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight"];

/// A mounted question.
pub struct QuestionView {
    question: Question,
    section: Element,
    legend: Element,
    labels: Vec<Element>,
    radios: Vec<HtmlInputElement>,
    verdict: Element,
    reasons: Element,
    msg: Element,
    state: Rc<RefCell<State>>,
}

/// The letter of option `i` (A, B, …).
fn letter(i: usize) -> char {
    char::from(b'A' + (i.min(25) as u8))
}

/// What the query asked for: nothing, a question, or why it cannot be shown.
pub type Found = Option<Result<Question, String>>;

/// Shows `found` at the top of `section` (call before the widget's columns
/// are built so the question comes first): the question, or a visible
/// message naming what is wrong.
pub fn mount(doc: &Document, section: &Element, name: &str, found: Found) -> Result<Option<QuestionView>, JsValue> {
    let Some(found) = found else { return Ok(None) };
    let box_ = add(section, el(doc, "div", &[("class", "question"), ("id", &format!("{name}-question"))])?)?;
    let msg = add(&box_, el(doc, "p", &[("class", "msg"), ("role", "alert"), ("id", &format!("{name}-q-msg"))])?)?;
    let question = match found {
        Ok(x) => x,
        Err(e) => {
            show_msg(&msg, Some(&format!("This question cannot be shown. {e}")));
            return Ok(None);
        }
    };
    let key = format!("{name}:{}", question.id);
    let restored = scorm::register(&key).filter(|&p| p < question.options.len());
    let fs =
        add(&box_, el(doc, "fieldset", &[("role", "radiogroup"), ("aria-labelledby", &format!("{name}-q-legend"))])?)?;
    let legend = add(&fs, el(doc, "legend", &[("id", &format!("{name}-q-legend"))])?)?;
    let mut labels = Vec::new();
    let mut radios = Vec::new();
    for i in 0..question.options.len() {
        let row = add(&fs, el(doc, "div", &[("class", "choice")])?)?;
        let rid = format!("{name}-q-{i}");
        let r = add(&row, el(doc, "input", &[("type", "radio"), ("name", &format!("{name}-q")), ("id", &rid)])?)?;
        let r = input(&r).ok_or_else(|| JsValue::from_str("radio"))?;
        r.set_value(&i.to_string());
        radios.push(r);
        labels.push(add(&row, el(doc, "label", &[("for", &rid)])?)?);
    }
    let check = add(
        &box_,
        text_el(
            doc,
            "button",
            &[("type", "button"), ("class", "q-check"), ("id", &format!("{name}-q-check"))],
            "Check",
        )?,
    )?;
    let hint = add(
        &box_,
        text_el(
            doc,
            "p",
            &[("class", "q-hint"), ("id", &format!("{name}-q-hint"))],
            "Pick one (click it, or Space or Enter on it; or select one and press Check): the results appear once you have answered.",
        )?,
    )?;
    let verdict = add(
        &box_,
        el(doc, "p", &[("class", "q-verdict"), ("aria-live", "polite"), ("id", &format!("{name}-q-verdict"))])?,
    )?;
    let reasons = add(&box_, el(doc, "ol", &[("class", "q-reasons"), ("hidden", "")])?)?;
    section.class_list().add_1("predicting")?;
    let view = QuestionView {
        question,
        section: section.clone(),
        legend,
        labels,
        radios,
        verdict,
        reasons,
        msg,
        state: Rc::new(RefCell::new(State { resolved: None, picked: restored, arrowing: false })),
    };
    if let Some(r) = restored.and_then(|p| view.radios.get(p)) {
        r.set_checked(true);
    }
    let commit = {
        let (state, section, verdict, reasons, doc, radios) = (
            view.state.clone(),
            view.section.clone(),
            view.verdict.clone(),
            view.reasons.clone(),
            doc.clone(),
            view.radios.clone(),
        );
        Rc::new(move |i: usize| {
            let Ok(mut s) = state.try_borrow_mut() else { return };
            if let Some(r) = radios.get(i) {
                r.set_checked(true);
            }
            if s.picked == Some(i) {
                return; // committed already (Space's own change event, a second click)
            }
            if let Some(res) = &s.resolved {
                scorm::answered(&key, i, i == res.right);
            }
            s.picked = Some(i);
            let _ = reveal(&doc, &s, &section, &verdict, &reasons);
        })
    };
    for (i, r) in view.radios.iter().enumerate() {
        let (state, on_change, hint) = (view.state.clone(), commit.clone(), hint.clone());
        on(r, "change", move |_| {
            let arrowing = state.try_borrow().is_ok_and(|s| s.arrowing);
            if arrowing {
                hint.set_text_content(Some(&format!(
                    "{} selected: press Space or Enter, or Check, to answer with it.",
                    letter(i)
                )));
            } else {
                on_change(i);
            }
        })?;
        // A click on the option already selected by the arrows fires no
        // `change`: it commits through here (a click an arrow key causes, as
        // Chromium dispatches, comes while `arrowing`).
        let (state, on_click) = (view.state.clone(), commit.clone());
        on(r, "click", move |_| {
            if !state.try_borrow().is_ok_and(|s| s.arrowing) {
                on_click(i);
            }
        })?;
        let (state, on_key) = (view.state.clone(), commit.clone());
        on(r, "keydown", move |e| {
            let Some(key) = e.dyn_ref::<web_sys::KeyboardEvent>().map(web_sys::KeyboardEvent::key) else { return };
            if key == " " || key == "Enter" {
                on_key(i);
            } else if MOVE_KEYS.contains(&key.as_str())
                && let Ok(mut s) = state.try_borrow_mut()
            {
                // The browser moves the selection (and fires `change`) after
                // this handler, in this task; the flag ends with the task.
                s.arrowing = true;
                let state = state.clone();
                dom::later(0, move || {
                    if let Ok(mut s) = state.try_borrow_mut() {
                        s.arrowing = false;
                    }
                });
            }
        })?;
    }
    let (radios, msg) = (view.radios.clone(), view.msg.clone());
    on(&check, "click", move |_| match radios.iter().position(HtmlInputElement::checked) {
        Some(i) => {
            show_msg(&msg, None);
            commit(i);
        }
        None => show_msg(&msg, Some("Select an option first, then press Check.")),
    })?;
    Ok(Some(view))
}

/// Shows the verdict and the reasons for the current pick.
fn reveal(doc: &Document, s: &State, section: &Element, verdict: &Element, reasons: &Element) -> Result<(), JsValue> {
    let (Some(r), Some(p)) = (&s.resolved, s.picked) else { return Ok(()) };
    section.class_list().remove_1("predicting")?;
    let right_text = r.options.get(r.right).map(|(t, _)| t.as_str()).unwrap_or_default();
    let v = if p == r.right {
        format!("Right: {} — {right_text}", letter(r.right))
    } else {
        format!("Not quite: you picked {}; the model says {} — {right_text}", letter(p), letter(r.right))
    };
    verdict.set_text_content(Some(&v));
    reasons.set_text_content(None);
    for (i, (text, why)) in r.options.iter().enumerate() {
        let cls = if i == r.right { "right" } else { "wrong" };
        let li = add(reasons, el(doc, "li", &[("class", cls)])?)?;
        let head = if i == r.right { "Right" } else { "Wrong" };
        add(&li, text_el(doc, "strong", &[], &format!("{} ({head}): ", letter(i)))?)?;
        add(&li, text_el(doc, "span", &[("class", "q-option")], &with_stop(text))?)?;
        add(&li, text_el(doc, "span", &[("class", "q-why")], &format!(" {why}"))?)?;
    }
    reasons.remove_attribute("hidden")
}

/// An option's text as a sentence before its reason: a full stop unless it
/// already ends in punctuation.
fn with_stop(text: &str) -> String {
    let t = text.trim_end();
    if t.ends_with(['.', '!', '?', ':', ';', '…']) { t.to_owned() } else { format!("{t}.") }
}

impl QuestionView {
    /// Recomputes the prompt, options and right answer for the widget's current state.
    pub fn refresh(&self, doc: &Document, env: &dyn Env) {
        let Ok(mut s) = self.state.try_borrow_mut() else { return };
        match self.question.resolve(env) {
            Ok(r) => {
                show_msg(&self.msg, None);
                if s.resolved.as_ref() == Some(&r) {
                    return;
                }
                self.legend.set_text_content(Some(&r.prompt));
                for (i, (l, (text, _))) in self.labels.iter().zip(&r.options).enumerate() {
                    l.set_text_content(Some(&format!("{}. {text}", letter(i))));
                }
                s.resolved = Some(r);
                if s.picked.is_some() {
                    let _ = reveal(doc, &s, &self.section, &self.verdict, &self.reasons);
                }
            }
            Err(e) => show_msg(&self.msg, Some(&format!("This question cannot be computed here. {e}"))),
        }
    }

    /// The right option's index now (tests).
    pub fn right(&self) -> Option<usize> {
        self.state.try_borrow().ok()?.resolved.as_ref().map(|r| r.right)
    }
}
