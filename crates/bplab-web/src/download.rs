//! Downloads: CSV text as a Blob, canvases as PNG. Everything stays in the
//! page (object and data URLs); nothing goes to another origin.

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{Blob, BlobPropertyBag, HtmlAnchorElement, HtmlCanvasElement, Url};

use crate::dom::document;

fn click_link(href: &str, file: &str) -> Result<(), JsValue> {
    let doc = document().ok_or_else(|| JsValue::from_str("no document"))?;
    let a: HtmlAnchorElement = doc.create_element("a")?.dyn_into().map_err(|_| JsValue::from_str("anchor"))?;
    a.set_href(href);
    a.set_download(file);
    a.set_hidden(true);
    let body = doc.body().ok_or_else(|| JsValue::from_str("no body"))?;
    body.append_child(&a)?;
    a.click();
    body.remove_child(&a)?;
    Ok(())
}

/// Offers `text` as a download named `file` (text/csv).
pub fn csv(file: &str, text: &str) -> Result<(), JsValue> {
    text_file(file, text, "text/csv;charset=utf-8")
}

/// Offers `text` as a download named `file` with MIME type `mime`.
pub fn text_file(file: &str, text: &str, mime: &str) -> Result<(), JsValue> {
    blob_file(file, &JsValue::from_str(text), mime)
}

/// Offers `bytes` as a download named `file` with MIME type `mime`.
pub fn bytes_file(file: &str, bytes: &[u8], mime: &str) -> Result<(), JsValue> {
    blob_file(file, &js_sys::Uint8Array::from(bytes), mime)
}

fn blob_file(file: &str, part: &JsValue, mime: &str) -> Result<(), JsValue> {
    let parts = js_sys::Array::of1(part);
    let opts = BlobPropertyBag::new();
    opts.set_type(mime);
    let blob = Blob::new_with_blob_sequence_and_options(&parts, &opts)?;
    let url = Url::create_object_url_with_blob(&blob)?;
    let r = click_link(&url, file);
    // Revoke later: the download reads the URL after this handler returns.
    if let Some(w) = web_sys::window() {
        let revoke = Closure::once_into_js(move || {
            let _ = Url::revoke_object_url(&url);
        });
        w.set_timeout_with_callback_and_timeout_and_arguments_0(revoke.unchecked_ref(), 10_000)?;
    }
    r
}

/// Offers the canvas's figure as a PNG download named `file`, drawn at a
/// fixed size in light colours (`chart::png_data_url`).
pub fn png(canvas: &HtmlCanvasElement, file: &str) -> Result<(), JsValue> {
    let url = crate::chart::png_data_url(canvas)?;
    click_link(&url, file)
}
