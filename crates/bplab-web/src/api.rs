//! The JavaScript API: the core's calculators and experiments for other
//! pages, plain objects in and out (`serde-wasm-bindgen`). Exported by the
//! wasm-bindgen module and re-exported by `dist/bplab-api.js`:
//!
//! - `limit({workers, budget_ms, service_ms})` → the limit calculator's result
//!   (`queue_limit`, `in_system_limit`, `capacity_rps`, …, `explanation`, `record`);
//! - `littles({arrivals_rps?, latency_ms?, in_flight?})` (two of three) → all three;
//! - `run(experiment, params)` → `{experiment, params, readouts, tables, sha256, command}`,
//!   `params` keyed by the CLI/URL names (`{"service-ms": 7}`), applied through
//!   `Params::set` so values are checked and refused exactly as by `bplab run`;
//!   `tables` maps each CSV file name to its text;
//! - `explain(experiment, params)` → the experiment's explanations;
//! - `experiments()` → the registry: names, titles, parameter names, tables, charts.
//!
//! Every argument's JS type is checked here before anything else, so no JS
//! value reaches the core unchecked (a number where a name belongs, a Symbol,
//! `null`, an array): each is refused with a message. Every entry refuses an
//! unknown key with the same wording (`<entry>: unknown parameter 'x'; <who>
//! takes: …`), and quotes at most 60 characters of any value. Every refusal
//! is a thrown `Error` carrying the message.

use std::collections::BTreeMap;

use bplab_core::calc::{
    self, ARRIVALS, BUDGET, CALC_PARAMS, Explanation, IN_FLIGHT, LATENCY, LimitInput, LittlesInput, SERVICE, WORKERS,
};
use bplab_core::{ConfigError, EXPERIMENTS, Experiment, MAX_LIST_LEN, Scenario, quote};
use serde::Serialize;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use crate::{proof, worker};

fn out<T: Serialize>(v: &T) -> Result<JsValue, JsError> {
    v.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).map_err(|e| JsError::new(&e.to_string()))
}

fn core(entry: &str, e: ConfigError) -> JsError {
    JsError::new(&format!("{entry}: {e}"))
}

/// The JS type of `v` as a message names it (an object that is not a plain
/// one by its constructor's name: "a Map object").
fn js_type(v: &JsValue) -> String {
    let t = if v.is_undefined() {
        "undefined"
    } else if v.is_null() {
        "null"
    } else if v.is_string() {
        "a string"
    } else if v.as_f64().is_some() {
        "a number"
    } else if v.as_bool().is_some() {
        "a boolean"
    } else if v.is_bigint() {
        "a BigInt"
    } else if v.is_symbol() {
        "a Symbol"
    } else if js_sys::Array::is_array(v) {
        "an array"
    } else if v.is_function() {
        "a function"
    } else if let Some(name) = class_name(v) {
        return format!("a {name} object");
    } else {
        "an object"
    };
    t.to_owned()
}

/// The constructor's name of an object whose prototype is neither
/// `Object.prototype` nor `null` (`None` for a plain object, or when
/// looking throws: a Proxy's trap).
fn class_name(v: &JsValue) -> Option<String> {
    let proto = js_sys::Reflect::get_prototype_of(v).ok()?;
    let object_prototype = js_sys::Reflect::get_prototype_of(&js_sys::Object::new()).ok()?;
    if proto.is_null() || js_sys::Object::is(&proto, &object_prototype) {
        return None;
    }
    let ctor = js_sys::Reflect::get(&proto, &JsValue::from_str("constructor")).ok()?;
    let name = js_sys::Reflect::get(&ctor, &JsValue::from_str("name")).ok()?.as_string()?;
    let ok =
        !name.is_empty() && name.len() <= 40 && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    Some(if ok { name } else { "non-plain".to_owned() })
}

/// Longest text a parameter value may be (UTF-16 units), checked before the
/// text is copied out of JS: far above any value the core accepts (a
/// 64-step schedule is about 1,300 characters).
pub const MAX_VALUE_CHARS: u32 = 16_384;

/// The `(key, value)` pairs of a plain object argument of `entry` (its own
/// string keys; a null-prototype object is plain too), each key one of
/// `takes` (`who` takes them). `undefined` is no pairs when `optional`.
/// Nothing is copied before it is checked: each key is refused as soon as
/// it is unknown (so at most `takes.len()` are read), and values are read
/// one by one through `Reflect` (a throwing getter or Proxy trap is refused
/// with a message, never thrown through the wasm).
fn entries(
    entry: &str,
    who: &str,
    v: &JsValue,
    takes: &[&str],
    optional: bool,
) -> Result<Vec<(String, JsValue)>, JsError> {
    if optional && v.is_undefined() {
        return Ok(Vec::new());
    }
    let plain = v.is_object() && !js_sys::Array::is_array(v) && !v.is_function() && class_name(v).is_none();
    // Not `dyn_ref`: it tests `instanceof Object`, which an object made by `Object.create(null)` is not.
    let Some(obj) = plain.then(|| v.unchecked_ref::<js_sys::Object>()) else {
        return Err(JsError::new(&format!(
            "{entry}: expected an object of parameters ({}), got {}",
            takes.join(", "),
            js_type(v)
        )));
    };
    let unreadable =
        || JsError::new(&format!("{entry}: the parameters object cannot be read (a getter or a Proxy threw)"));
    let keys = js_sys::Reflect::own_keys(obj).map_err(|_| unreadable())?;
    let mut pairs = Vec::new();
    for key in keys.iter() {
        if key.is_symbol() {
            continue;
        }
        let name = if key.is_string() && js_sys::JsString::from(key.clone()).length() <= 200 {
            key.as_string().unwrap_or_default()
        } else {
            "(a name over 200 characters)".to_owned()
        };
        if !takes.contains(&name.as_str()) {
            return Err(JsError::new(&format!(
                "{entry}: unknown parameter {}; {who} takes: {}",
                quote(&name),
                takes.join(", ")
            )));
        }
        let value = js_sys::Reflect::get(obj, &key).map_err(|_| unreadable())?;
        pairs.push((name, value));
    }
    Ok(pairs)
}

/// The limit calculator's API keys, in `LimitInput`'s order, with their table rows.
const LIMIT_KEYS: [(&str, usize); 3] = [("workers", WORKERS), ("budget_ms", BUDGET), ("service_ms", SERVICE)];
/// Little's law's API keys.
const LITTLES_KEYS: [(&str, usize); 3] =
    [("arrivals_rps", ARRIVALS), ("latency_ms", LATENCY), ("in_flight", IN_FLIGHT)];

/// A number argument `key` of `entry`, checked against its calculator row.
fn calc_number(entry: &str, key: &str, row: usize, v: &JsValue) -> Result<f64, JsError> {
    let Some(n) = v.as_f64() else {
        return Err(JsError::new(&format!("{entry}: {key}: expected a number, got {}", js_type(v))));
    };
    let Some(spec) = CALC_PARAMS.get(row) else { return Err(JsError::new("calculator table")) };
    spec.check(n).map_err(|_| {
        core(
            entry,
            ConfigError::OutOfRange { param: spec.spec.name, value: proof::number(n), accepted: spec.accepted() },
        )
    })
}

fn limit_input(input: &JsValue) -> Result<LimitInput, JsError> {
    let keys: Vec<&str> = LIMIT_KEYS.iter().map(|(k, _)| *k).collect();
    let pairs = entries("limit", "limit", input, &keys, false)?;
    let mut v = [f64::NAN; 3];
    for (slot, (key, row)) in v.iter_mut().zip(LIMIT_KEYS) {
        let given = pairs.iter().find(|(k, _)| k == key).map(|(_, x)| x.clone()).unwrap_or(JsValue::UNDEFINED);
        *slot = calc_number("limit", key, row, &given)?;
    }
    // `calc_number` checked workers is whole and in range (at most 100,000).
    Ok(LimitInput { workers: v[0] as u32, budget_ms: v[1], service_ms: v[2] })
}

fn littles_input(input: &JsValue) -> Result<LittlesInput, JsError> {
    let keys: Vec<&str> = LITTLES_KEYS.iter().map(|(k, _)| *k).collect();
    let pairs = entries("littles", "littles", input, &keys, false)?;
    let mut v: [Option<f64>; 3] = [None; 3];
    for (slot, (key, row)) in v.iter_mut().zip(LITTLES_KEYS) {
        if let Some((_, x)) = pairs.iter().find(|(k, _)| k == key).filter(|(_, x)| !(x.is_undefined() || x.is_null())) {
            *slot = Some(calc_number("littles", key, row, x)?);
        }
    }
    Ok(LittlesInput { arrivals_rps: v[0], latency_ms: v[1], in_flight: v[2] })
}

/// The limit calculator: `limit({workers: 4, budget_ms: 230, service_ms: 12}).queue_limit` is 73.
#[wasm_bindgen(js_name = limit)]
pub fn api_limit(input: JsValue) -> Result<JsValue, JsError> {
    out(&calc::limit(limit_input(&input)?).map_err(|e| core("limit", e))?)
}

/// Little's law: give two of `arrivals_rps`, `latency_ms`, `in_flight`; all three come back.
#[wasm_bindgen(js_name = littles)]
pub fn api_littles(input: JsValue) -> Result<JsValue, JsError> {
    out(&calc::littles(littles_input(&input)?).map_err(|e| core("littles", e))?)
}

/// A parameter value from JS as the text `Params::set` reads: strings as
/// they are, numbers exactly in their shortest form (`7`, `0.25`, `1e-300`),
/// arrays of those joined with commas. Sizes are checked before anything is
/// copied: a string's length, an array's `length` (read once, so a Proxy
/// claiming a billion items is refused at once), then its items one by one.
fn param_text(entry: &str, name: &str, v: &JsValue, nested: bool) -> Result<String, JsError> {
    if v.is_string() {
        let n = js_sys::JsString::from(v.clone()).length();
        if n > MAX_VALUE_CHARS {
            return Err(JsError::new(&format!(
                "{entry}: {name}: a text of {n} characters; a value has at most {MAX_VALUE_CHARS}"
            )));
        }
        return Ok(v.as_string().unwrap_or_default());
    }
    if let Some(n) = v.as_f64() {
        return Ok(proof::number(n));
    }
    if !nested && js_sys::Array::is_array(v) {
        let len = js_sys::Reflect::get(v, &JsValue::from_str("length"))
            .ok()
            .and_then(|l| l.as_f64())
            .filter(|l| l.fract() == 0.0 && *l >= 0.0)
            .ok_or_else(|| JsError::new(&format!("{entry}: {name}: an array whose length cannot be read")))?;
        if len > MAX_LIST_LEN as f64 {
            return Err(JsError::new(&format!(
                "{entry}: {name}: {} items; a list has at most {MAX_LIST_LEN}",
                proof::number(len)
            )));
        }
        let mut parts = Vec::with_capacity(len as usize);
        for i in 0..len as u32 {
            let x = js_sys::Reflect::get_u32(v, i)
                .map_err(|_| JsError::new(&format!("{entry}: {name}: item {} cannot be read", i + 1)))?;
            parts.push(param_text(entry, name, &x, true)?);
        }
        return Ok(parts.join(","));
    }
    let what = if nested { "a number or a string" } else { "a number, a string or an array of them" };
    Err(JsError::new(&format!("{entry}: {name}: expected {what}, got {}", js_type(v))))
}

/// The experiment named by `v`, or a refusal naming the accepted names.
fn experiment(entry: &str, v: &JsValue) -> Result<&'static Experiment, JsError> {
    let names = EXPERIMENTS.iter().map(|e| e.name).collect::<Vec<_>>().join(", ");
    let Some(name) = v.as_string() else {
        return Err(JsError::new(&format!(
            "{entry}: experiment: expected a name, one of: {names}; got {}",
            js_type(v)
        )));
    };
    Experiment::named(&name).map_err(|e| core(entry, e))
}

/// `(name, text)` pairs of `params` for `exp`, every key and type checked.
fn param_pairs(entry: &str, exp: &Experiment, params: &JsValue) -> Result<Vec<(String, String)>, JsError> {
    let takes: Vec<&str> = exp.params.iter().map(|s| s.name).collect();
    entries(entry, exp.name, params, &takes, true)?
        .into_iter()
        .map(|(k, v)| param_text(entry, &k, &v, false).map(|t| (k, t)))
        .collect()
}

/// Checks `params` for the experiment the way `bplab run` does and returns the scenario.
fn scenario(entry: &str, experiment_: &JsValue, params: &JsValue) -> Result<Scenario, JsError> {
    let exp = experiment(entry, experiment_)?;
    let pairs = param_pairs(entry, exp, params)?;
    worker::scenario(exp, &pairs).map_err(|e| core(entry, e))
}

#[derive(Serialize)]
struct Readout {
    name: &'static str,
    value: String,
}

#[derive(Serialize)]
struct RunOut {
    experiment: &'static str,
    params: BTreeMap<&'static str, String>,
    readouts: Vec<Readout>,
    tables: BTreeMap<&'static str, String>,
    sha256: BTreeMap<&'static str, String>,
    command: String,
}

/// Runs `experiment` with `params` (CLI/URL names); returns readouts, CSV texts, hashes and the command line.
#[wasm_bindgen(js_name = run)]
pub fn api_run(experiment: JsValue, params: JsValue) -> Result<JsValue, JsError> {
    let sc = scenario("run", &experiment, &params)?;
    let exp = sc.experiment();
    let report = sc.run();
    let all: Vec<(&'static str, String)> =
        exp.params.iter().filter_map(|s| Some((s.name, sc.params().get(s.name)?))).collect();
    let changed: Vec<(String, String)> = sc.params().changed().into_iter().map(|(n, v)| (n.to_owned(), v)).collect();
    let tables = report.tables();
    out(&RunOut {
        experiment: exp.name,
        params: all.into_iter().collect(),
        readouts: report.readouts().into_iter().map(|r| Readout { name: r.name, value: r.value }).collect(),
        sha256: tables.iter().map(|t| (t.spec.file, proof::sha256_hex(t.csv().as_bytes()))).collect(),
        tables: tables.iter().map(|t| (t.spec.file, t.csv())).collect(),
        command: proof::command(&["run", exp.name], &changed),
    })
}

/// The explanations of `experiment` run with `params`.
#[wasm_bindgen(js_name = explain)]
pub fn api_explain(experiment: JsValue, params: JsValue) -> Result<JsValue, JsError> {
    let explanations: Vec<Explanation> = scenario("explain", &experiment, &params)?.run().explanations();
    out(&explanations)
}

/// Checks the arguments of API entry `entry` without computing anything and
/// returns them in a form that can be posted to the worker (plain strings
/// and numbers): what `bplab-api.js`'s promise-returning variants send.
/// Not part of the API.
#[wasm_bindgen(js_name = __bplab_check)]
pub fn api_check(entry: JsValue, a: JsValue, b: JsValue) -> Result<JsValue, JsError> {
    let args = js_sys::Array::new();
    match entry.as_string().as_deref() {
        Some(e @ ("run" | "explain")) => {
            let sc = scenario(e, &a, &b)?;
            let exp = sc.experiment();
            let params = js_sys::Object::new();
            for (k, v) in param_pairs(e, exp, &b)? {
                js_sys::Reflect::set(&params, &JsValue::from_str(&k), &JsValue::from_str(&v))
                    .map_err(|_| JsError::new("params"))?;
            }
            args.push(&JsValue::from_str(exp.name));
            args.push(&params);
        }
        Some("limit") => {
            let i = limit_input(&a)?;
            calc::limit(i).map_err(|e| core("limit", e))?;
            args.push(&out(&i)?);
        }
        Some("littles") => {
            let i = littles_input(&a)?;
            calc::littles(i).map_err(|e| core("littles", e))?;
            args.push(&out(&i)?);
        }
        Some("experiments") => {}
        _ => return Err(JsError::new("bplab-api: no such entry")),
    }
    Ok(args.into())
}

/// Checks the parameters `mount` is given for `widget` the way the widget
/// will take them from its URL (every widget: Little's law's six fields and
/// `solve` too), without computing anything; returns them as texts
/// (`{name: text}`) for the frame's query. Not part of the API.
#[wasm_bindgen(js_name = __bplab_check_widget)]
pub fn api_check_widget(widget: JsValue, params: JsValue) -> Result<JsValue, JsError> {
    let pairs = if widget.as_string().as_deref() == Some(crate::widgets::LITTLES) {
        let takes = crate::widgets::littles_keys();
        let pairs = entries("mount", crate::widgets::LITTLES, &params, &takes, true)?
            .into_iter()
            .map(|(k, v)| param_text("mount", &k, &v, false).map(|t| (k, t)))
            .collect::<Result<Vec<_>, _>>()?;
        crate::widgets::littles_check(&pairs).map_err(|e| JsError::new(&format!("mount: {e}")))?;
        pairs
    } else {
        let sc = scenario("mount", &widget, &params)?;
        param_pairs("mount", sc.experiment(), &params)?
    };
    let obj = js_sys::Object::new();
    for (k, v) in pairs {
        js_sys::Reflect::set(&obj, &JsValue::from_str(&k), &JsValue::from_str(&v))
            .map_err(|_| JsError::new("params"))?;
    }
    Ok(obj.into())
}

#[derive(Serialize)]
struct ExperimentOut {
    name: &'static str,
    title: &'static str,
    params: Vec<&'static str>,
    tables: Vec<&'static str>,
    charts: Vec<&'static str>,
}

/// The registry: every experiment's name, title, parameter names, CSV files
/// and chart (PNG) files.
#[wasm_bindgen(js_name = experiments)]
pub fn api_experiments() -> Result<JsValue, JsError> {
    let list: Vec<ExperimentOut> = EXPERIMENTS
        .iter()
        .map(|e| ExperimentOut {
            name: e.name,
            title: e.title,
            params: e.params.iter().map(|s| s.name).collect(),
            tables: e.tables.iter().map(|t| t.file).collect(),
            charts: e.charts.iter().map(|c| c.file).collect(),
        })
        .collect();
    out(&list)
}
