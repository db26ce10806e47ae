//! Widget 1: Little's law (solve any one of in-flight, arrivals, latency from
//! the other two) and the admission limit from workers, budget and service
//! time, in both conventions, with explanations, a copyable record and a
//! limit-vs-budget chart. The core's calculators compute and validate.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use bplab_core::ConfigError;
use bplab_core::calc::{
    self, ARRIVALS, BUDGET, CALC_PARAMS, Explanation, IN_FLIGHT, LATENCY, LimitInput, LittlesInput, SERVICE, WORKERS,
    fmt_num,
};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{Document, Element, HtmlCanvasElement, HtmlSelectElement};

use super::{Extras, shell};
use crate::control::Control;

const FIELDS: [bplab_core::calc::CalcParam; 6] = CALC_PARAMS;
use crate::dom::{add, el, on, text_el};
use crate::proof::{self, Proof};
use crate::question::{Env, Lookup, QuestionView};
use crate::url_state::{self, Query, Source};
use crate::{chart, explain};

/// "Export the number to the edge": copy and download buttons for each
/// target, computed from the widget's current inputs when clicked.
fn edge_exports(doc: &Document, parent: &Element, w: &Rc<RefCell<Littles>>) -> Result<(), JsValue> {
    let wrap = add(parent, el(doc, "div", &[("class", "record edge-export")])?)?;
    add(&wrap, text_el(doc, "h3", &[("id", "littles-export-title")], "Export the number to the edge")?)?;
    for target in calc::EdgeTarget::ALL {
        let snippet = {
            let w = w.clone();
            move || {
                let input = w.try_borrow().map(|w| limit_input(&w.values)).ok()?;
                let result = calc::limit(input).ok()?;
                Some(calc::export(target, &input, &result))
            }
        };
        let copy = add(
            &wrap,
            text_el(
                doc,
                "button",
                &[("type", "button"), ("id", &format!("littles-export-{}-copy", target.name()))],
                &format!("Copy {}", target.file_name()),
            )?,
        )?;
        let (s1, b1) = (snippet.clone(), copy.clone());
        on(&copy, "click", move |_| {
            if let Some(text) = s1() {
                explain::copy(&text, &b1);
            }
        })?;
        let dl = add(
            &wrap,
            text_el(
                doc,
                "button",
                &[("type", "button"), ("id", &format!("littles-export-{}-download", target.name()))],
                &format!("Download {}", target.file_name()),
            )?,
        )?;
        on(&dl, "click", move |_| {
            if let Some(text) = snippet() {
                let _ = crate::download::text_file(target.file_name(), &text, "text/plain;charset=utf-8");
            }
        })?;
    }
    Ok(())
}

/// Widget name (URL prefix, embed name, ids).
pub const NAME: &str = "littles";
/// Its title.
pub const TITLE: &str = "Little's law and the limit";

// The six inputs come from the core's calculator table (`CALC_PARAMS`):
// λ, W, L, workers, budget, service.
/// Which of the first three is solved: URL values of `solve`.
const SOLVE: [(&str, &str); 3] =
    [("in-flight", "In flight (L)"), ("arrivals-rps", "Arrivals (λ)"), ("latency-ms", "Latency (W)")];

struct Littles {
    doc: Document,
    values: [f64; 6],
    solve: usize,
    controls: Vec<Control>,
    outputs: Vec<Element>,
    /// Beside the headline: the lesson's half-up figure, labelled as the lesson's.
    lesson_fig: Element,
    canvas: HtmlCanvasElement,
    explain_law: Element,
    explain_limit: Element,
    record: Element,
    proof: Proof,
    question: Option<QuestionView>,
    /// The explanations shown now (skip unchanged DOM rebuilds).
    shown: [Option<Explanation>; 2],
    /// This widget, for the frame that redraws it.
    me: Weak<RefCell<Littles>>,
    /// A redraw is scheduled for the next frame.
    render_pending: bool,
    /// Bumped on every scheduled redraw (the section's `data-gen`).
    generation: u64,
}

fn field_index(solve: usize) -> usize {
    [IN_FLIGHT, ARRIVALS, LATENCY].get(solve).copied().unwrap_or(IN_FLIGHT)
}

fn law_input(v: &[f64; 6], solve: usize) -> LittlesInput {
    let pick = |i: usize| (field_index(solve) != i).then(|| v.get(i).copied().unwrap_or(f64::NAN));
    LittlesInput { arrivals_rps: pick(ARRIVALS), latency_ms: pick(LATENCY), in_flight: pick(IN_FLIGHT) }
}

fn limit_input(v: &[f64; 6]) -> LimitInput {
    let w = v[WORKERS];
    let workers = if w.fract() == 0.0 && w >= 0.0 && w <= f64::from(u32::MAX) { w as u32 } else { 0 };
    LimitInput { workers, budget_ms: v[BUDGET], service_ms: v[SERVICE] }
}

/// The widget's URL (and `mount`) keys: its six fields, then `solve`.
pub fn keys() -> Vec<&'static str> {
    FIELDS.iter().map(|f| f.spec.name).chain(std::iter::once("solve")).collect()
}

/// Checks `(key, text)` pairs as the widget takes them from its URL: each
/// field's value against its range, `solve` among its names, then the law's
/// two given inputs and the limit's three together. The message names the
/// key and what is accepted.
pub fn check(pairs: &[(String, String)]) -> Result<(), String> {
    let mut v = FIELDS.map(|f| f.default);
    let mut solve = 0;
    for (k, text) in pairs {
        if k == "solve" {
            solve = SOLVE.iter().position(|(n, _)| n == text).ok_or_else(|| {
                let names: Vec<&str> = SOLVE.iter().map(|(n, _)| *n).collect();
                format!("solve: {} is not accepted; expected one of: {}", bplab_core::quote(text), names.join(", "))
            })?;
            continue;
        }
        let Some(i) = FIELDS.iter().position(|f| f.spec.name == k) else {
            return Err(format!("unknown parameter {}; {NAME} takes: {}", bplab_core::quote(k), keys().join(", ")));
        };
        let (Some(slot), Some(f)) = (v.get_mut(i), FIELDS.get(i)) else { continue };
        *slot = f.parse(text).map_err(|e| e.to_string())?;
    }
    calc::littles(law_input(&v, solve)).map_err(|e| e.to_string())?;
    calc::limit(limit_input(&v)).map_err(|e| e.to_string())?;
    Ok(())
}

/// Replaces the value the core echoes with what was typed.
fn typed(e: ConfigError, text: &str) -> ConfigError {
    match e {
        ConfigError::OutOfRange { param, accepted, .. } => {
            ConfigError::OutOfRange { param, value: text.to_owned(), accepted }
        }
        other => other,
    }
}

impl Littles {
    fn check(&self, v: &[f64; 6], i: usize) -> Result<(), ConfigError> {
        if i <= IN_FLIGHT {
            calc::littles(law_input(v, self.solve)).map(|_| ())
        } else {
            calc::limit(limit_input(v)).map(|_| ())
        }
    }

    fn edit(&mut self, i: usize, text: &str) {
        let mut v = self.values;
        let Some(slot) = v.get_mut(i) else { return };
        *slot = text.trim().parse::<f64>().unwrap_or(f64::NAN);
        match self.check(&v, i) {
            Ok(()) => {
                self.values = v;
                for c in &self.controls {
                    c.show_error(None);
                }
                self.schedule_render();
                url_state::changed();
            }
            Err(e) => {
                if let Some(c) = self.controls.get(i) {
                    c.show_error(Some(&typed(e, text).to_string()));
                }
            }
        }
    }

    fn set_solve(&mut self, s: usize) {
        self.solve = s.min(2);
        for (i, c) in self.controls.iter().enumerate().take(3) {
            c.set_disabled(i == field_index(self.solve));
            c.show_error(None);
        }
        self.schedule_render();
        url_state::changed();
    }

    /// Redraws in a coming frame (once, however many edits come before it):
    /// the input handler only checks the value and updates the controls.
    /// The section is `aria-busy` until then (and until its chart is drawn,
    /// when it is out of view: chart.rs).
    fn schedule_render(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if let Ok(Some(s)) = self.canvas.closest("section") {
            chart::busy(&s, self.generation);
        }
        if self.render_pending {
            return;
        }
        let Some(me) = self.me.upgrade() else {
            self.render();
            return;
        };
        self.render_pending = true;
        // From a later task, not from the handler: the frame right after
        // the input then shows the control moved, and the redraw comes
        // after that frame's callbacks (like an experiment widget's answer).
        // The first, at mount, in the frame that shows the widget.
        let me = Rc::downgrade(&me);
        if self.generation == 1 {
            frame_render(me);
        } else {
            crate::dom::later(0, move || frame_render(me));
        }
    }

    /// The frame's redraw: the newest values, whatever edit asked for it.
    fn frame(&mut self) {
        self.render_pending = false;
        let section = self.canvas.closest("section").ok().flatten();
        if let Some(s) = &section {
            let _ = s.set_attribute("data-drawing", "");
        }
        self.render();
        let Some(s) = section else { return };
        let _ = s.remove_attribute("data-drawing");
        // Shown (and no longer busy) once its chart is drawn: now, or out of view later.
        crate::chart::await_charts(&s, &format!("{}:full", self.generation));
    }

    fn reset(&mut self) {
        self.values = FIELDS.map(|f| f.default);
        for (c, v) in self.controls.iter().zip(self.values) {
            c.set_value(&fmt_num(v));
        }
        self.set_solve(0);
    }

    /// The chart (if in view: chart.rs), then the numbers and explanations.
    fn render(&mut self) {
        let input = limit_input(&self.values);
        let lim = calc::limit(input).ok();
        if lim.is_some() {
            let hi = (input.budget_ms * 2.0).max(input.service_ms * 4.0);
            chart::show_limit(&self.canvas, &input, (input.service_ms, hi));
        }
        chart::draw_in_view(std::slice::from_ref(&self.canvas));
        if let Ok(r) = calc::littles(law_input(&self.values, self.solve)) {
            let i = field_index(self.solve);
            let solved = [r.arrivals_rps, r.latency_ms, r.in_flight];
            if let (Some(slot), Some(c), Some(v)) = (self.values.get_mut(i), self.controls.get(i), solved.get(i)) {
                *slot = *v;
                c.set_value(&fmt_num(*v));
            }
            // The answer is one stated sentence; the readout shows it without its full stop.
            set(&self.outputs, 1, r.explanation.answer.trim_end_matches('.'));
            if self.shown[0].as_ref() != Some(&r.explanation) {
                let _ = explain::render(&self.doc, &self.explain_law, &r.explanation);
                self.shown[0] = Some(r.explanation);
            }
        }
        if let Some(r) = lim {
            set(&self.outputs, 0, &r.record_limit.to_string());
            self.lesson_fig.set_text_content(Some(&format!(
                "The lesson's half-up figure: {} (from {})",
                r.queue_limit,
                fmt_num(r.queue_exact)
            )));
            set(&self.outputs, 2, &format!("{} ({} rounded half-up)", r.in_system_limit, fmt_num(r.in_system_exact)));
            set(&self.outputs, 3, &format!("{} per second", fmt_num(r.capacity_rps)));
            if self.shown[1].as_ref() != Some(&r.explanation) {
                let _ = explain::render(&self.doc, &self.explain_limit, &r.explanation);
                explain::show_record(&self.record, &r.record);
                self.shown[1] = Some(r.explanation);
            }
        }
        self.proof.show_commands(&self.doc, &self.commands());
        if let Some(q) = &self.question {
            q.refresh(&self.doc, &LittlesEnv(&self.values));
        }
    }

    /// `bplab limit …` and `bplab littles …` for the current values.
    fn commands(&self) -> Vec<String> {
        let flags = |idx: &[usize]| -> Vec<(String, String)> {
            idx.iter()
                .filter_map(|&i| Some((FIELDS.get(i)?.spec.name.to_owned(), proof::number(*self.values.get(i)?))))
                .collect()
        };
        let given: Vec<usize> =
            [ARRIVALS, LATENCY, IN_FLIGHT].into_iter().filter(|&i| i != field_index(self.solve)).collect();
        vec![
            proof::command(&["limit"], &flags(&[WORKERS, BUDGET, SERVICE])),
            proof::command(&["littles"], &flags(&given)),
        ]
    }

    fn pairs(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        if let Some((name, _)) = SOLVE.get(self.solve).filter(|_| self.solve != 0) {
            out.push(("solve".to_owned(), (*name).to_owned()));
        }
        for (i, (f, v)) in FIELDS.iter().zip(self.values).enumerate() {
            if i != field_index(self.solve) && v != f.default {
                out.push((f.spec.name.to_owned(), proof::number(v)));
            }
        }
        out
    }
}

/// Redraws widget `me` in a coming frame. If it is borrowed then (it never
/// is between tasks), the redraw waits a task instead of being lost: a lost
/// redraw would leave `render_pending` set, the widget busy and every later
/// edit ignored.
fn frame_render(me: Weak<RefCell<Littles>>) {
    crate::dom::in_frame(move || {
        let Some(rc) = me.upgrade() else { return };
        match rc.try_borrow_mut() {
            Ok(mut w) => w.frame(),
            Err(_) => crate::dom::later(0, move || frame_render(me)),
        }
    });
}

/// What a question on this widget may read: the six inputs by name.
struct LittlesEnv<'a>(&'a [f64; 6]);

impl Env for LittlesEnv<'_> {
    fn lookup(&self, name: &str) -> Option<Lookup> {
        let i = FIELDS.iter().position(|f| f.spec.name == name)?;
        self.0.get(i).map(|v| Lookup::Num(*v))
    }

    fn run_csv(&self, _set: &[(String, String)], _table: &str) -> Result<String, String> {
        Err("run: the littles widget has no experiment to run; use limit or littles".to_owned())
    }
}

fn set(outputs: &[Element], i: usize, text: &str) {
    if let Some(o) = outputs.get(i) {
        o.set_text_content(Some(text));
    }
}

/// Builds the Little's-law widget under `parent` with the state in `q`.
pub fn mount(doc: &Document, parent: &Element, q: &Query, extras: Extras) -> Result<(), JsValue> {
    let sh = shell::section(
        doc,
        parent,
        NAME,
        TITLE,
        "Post 2 and the course lesson",
        "L = λ × W: give two, get the third. The queue limit a latency budget allows is the largest whose worst time in the system, (ceil(queue / workers) + 1) × service, fits the budget; the course lesson's workers × (budget − service) / service, rounded half-up, can be one past it.",
    )?;
    let sec = &sh.section;
    let question = crate::question::mount(doc, sec, NAME, extras.question)?;
    let (side, figs) = shell::columns(doc, sec)?;
    // The headline: the number the record and the exports ship (deadline-safe),
    // the lesson's half-up figure beside it, labelled as the lesson's.
    let head = shell::headline_box(doc, &side)?;
    let mut outputs = shell::fill_readouts(
        doc,
        &head,
        NAME,
        0,
        &[("Queue limit to ship (deadline-safe, as the record and exports)", String::new())],
    )?;
    let lesson_fig = match outputs.first().and_then(|o| o.parent_element()) {
        Some(dd) => add(&dd, el(doc, "span", &[("class", "lesson-fig"), ("id", "littles-lesson-fig")])?)?,
        None => return Err(JsValue::from_str("headline")),
    };
    let lim = add(&side, el(doc, "fieldset", &[("class", "controls main-controls")])?)?;
    add(&lim, text_el(doc, "legend", &[], "Admission limit from a latency budget")?)?;
    let law = add(&side, el(doc, "fieldset", &[("class", "controls")])?)?;
    add(&law, text_el(doc, "legend", &[], "Little's law: L = λ × W")?)?;
    let solve_row = add(&law, el(doc, "div", &[("class", "control")])?)?;
    add(&solve_row, text_el(doc, "label", &[("for", "littles-solve")], "Solve for")?)?;
    let select = add(&solve_row, el(doc, "select", &[("id", "littles-solve")])?)?;
    for (v, label) in SOLVE {
        add(&select, text_el(doc, "option", &[("value", v)], label)?)?;
    }
    outputs.extend(shell::readouts(
        doc,
        &side,
        NAME,
        1,
        &[
            ("Little's law result", String::new()),
            ("In-system bound (capacity × budget, Post 2)", String::new()),
            ("Capacity (drain rate)", String::new()),
        ],
    )?);
    let canvas =
        shell::figure(doc, &figs, "littles-chart-0", "Admission limit vs latency budget", "bp-limit-vs-budget.png")?;
    // The record in view, not inside the explanation (the exports, which ship its number, stay there).
    let ship = add(sec, el(doc, "div", &[("class", "ship")])?)?;
    let record = explain::record_block(doc, &ship, "littles-record")?;
    let actions = add(sec, el(doc, "div", &[("class", "actions")])?)?;
    let proof = Proof::build(doc, sec, NAME, false)?;
    let panel = shell::explain_panel(doc, sec, NAME, extras.explain_open)?;
    let explain_law = add(&panel, el(doc, "div", &[])?)?;
    let explain_limit = add(&panel, el(doc, "div", &[])?)?;

    let solve = q.get(NAME, "solve").and_then(|s| SOLVE.iter().position(|(v, _)| *v == s)).unwrap_or(0);
    let w = Rc::new(RefCell::new(Littles {
        doc: doc.clone(),
        values: FIELDS.map(|f| f.default),
        solve,
        controls: Vec::new(),
        outputs,
        lesson_fig,
        canvas,
        explain_law,
        explain_limit,
        record,
        proof,
        question,
        shown: [None, None],
        me: Weak::new(),
        render_pending: false,
        generation: 0,
    }));
    w.borrow_mut().me = Rc::downgrade(&w);
    let mut controls = Vec::new();
    for (i, f) in FIELDS.iter().enumerate() {
        let spec = crate::ranges::control_spec(&f.spec);
        let w2 = w.clone();
        let edit = Rc::new(move |t: &str| {
            if let Ok(mut w) = w2.try_borrow_mut() {
                w.edit(i, t);
            }
        });
        let c = Control::build(doc, if i < 3 { &law } else { &lim }, NAME, &spec, &fmt_num(f.default), edit)?;
        if i == BUDGET {
            c.mark_main();
        }
        controls.push(c);
    }
    w.borrow_mut().controls = controls;
    edge_exports(doc, &panel, &w)?;
    if let Some(s) = select.dyn_ref::<HtmlSelectElement>() {
        s.set_selected_index(solve as i32);
        let (w2, s2) = (w.clone(), s.clone());
        on(&select, "change", move |_| {
            if let Ok(mut w) = w2.try_borrow_mut() {
                w.set_solve(s2.selected_index().max(0) as usize);
            }
        })?;
    }
    // URL values go through the same path as typing: refused ones show their message.
    for (i, f) in FIELDS.iter().enumerate() {
        if let Some(v) = q.get(NAME, f.spec.name) {
            if let Some(c) = w.borrow().controls.get(i) {
                c.set_value(v);
            }
            if let Ok(mut w) = w.try_borrow_mut() {
                w.edit(i, v);
            }
        }
    }
    w.borrow_mut().set_solve(solve);

    let reset = add(
        &actions,
        text_el(doc, "button", &[("type", "button"), ("id", "littles-reset")], "Reset to the article defaults")?,
    )?;
    let (w2, s2) = (w.clone(), select.dyn_ref::<HtmlSelectElement>().cloned());
    on(&reset, "click", move |_| {
        if let Ok(mut w) = w2.try_borrow_mut() {
            w.reset();
        }
        if let Some(s) = &s2 {
            s.set_selected_index(0);
        }
    })?;
    let link = shell::embed_link(doc, &actions, NAME)?;
    let w2 = w.clone();
    url_state::register(Source {
        widget: NAME,
        pairs: Box::new(move || w2.try_borrow().map(|w| w.pairs()).unwrap_or_default()),
        embed_link: Some(link),
    });
    Ok(())
}
