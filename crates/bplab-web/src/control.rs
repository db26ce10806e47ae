//! One labelled control: a typed text input (the value of record), an
//! optional range slider paired with it, and an inline message (role=alert)
//! beside them for refused values. Built from a spec; no parameter list here.

use std::cell::Cell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use web_sys::{Document, Element, HtmlInputElement};

use crate::dom::{add, el, input, on, show_msg, text_el};

/// A slider's UI range: a sensible span inside the accepted range.
#[derive(Clone, Copy, Debug)]
pub struct SliderRange {
    /// Left end.
    pub min: f64,
    /// Right end.
    pub max: f64,
    /// Step.
    pub step: f64,
}

/// What to build.
pub struct ControlSpec<'a> {
    /// URL key and id suffix, e.g. `service-ms`.
    pub name: &'a str,
    /// Visible name, e.g. `Service time`.
    pub label: &'a str,
    /// Unit shown in the label.
    pub unit: &'a str,
    /// A slider, for scalars.
    pub slider: Option<SliderRange>,
    /// One line of help under the control.
    pub help: &'a str,
    /// The mobile keyboard to ask for (`decimal`, `numeric`, `text`).
    pub inputmode: &'a str,
    /// The value accepted beyond the slider's right end (`off`: no limit);
    /// the slider gets one more step for it, announced by `aria-valuetext`.
    pub beyond: Option<&'a str>,
}

/// A built control.
pub struct Control {
    /// The typed input.
    pub text: HtmlInputElement,
    /// The slider, if any.
    pub slider: Option<HtmlInputElement>,
    /// The inline message.
    pub msg: Element,
    /// The slider's last step stands for this text (see `ControlSpec::beyond`), at this value.
    beyond: Option<(String, f64)>,
    /// A message may be on show (so clearing it has something to do).
    erred: Cell<bool>,
}

/// Called with the new text whenever the user edits the control.
pub type OnEdit = Rc<dyn Fn(&str)>;

fn fmt_step(v: f64) -> String {
    format!("{v}")
}

impl Control {
    /// Builds the control under `parent` with ids `{prefix}-{name}` and wires `edit`.
    pub fn build(
        doc: &Document,
        parent: &Element,
        prefix: &str,
        spec: &ControlSpec,
        value: &str,
        edit: OnEdit,
    ) -> Result<Control, JsValue> {
        let id = format!("{prefix}-{}", spec.name);
        let (label_id, msg_id, hint_id) = (format!("{id}-label"), format!("{id}-msg"), format!("{id}-hint"));
        let row = add(parent, el(doc, "div", &[("class", "control")])?)?;
        let label_text =
            if spec.unit.is_empty() { spec.label.to_owned() } else { format!("{} ({})", spec.label, spec.unit) };
        add(&row, text_el(doc, "label", &[("for", &id), ("id", &label_id)], &label_text)?)?;
        let beyond = spec.beyond.zip(spec.slider).map(|(t, r)| (t.to_owned(), r.max + r.step));
        let slider = match spec.slider {
            Some(r) => {
                let max = beyond.as_ref().map_or(r.max, |(_, at)| *at);
                let s = add(
                    &row,
                    el(
                        doc,
                        "input",
                        &[
                            ("type", "range"),
                            ("id", &format!("{id}-range")),
                            ("aria-labelledby", &label_id),
                            ("aria-describedby", &hint_id),
                            ("min", &fmt_step(r.min)),
                            ("max", &fmt_step(max)),
                            ("step", &fmt_step(r.step)),
                            ("data-param", spec.name),
                        ],
                    )?,
                )?;
                input(&s)
            }
            None => None,
        };
        let described = format!("{hint_id} {msg_id}");
        let text = add(
            &row,
            el(
                doc,
                "input",
                &[
                    ("type", "text"),
                    ("id", &id),
                    ("inputmode", spec.inputmode),
                    ("autocomplete", "off"),
                    ("spellcheck", "false"),
                    ("aria-describedby", &described),
                    ("data-param", spec.name),
                    ("class", if spec.slider.is_some() { "num" } else { "list" }),
                ],
            )?,
        )?;
        let text = input(&text).ok_or_else(|| JsValue::from_str("input"))?;
        add(&row, text_el(doc, "small", &[("id", &hint_id), ("class", "hint")], spec.help)?)?;
        let msg = add(&row, el(doc, "p", &[("id", &msg_id), ("class", "msg"), ("role", "alert"), ("hidden", "")])?)?;
        let c = Control { text, slider, msg, beyond, erred: Cell::new(true) };
        c.set_value(value);
        c.wire(edit)?;
        Ok(c)
    }

    fn wire(&self, edit: OnEdit) -> Result<(), JsValue> {
        if let Some(s) = &self.slider {
            let (s2, t2, e2, beyond) = (s.clone(), self.text.clone(), edit.clone(), self.beyond.clone());
            on(s, "input", move |_| {
                let v = s2.value();
                // The last step is the text beyond the range (`off`), not a number.
                let v = match &beyond {
                    Some((text, at)) if v.parse::<f64>().is_ok_and(|x| x >= *at) => text.clone(),
                    _ => v,
                };
                t2.set_value(&v);
                label_value(&s2, &beyond, &v);
                e2(&v);
            })?;
        }
        let (t2, s2, beyond) = (self.text.clone(), self.slider.clone(), self.beyond.clone());
        on(&self.text, "input", move |_| {
            let v = t2.value();
            if let Some(s) = &s2 {
                if v.trim().parse::<f64>().is_ok_and(f64::is_finite) {
                    s.set_value(v.trim());
                    label_value(s, &beyond, v.trim());
                } else if let Some((text, at)) = beyond.as_ref().filter(|(t, _)| v.trim().eq_ignore_ascii_case(t)) {
                    s.set_value(&at.to_string());
                    label_value(s, &beyond, text);
                }
            }
            edit(&v);
        })
    }

    /// Shows `v` in both inputs (no event is fired).
    pub fn set_value(&self, v: &str) {
        // Only what differs is written: an edit re-shows every control of
        // its widget, and each write invalidates the page's style.
        if self.text.value() != v {
            self.text.set_value(v);
        }
        if let Some(s) = &self.slider {
            if v.parse::<f64>().is_ok() {
                if s.value() != v {
                    s.set_value(v);
                }
            } else if let Some((text, at)) = self.beyond.as_ref().filter(|(t, _)| v.trim().eq_ignore_ascii_case(t)) {
                s.set_value(&at.to_string());
                label_value(s, &self.beyond, text);
                return;
            }
            label_value(s, &self.beyond, v);
        }
    }

    /// Moves only the slider (e.g. to the number `B` stands for).
    pub fn set_slider(&self, v: f64) {
        if let Some(s) = &self.slider {
            s.set_value(&v.to_string());
            label_value(s, &self.beyond, &v.to_string());
        }
    }

    /// Shows or clears the inline message and marks the input invalid.
    pub fn show_error(&self, msg: Option<&str>) {
        if msg.is_none() && !self.erred.get() {
            return; // nothing on show: no DOM write
        }
        self.erred.set(msg.is_some());
        show_msg(&self.msg, msg);
        let invalid = if msg.is_some() { "true" } else { "false" };
        let _ = self.text.set_attribute("aria-invalid", invalid);
    }

    /// Marks the slider as the widget's main one (the measurement drives it).
    pub fn mark_main(&self) {
        if let Some(s) = &self.slider {
            let _ = s.set_attribute("data-main", "");
        }
    }

    /// Enables or disables both inputs.
    pub fn set_disabled(&self, disabled: bool) {
        self.text.set_disabled(disabled);
        if let Some(s) = &self.slider {
            s.set_disabled(disabled);
        }
    }
}

/// The slider's `aria-valuetext`: the text beyond the range when it stands
/// there (`off`), none (the number itself) otherwise.
fn label_value(s: &HtmlInputElement, beyond: &Option<(String, f64)>, v: &str) {
    match beyond {
        Some((text, _)) if v.trim().eq_ignore_ascii_case(text) => {
            let _ = s.set_attribute("aria-valuetext", text);
        }
        _ => {
            let _ = s.remove_attribute("aria-valuetext");
        }
    }
}
