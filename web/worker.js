// bplab's worker loop: appended by scripts/worker-glue.mjs to wasm-bindgen's
// `--target no-modules` glue (the global `wasm_bindgen` holds its exports and
// `initSync`), so the whole worker is one classic script (a module blob
// worker does not start from file://). The page's DOM helpers (`bplabDom`,
// web/dom-helpers.js) are not here: the core never calls them in a worker.
//
// Messages in:
//   { init: WebAssembly.Module }                first: instantiate the page's compiled module
//   { id, key, call: 'compute', args: [experiment, pairs] }     a widget's run (page)
//   { id, key, call: 'run' | 'explain' | 'limit' | 'littles' | 'experiments', args }   the JS API
// Messages out:
//   { ready: true } | { ready: false, error }
//   { id, phase: 'preview' | 'full', ok | err, ms }   (compute: the preview first, when there is one;
//                                                     ok: the view's bytes, a Uint8Array, transferred)
//   { id, ok | err, ms }                              (API calls)
//   { id, dropped: true }                             a newer request with the same key came first
// `ms` is the time spent computing, measured here. CPU throttling of the page
// does not reach workers, so `{ init, slow: k }` (scripts/measure-page.mjs sets
// k to its throttling rate; nothing else does) makes this worker as slow as the
// page: after each piece of work it waits (k − 1) × that work's time before it
// posts the answer and takes the next request, so an answer lands k × its
// compute time after the worker took it, and work queued behind it waits too.
'use strict';

// The glue's exports and `initSync`.
const bplab = wasm_bindgen;
const API = new Set(['run', 'explain', 'limit', 'littles', 'experiments']);
const latest = new Map();
const queue = [];
let draining = false;
// How many times slower than this thread the worker behaves (1: not at all).
let slow = 1;

function describe(err) {
  const text = err && err.message !== undefined ? err.message : String(err);
  return String(text);
}

self.onmessage = (e) => {
  const m = e.data;
  if (m && m.init !== undefined) {
    const k = Number(m.slow);
    if (k > 1 && k <= 20) slow = k;
    const t0 = performance.now();
    let out;
    try {
      bplab.initSync({ module: m.init });
      out = { ready: true };
    } catch (err) {
      out = { ready: false, error: describe(err) };
    }
    // Requests that come meanwhile wait in the queue, as they would behind a slow start.
    draining = true;
    held(performance.now() - t0, () => {
      self.postMessage(out);
      drain();
    });
    return;
  }
  if (!m || typeof m.id !== 'number') return;
  if (m.key != null) latest.set(m.key, m.id);
  queue.push(m);
  if (!draining) {
    draining = true;
    setTimeout(drain, 0);
  }
};

// Runs `then` after (slow − 1) × `ms`, or in the next task when not slowed.
function held(ms, then) {
  setTimeout(then, slow > 1 ? (slow - 1) * ms : 0);
}

// One step per task, so that newer requests are read (and older ones become
// stale) between a preview and its full run.
function drain() {
  const m = queue.shift();
  const done = m ? step(m) : null;
  const next = () => {
    if (done) post(done);
    if (queue.length) setTimeout(drain, 0);
    else draining = false;
  };
  if (done && done.ms > 0 && slow > 1) held(done.ms, next);
  else next();
}

function stale(m) {
  return m.key != null && latest.get(m.key) !== m.id;
}

function timed(f) {
  const t0 = performance.now();
  try {
    const ok = f();
    return { ok, ms: performance.now() - t0 };
  } catch (err) {
    return { err: describe(err), ms: performance.now() - t0 };
  }
}

// A view's bytes move to the page without a copy.
function post(msg) {
  self.postMessage(msg, msg.ok instanceof Uint8Array ? [msg.ok.buffer] : []);
}

// Does one request's work and returns the message to post for it.
function step(m) {
  if (stale(m)) return { id: m.id, dropped: true, ms: 0 };
  if (m.call === 'compute') {
    const [experiment, pairs] = m.args;
    if (m.phase !== 'full') {
      const r = timed(() => bplab.__bplab_compute(experiment, pairs, true));
      if (r.err !== undefined) return { id: m.id, phase: 'full', ...r }; // a refusal ends the request
      if (r.ok !== null) {
        // The full run after the requests already waiting: at first load every
        // widget's chosen point comes before the sweeps.
        queue.push({ ...m, phase: 'full' });
        return { id: m.id, phase: 'preview', ...r };
      }
    }
    return { id: m.id, phase: 'full', ...timed(() => bplab.__bplab_compute(experiment, pairs, false)) };
  }
  if (!API.has(m.call)) return { id: m.id, err: `bplab worker: no function '${String(m.call).slice(0, 60)}'`, ms: 0 };
  return { id: m.id, ...timed(() => bplab[m.call](...(m.args || []))) };
}
