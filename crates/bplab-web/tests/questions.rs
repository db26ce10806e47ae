//! The question language in the browser's wasm engine (its JSON.parse):
//! conditional text, computed answers, messages naming the field, the URL form.

#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bplab_web::question::{Env, Lookup, decode, encode, parse_file, parse_one, parse_set};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// The littles widget's inputs.
struct Littles(Vec<(&'static str, f64)>);

impl Env for Littles {
    fn lookup(&self, name: &str) -> Option<Lookup> {
        self.0.iter().find(|(k, _)| *k == name).map(|(_, v)| Lookup::Num(*v))
    }
    fn run_csv(&self, _: &[(String, String)], _: &str) -> Result<String, String> {
        Err("no run".to_owned())
    }
}

fn littles(workers: f64, service: f64) -> Littles {
    Littles(vec![("workers", workers), ("budget-ms", 230.0), ("service-ms", service)])
}

const Q: &str = r#"{"id": "t", "widget": "littles",
  "prompt": ["{workers} at {service-ms} ms", {"if": ["$right", ">", 40], "then": " (over forty)", "else": " (forty or under)"}],
  "vars": {"right": {"kind": "limit", "workers": "$workers", "budget_ms": "$budget-ms", "service_ms": "$service-ms", "field": "record_limit"},
           "half": {"kind": "div", "args": ["$right", 2]}},
  "options": [{"text": "About {value}", "value": 10, "why": "half is {half}"}, {"text": "{right}", "value": "$right", "why": "x"}],
  "answer": {"closest": "$right"}}"#;

#[wasm_bindgen_test]
fn conditional_text_shows_only_the_branch_that_holds() {
    let q = parse_one(Q, "q").unwrap();
    let r = q.resolve(&littles(4.0, 12.0)).unwrap();
    assert_eq!(r.prompt, "4 at 12 ms (over forty)");
    assert_eq!(r.right, 1);
    assert_eq!(r.options[1].0, "72", "the record ships 72 (72.67 rounded down)");
    assert_eq!(r.options[0], ("About 10".to_owned(), "half is 36".to_owned()), "vars read the ones before, in order");
    let r = q.resolve(&littles(1.0, 21.0)).unwrap();
    assert_eq!(r.prompt, "1 at 21 ms (forty or under)");
    assert_eq!((r.right, r.options[1].0.as_str()), (1, "9"), "one worker at 21 ms: the record ships 9");
}

#[wasm_bindgen_test]
fn messages_name_the_field() {
    let cases = [
        (r#"{"questions": [{"id": "a"}]}"#, "questions[0]: missing field 'widget'"),
        (
            &Q.replace(r#""if": ["$right", ">", 40]"#, r#""if": ["$right", "=~", 40]"#),
            "q.prompt[1].if[1]: unknown comparison '=~'; expected <, <=, >, >=, == or !=",
        ),
        (
            &Q.replace(r#""then": " (over forty)","#, r#""then": 1,"#),
            "q.prompt[1].then: expected a string, found a number",
        ),
        (&Q.replace(r#""field": "record_limit""#, r#""field": "shipped""#), "q.vars.right.field: unknown 'shipped'"),
        ("{\"id\": ", "q: not valid JSON: "),
    ];
    for (text, want) in cases {
        let e =
            if text.contains("questions") { parse_file(text).unwrap_err() } else { parse_one(text, "q").unwrap_err() };
        assert!(e.starts_with(want), "got: {e}\nwant: {want}");
    }
    let e = parse_set(r#"{"questions": [], "embed": 3}"#, "bplab-questions").unwrap_err();
    assert_eq!(e, "bplab-questions.embed: expected a string, found a number");
}

#[wasm_bindgen_test]
fn an_empty_branch_that_leaves_no_text_is_refused_when_shown() {
    let q = parse_one(&Q.replace(r#"["{workers} at {service-ms} ms", "#, "["), "q").unwrap();
    assert!(q.resolve(&littles(4.0, 12.0)).is_ok());
    let q = parse_one(&Q.replace(r#"["{workers} at {service-ms} ms", "#, "[").replace(" (forty or under)", ""), "q")
        .unwrap();
    assert_eq!(q.resolve(&littles(1.0, 21.0)).unwrap_err(), "q.prompt: is empty for these values");
}

#[wasm_bindgen_test]
fn base64url_round_trips_and_refuses_bad_input() {
    for text in ["", "a", "ab", "abc", "abcd", "{\"é\": \"→ 72\"}", Q] {
        assert_eq!(decode(&encode(text)).unwrap(), text);
    }
    assert_eq!(encode("{\"a\":1}?>"), "eyJhIjoxfT8-");
    assert!(decode("ab+c").unwrap_err().starts_with("qj: character 3 ('+') is not base64url"));
    assert!(decode(&"A".repeat(6001)).unwrap_err().contains("6001 characters is too long; at most 6000"));
    assert_eq!(decode("_w").unwrap_err(), "qj: the decoded bytes are not UTF-8 text");
}

/// An environment whose experiment run is cheap and counted.
struct Counting(std::cell::Cell<usize>);

impl Env for Counting {
    fn lookup(&self, _: &str) -> Option<Lookup> {
        None
    }
    fn run_csv(&self, _: &[(String, String)], _: &str) -> Result<String, String> {
        self.0.set(self.0.get() + 1);
        Ok("ok\n1".to_owned())
    }
}

#[wasm_bindgen_test]
fn identical_runs_are_made_once_and_different_ones_are_capped() {
    let run = |rate: usize| format!(r#"{{"kind": "run", "set": {{"rate": {rate}}}, "table": "t", "column": "ok"}}"#);
    let vars = |n: usize| (0..n).map(|i| format!(r#""v{i}": {}"#, run(i % 9))).collect::<Vec<_>>().join(", ");
    let q = |n: usize| {
        format!(
            r#"{{"id": "r", "widget": "lesson", "prompt": "p", "vars": {{{}}}, "options": [{{"text": "a", "value": 1, "why": "w"}}, {{"text": "b", "value": 2, "why": "w"}}], "answer": {{"closest": "$v0"}}}}"#,
            vars(n)
        )
    };
    let env = Counting(std::cell::Cell::new(0));
    parse_one(&q(8), "q").unwrap().resolve(&env).unwrap();
    assert_eq!(env.0.get(), 8);
    let env = Counting(std::cell::Cell::new(0));
    let e = parse_one(&q(9), "q").unwrap().resolve(&env).unwrap_err();
    assert_eq!(e, "q.vars.v8: run: at most 8 different runs in one question (each is a whole experiment)");
    assert_eq!(env.0.get(), 8, "the ninth run is refused before it starts");
}
