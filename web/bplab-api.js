// bplab JavaScript API: the lab's wasm core for any page on the same site.
//
//   import { limit, littles, run, explain, experiments, runAsync } from './bplab-api.js';
//   limit({ workers: 4, budget_ms: 230, service_ms: 12 }).queue_limit;   // 73
//   littles({ arrivals_rps: 50, latency_ms: 200 }).in_flight;             // 10
//   const r = run('lesson', { limit: 10, rate: [60, 100] });              // readouts, tables (CSV text), sha256, command
//   explain('admission', { 'service-ms': 7 });                            // the explanations, as data
//   await runAsync('lesson', { rate: [20000] });                          // the same, computed in a Web Worker
//
// Plain objects in and out. Parameters of `run`/`explain` use the CLI/URL
// names and are checked by the core exactly as `bplab run` checks them; a
// refused value throws an Error carrying the core's message (each entry checks
// its arguments' JS types first, refuses unknown keys with the same wording and
// quotes at most 60 characters of a value).
//
// The synchronous functions run on the calling thread: a heavy run holds the
// host page's main thread while it computes. `limitAsync`, `littlesAsync`,
// `runAsync` and `explainAsync` return promises and compute in a dedicated
// worker holding the same wasm (its arguments are checked here first, so a
// refusal rejects with the same message as the synchronous call); where
// workers are unavailable they compute here, after the current task.
// Every check sizes a value before copying it (a string's length, an array's
// or a Proxy's `length`, an object's keys one by one), so a refusal takes
// microseconds, however large the value claims to be.
//
// The module reads the build's file names from bplab-files.json next to it
// (written by scripts/worker-glue.mjs: Trunk gives the files content-hashed
// names), compiles the wasm once, and is ready when the import resolves
// (top-level await). Same origin only; nothing is fetched from anywhere else.
const here = new URL('.', import.meta.url);

async function files() {
  const r = await fetch(new URL('bplab-files.json', here));
  if (!r.ok) throw new Error(`bplab-api: cannot read bplab-files.json next to bplab-api.js (${r.status}); build with scripts/build-web.sh`);
  const f = await r.json();
  for (const k of ['glue', 'wasm', 'worker']) {
    if (typeof f[k] !== 'string' || !/^[\w.-]+$/.test(f[k])) throw new Error(`bplab-api: bplab-files.json: no file name for '${k}'`);
  }
  return f;
}

async function load() {
  const f = await files();
  const wasmUrl = new URL(f.wasm, here);
  const module = typeof WebAssembly.compileStreaming === 'function'
    ? await WebAssembly.compileStreaming(fetch(wasmUrl)).catch(async () => WebAssembly.compile(await (await fetch(wasmUrl)).arrayBuffer()))
    : await WebAssembly.compile(await (await fetch(wasmUrl)).arrayBuffer());
  const glue = await import(new URL(f.glue, here).href);
  await glue.default({ module_or_path: module });
  return { glue, module, workerUrl: new URL(f.worker, here) };
}

const core = await load();
const wasm = core.glue;

/** Admission limit from `{ workers, budget_ms, service_ms }`: queue_limit, in_system_limit, capacity_rps, explanation, record, … */
export const limit = (input) => wasm.limit(input);
/** Little's law: give two of `{ arrivals_rps, latency_ms, in_flight }`; returns all three and the explanation. */
export const littles = (input) => wasm.littles(input);
/** Runs an experiment: `{ experiment, params, readouts: [{name, value}], tables: {file: csv}, sha256: {file: hex}, command }`. */
export const run = (experiment, params = {}) => wasm.run(experiment, params);
/** The experiment's explanations (title, answer, steps, assumes, ignores, would_change). */
export const explain = (experiment, params = {}) => wasm.explain(experiment, params);
/** The registry: `[{ name, title, params: [names], tables: [files] }]`. */
export const experiments = () => wasm.experiments();

// ---- The worker behind the promise-returning variants (started on first use).
let worker = null; // null: not started; false: unavailable (compute here)
let nextId = 0;
const pending = new Map();

function local(call, args) {
  return new Promise((ok, fail) => setTimeout(() => {
    try { ok(wasm[call](...args)); } catch (e) { fail(e); }
  }, 0));
}

function failAll(why) {
  worker = false;
  const jobs = [...pending.values()];
  pending.clear();
  for (const j of jobs) local(j.call, j.args).then(j.ok, j.fail);
  console.warn(`bplab-api: the worker stopped (${why}); computing on this thread`);
}

function startWorker() {
  if (worker !== null) return worker;
  if (typeof Worker !== 'function') return (worker = false);
  try {
    worker = new Worker(core.workerUrl);
  } catch {
    return (worker = false);
  }
  worker.onmessage = (e) => {
    const m = e.data;
    if (m.ready === false) return failAll(m.error);
    const j = pending.get(m.id);
    if (!j) return;
    pending.delete(m.id);
    if (m.err !== undefined) j.fail(new Error(m.err));
    else j.ok(m.ok);
  };
  worker.onerror = (e) => {
    e.preventDefault();
    failAll(e.message || 'worker error');
  };
  worker.postMessage({ init: core.module });
  return worker;
}

function inWorker(call, a, b) {
  let args;
  try {
    args = wasm.__bplab_check(call, a, b); // the synchronous call's checks and messages
  } catch (e) {
    return Promise.reject(e);
  }
  const w = startWorker();
  if (!w) return local(call, args);
  return new Promise((ok, fail) => {
    const id = ++nextId;
    pending.set(id, { call, args, ok, fail });
    w.postMessage({ id, call, args });
  });
}

/** `limit`, computed in the worker: a promise of the same result. */
export const limitAsync = (input) => inWorker('limit', input);
/** `littles`, computed in the worker. */
export const littlesAsync = (input) => inWorker('littles', input);
/** `run`, computed in the worker: the host page's main thread stays free. */
export const runAsync = (experiment, params = {}) => inWorker('run', experiment, params);
/** `explain`, computed in the worker. */
export const explainAsync = (experiment, params = {}) => inWorker('explain', experiment, params);

// --- mount: a widget with its question on any page of the same site ------------
//
//   import { mount } from './bplab-api.js';
//   mount(document.querySelector('#lesson-1'), {
//     widget: 'littles',
//     params: { workers: 4, 'service-ms': 12 },
//     question: { id: 'mine', widget: 'littles', prompt: '…', options: [ … ], answer: { … } },  // or a question id
//   });
//
// Each mount is the widget embedded in its own frame (the lab's page with
// `?embed=<widget>`, its parameters and the question as `qj=`): its ids,
// styles and URL live in that frame, so several mounts share one host page
// without colliding and none writes the host's URL. The frame follows its
// content's height. The question is checked here first with the lab's
// messages (thrown as an Error naming the field).
let mounted = 0;

/** Mounts `widget` with `params` and `question` into `element`; returns `{ frame, remove() }`. */
export function mount(element, { widget, params = {}, question } = {}) {
  if (!(element instanceof Element)) throw new Error('mount: expected a DOM element to mount into');
  const names = ['littles', ...wasm.experiments().map((e) => e.name)];
  if (typeof widget !== 'string' || !names.includes(widget)) {
    throw new Error(`widget: expected one of ${names.join(', ')}, got ${JSON.stringify(widget)}`);
  }
  // Every widget's parameters, Little's law's too, checked as its page will read them (sizes
  // first, nothing run), with the lab's messages; the checked texts go into the frame's query.
  const texts = wasm.__bplab_check_widget(widget, params);
  const query = new URLSearchParams({ embed: widget });
  for (const [k, v] of Object.entries(texts)) query.set(k, v);
  if (typeof question === 'string') {
    query.set('q', question);
  } else if (question !== undefined && question !== null) {
    if (typeof question !== 'object') throw new Error('question: expected an object or a question id');
    if (question.widget !== widget) throw new Error(`question.widget: expected '${widget}', the widget being mounted`);
    query.set('qj', wasm.questionParam(JSON.stringify(question)));
  }
  const frame = document.createElement('iframe');
  frame.src = new URL(`index.html?${query}`, here).href;
  frame.title = `bplab: the ${widget} widget`;
  frame.style.cssText = 'border:0;width:100%;height:640px;display:block';
  frame.dataset.bplabMount = String(++mounted);
  const onMessage = (e) => {
    const d = e.data;
    if (e.source === frame.contentWindow && d && d.type === 'bplab:height' && d.height > 0) {
      frame.style.height = `${Math.ceil(d.height)}px`;
    }
  };
  addEventListener('message', onMessage);
  element.append(frame);
  return { frame, remove() { removeEventListener('message', onMessage); frame.remove(); } };
}
