// The page's JavaScript helpers for the wasm: `globalThis.bplabDom`, which
// crates/bplab-web binds with `#[wasm_bindgen(js_namespace = bplabDom)]`
// (dom.rs: make, mark_on_screen, watch, guarded; explain.rs: copy_text; embed.rs:
// post_height; worker.rs: worker_url).
//
// A plain classic script, inlined into the page by Trunk (rel="inline") before
// the wasm-bindgen glue runs. They are not `inline_js` snippets: wasm-bindgen's
// `--target no-modules` (the worker's glue, scripts/build-web.sh) refuses
// snippets, and a global needs no import. The glue looks `bplabDom` up only
// when a helper is called, so the worker, which calls none of them, goes without
// it; the wasm-bindgen tests evaluate this file first.
'use strict';
globalThis.bplabDom = {
  /** `<tag>` made by `doc`, with the attributes packed as `name NUL value NUL …` and, when given, the text. */
  make(doc, tag, attrs, text) {
    const e = doc.createElement(tag);
    const a = attrs.split('\0');
    for (let i = 0; i + 1 < a.length; i += 2) e.setAttribute(a[i], a[i + 1]);
    if (text !== undefined) e.textContent = text;
    return e;
  },

  /** Gives `attr` to the elements under `at` matching `selector` whose box meets the viewport. */
  mark_on_screen(at, selector, attr) {
    // Every box is read before any is marked (one layout).
    const seen = [...at.querySelectorAll(selector)].filter((e) => {
      const r = e.getBoundingClientRect();
      return r.bottom > 0 && r.top < innerHeight;
    });
    for (const e of seen) e.setAttribute(attr, '');
  },

  /**
   * Calls `f(name)` once for each `section.stub` under `at` (id `w-<name>`) when it comes on screen
   * or within a screen below it (for all at once without IntersectionObserver); one page's at a
   * time. Not above: a widget built above what is on screen would move it (a link's target; the
   * browser keeps what is on screen in place only once the reader has scrolled).
   */
  watch(at, f) {
    const stubs = at.querySelectorAll('section.stub');
    this.io?.disconnect();
    if (typeof IntersectionObserver !== 'function') return stubs.forEach((s) => f(s.id.slice(2)));
    // Those on screen now at once: the observer reports only after the next frame.
    for (const s of stubs) {
      const r = s.getBoundingClientRect();
      if (r.bottom > 0 && r.top < innerHeight) f(s.id.slice(2));
    }
    this.io = new IntersectionObserver((es) => {
      for (const e of es) if (e.isIntersecting) { this.io.unobserve(e.target); f(e.target.id.slice(2)); }
    }, { rootMargin: '0px 0px 100% 0px' });
    stubs.forEach((s) => this.io.observe(s));
  },

  /** Calls `f`; if it throws, no widget stays busy and the error is logged as `what` failed. */
  guarded(f, what) {
    try {
      f();
    } catch (e) {
      // A widget being drawn when this failed must not stay busy (and ignore its later edits).
      for (const s of document.querySelectorAll('[data-drawing]')) {
        s.removeAttribute('data-drawing');
        s.removeAttribute('aria-busy');
        s.setAttribute('data-error', String((e && e.message) || e).slice(0, 200));
      }
      console.error(`bplab-web: ${what} failed:`, e);
    }
  },

  /** Copies `t`, reporting the outcome on the button `b` (never rejects unhandled). */
  copy_text(t, b) {
    const say = (m) => {
      b.textContent = m;
    };
    if (!navigator.clipboard) {
      say('Select the text to copy');
      return;
    }
    navigator.clipboard.writeText(t).then(() => say('Copied'), () => say('Copy blocked: select the text'));
  },

  /** In a frame: posts `{ type: 'bplab:height', widget, height }` to the parent once the widget has answered, and on every resize. */
  post_height(widget) {
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
  },

  /**
   * A Blob URL of the worker's source text, or undefined when the page carries none: the single
   * file unpacks it into `globalThis.__bplabWorkerSrc` before the wasm starts; the served page
   * carries it in `<script type="text/plain" id="bplab-worker-src">`.
   */
  worker_url() {
    let text = globalThis.__bplabWorkerSrc;
    if (typeof text !== 'string' || !text.trim()) {
      const el = document.getElementById('bplab-worker-src');
      text = el ? el.textContent : '';
    }
    if (!text || !text.trim()) return undefined;
    return URL.createObjectURL(new Blob([text], { type: 'text/javascript' }));
  },
};
