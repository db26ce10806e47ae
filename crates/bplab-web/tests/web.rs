//! The page in a real browser (wasm-bindgen-test, headless Chrome): widgets
//! mount from the registry, input events update the shown numbers, canvases
//! are drawn, CSVs at the defaults equal the golden bytes, refused values
//! show a message and keep the last result, and the URL reproduces a view.
//! Run: `wasm-pack test --headless --chrome crates/bplab-web`.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bplab_core::{EXPERIMENTS, Report};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Document, Element, Event, HtmlCanvasElement, HtmlElement, HtmlInputElement};

wasm_bindgen_test_configure!(run_in_browser);

const GOLDEN: [(&str, &str); 9] = [
    ("bp-post1-collapse-sweep.csv", include_str!("../../../golden/bp-post1/bp-post1-collapse-sweep.csv")),
    ("bp-post2-limit-sweep.csv", include_str!("../../../golden/bp-post2/bp-post2-limit-sweep.csv")),
    ("bp-post2-plateau.csv", include_str!("../../../golden/bp-post2/bp-post2-plateau.csv")),
    ("bp-post3-burst-sweep.csv", include_str!("../../../golden/bp-post3/bp-post3-burst-sweep.csv")),
    ("bp-post3-shaping.csv", include_str!("../../../golden/bp-post3/bp-post3-shaping.csv")),
    ("bp-post4-shed-sweep.csv", include_str!("../../../golden/bp-post4/bp-post4-shed-sweep.csv")),
    ("bp-post4-hangover.csv", include_str!("../../../golden/bp-post4/bp-post4-hangover.csv")),
    ("bp-post5-protection.csv", include_str!("../../../golden/bp-post5/bp-post5-protection.csv")),
    ("bp-post5-slo-burst.csv", include_str!("../../../golden/bp-post5/bp-post5-slo-burst.csv")),
];

/// Runs `web/dom-helpers.js` (the page's `bplabDom`, which the lab's
/// bindings call) unless this page has it already: the test page is not
/// the lab's `index.html`.
fn helpers() {
    if !js_sys::Reflect::has(&js_sys::global(), &"bplabDom".into()).unwrap() {
        js_sys::eval(include_str!("../../../web/dom-helpers.js")).unwrap();
    }
}

fn doc() -> Document {
    web_sys::window().unwrap().document().unwrap()
}

/// Mounts the page into a fresh root (removing any earlier one) and waits
/// until every widget has answered.
async fn page(search: &str) -> Element {
    helpers();
    let d = doc();
    if let Some(old) = d.get_element_by_id(bplab_web::ROOT_ID) {
        old.remove();
    }
    let root = d.create_element("main").unwrap();
    root.set_id(bplab_web::ROOT_ID);
    d.body().unwrap().append_child(&root).unwrap();
    bplab_web::mount_page(&root, search).unwrap();
    settled().await;
    root
}

/// Waits until no widget is computing or about to redraw (`aria-busy`): the
/// runs happen in later tasks, the redraws in the next frame.
async fn settled() {
    for _ in 0..20_000 {
        yield_to_browser().await;
        if doc().query_selector("[aria-busy=true]").unwrap().is_none() {
            return;
        }
    }
    panic!("the page never settled");
}

fn by_id(id: &str) -> Element {
    doc().get_element_by_id(id).unwrap_or_else(|| panic!("no #{id}"))
}

fn input(id: &str) -> HtmlInputElement {
    by_id(id).dyn_into().unwrap()
}

fn text(id: &str) -> String {
    by_id(id).text_content().unwrap_or_default()
}

/// Types `value` into the input `id` the way a user does: set it, fire
/// `input`; then waits for the answer.
async fn type_in(id: &str, value: &str) {
    if doc().get_element_by_id(id).is_none() {
        open_more().await; // a setting that is not a main control: under "More settings"
    }
    let i = input(id);
    i.set_value(value);
    i.dispatch_event(&Event::new("input").unwrap()).unwrap();
    settled().await;
}

/// Opens every widget's "More settings" and waits until its controls are built (when it opens).
async fn open_more() {
    let all = doc().query_selector_all("details.more").unwrap();
    for i in 0..all.length() {
        let d: Element = all.item(i).unwrap().dyn_into().unwrap();
        d.set_attribute("open", "").unwrap();
    }
    for _ in 0..20_000 {
        yield_to_browser().await;
        if doc().query_selector("details.more:not(:has(.control))").unwrap().is_none() {
            return;
        }
    }
    panic!("More settings were never built");
}

fn msg_shown(id: &str) -> Option<String> {
    let m: HtmlElement = by_id(&format!("{id}-msg")).dyn_into().unwrap();
    (!m.hidden()).then(|| m.text_content().unwrap_or_default())
}

#[wasm_bindgen_test]
async fn every_widget_mounts_with_labelled_controls() {
    let root = page("").await;
    open_more().await;
    assert_eq!(root.query_selector_all("section.widget").unwrap().length(), 1 + EXPERIMENTS.len() as u32);
    for e in EXPERIMENTS {
        for s in e.params {
            let id = format!("{}-{}", e.name, s.name);
            let label = root.query_selector(&format!("label[for='{id}']")).unwrap().expect("label");
            let want = format!("{} ({})", s.label, s.unit);
            assert_eq!(label.text_content().unwrap(), want, "{id}");
            if let Some(r) = doc().get_element_by_id(&format!("{id}-range")) {
                assert_eq!(r.get_attribute("aria-labelledby").unwrap(), format!("{id}-label"));
            }
        }
        assert!(root.query_selector(&format!("#w-{} input[type=range][data-main]", e.name)).unwrap().is_some());
    }
    open_explanations().await;
    for name in std::iter::once("littles").chain(EXPERIMENTS.iter().map(|e| e.name)) {
        let panel = text(&format!("{name}-explain"));
        for part in ["It assumes", "It ignores"] {
            assert!(panel.contains(part), "{name}: explanation lacks '{part}'");
        }
        // "What would change it" lists only checked statements: an
        // experiment may have none at its defaults (the lesson does not).
        if name == "littles" {
            assert!(panel.contains("What would change it"), "{name}: explanation lacks 'What would change it'");
        }
    }
    assert!(text("littles-record").contains("What would reverse it."));
    // explanations-2 T3: the intro names the deadline-safe rule the readout
    // ships, and the lesson's half-up formula only as the lesson's.
    let intro =
        by_id("w-littles").query_selector(".lesson").unwrap().and_then(|e| e.text_content()).unwrap_or_default();
    assert!(intro.contains("fits the budget") && !intro.contains("The limit a latency budget allows:"), "{intro}");
    for o in ["littles-out-0", "admission-out-0", "priority-out-0"] {
        assert!(by_id(o).get_attribute("aria-labelledby").is_some(), "{o} has an accessible name");
    }
}

#[wasm_bindgen_test]
async fn an_input_event_updates_the_shown_numbers() {
    page("").await;
    assert_eq!(text("littles-out-0"), "9");
    type_in("littles-budget-ms-range", "300").await; // 1 × (300 − 21) / 21 = 13.29
    assert_eq!(text("littles-out-0"), "13");
    assert_eq!(input("littles-budget-ms").value(), "300", "the typed box follows the slider");
    type_in("littles-arrivals-rps", "100").await; // L = 100 × 0.23
    assert_eq!(text("littles-out-1"), "23 requests in flight");

    assert_eq!(text("admission-out-1"), "20 requests");
    type_in("admission-plateau-limit-range", "35").await;
    assert_eq!(text("admission-out-1"), "35 requests");
    type_in("admission-service-ms", "7").await; // B = round(142.857 × 0.2) = 29
    assert_eq!(text("admission-out-0"), "29 requests (deadline-safe 28)");
}

#[wasm_bindgen_test]
async fn canvases_are_drawn() {
    let root = page("").await;
    let canvases = root.query_selector_all("canvas").unwrap();
    let charts: usize = EXPERIMENTS.iter().map(|e| e.charts.len()).sum();
    assert_eq!(canvases.length() as usize, 1 + charts, "one limit curve + every experiment chart");
    let blank: HtmlCanvasElement = doc().create_element("canvas").unwrap().dyn_into().unwrap();
    for i in 0..canvases.length() {
        let c: HtmlCanvasElement = canvases.get(i).unwrap().dyn_into().unwrap();
        blank.set_width(c.width());
        blank.set_height(c.height());
        assert_ne!(c.to_data_url().unwrap(), blank.to_data_url().unwrap(), "{} is blank", c.id());
        assert!(c.get_attribute("data-error").is_none(), "{}: {:?}", c.id(), c.get_attribute("data-error"));
    }
}

#[wasm_bindgen_test]
async fn csv_at_the_defaults_is_the_golden_bytes() {
    page("").await;
    let mut seen = 0;
    for e in EXPERIMENTS {
        for (file, csv) in bplab_web::csv_files(e.name).unwrap() {
            let reference = e.tables.iter().find(|t| t.file == file).and_then(|t| t.golden_sha256);
            if reference.is_none() {
                continue; // no published CSV for this table
            }
            let golden = GOLDEN.iter().find(|(f, _)| *f == file).map(|(_, g)| *g).unwrap();
            assert!(csv == golden, "{file} differs from golden/");
            seen += 1;
        }
    }
    assert_eq!(seen, GOLDEN.len());
}

#[wasm_bindgen_test]
async fn bad_input_shows_the_range_and_keeps_the_last_result() {
    page("").await;
    let before = text("admission-out-2");
    for bad in ["0", "-5", "NaN", "abc", "1e12", "99999999999", ""] {
        type_in("admission-service-ms", bad).await;
        let m = msg_shown("admission-service-ms").unwrap_or_else(|| panic!("no message for '{bad}'"));
        assert!(m.contains("a whole number from 1 to 60000 (ms)"), "{m}");
        assert_eq!(text("admission-out-2"), before, "last good result stays for '{bad}'");
        assert_eq!(input("admission-service-ms").get_attribute("aria-invalid").as_deref(), Some("true"));
    }
    type_in("admission-service-ms", "10").await;
    assert_eq!(msg_shown("admission-service-ms"), None, "a good value clears the message");

    type_in("admission-deadline-ms", "5").await; // below one service time
    assert!(msg_shown("admission-deadline-ms").unwrap().contains("expected a deadline from 10"));
    type_in("collapse-duration-ms", "3600000").await; // an hour at 300 rps with retries: too many events
    assert!(msg_shown("collapse-duration-ms").unwrap().contains("the cap is"));
    type_in("littles-budget-ms", "20").await; // not above the 21 ms service
    assert!(msg_shown("littles-budget-ms").unwrap().contains("expected a budget above 21"));
    assert_eq!(text("littles-out-0"), "9");
    type_in("shaping-bursts", "1,2,x").await;
    assert!(msg_shown("shaping-bursts").unwrap().contains("comma-separated whole numbers"));
}

#[wasm_bindgen_test]
async fn the_url_reproduces_a_view_and_refuses_bad_values_inline() {
    page("?admission.service-ms=7&littles.budget-ms=300").await;
    assert_eq!(text("admission-out-0"), "29 requests (deadline-safe 28)");
    assert_eq!(input("admission-service-ms").value(), "7");
    assert_eq!(text("littles-out-0"), "13");

    let root = page("?embed=shaping&window-burst=40").await;
    assert_eq!(root.query_selector_all("section.widget").unwrap().length(), 1);
    assert_eq!(text("shaping-out-0"), "40 requests");
    assert!(doc().body().unwrap().class_list().contains("embed"));

    page("?collapse.service-ms=abc&priority.critical-share=1.5").await;
    assert!(msg_shown("collapse-service-ms").unwrap().contains("'abc'"));
    assert!(msg_shown("priority-critical-share").unwrap().contains("below 1"));
    assert_eq!(text("priority-out-0"), "400 rps", "defaults stay on screen");
    assert!(!doc().body().unwrap().class_list().contains("embed"));
}

#[wasm_bindgen_test]
async fn reset_restores_the_article_defaults() {
    page("").await;
    type_in("shedding-deadline-ms", "400").await;
    assert_eq!(text("shedding-out-0"), "40 requests");
    by_id("shedding-reset").dyn_into::<HtmlElement>().unwrap().click();
    settled().await;
    assert_eq!(text("shedding-out-0"), "20 requests");
    assert_eq!(input("shedding-deadline-ms").value(), "200");
    assert_eq!(input("shedding-deadline-ms-range").value(), "200");
}

/// After slider moves the explanation panel is patched in place; its text
/// must equal what a freshly built page shows for the same state.
#[wasm_bindgen_test]
async fn patched_explanations_equal_a_fresh_render() {
    page("").await;
    open_explanations().await;
    for v in ["250", "260", "400"] {
        type_in("collapse-deadline-ms-range", v).await;
    }
    type_in("littles-budget-ms-range", "300").await;
    let patched = (text("collapse-explain"), text("littles-explain"));
    assert!(patched.0.contains("(400 − 10) / 1000"), "the 400 ms deadline reached the explanation: {}", patched.0);
    page("?collapse.deadline-ms=400&littles.budget-ms=300").await;
    open_explanations().await;
    assert_eq!((text("collapse-explain"), text("littles-explain")), patched);
}

/// The token/leaky readouts are computed at exactly the timeline burst,
/// also for a burst the sweep does not contain.
#[wasm_bindgen_test]
async fn shaping_readouts_are_at_the_chosen_burst() {
    page("").await;
    assert_eq!(text("shaping-out-1"), "gate 0 ms, server 190 ms; downstream peak 290 rps");
    assert_eq!(text("shaping-out-2"), "gate 190 ms, server 0 ms; downstream peak 100 rps");
    type_in("shaping-window-burst", "25").await;
    let p = bplab_core::ShapingParams { window_burst: Some(25), ..Default::default() };
    let Report::Shaping(r) = bplab_core::Scenario::new(p, bplab_core::Caps::PAGE).unwrap().run() else {
        unreachable!()
    };
    let token = r
        .at_burst
        .iter()
        .find(|o| o.burst == 25 && o.gate == bplab_core::models::shaping::GateKind::TokenBucket)
        .unwrap();
    let want = format!("gate 0 ms, server {} ms; downstream peak", token.server_wait_p99_ms);
    assert!(text("shaping-out-1").starts_with(&want), "{} vs {want}", text("shaping-out-1"));
}

/// Lets the browser breathe (the test runner polls the page between tasks).
/// Opens every explanation panel (a closed one is filled when it opens)
/// and waits for their `toggle` events.
async fn open_explanations() {
    let panels = doc().query_selector_all("details.explain").unwrap();
    for i in 0..panels.length() {
        panels.item(i).unwrap().dyn_into::<Element>().unwrap().set_attribute("open", "").unwrap();
    }
    for _ in 0..5 {
        yield_to_browser().await;
    }
}

async fn yield_to_browser() {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        let _ = web_sys::window().unwrap().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(p).await;
}

#[wasm_bindgen_test]
async fn the_fuzz_harness_passes_in_wasm() {
    // The native fuzz test's generator and invariants, in the browser's wasm
    // engine: 2,000 cases, each a clear refusal or a result that keeps them.
    // Smaller work caps than natively (a debug wasm build is slow); the caps
    // are part of what is checked.
    let caps = bplab_core::Caps { max_run_arrivals: 50_000, max_total_arrivals: 100_000, max_windows: 20_000 };
    let mut g = bplab_core::fuzz::FuzzGen::new(20_261_130);
    let mut ran = 0;
    for i in 0..2_000 {
        let case = g.next_case();
        match bplab_core::fuzz::check(&case, caps) {
            Ok(bplab_core::fuzz::Verdict::Ran(_)) => ran += 1,
            Ok(_) => {}
            Err(why) => panic!("case {i}: {why}\n{case:?}"),
        }
        if i % 25 == 0 {
            yield_to_browser().await;
        }
    }
    assert!(ran * 8 >= 2_000, "only {ran} cases reached a model run");
}

#[wasm_bindgen_test]
async fn a_tiny_gate_rate_typed_on_the_page_keeps_the_widget_alive() {
    page("").await;
    type_in("shaping-gate-rate-rps", "1e-10").await;
    assert_eq!(msg_shown("shaping-gate-rate-rps"), None, "1e-10 is in range: it runs");
    type_in("shaping-gate-rate-rps", "120").await;
    assert_eq!(input("shaping-gate-rate-rps").value(), "120");
    assert!(!text("shaping-out-0").is_empty());
}

#[wasm_bindgen_test]
fn stochastic_csv_hash_matches_native() {
    // The core's pinned reference case, hashed in the browser's wasm engine:
    // the same constant the native test checks (crates/bplab-core/tests/same_bytes.rs).
    use sha2::{Digest, Sha256};
    let csv = bplab_core::fuzz::pinned_csv().unwrap();
    let hex: String = Sha256::digest(csv.as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(hex, bplab_core::fuzz::PINNED_SHA256);
}

#[wasm_bindgen_test]
fn metastable_csv_hash_matches_native() {
    // The metastable reference case (its retries' jitter and throttling
    // draws included), run and hashed in the browser's wasm engine: the
    // constant the native test checks (crates/bplab-core/tests/metastable.rs).
    use bplab_core::metastable::{PINNED_EDITS, PINNED_SHA256};
    use sha2::{Digest, Sha256};
    let mut p = bplab_core::Experiment::get(bplab_core::ExperimentId::Metastable).defaults();
    for (k, v) in PINNED_EDITS {
        p.set(k, v).unwrap();
    }
    let report = bplab_core::Scenario::new(p, bplab_core::Caps::PAGE).unwrap().run();
    let csv: String = report.tables().iter().map(|t| t.csv()).collect();
    let hex: String = Sha256::digest(csv.as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(hex, PINNED_SHA256);
}

#[wasm_bindgen_test]
fn the_built_in_questions_parse() {
    let qs = bplab_web::question::parse_file(bplab_web::question::BUILT_IN).unwrap();
    let ids: Vec<&str> = qs.iter().map(|q| q.id.as_str()).collect();
    assert_eq!(ids, ["predict-ceiling", "check-limit"]);
}

#[wasm_bindgen_test]
fn an_invalid_question_names_the_field() {
    let cases = [
        ("{}", "questions.json: missing field 'questions'"),
        ("{\"questions\": [1]}", "questions[0]: expected an object, found a number"),
        (
            r#"{"questions": [{"id": "a", "widget": "littles", "prompt": "p", "options": [{"text": "x", "why": "y", "value": {"kind": "limt"}}, {"text": "z", "why": "w"}], "answer": {"closest": 1}}]}"#,
            "questions[0].options[0].value.kind: unknown kind 'limt'; expected one of: limit, littles",
        ),
        (
            r#"{"questions": [{"id": "a", "widget": "littles", "prompt": "p", "options": [{"text": "x"}, {"text": "z", "why": "w"}], "answer": {"closest": 1}}]}"#,
            "questions[0].options[0]: missing field 'why'",
        ),
        (
            r#"{"questions": [{"id": "a", "widget": "littles", "prompt": "p", "options": [{"text": "x", "why": "y"}, {"text": "z", "why": "w"}], "answer": {"first": [], "else": 5}}]}"#,
            "questions[0].answer.else: expected an option index from 0 to 1",
        ),
        ("not json", "questions.json: not valid JSON"),
    ];
    for (text, want) in cases {
        let e = bplab_web::question::parse_file(text).unwrap_err();
        assert!(e.starts_with(want), "{text}\n  got:  {e}\n  want: {want}…");
    }
}

fn radio(i: usize) -> HtmlInputElement {
    input(&format!("littles-q-{i}"))
}

#[wasm_bindgen_test]
async fn the_check_is_computed_by_the_calculator_and_follows_the_workers() {
    let root = page("?embed=littles&q=check-limit").await;
    let section = by_id("w-littles");
    assert!(section.class_list().contains("predicting"), "results hidden until a pick");
    assert!(by_id("littles-question").query_selector("[role=radiogroup]").unwrap().is_some());
    assert_eq!(input("littles-workers").value(), "4", "the question's params");
    radio(0).click();
    settled().await;
    assert!(!section.class_list().contains("predicting"));
    assert!(text("littles-q-verdict").starts_with("Right: A"), "{}", text("littles-q-verdict"));
    assert_eq!(text("littles-out-0"), "72", "the number the record ships");
    type_in("littles-workers", "2").await;
    // 36 is still above ten: A stays right, its number follows the calculator.
    assert!(text("littles-q-verdict").contains("allow 36 queued"), "{}", text("littles-q-verdict"));
    assert!(root.text_content().unwrap().contains("With 2 worker(s) at 12 ms"));
    type_in("littles-workers", "1").await;
    type_in("littles-service-ms", "25").await;
    // One worker at 25 ms: the record ships 8, below ten, so B (too loose) is right.
    assert!(text("littles-q-verdict").contains("the model says B"), "{}", text("littles-q-verdict"));
}

#[wasm_bindgen_test]
async fn proof_shows_the_command_line() {
    page("?embed=admission&service-ms=7").await;
    let cmd = by_id("admission-proof").query_selector("code.cmd").unwrap().unwrap().text_content().unwrap();
    assert_eq!(cmd, "bplab run admission --service-ms 7");
    page("?embed=littles&workers=4&service-ms=12").await;
    let cmds = by_id("littles-proof").text_content().unwrap();
    assert!(cmds.contains("bplab limit --workers 4 --budget-ms 230 --service-ms 12"), "{cmds}");
}

#[wasm_bindgen_test]
fn proof_hashes_and_quotes() {
    use bplab_web::proof::{command, sha256_hex};
    assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    let flags = [("rate".to_owned(), "40,48".to_owned()), ("service".to_owned(), "exp:21 x".to_owned())];
    assert_eq!(command(&["run", "lesson"], &flags), "bplab run lesson --rate 40,48 --service 'exp:21 x'");
}

/// The worker posts a view of each run (CSV texts, explanations, readouts,
/// plots) as bytes and the page draws what it decodes: for every experiment the
/// same view, so the same CSV bytes and the same text.
#[wasm_bindgen_test]
fn a_run_view_survives_the_trip_from_the_worker() {
    for e in EXPERIMENTS {
        let report = bplab_core::Scenario::defaults(e.id).run();
        let view = bplab_web::View::of(&report);
        let back = bplab_web::View::decode(&view.encode().unwrap()).unwrap();
        let csv: Vec<(String, String)> = report.tables().iter().map(|t| (t.spec.file.to_owned(), t.csv())).collect();
        assert_eq!(back.tables, csv, "{}: the CSVs changed on the way", e.name);
        assert_eq!(back.readouts, view.readouts, "{}", e.name);
        assert_eq!(back.plots, view.plots, "{}", e.name);
        let text = |x: &[bplab_core::calc::Explanation]| x.iter().map(|x| x.to_text()).collect::<Vec<_>>();
        assert_eq!(text(&back.explanations), text(&report.explanations()), "{}: the explanations changed", e.name);
    }
}

/// Mounting the page again frees the listeners of the last mount.
#[wasm_bindgen_test]
async fn a_remount_does_not_keep_the_old_listeners() {
    page("").await;
    let first = bplab_web::listener_count();
    assert!(first > 50, "{first} listeners");
    page("").await;
    page("?embed=lesson").await;
    page("").await;
    assert_eq!(bplab_web::listener_count(), first);
}

/// The limit widget's link and command carry exactly the typed value, and
/// the link shows the same numbers again.
#[wasm_bindgen_test]
async fn the_limit_widget_links_the_typed_value_exactly() {
    page("?embed=littles").await;
    type_in("littles-workers", "4").await;
    type_in("littles-service-ms", "12.345").await;
    let shown = text("littles-out-0");
    let cmds = text("littles-proof");
    assert!(cmds.contains("--service-ms 12.345"), "{cmds}");
    let q = bplab_web::query_now();
    assert!(q.contains("service-ms=12.345"), "{q}");
    page(&q).await;
    assert_eq!(text("littles-out-0"), shown);
    type_in("littles-service-ms", "0.004").await;
    assert!(bplab_web::query_now().contains("service-ms=0.004") || msg_shown("littles-service-ms").is_some());
}

/// "off" (no queue limit) is the slider's last step, announced as such;
/// the step before it is a number again.
#[wasm_bindgen_test]
async fn the_queue_limit_slider_knows_off() {
    page("?embed=lesson&limit=off").await;
    let s = input("lesson-limit-range");
    assert_eq!(s.value(), s.max(), "off sits at the right end");
    assert_eq!(s.get_attribute("aria-valuetext").as_deref(), Some("off"));
    let before_off = (s.max().parse::<f64>().unwrap() - s.step().parse::<f64>().unwrap()).to_string();
    type_in("lesson-limit-range", &before_off).await;
    assert_eq!(input("lesson-limit").value(), before_off);
    assert_eq!(s.get_attribute("aria-valuetext"), None);
    type_in("lesson-limit-range", &s.max()).await;
    assert_eq!(input("lesson-limit").value(), "off");
    type_in("lesson-limit", "12").await;
    assert_eq!(s.value(), "12");
    assert_eq!(s.get_attribute("aria-valuetext"), None);
}

/// An embedded widget's heading is the document's level-one heading.
#[wasm_bindgen_test]
async fn an_embed_has_a_level_one_heading() {
    let root = page("?embed=shedding").await;
    assert!(root.query_selector("section.widget > h1").unwrap().is_some());
    let root = page("").await;
    assert!(root.query_selector("section.widget > h1").unwrap().is_none());
}

#[wasm_bindgen_test]
fn the_description_names_every_widget() {
    let d = bplab_web::description();
    assert!(d.starts_with(&format!("{} live widgets", 1 + EXPERIMENTS.len())), "{d}");
    for e in EXPERIMENTS {
        assert!(d.contains(e.title), "{d} lacks {}", e.title);
    }
}

#[wasm_bindgen_test]
fn claims_hold_in_wasm_and_a_false_one_is_caught() {
    // The claim check's wasm slice (the 2,000 fuzz cases above re-check every
    // shown claim too): the limit calculator's shipped number and the
    // adaptive race's claims against their evidence, and one audit defect
    // put back (#2: 29 queued with "worst 99 ms") caught.
    use bplab_core::claim::{Claim, Evidence, Fact, check, check_report};
    let r = bplab_core::calc::limit(bplab_core::calc::LimitInput { workers: 4, budget_ms: 100.0, service_ms: 12.0 })
        .unwrap();
    assert_eq!(r.record_limit, 28);
    assert!(r.record.number.contains("= 96 ms"), "{}", r.record.number);
    let none = Evidence::default();
    for c in &r.explanation.claims {
        check(c, &none).unwrap();
    }
    let report = bplab_core::Scenario::defaults(bplab_core::ExperimentId::Adaptive).run();
    assert!(!check_report("adaptive", &report).unwrap().is_empty());
    let bad = Fact::Limit { workers: 4, budget_ms: 100.0, service_ms: 12.0, shipped: 29, worst_ms: 99.0 };
    assert!(check(&Claim::new("bound", "claim", "29", bad), &none).is_err());
}
