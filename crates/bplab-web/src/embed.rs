//! Embedding in an iframe: the widget tells its parent page how tall it is,
//! once it has answered and whenever its size changes after that
//! (ResizeObserver), so the host can size the iframe. The first message
//! already carries the settled height: none is sent while the widget is
//! still computing its first answer (`aria-busy`), and an embedded widget is
//! always laid out (no `content-visibility` placeholder size).
//! Message: `{ type: 'bplab:height', widget, height }` (height in CSS pixels,
//! whole), posted to `window.parent` with target origin `'*'` (a height is
//! not a secret; the host checks `event.source`). Nothing is posted when the
//! page is not in a frame.

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
  const start = () => {
    send();
    addEventListener('load', send);
    if (typeof ResizeObserver === 'function') {
      const ro = new ResizeObserver(send);
      ro.observe(document.documentElement);
      ro.observe(document.body);
    }
  };
  const busy = () => document.querySelector('section.widget[aria-busy=true]');
  const section = document.querySelector('section.widget');
  if (!busy() || !section || typeof MutationObserver !== 'function') {
    start();
    return;
  }
  const mo = new MutationObserver(() => {
    if (busy()) return;
    mo.disconnect();
    start();
  });
  mo.observe(section, { attributes: true, attributeFilter: ['aria-busy'] });
}")]
extern "C" {
    /// Starts posting `widget`'s height to the parent frame once it has answered (no-op outside a frame).
    pub fn post_height(widget: &str);
}
