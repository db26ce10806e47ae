//! One experiment widget, built from the registry: a control per parameter
//! the experiment uses, readouts, the experiment's charts, CSV and PNG
//! downloads, reset, an embed link and the explanation panel. State: the
//! last good `Params` and the last `Report` shown; a refused value leaves
//! both untouched. The input handler only checks the value (cheap), updates
//! the controls and asks the worker (`crate::worker`); answers of an older
//! edit are dropped by generation, and each answer is drawn when it lands.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use bplab_core::calc::Explanation;
use bplab_core::{Caps, Experiment, ParamKind, Params, Scenario};
use wasm_bindgen::prelude::*;
use web_sys::{Document, Element, HtmlCanvasElement};

use super::{Extras, shell};
use crate::control::Control;
use crate::dom::{self, add, el, on, show_msg, text_el};
use crate::proof::{self, Proof};
use crate::question::{Env, Lookup, QuestionView};
use crate::url_state::{self, Query, Source};
use crate::worker::{self, Answer, Payload, Phase, View};
use crate::{chart, download, explain, ranges};

/// A mounted experiment widget.
pub struct ExperimentWidget {
    exp: &'static Experiment,
    doc: Document,
    params: Params,
    /// The last answer drawn (`None` until the first lands).
    report: Option<View>,
    controls: Vec<(&'static str, Control)>,
    /// The headline readout's `<dl>` (the report's first readout) and the
    /// others'; their `<output>`s are made when the first answer lands.
    headline: Element,
    readouts: Element,
    /// Where the main controls go, and the "More settings" group (its
    /// `<details>` and its box), whose controls are built when it first opens.
    main_box: Element,
    more: Element,
    more_box: Element,
    /// URL values refused, shown by their controls once those are built.
    refused: Vec<Refused>,
    outputs: Vec<Element>,
    canvases: Vec<HtmlCanvasElement>,
    explain: Element,
    status: Element,
    proof: Proof,
    question: Option<QuestionView>,
    /// What the outputs and the explanation show now (skip unchanged DOM writes).
    shown: RefCell<(Vec<String>, Option<Vec<Explanation>>)>,
    /// This widget, for the later frame that completes a preview.
    me: Weak<RefCell<ExperimentWidget>>,
    /// Bumped on every accepted edit: answers for an older edit are dropped.
    generation: u64,
    /// Compute time of the current generation's answers so far (ms, where they ran).
    compute_ms: f64,
    /// The newest answer not drawn yet (drawn in the next frame).
    pending: Option<Answer>,
    /// `report` is the full run (not the chosen point's preview): its CSVs and hashes are the record.
    full: bool,
}

thread_local! {
    static MOUNTED: RefCell<Vec<Rc<RefCell<ExperimentWidget>>>> = const { RefCell::new(Vec::new()) };
}

/// Forgets previously mounted widgets.
pub fn clear() {
    MOUNTED.with(|m| m.borrow_mut().clear());
}

/// The CSV files `(name, text)` of the mounted widget `name`'s current result.
pub fn csv_files(name: &str) -> Option<Vec<(String, String)>> {
    MOUNTED.with(|m| {
        let m = m.borrow();
        let w = m.iter().rev().find(|w| w.try_borrow().is_ok_and(|w| w.exp.name == name))?;
        let w = w.try_borrow().ok().filter(|w| w.full)?;
        Some(w.report.as_ref()?.tables.clone())
    })
}

/// The text `key` shows, and the number its slider shows (`B` → the budget).
fn shown(p: &Params, key: &str) -> (String, Option<f64>) {
    let text = p.get(key).unwrap_or_default();
    let num = match (p.spec(key).map(|s| s.kind), text.parse::<f64>()) {
        (_, Ok(v)) => Some(v),
        (Some(ParamKind::IntOrBudget), Err(_)) => p.budget().map(f64::from),
        _ => None,
    };
    (text, num)
}

/// The `(param, value)` pairs that reproduce `p` (the URL, the command).
fn pairs(_exp: &Experiment, p: &Params) -> Vec<(String, String)> {
    p.changed().into_iter().map(|(n, v)| (n.to_owned(), v)).collect()
}

impl ExperimentWidget {
    fn control(&self, key: &str) -> Option<&Control> {
        self.controls.iter().find(|(k, _)| *k == key).map(|(_, c)| c)
    }

    /// Shows the params in every control except `skip`'s text (its slider still follows).
    fn sync(&self, skip: Option<&str>) {
        for (k, c) in &self.controls {
            let (text, num) = shown(&self.params, k);
            if Some(*k) != skip {
                c.set_value(&text); // both inputs ("off" puts the slider beyond its range)
            }
            if let Some(n) = num.filter(|_| text.parse::<f64>().is_err()) {
                c.set_slider(n); // `B`: the slider shows the number it stands for
            }
            c.show_error(None);
        }
        show_msg(&self.status, None);
    }

    /// Applies an edit of `key`; on a refused value shows why and keeps the last result.
    fn edit(&mut self, key: &str, text: &str) {
        let mut p = self.params.clone();
        let checked = match p.set(key, text) {
            Ok(()) => Scenario::new(p, Caps::PAGE),
            Err(e) => Err(e),
        };
        match checked {
            Ok(sc) => {
                self.params = sc.params().clone();
                self.sync(Some(key));
                self.request();
                url_state::changed();
            }
            Err(e) => {
                if let Some(c) = self.control(key) {
                    c.show_error(Some(&e.to_string()));
                }
            }
        }
    }

    /// Asks for the current parameters' run; the widget is busy until the full run lands.
    fn request(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        self.compute_ms = 0.0;
        self.pending = None;
        if let Ok(Some(s)) = self.status.closest("section") {
            chart::busy(&s, self.generation);
        }
        let (me, generation) = (self.me.clone(), self.generation);
        worker::compute(
            self.exp.name,
            self.exp,
            &self.params,
            Rc::new(move |a: Answer| deliver(me.clone(), generation, a)),
        );
    }

    /// Keeps an answer of the current generation for the next frame (a
    /// later answer before then replaces it: one draw per frame).
    fn land(&mut self, a: Answer) {
        self.compute_ms += a.compute_ms;
        let first = self.pending.is_none();
        self.pending = Some(a);
        if first {
            schedule_draw(self.me.clone(), self.generation);
        }
    }

    /// Draws an answer (its numbers, and its charts in view; the others
    /// follow, one per task); the full run ends the busy state once every
    /// chart of it is drawn.
    fn draw(&mut self, a: Answer) {
        let section = self.status.closest("section").ok().flatten();
        if let Some(s) = &section {
            let _ = s.set_attribute("data-drawing", "");
        }
        match a.report.and_then(Payload::view) {
            Ok(r) => {
                self.report = Some(r);
                self.full = a.phase == Phase::Full;
                let t0 = worker::now();
                self.render();
                worker::measure(&format!("bplab:render:{}", self.exp.name), t0);
            }
            Err(e) => show_msg(&self.status, Some(&e)),
        }
        let Some(s) = section else { return };
        let _ = s.remove_attribute("data-drawing");
        let phase = if a.phase == Phase::Full { "full" } else { "preview" };
        let _ = s.set_attribute("data-compute", if a.in_worker { "worker" } else { "main" });
        let _ = s.set_attribute("data-compute-ms", &format!("{:.3}", self.compute_ms));
        // Drawn in a frame callback: painted at the end of this frame
        // (scripts/measure-page.mjs); its charts in view are drawn, so it is
        // marked shown now. A full run ends the busy state once every chart
        // of it is drawn, out of view too.
        chart::await_charts(&s, &format!("{}:{phase}", self.generation));
    }

    fn reset(&mut self) {
        self.params = self.exp.defaults();
        self.sync(None);
        self.request();
        url_state::changed();
    }

    /// Charts first: drawing one reads its canvas's width, a layout that
    /// is cheap only while the DOM is not yet dirtied.
    fn render(&mut self) {
        let Some(report) = self.report.take() else { return };
        let t0 = worker::now();
        for (c, plot) in self.canvases.iter().zip(report.plots.iter().cloned()) {
            chart::show(c, plot);
        }
        chart::draw_in_view(&self.canvases);
        worker::measure("bplab:charts", t0);
        let items = report.readouts.clone();
        if self.outputs.len() != items.len() {
            self.headline.set_text_content(None);
            self.readouts.set_text_content(None);
            let split = items.len().min(1);
            let (head, rest) = items.split_at(split);
            let mut outs = shell::fill_readouts(&self.doc, &self.headline, self.exp.name, 0, head).unwrap_or_default();
            outs.extend(
                shell::fill_readouts(&self.doc, &self.readouts, self.exp.name, split, rest).unwrap_or_default(),
            );
            self.outputs = outs;
            if let Ok(mut shown) = self.shown.try_borrow_mut() {
                shown.0 = items.iter().map(|(_, v)| v.clone()).collect();
            }
        }
        let Ok(mut shown) = self.shown.try_borrow_mut() else {
            self.report = Some(report);
            return;
        };
        let values: Vec<String> = items.into_iter().map(|(_, v)| v).collect();
        for (i, (o, v)) in self.outputs.iter().zip(&values).enumerate() {
            if shown.0.get(i) != Some(v) {
                o.set_text_content(Some(v));
            }
        }
        shown.0 = values;
        drop(shown);
        self.report = Some(report);
        self.show_explanations();
        let cmd = proof::command(&["run", self.exp.name], &pairs(self.exp, &self.params));
        self.proof.show_commands(&self.doc, &[cmd]);
        self.show_hashes();
        if let Some(q) = &self.question {
            q.refresh(&self.doc, &ExpEnv { exp: self.exp, params: &self.params });
        }
    }

    /// The explanations of the answer shown, when their panel is open (a
    /// closed panel is filled when it opens: an answer's explanation is
    /// dozens of elements, rebuilt on every edit).
    fn show_explanations(&self) {
        let open = self.explain.parent_element().is_some_and(|d| d.has_attribute("open"));
        let (Some(report), Ok(mut shown)) = (self.report.as_ref().filter(|_| open), self.shown.try_borrow_mut()) else {
            return;
        };
        if shown.1.as_ref() != Some(&report.explanations) {
            let _ = explain::render_all(&self.doc, &self.explain, &report.explanations);
            shown.1 = Some(report.explanations.clone());
        }
    }

    /// The CSVs' hashes, when they are on show.
    fn show_hashes(&self) {
        if self.proof.hashes_open()
            && self.full
            && let Some(report) = &self.report
        {
            self.proof.show_hashes(&self.doc, &report.tables);
        }
    }
}

/// Hands answer `a` of edit `generation` to widget `me` (dropped if a newer
/// edit came since). Answers arrive in their own tasks, when the widget is
/// never borrowed; if it ever were, the answer waits a task rather than
/// being lost (a lost full answer would leave the widget busy).
fn deliver(me: Weak<RefCell<ExperimentWidget>>, generation: u64, a: Answer) {
    let Some(rc) = me.upgrade() else { return };
    let Ok(mut w) = rc.try_borrow_mut() else {
        dom::later(0, move || deliver(me, generation, a));
        return;
    };
    if w.generation == generation {
        w.land(a);
    }
}

/// Draws widget `me`'s pending answer in a coming frame (within the
/// frame budget, after the widgets that answered first). A newer edit's
/// answer is its own frame's to draw. If the widget is borrowed when the
/// frame comes (it never is between tasks), the draw waits for the next one
/// instead of being lost, which would leave the widget busy.
fn schedule_draw(me: Weak<RefCell<ExperimentWidget>>, generation: u64) {
    dom::in_frame(move || {
        let Some(rc) = me.upgrade() else { return };
        let Ok(mut w) = rc.try_borrow_mut() else {
            dom::later(0, move || schedule_draw(me, generation));
            return;
        };
        if w.generation == generation
            && let Some(a) = w.pending.take()
        {
            w.draw(a);
        }
    });
}

/// What a question on this widget may read: its parameters and its experiment.
struct ExpEnv<'a> {
    exp: &'static Experiment,
    params: &'a Params,
}

impl Env for ExpEnv<'_> {
    fn lookup(&self, name: &str) -> Option<Lookup> {
        Some(Lookup::Text(self.params.get(name)?))
    }

    fn run_csv(&self, set: &[(String, String)], table: &str) -> Result<String, String> {
        let mut p = self.params.clone();
        for (k, v) in set {
            if self.exp.param(k).is_none() {
                return Err(format!("run: the {} experiment has no parameter '{k}'", self.exp.name));
            }
            p.set(k, v).map_err(|e| format!("run: {e}"))?;
        }
        let report = Scenario::new(p, Caps::PAGE).map_err(|e| format!("run: {e}"))?.run();
        let files: Vec<&str> = self.exp.tables.iter().map(|t| t.file).collect();
        report.tables().iter().find(|t| t.spec.file == table).map(|t| t.csv()).ok_or_else(|| {
            format!("run: the {} experiment has no table '{table}'; its tables: {}", self.exp.name, files.join(", "))
        })
    }
}

/// A URL value that was refused: the parameter, the text, the message.
type Refused = (&'static str, String, String);

/// Reads `exp`'s params from the query: the checked params (or the defaults
/// with a message), and per-field refusals `(key, text, message)`. Nothing
/// is run here: the widget asks the worker once it is built.
fn from_query(exp: &'static Experiment, q: &Query) -> (Params, Vec<Refused>, Option<String>) {
    let mut p = exp.defaults();
    let mut refused = Vec::new();
    // Each value on its own, so a refused one names its own field, in
    // `Params::apply`'s order: plain values, presets, plain values again (a
    // value given beside a preset overrides it).
    let preset = |k: &&'static bplab_core::ParamSpec| matches!(k.kind, ParamKind::Preset(_));
    let plain = || exp.params.iter().filter(|k| !preset(k));
    for (i, k) in plain().chain(exp.params.iter().filter(preset)).chain(plain()).enumerate() {
        if let Some(v) = q.get(exp.name, k.name)
            && let Err(e) = p.set(k.name, v)
            && i < exp.params.len()
        {
            refused.push((k.name, v.to_owned(), e.to_string()));
        }
    }
    match Scenario::new(p, Caps::PAGE) {
        Ok(sc) => (sc.params().clone(), refused, None),
        Err(e) => (exp.defaults(), refused, Some(format!("{e}. Showing the article defaults."))),
    }
}

/// Asks for the run `exp`'s widget will start with (the state in `q`)
/// before the widget is built: at first load every widget's first run is
/// asked for at once, so the last widget built does not also wait for its
/// run to start. The widget's own first request then takes this one's
/// answers (`worker::compute`), when it asks for the same parameters.
pub fn prefetch(exp: &'static Experiment, q: &Query) {
    let (params, _, _) = from_query(exp, q);
    worker::prefetch(exp.name, exp, &params);
}

/// `key` is one of `exp`'s main controls (shown beside the headline and the main chart).
fn is_main(exp: &Experiment, key: &str) -> bool {
    exp.param(key).is_some_and(|s| s.is_main())
}

/// Builds widget `w`'s main controls (`main`) or the others (under "More
/// settings"), showing the values now in force and any URL value refused.
fn build_controls(w: &Rc<RefCell<ExperimentWidget>>, main: bool) -> Result<(), JsValue> {
    let (exp, doc, parent) = {
        let b = w.borrow();
        (b.exp, b.doc.clone(), if main { b.main_box.clone() } else { b.more_box.clone() })
    };
    let name = exp.name;
    for s in exp.params.iter().filter(|s| s.is_main() == main) {
        let k = s.name;
        let spec = ranges::control_spec(s);
        let w2 = w.clone();
        let edit = Rc::new(move |t: &str| {
            if let Ok(mut w) = w2.try_borrow_mut() {
                w.edit(k, t);
            }
        });
        let (text, num) = shown(&w.borrow().params, k);
        let c = Control::build(&doc, &parent, name, &spec, &text, edit)?;
        if let Some(n) = num.filter(|_| text.parse::<f64>().is_err()) {
            c.set_slider(n);
        }
        c.show_error(None);
        if k == exp.main_param {
            c.mark_main();
        }
        if let Some((_, text, msg)) = w.borrow().refused.iter().find(|(r, _, _)| *r == k) {
            c.text.set_value(text);
            c.show_error(Some(msg));
        }
        w.borrow_mut().controls.push((k, c));
    }
    Ok(())
}

/// Builds `exp`'s widget under `parent`, with the state in `q`.
pub fn mount(
    doc: &Document,
    parent: &Element,
    exp: &'static Experiment,
    q: &Query,
    extras: Extras,
) -> Result<(), JsValue> {
    let (params, refused, status_msg) = from_query(exp, q);
    let sh = shell::section(doc, parent, exp.name, exp.title, exp.post, exp.lesson)?;
    let name = exp.name;
    let question = crate::question::mount(doc, &sh.section, name, extras.question)?;
    let status =
        add(&sh.section, el(doc, "p", &[("class", "msg"), ("role", "alert"), ("id", &format!("{name}-status"))])?)?;
    show_msg(&status, status_msg.as_deref());

    let (side, figs) = shell::columns(doc, &sh.section)?;
    let headline = shell::headline_box(doc, &side)?;
    let main_box = add(&side, el(doc, "div", &[("class", "controls main-controls")])?)?;
    let readouts = shell::readouts_box(doc, &side)?;
    let (more, more_box) = shell::more_settings(doc, &side, name)?;
    let mut canvases = Vec::new();
    for (i, c) in exp.charts.iter().enumerate() {
        canvases.push(shell::figure(doc, &figs, &format!("{name}-chart-{i}"), c.title, c.file)?);
    }
    let actions = add(&sh.section, el(doc, "div", &[("class", "actions")])?)?;
    let proof = Proof::build(doc, &sh.section, name, true)?;
    let explain_panel = shell::explain_panel(doc, &sh.section, name, extras.explain_open)?;
    // A link that sets or refuses a setting under "More settings" opens it:
    // what the page computes with is then on show.
    let open_more =
        refused.iter().any(|(k, _, _)| !is_main(exp, k)) || params.changed().iter().any(|(k, _)| !is_main(exp, k));

    let w = Rc::new(RefCell::new(ExperimentWidget {
        exp,
        doc: doc.clone(),
        params,
        report: None,
        controls: Vec::new(),
        headline,
        readouts,
        main_box,
        more: more.clone(),
        more_box,
        refused,
        outputs: Vec::new(),
        canvases,
        explain: explain_panel,
        status,
        proof,
        question,
        shown: RefCell::default(),
        me: Weak::new(),
        generation: 0,
        compute_ms: 0.0,
        pending: None,
        full: false,
    }));
    w.borrow_mut().me = Rc::downgrade(&w);
    build_controls(&w, true)?;
    if open_more {
        more.set_attribute("open", "")?;
        build_controls(&w, false)?;
    }
    let w2 = w.clone();
    on(&more, "toggle", move |_| {
        let built = w2.try_borrow().map_or(true, |w| w.controls.iter().any(|(k, _)| !is_main(w.exp, k)));
        let open = w2.try_borrow().is_ok_and(|w| w.more.has_attribute("open"));
        if open
            && !built
            && let Err(e) = build_controls(&w2, false)
        {
            dom::log_error(&format!("bplab-web could not build the settings: {e:?}"));
        }
    })?;
    show_msg(&w.borrow().status, status_msg.as_deref());

    for t in exp.tables {
        let b = add(
            &actions,
            text_el(doc, "button", &[("type", "button"), ("class", "csv")], &format!("CSV: {}", t.file))?,
        )?;
        let w2 = w.clone();
        on(&b, "click", move |_| {
            if let Ok(w) = w2.try_borrow()
                && w.full
                && let Some(csv) = w.report.as_ref().and_then(|r| r.csv(t.file))
            {
                let _ = download::csv(t.file, csv);
            }
        })?;
    }
    let reset = add(
        &actions,
        text_el(
            doc,
            "button",
            &[("type", "button"), ("id", &format!("{name}-reset"))],
            "Reset to the article defaults",
        )?,
    )?;
    let w2 = w.clone();
    on(&reset, "click", move |_| {
        if let Ok(mut w) = w2.try_borrow_mut() {
            w.reset();
        }
    })?;
    let link = shell::embed_link(doc, &actions, name)?;
    let w2 = w.clone();
    url_state::register(Source {
        widget: name,
        pairs: Box::new(move || w2.try_borrow().map(|w| pairs(w.exp, &w.params)).unwrap_or_default()),
        embed_link: Some(link),
    });
    if let Some(d) = w.borrow().proof.details.clone() {
        let w2 = w.clone();
        on(&d, "toggle", move |_| {
            if let Ok(w) = w2.try_borrow() {
                w.show_hashes();
            }
        })?;
    }
    if let Some(d) = w.borrow().explain.parent_element() {
        let w2 = w.clone();
        on(&d, "toggle", move |_| {
            if let Ok(w) = w2.try_borrow() {
                w.show_explanations();
            }
        })?;
    }
    w.borrow_mut().request();
    MOUNTED.with(|m| m.borrow_mut().push(w));
    Ok(())
}
