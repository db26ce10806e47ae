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
