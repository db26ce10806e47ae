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

#[wasm_bindgen(js_namespace = bplabDom)] // web/dom-helpers.js
extern "C" {
    /// Starts posting `widget`'s height to the parent frame once it has answered (no-op outside a frame).
    pub fn post_height(widget: &str);
}
