//! Embedding in an iframe: the widget tells its parent page how tall it is,
//! on load and whenever its size changes (ResizeObserver), so the host can
//! size the iframe. Message: `{ type: 'bplab:height', widget, height }`
//! (height in CSS pixels, whole), posted to `window.parent` with target
//! origin `'*'` (a height is not a secret; the host checks `event.source`).
//! Nothing is posted when the page is not in a frame.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(inline_js = "export function post_height(widget) {
  if (window.parent === window) return;
  let last = -1;
  const send = () => {
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height === last) return;
    last = height;
    window.parent.postMessage({ type: 'bplab:height', widget, height }, '*');
  };
  send();
  addEventListener('load', send);
  if (typeof ResizeObserver === 'function') {
    const ro = new ResizeObserver(send);
    ro.observe(document.documentElement);
    ro.observe(document.body);
  }
}")]
extern "C" {
    /// Starts posting `widget`'s height to the parent frame (no-op outside a frame).
    pub fn post_height(widget: &str);
}
