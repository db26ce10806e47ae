// bplab's worker loop: appended by scripts/worker-glue.mjs to the
// wasm-bindgen glue made classic (`bplab` holds the glue's exports), so the
// whole worker is one classic script (a module blob worker does not start
// from file://).
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
// `ms` is the time spent computing, measured here (CPU throttling of the page
// does not reach workers: scripts/measure-page.mjs scales it).
'use strict';

const API = new Set(['run', 'explain', 'limit', 'littles', 'experiments']);
const latest = new Map();
const queue = [];
let draining = false;

function describe(err) {
  const text = err && err.message !== undefined ? err.message : String(err);
  return String(text);
}

self.onmessage = (e) => {
  const m = e.data;
  if (m && m.init !== undefined) {
    try {
      bplab.initSync({ module: m.init });
      self.postMessage({ ready: true });
    } catch (err) {
      self.postMessage({ ready: false, error: describe(err) });
    }
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

// One step per task, so that newer requests are read (and older ones become
// stale) between a preview and its full run.
function drain() {
  const m = queue.shift();
  if (m) step(m);
  if (queue.length) setTimeout(drain, 0);
  else draining = false;
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

function step(m) {
  if (stale(m)) {
    self.postMessage({ id: m.id, dropped: true });
    return;
  }
  if (m.call === 'compute') {
    const [experiment, pairs] = m.args;
    if (m.phase !== 'full') {
      const r = timed(() => bplab.__bplab_compute(experiment, pairs, true));
      if (r.err !== undefined) {
        self.postMessage({ id: m.id, phase: 'full', ...r }); // a refusal ends the request
        return;
      }
      if (r.ok !== null) {
        post({ id: m.id, phase: 'preview', ...r });
        // The full run after the requests already waiting: at first load every
        // widget's chosen point comes before the sweeps.
        queue.push({ ...m, phase: 'full' });
        return;
      }
    }
    post({ id: m.id, phase: 'full', ...timed(() => bplab.__bplab_compute(experiment, pairs, false)) });
    return;
  }
  if (!API.has(m.call)) {
    self.postMessage({ id: m.id, err: `bplab worker: no function '${String(m.call).slice(0, 60)}'`, ms: 0 });
    return;
  }
  self.postMessage({ id: m.id, ...timed(() => bplab[m.call](...(m.args || []))) });
}
