//! What the lesson builder hands out: the iframe and JS snippets, `bplab.html`
//! with the question in its questions block, and a SCORM 1.2 zip of that file
//! with `imsmanifest.xml` (the same template `scripts/build-web.sh` fills).

use crate::question::{BLOCK_ID, encode, quote};

/// The manifest template shared with `scripts/build-web.sh`.
pub const MANIFEST: &str = include_str!("../../../../web/scorm/imsmanifest.xml");

/// Text for XML character data and attribute values.
fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// `imsmanifest.xml` for one lesson; `mastery` (0–100) adds `adlcp:masteryscore`.
pub fn manifest(id: &str, title: &str, mastery: Option<f64>) -> String {
    let ident: String = id.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').collect();
    let m = mastery.map(|m| format!("\n        <adlcp:masteryscore>{m}</adlcp:masteryscore>")).unwrap_or_default();
    MANIFEST
        .replace("{identifier}", &format!("bplab-{ident}"))
        .replace("{title}", &xml_escape(title))
        .replace("{mastery}", &m)
}

/// `page` (the pristine single file) with its questions block replaced by `block` (JSON).
pub fn with_block(page: &str, block: &str) -> Result<String, String> {
    let at = page.find(&format!("id=\"{BLOCK_ID}\"")).ok_or("the page has no questions block")?;
    let open = at + page.get(at..).and_then(|t| t.find('>')).ok_or("the questions block is not closed")? + 1;
    let close = open + page.get(open..).and_then(|t| t.find("</script>")).ok_or("the questions block has no end")?;
    // `</` inside the JSON would end the element: JSON lets `/` be escaped.
    let safe = block.replace("</", "<\\/");
    Ok(format!("{}\n{safe}\n{}", page.get(..open).unwrap_or_default(), page.get(close..).unwrap_or_default()))
}

/// The page's questions block for one lesson: that question, its widget shown alone.
pub fn block(widget: &str, question_json: &str) -> String {
    format!("{{ \"embed\": {}, \"questions\": [\n{question_json}\n] }}", quote(widget))
}

/// The embed query of the lesson: `?embed=w&params…&qj=…` (no `qj` without a question).
pub fn query(widget: &str, params: &[(String, String)], question_json: Option<&str>) -> String {
    let mut q = format!("?embed={widget}");
    for (k, v) in params {
        q.push_str(&format!("&{k}={}", String::from(js_sys::encode_uri_component(v))));
    }
    if let Some(j) = question_json {
        q.push_str(&format!("&qj={}", encode(j)));
    }
    q
}

/// The iframe snippet for a lab served at `base` (a URL ending in `/` or a page).
pub fn iframe(base: &str, widget: &str, params: &[(String, String)], question_json: &str) -> String {
    let src = format!("{base}{}", query(widget, params, Some(question_json)));
    format!(
        "<iframe src=\"{}\" title=\"bplab: the {widget} widget\" width=\"100%\" height=\"640\" style=\"border:0\" loading=\"lazy\"></iframe>",
        xml_escape(&src)
    )
}

/// The JS snippet: `mount()` from the JS API next to the lab at `dir`.
pub fn js(dir: &str, widget: &str, params: &[(String, String)], question_json: &str) -> String {
    let p: Vec<String> = params.iter().map(|(k, v)| format!("{}: {}", quote(k), quote(v))).collect();
    format!(
        "<div id=\"bplab-{widget}\"></div>\n<script type=\"module\">\n  import {{ mount }} from '{dir}bplab-api.js';\n  mount(document.getElementById('bplab-{widget}'), {{\n    widget: '{widget}',\n    params: {{ {} }},\n    question: {question_json},\n  }});\n</script>\n",
        p.join(", ")
    )
}

/// A zip of `files`, stored without compression (the page's wasm is gzip-packed already).
pub fn zip(files: &[(&str, &[u8])]) -> Result<Vec<u8>, String> {
    use std::io::Write;
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::FileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, data) in files {
        w.start_file(*name, opts).map_err(|e| format!("zip: {e}"))?;
        w.write_all(data).map_err(|e| format!("zip: {e}"))?;
    }
    w.finish().map(|c| c.into_inner()).map_err(|e| format!("zip: {e}"))
}
