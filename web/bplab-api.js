// bplab JavaScript API: the lab's wasm core for any page on the same site.
//
//   import { limit, littles, run, explain, experiments } from './bplab-api.js';
//   limit({ workers: 4, budget_ms: 230, service_ms: 12 }).queue_limit;   // 73
//   littles({ arrivals_rps: 48, latency_ms: 230 }).in_flight;             // 11.04
//   const r = run('lesson', { limit: 10, rate: [60, 100] });              // readouts, tables (CSV text), sha256, command
//   explain('admission', { 'service-ms': 7 });                            // the explanations, as data
//
// Plain objects in and out. Parameters of `run`/`explain` use the CLI/URL
// names and are checked by the core exactly as `bplab run` checks them; a
// refused value throws an Error carrying the core's message.
//
// The module finds the wasm-bindgen output through index.html next to it
// (Trunk gives those files content-hashed names), loads it once, and is
// ready when the import resolves (top-level await): the functions are
// synchronous. Same origin only; nothing is fetched from anywhere else.
const here = new URL('.', import.meta.url);

async function load() {
  const html = await fetch(new URL('index.html', here)).then((r) => {
    if (!r.ok) throw new Error(`bplab-api: cannot read index.html next to bplab-api.js (${r.status})`);
    return r.text();
  });
  const js = html.match(/["']\.?\/?(bplab-web-[\w-]*?\.js)["']/);
  const wasm = html.match(/["']\.?\/?(bplab-web-[\w-]*?_bg\.wasm)["']/);
  if (!js || !wasm) throw new Error('bplab-api: index.html does not name the wasm module (not a Trunk build?)');
  const mod = await import(new URL(js[1], here).href);
  await mod.default({ module_or_path: new URL(wasm[1], here) });
  return mod;
}

const wasm = await load();

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
  if (params === null || typeof params !== 'object' || Array.isArray(params)) throw new Error('params: expected an object');
  if (widget !== 'littles') wasm.explain(widget, params); // the core's messages for a refused value
  const query = new URLSearchParams({ embed: widget });
  for (const [k, v] of Object.entries(params)) query.set(k, Array.isArray(v) ? v.join(',') : String(v));
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
