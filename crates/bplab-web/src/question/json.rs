//! A JSON value tree, keys in document order (a question's `vars` are
//! evaluated in the order written), read from the browser's `JSON.parse`
//! (no JSON parser in the wasm: V8's messages give the line and column),
//! with field access that names the path on every error.

use wasm_bindgen::{JsCast, JsValue};

/// A parsed JSON value.
#[derive(Clone, Debug, PartialEq)]
pub enum J {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A number.
    Num(f64),
    /// A string.
    Str(String),
    /// An array.
    Arr(Vec<J>),
    /// An object, keys in document order.
    Obj(Vec<(String, J)>),
}

/// Most nesting levels accepted (a guard against a hostile file).
const MAX_DEPTH: usize = 32;

/// Longest questions text accepted, in bytes.
pub const MAX_BYTES: usize = 256 * 1024;

/// `s` as a JSON string literal.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

impl J {
    /// Parses JSON text (at most [`MAX_BYTES`]) with the browser's `JSON.parse`.
    pub fn parse(text: &str) -> Result<J, String> {
        if text.len() > MAX_BYTES {
            return Err(format!("{} bytes is too long; at most {MAX_BYTES}", text.len()));
        }
        let v = js_sys::JSON::parse(text).map_err(|e| {
            let msg = e.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())).unwrap_or_default();
            format!("not valid JSON: {msg}")
        })?;
        J::from_js(&v, 0)
    }

    fn from_js(v: &JsValue, depth: usize) -> Result<J, String> {
        if depth > MAX_DEPTH {
            return Err(format!("nested deeper than {MAX_DEPTH} levels"));
        }
        if v.is_null() || v.is_undefined() {
            return Ok(J::Null);
        }
        if let Some(b) = v.as_bool() {
            return Ok(J::Bool(b));
        }
        if let Some(n) = v.as_f64() {
            return Ok(J::Num(n));
        }
        if let Some(s) = v.as_string() {
            return Ok(J::Str(s));
        }
        if js_sys::Array::is_array(v) {
            let a = js_sys::Array::from(v);
            return a.iter().map(|x| J::from_js(&x, depth + 1)).collect::<Result<_, _>>().map(J::Arr);
        }
        let o = v.dyn_ref::<js_sys::Object>().ok_or("unexpected JSON value")?;
        let mut out = Vec::new();
        for entry in js_sys::Object::entries(o).iter() {
            let pair = js_sys::Array::from(&entry);
            let k = pair.get(0).as_string().unwrap_or_default();
            out.push((k, J::from_js(&pair.get(1), depth + 1)?));
        }
        Ok(J::Obj(out))
    }

    /// As compact JSON text (keys in their order).
    pub fn to_json(&self) -> String {
        match self {
            J::Null => "null".to_owned(),
            J::Bool(b) => b.to_string(),
            J::Num(n) if n.is_finite() => format!("{n}"),
            J::Num(_) => "null".to_owned(),
            J::Str(s) => quote(s),
            J::Arr(a) => format!("[{}]", a.iter().map(J::to_json).collect::<Vec<_>>().join(",")),
            J::Obj(kv) => {
                let items: Vec<String> = kv.iter().map(|(k, v)| format!("{}:{}", quote(k), v.to_json())).collect();
                format!("{{{}}}", items.join(","))
            }
        }
    }

    /// The value of key `k` of an object.
    pub fn get(&self, k: &str) -> Option<&J> {
        match self {
            J::Obj(kv) => kv.iter().find(|(key, _)| key == k).map(|(_, v)| v),
            _ => None,
        }
    }

    /// What kind of value this is, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            J::Null => "null",
            J::Bool(_) => "a boolean",
            J::Num(_) => "a number",
            J::Str(_) => "a string",
            J::Arr(_) => "an array",
            J::Obj(_) => "an object",
        }
    }
}

/// A field error: `path: what is wrong`.
pub type FieldError = String;

/// An error about the value at `path`.
pub fn err(path: &str, what: impl std::fmt::Display) -> FieldError {
    format!("{path}: {what}")
}

/// The text at `path`, or an error naming the field.
pub fn str_at<'a>(v: &'a J, path: &str) -> Result<&'a str, FieldError> {
    match v {
        J::Str(s) => Ok(s),
        other => Err(err(path, format!("expected a string, found {}", other.kind()))),
    }
}

/// Non-empty text at `path`.
pub fn text_at<'a>(v: &'a J, path: &str) -> Result<&'a str, FieldError> {
    let s = str_at(v, path)?;
    if s.trim().is_empty() { Err(err(path, "must not be empty")) } else { Ok(s) }
}

/// The items at `path`.
pub fn arr_at<'a>(v: &'a J, path: &str) -> Result<&'a [J], FieldError> {
    match v {
        J::Arr(a) => Ok(a),
        other => Err(err(path, format!("expected an array, found {}", other.kind()))),
    }
}

/// The entries at `path`.
pub fn obj_at<'a>(v: &'a J, path: &str) -> Result<&'a [(String, J)], FieldError> {
    match v {
        J::Obj(kv) => Ok(kv),
        other => Err(err(path, format!("expected an object, found {}", other.kind()))),
    }
}

/// Refuses keys outside `allowed` (a typo would otherwise be ignored silently).
pub fn only(v: &J, path: &str, allowed: &[&str]) -> Result<(), FieldError> {
    for (k, _) in obj_at(v, path)? {
        if !allowed.contains(&k.as_str()) {
            return Err(err(path, format!("unknown field '{k}'; expected one of: {}", allowed.join(", "))));
        }
    }
    Ok(())
}

/// The required field `k` of the object at `path`.
pub fn field<'a>(v: &'a J, path: &str, k: &str) -> Result<&'a J, FieldError> {
    obj_at(v, path)?;
    v.get(k).ok_or_else(|| err(path, format!("missing field '{k}'")))
}
