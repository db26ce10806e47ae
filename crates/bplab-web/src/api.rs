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
//! - `experiments()` → the registry: names, titles, parameter names, tables.
//!
//! Every refusal is a thrown `Error` whose message is the core's.

use std::collections::BTreeMap;

use bplab_core::calc::{self, Explanation, LimitInput, LittlesInput};
use bplab_core::{Caps, ConfigError, Experiment, Scenario};
use serde::Serialize;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use crate::proof;

fn out<T: Serialize>(v: &T) -> Result<JsValue, JsError> {
    v.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).map_err(|e| JsError::new(&e.to_string()))
}

fn input<T: serde::de::DeserializeOwned>(what: &str, v: JsValue) -> Result<T, JsError> {
    serde_wasm_bindgen::from_value(v).map_err(|e| {
        let msg = e.to_string();
        JsError::new(&format!("{what}: {}", msg.strip_prefix("Error: ").unwrap_or(&msg)))
    })
}

fn core(e: ConfigError) -> JsError {
    JsError::new(&e.to_string())
}

/// The limit calculator: `limit({workers: 4, budget_ms: 230, service_ms: 12}).queue_limit` is 73.
#[wasm_bindgen(js_name = limit)]
pub fn api_limit(input_: JsValue) -> Result<JsValue, JsError> {
    let i: LimitInput = input("limit", input_)?;
    out(&calc::limit(i).map_err(core)?)
}

/// Little's law: give two of `arrivals_rps`, `latency_ms`, `in_flight`; all three come back.
#[wasm_bindgen(js_name = littles)]
pub fn api_littles(input_: JsValue) -> Result<JsValue, JsError> {
    let i: LittlesInput = input("littles", input_)?;
    out(&calc::littles(i).map_err(core)?)
}

/// A parameter value from JS as the text `Params::set` reads: strings as
/// they are, numbers as written (`7`, `0.25`), arrays joined with commas.
fn param_text(name: &str, v: &JsValue) -> Result<String, JsError> {
    if let Some(s) = v.as_string() {
        return Ok(s);
    }
    if let Some(n) = v.as_f64() {
        return Ok(format!("{n}"));
    }
    if js_sys::Array::is_array(v) {
        let parts = js_sys::Array::from(v).iter().map(|x| param_text(name, &x)).collect::<Result<Vec<_>, _>>()?;
        return Ok(parts.join(","));
    }
    Err(JsError::new(&format!("{name}: expected a number, a string or an array of them")))
}

/// Checks `params` for `exp` the way `bplab run` does and returns the scenario.
fn scenario(experiment: &str, params: JsValue) -> Result<Scenario, JsError> {
    let exp = Experiment::named(experiment).map_err(core)?;
    let mut p = exp.defaults();
    let mut pairs: Vec<(String, String)> = Vec::new();
    if !(params.is_undefined() || params.is_null()) {
        let obj = params.dyn_ref::<js_sys::Object>().ok_or_else(|| JsError::new("params: expected an object"))?;
        for entry in js_sys::Object::entries(obj).iter() {
            let pair = js_sys::Array::from(&entry);
            let name = pair.get(0).as_string().unwrap_or_default();
            if !bplab_core::EXPERIMENTS.iter().any(|e| e.param(&name).is_some()) {
                let known: Vec<&str> = exp.params.iter().map(|s| s.name).collect();
                return Err(JsError::new(&format!(
                    "unknown parameter '{name}'; the {} experiment takes: {}",
                    exp.name,
                    known.join(", ")
                )));
            }
            pairs.push((name.clone(), param_text(&name, &pair.get(1))?));
        }
    }
    // A name another experiment takes is refused as not used by this one.
    p.apply(&pairs).map_err(core)?;
    Scenario::new(p, Caps::PAGE).map_err(core)
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
pub fn api_run(experiment: &str, params: JsValue) -> Result<JsValue, JsError> {
    let sc = scenario(experiment, params)?;
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
pub fn api_explain(experiment: &str, params: JsValue) -> Result<JsValue, JsError> {
    let explanations: Vec<Explanation> = scenario(experiment, params)?.run().explanations();
    out(&explanations)
}

#[derive(Serialize)]
struct ExperimentOut {
    name: &'static str,
    title: &'static str,
    params: Vec<&'static str>,
    tables: Vec<&'static str>,
}

/// The registry: every experiment's name, title, parameter names and CSV files.
#[wasm_bindgen(js_name = experiments)]
pub fn api_experiments() -> Result<JsValue, JsError> {
    let list: Vec<ExperimentOut> = bplab_core::EXPERIMENTS
        .iter()
        .map(|e| ExperimentOut {
            name: e.name,
            title: e.title,
            params: e.params.iter().map(|s| s.name).collect(),
            tables: e.tables.iter().map(|t| t.file).collect(),
        })
        .collect();
    out(&list)
}
