#!/usr/bin/env node
// Measures the built page (dist/, or DIST_DIR) in headless chromium, at 1×
// and at 4× CPU throttling (CDP Emulation.setCPUThrottlingRate: a mid-range
// phone), and counts main-thread long tasks (PerformanceObserver 'longtask').
//
// For each widget (scrolled into view first: a user moves a slider they see)
// its main slider (data-main) is moved MOVES times, one step at a time away
// from the default and back, each move after the last one has settled. One move: t0 = performance.now(); set the value; dispatch `input`;
// then
//   frame   t0 → the next animation frame after the handler (the handler
//           only updates the control and schedules work);
//   point   t0 → the chosen point's numbers and charts on screen: the page
//           draws each answer in an animation-frame callback, so it is
//           painted at the end of that frame; this is the end of the draw of
//           the first answer for this edit (data-shown names the edit's
//           generation, data-drawn-at the time). A page that draws in the
//           handler itself (the page before the worker) paints in the next
//           frame: the next frame's time;
//   settled t0 → the same for the last answer (aria-busy gone: the full run,
//           sweeps included, drawn).
// CDP throttles only the page's main thread, not workers. So at a rate k the
// page's worker is made as slow as the page (window.__bplabWorkerSlow = k,
// set before the page starts; web/worker.js): after each piece of work it
// waits (k − 1) × that work's time before it posts the answer and takes the
// next request. A result that waited for the worker then comes k × its
// compute time after the worker took it, as if the worker ran on a throttled
// core of its own, and what the worker does while the main thread is busy
// elsewhere (at first load) overlaps as it would on a phone. With
// --worker-formula the worker runs unslowed and a result is counted as
// measured + (k − 1) × the compute time the worker reported for it
// (data-compute-ms): the same for one edit, but at first load it adds every
// answer's compute time on top, even the work done while the main thread was
// still building the page. A page without those attributes (the main-thread
// page before the worker) computes in the handler or in later main-thread
// tasks, which the throttling does slow.
//
// Then heavy accepted settings (lesson and adaptive at 20,000 rps): the
// longest main-thread task while the widget computes them. Then the first
// load (a fresh page each time; times from the navigation's start, see init):
//   first   the first widget on screen shows its numbers and charts: its
//           data-shown set, its content rendered (not skipped by
//           content-visibility) and its canvases on screen drawn, timed in
//           the task after that frame (its paint);
//   key     at that moment its main slider is moved one step (as the moves
//           below do; a reader pressing an arrow key as soon as the numbers
//           are up): when that edit's answer is drawn (data-drawn-at of the
//           edit's generation), and how long after the edit;
//   far     then, once the page is quiet, the widget far down (--far,
//           metastable, the last) is scrolled into view: to its numbers and
//           charts on screen, as for `first` (built first, on a page that
//           builds a widget as it nears the viewport), and then one step of
//           its main slider to that edit's answer;
// and the page weight (gzip of what the page loads: index.html, wasm, js, css).
//
// Usage: node scripts/measure-page.mjs [--json] [--moves N] [--rates 1,4] [--load-only] [--worker-formula] [--widgets a,b] [--loads N] [--query Q] [--far W]
//   --load-only measures the first loads and the weight alone (no moves, no heavy settings).
//   --worker-formula: the worker unslowed, its compute time added (k − 1) times (see above).
//   --widgets lesson,metastable: only those widgets' moves.
//   --loads N: first loads measured per rate (5).
//   --query Q: the page's query string, e.g. '?embed=lesson' (one widget, as a course page embeds it).
//   --far W: the widget scrolled to after the first load (metastable); none in an embed.
//   DIST_DIR=/path/to/dist to measure another build (e.g. the one before a change).
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { DIST, launch, openPage, ready, site } from '../tests/e2e/harness.mjs';

const USAGE = `Usage: node scripts/measure-page.mjs [options]
Measures the built page (dist/, or DIST_DIR) in headless chromium at 1x and 4x CPU:
slider moves per widget (input -> next frame, chosen point, settled), long tasks,
heavy settings, first loads, and the page weight (gzip). A first load is timed from
the navigation's start to: the first widget on screen showing its numbers and charts;
the answer to one step of its main slider made at that moment; then, the page quiet,
the widget far down (--far) scrolled into view showing its numbers and charts (built
on the way, on a page that builds widgets as they near the viewport), and the answer
to one step of its main slider.
  --json               print the results as JSON
  --moves N            slider moves per widget (40)
  --rates 1,4          CPU throttling rates (1,4)
  --load-only          only the first loads and the weight (no moves, no heavy settings)
  --worker-formula     the worker unslowed, its compute time added (k - 1) times
  --widgets a,b        only these widgets' moves
  --loads N            first loads measured per rate (5)
  --query Q            the page's query string, e.g. '?embed=lesson' or '#w-lesson'
  --far W              the widget scrolled to after the first load (metastable)
  -h, --help           this help
Environment: DIST_DIR=/path/to/dist measures another build; BASE_URL a served one.`;
const FLAGS = ['--json', '--load-only', '--worker-formula'];
const VALUED = ['--moves', '--rates', '--widgets', '--loads', '--query', '--far'];
const usageError = (msg) => {
  console.error(`measure-page: ${msg}\n${USAGE}`);
  process.exit(2);
};
{
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    process.exit(0);
  }
  for (let i = 0; i < argv.length; i++) {
    if (VALUED.includes(argv[i])) {
      if (i + 1 >= argv.length) usageError(`${argv[i]} needs a value`);
      i++;
    } else if (!FLAGS.includes(argv[i])) {
      usageError(`unknown argument '${argv[i]}'`);
    }
  }
}
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const count = (name, dflt) => {
  const v = arg(name, String(dflt));
  if (!/^[1-9]\d{0,4}$/.test(v)) usageError(`${name}: '${v}' is not accepted; expected a whole number from 1 to 99999`);
  return Number(v);
};
const MOVES = count('--moves', 40);
const RATES = arg('--rates', '1,4').split(',').map(Number);
if (RATES.some((r) => !(r >= 1 && r <= 20))) usageError(`--rates: '${arg('--rates')}' is not accepted; expected comma-separated rates from 1 to 20`);
const LOADS = count('--loads', 5);
const QUERY = arg('--query', '');
const FAR = arg('--far', 'metastable');
if (!/^[a-z]+$/.test(FAR)) usageError(`--far: '${FAR}' is not a widget name`);
const json = process.argv.includes('--json');
const loadOnly = process.argv.includes('--load-only');
const formula = process.argv.includes('--worker-formula');
// Only these widgets' moves (all by default).
const ONLY = arg('--widgets', '') ? arg('--widgets', '').split(',') : null;

function pct(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

// Recorded from the first script of every page: long tasks, and the first
// widget on screen answering (then one step of its main slider, answered).
function init() {
  window.__long = [];
  try {
    new PerformanceObserver((l) => {
      for (const e of l.getEntries()) window.__long.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: 'longtask', buffered: true });
  } catch {}
  // Boxes are read only once a widget is marked shown: reading one forces a layout, which
  // mid-load would change the load.
  const onScreen = (e) => {
    const r = e.getBoundingClientRect();
    return r.bottom > 0 && r.top < innerHeight;
  };
  // Its numbers rendered (not skipped by content-visibility) and its canvases on screen drawn.
  window.__rendered = (w) => {
    const o = w.querySelector('output');
    return (!o || o.checkVisibility({ contentVisibilityAuto: true }))
      && [...w.querySelectorAll('canvas')].filter(onScreen).every((c) => c.hasAttribute('data-layout'));
  };
  // After the rendering of the frame this runs in (a frame callback): the next task.
  window.__afterFrame = (then) => setTimeout(() => then(performance.now()), 0);
  // Resolves with the time `w` answered (numbers and charts on screen), once it has.
  window.__answers = (w) => new Promise((ok) => {
    const when = () => (window.__rendered(w) ? window.__afterFrame(ok) : requestAnimationFrame(when));
    when();
  });
  // One step of `w`'s main slider (as the moves do); resolves with when its answer was drawn.
  window.__step = (w) => {
    const s = w.querySelector('input[type=range][data-main]');
    if (!s) return Promise.resolve({ error: 'no main slider' });
    const t0 = performance.now();
    s.value = String(Math.min(Number(s.max), Number(s.value) + (Number(s.step) || 1)));
    s.dispatchEvent(new Event('input', { bubbles: true }));
    const gen = w.dataset.gen;
    return new Promise((ok) => {
      const done = () => (w.dataset.shown || '').startsWith(`${gen}:`);
      const end = () => ok({ t0, at: Number(w.dataset.drawnAt), computeMs: Number(w.dataset.computeMs || 0) });
      if (done()) return end();
      const mo = new MutationObserver(() => { if (done()) { mo.disconnect(); end(); } });
      mo.observe(w, { attributes: true });
    });
  };
  // Scrolls widget `name` into view; resolves with its section once it is built (on a page that
  // builds widgets as they near the viewport, at once otherwise).
  window.__built = (name) => new Promise((ok) => {
    document.getElementById(`w-${name}`).scrollIntoView({ block: 'start' });
    const built = () => document.querySelector(`section.widget#w-${name}`);
    if (built()) return ok(built());
    const mo = new MutationObserver(() => { if (built()) { mo.disconnect(); ok(built()); } });
    mo.observe(document, { subtree: true, childList: true });
  });
  let seen = false;
  // Awaited over CDP (Runtime.evaluate), so that waiting for the load injects nothing into the page:
  // Playwright's waitForSelector/waitForFunction would evaluate its selector engine there mid-load
  // (about 25–30 ms of main-thread script at 4×, counted as the page's).
  window.__firstPromise = new Promise((ok) => {
    new MutationObserver((rs) => {
      if (seen) return;
      const w = rs.map((r) => r.target).find((t) => t.matches('section.widget') && t.dataset.shown && onScreen(t));
      if (!w) return;
      seen = true;
      window.__answers(w).then(async (at) => {
        const key = await window.__step(w);
        ok({ widget: w.dataset.widget, at, computeMs: Number(w.dataset.computeMs || 0), key });
      });
    }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-shown'] });
  });
}

/** Scrolls widget `far` into view; when it answered, and then one step of its main slider. */
async function scrolledTo(page, far) {
  return page.evaluate(async (far) => {
    const t0 = performance.now();
    document.getElementById(`w-${far}`).scrollIntoView({ block: 'start' });
    const w = await new Promise((ok) => {
      const built = () => document.querySelector(`section.widget#w-${far}[data-shown]`);
      if (built()) return ok(built());
      const mo = new MutationObserver(() => { if (built()) { mo.disconnect(); ok(built()); } });
      mo.observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-shown'] });
    });
    const at = await window.__answers(w);
    const key = await window.__step(w);
    return { t0, at, computeMs: Number(w.dataset.computeMs || 0), key };
  }, far);
}

async function moves(page, widget, n) {
  return page.evaluate(async ({ widget, n }) => {
    // A user moves a slider they can see: its widget in view (charts out of view are drawn later).
    const sec = await window.__built(widget);
    const s = sec.querySelector('input[type=range][data-main]');
    if (!s) return { error: 'no main slider' };
    const [min, max, step] = [Number(s.min), Number(s.max), Number(s.step) || 1];
    const start = Number(s.value);
    const frame = () => new Promise((ok) => requestAnimationFrame(() => ok(performance.now())));
    const busy = () => sec.getAttribute('aria-busy') === 'true';
    // Resolves when `cond()` holds, checked on every attribute change of the section.
    const when = (cond) => new Promise((ok) => {
      if (cond()) return ok();
      const mo = new MutationObserver(() => { if (cond()) { mo.disconnect(); ok(); } });
      mo.observe(sec, { attributes: true });
    });
    const out = { frame: [], point: [], settled: [], pointCompute: [], settledCompute: [], param: s.dataset.param };
    await when(() => !busy());
    for (let i = 0; i < 3; i++) await frame();
    for (let i = 0; i < n; i++) {
      const k = i < n / 2 ? i + 1 : n - i - 1;
      let v = start + k * step;
      if (v > max) v = start - k * step;
      v = Math.min(max, Math.max(min, v));
      await frame();
      const t0 = performance.now();
      s.value = String(v);
      s.dispatchEvent(new Event('input', { bubbles: true }));
      const gen = sec.dataset.gen;
      const framed = frame();
      // The first answer for this edit (pages with a worker mark it; others answered in the handler).
      const answered = gen === undefined ? Promise.resolve() : when(() => (sec.dataset.shown || '').startsWith(`${gen}:`));
      const tf = await framed;
      await answered;
      const pointCompute = gen === undefined ? 0 : Number(sec.dataset.computeMs || 0);
      // Drawn in a frame callback, the answer is painted at the end of that frame: the draw's
      // end (data-drawn-at). A page that draws in the handler paints in the next frame.
      const tp = gen === undefined ? await frame() : Number(sec.dataset.drawnAt);
      await when(() => !busy());
      const settledCompute = gen === undefined ? 0 : Number(sec.dataset.computeMs || 0);
      const ts = gen === undefined ? await frame() : Number(sec.dataset.drawnAt);
      const inWorker = sec.dataset.compute === 'worker';
      out.frame.push(tf - t0);
      out.point.push(tp - t0);
      out.settled.push(ts - t0);
      out.pointCompute.push(inWorker ? pointCompute : 0);
      out.settledCompute.push(inWorker ? settledCompute : 0);
    }
    return out;
  }, { widget, n });
}

/** Types `value` into `widget`'s `param` box; the longest main-thread task until it settled. */
async function heavy(page, widget, param, value) {
  return page.evaluate(async ({ widget, param, value }) => {
    const sec = await window.__built(widget);
    // A setting that is not a main control sits under "More settings", built when it opens.
    const more = sec.querySelector('details.more');
    if (more && !more.open && !sec.querySelector(`input[type=text][data-param="${param}"]`)) {
      more.open = true;
      for (let i = 0; i < 50 && !more.querySelector('.control'); i++) await new Promise((ok) => setTimeout(ok, 20));
    }
    const box = sec.querySelector(`input[type=text][data-param="${param}"]`);
    if (!box) return { error: `no ${param} box` };
    sec.scrollIntoView({ block: 'start' });
    const frame = () => new Promise((ok) => requestAnimationFrame(() => ok(performance.now())));
    await frame();
    const from = window.__long.length;
    const t0 = performance.now();
    box.value = value;
    box.dispatchEvent(new Event('input', { bubbles: true }));
    const handler = performance.now() - t0;
    await new Promise((ok) => {
      const done = () => sec.getAttribute('aria-busy') !== 'true';
      if (done()) return ok();
      const mo = new MutationObserver(() => { if (done()) { mo.disconnect(); ok(); } });
      mo.observe(sec, { attributes: true });
    });
    const ts = await frame();
    // Long tasks are reported a little after they end.
    await new Promise((ok) => setTimeout(ok, 100));
    const tasks = window.__long.slice(from).filter((t) => t.start >= t0 - 1);
    const refused = !!sec.querySelector(`#${widget}-${param}-msg:not([hidden])`);
    return {
      handler, settled: ts - t0, computeMs: Number(sec.dataset.computeMs || 0), inWorker: sec.dataset.compute === 'worker',
      longest: Math.max(0, ...tasks.map((t) => t.duration)), longTasks: tasks.length, refused,
    };
  }, { widget, param, value });
}

async function pageWeight() {
  const files = await readdir(DIST);
  const out = {};
  const kinds = { html: /^index\.html$/, wasm: /\.wasm$/, js: /^bplab-web-.*\.js$/, css: /\.css$/ };
  for (const [kind, re] of Object.entries(kinds)) {
    let raw = 0;
    let gz = 0;
    for (const f of files.filter((f) => re.test(f))) {
      const b = await readFile(join(DIST, f));
      raw += b.length;
      gz += gzipSync(b, { level: 9 }).length;
    }
    if (kind === 'js' && files.includes('snippets')) {
      for (const f of await readdir(join(DIST, 'snippets'), { recursive: true })) {
        if (!f.endsWith('.js')) continue;
        const b = await readFile(join(DIST, 'snippets', f));
        raw += b.length;
        gz += gzipSync(b, { level: 9 }).length;
      }
    }
    out[kind] = { raw, gz };
  }
  return out;
}

async function throttled(browser, origin, rate) {
  const page = await openPage(browser, origin);
  await page.addInitScript(init);
  if (!formula && rate > 1) await page.addInitScript((k) => { window.__bplabWorkerSlow = k; }, rate);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate });
  return page;
}

const srv = await site();
const browser = await launch();
const origin = srv.url.replace(/\/$/, '');
const results = { dist: DIST, moves: MOVES, rates: {} };
try {
  for (const rate of RATES) {
    const r = { widgets: [], heavy: [], load: [] };
    // How many more times a worker's compute time is counted (0: the worker itself was slowed).
    const extra = formula ? rate - 1 : 0;
    results.rates[rate] = r;
    // First loads (a fresh page each time).
    for (let i = 0; i < LOADS; i++) {
      const page = await throttled(browser, origin, rate);
      const cdp = await page.context().newCDPSession(page);
      await page.goto(srv.url + QUERY, { waitUntil: 'commit' });
      const waited = await cdp.send('Runtime.evaluate', {
        expression: 'Promise.race([window.__firstPromise, new Promise((ok) => setTimeout(() => ok("timeout"), 60000))])',
        awaitPromise: true, returnByValue: true,
      });
      const first = waited.result?.value;
      if (!first || first === 'timeout' || first.key.error) throw new Error(`first load: no widget answered: ${JSON.stringify(waited.result || waited.exceptionDetails)}`);
      // The page quiet: what it builds and computes after the first widget done.
      await page.waitForFunction(() => !document.querySelector('[aria-busy=true]'), null, { polling: 100, timeout: 60000 });
      await page.waitForTimeout(1500);
      const embedded = await page.evaluate(() => document.body.classList.contains('embed'));
      const far = embedded ? null : await scrolledTo(page, FAR);
      if (far?.key.error) throw new Error(`${FAR}: ${far.key.error}`);
      const load = await page.evaluate(() => ({
        longest: Math.max(0, ...window.__long.map((t) => t.duration)), longTasks: window.__long.length,
        // When the wasm started building the page, and when it was built (the widgets it builds at first).
        mount: performance.getEntriesByName('bplab:mount').map((m) => [m.startTime, m.startTime + m.duration])[0] || [0, 0],
      }));
      const worker = (ms) => extra * ms;
      r.load.push({
        ...load, widget: first.widget,
        first: first.at + worker(first.computeMs),
        key: first.key.at + worker(first.key.computeMs),
        keyAfter: first.key.at - first.key.t0 + worker(first.key.computeMs),
        far: far && far.at - far.t0 + worker(far.computeMs),
        farKey: far && far.key.at - far.key.t0 + worker(far.key.computeMs),
      });
      await page.context().close();
    }
    if (loadOnly) continue;
    const page = await throttled(browser, origin, rate);
    await page.goto(srv.url + QUERY);
    await ready(page);
    // Every widget of the page (built or a placeholder still), or the embed's one.
    const widgets = await page.$$eval('section.widget, section.stub', (s) => s.map((e) => e.id.slice(2)));
    // The long tasks of this page's own load (to everything settled) are not the moves':
    // counted from here on.
    await page.waitForFunction(() => !document.querySelector('[aria-busy=true]'));
    await page.waitForTimeout(200);
    const loadLong = await page.evaluate(() => window.__long.length);
    for (const w of widgets.filter((x) => !ONLY || ONLY.includes(x))) {
      const m = await moves(page, w, MOVES);
      if (m.error) throw new Error(`${w}: ${m.error}`);
      const acc = (xs, cs) => xs.map((x, i) => x + extra * cs[i]);
      const point = acc(m.point, m.pointCompute);
      const settled = acc(m.settled, m.settledCompute);
      r.widgets.push({
        widget: w, param: m.param,
        frame_p50: pct(m.frame, 50), frame_p95: pct(m.frame, 95),
        point_p50: pct(point, 50), point_p95: pct(point, 95),
        settled_p50: pct(settled, 50), settled_p95: pct(settled, 95),
        compute_p95: pct(m.settledCompute, 95),
      });
    }
    const long = await page.evaluate((from) => window.__long.slice(from), loadLong);
    r.moveLongest = Math.max(0, ...long.map((t) => t.duration));
    r.moveLongTasks = long.length;
    for (const [w, param, value] of [
      ['lesson', 'at-rate', '20000'], ['lesson', 'rate', '20000'], ['adaptive', 'rate-schedule', '20000'],
    ]) {
      const h = await heavy(page, w, param, value);
      if (h.error) throw new Error(`${w}: ${h.error}`);
      r.heavy.push({ widget: w, param, value, ...h, accounted: h.settled + (h.inWorker ? extra * h.computeMs : 0) });
    }
    if (page.problems.length) throw new Error(`page problems:\n${page.problems.join('\n')}`);
    await page.context().close();
  }
} finally {
  await browser.close();
  await srv.close();
}
const weight = await pageWeight();
results.weight = weight;
results.total_gz = Object.values(weight).reduce((a, w) => a + w.gz, 0);

if (json) {
  console.log(JSON.stringify(results, null, 2));
} else {
  const f = (x) => x.toFixed(1).padStart(6);
  console.log(`dist: ${DIST}${QUERY ? ` (page ${QUERY})` : ''}; ${MOVES} main-slider moves per widget, headless chromium (ms, p50 / p95)`);
  console.log(formula ? 'worker: unslowed, its compute time added (rate - 1) times' : 'worker: slowed to the page\'s rate (it waits (rate - 1) x each piece of work\'s time)');
  for (const [rate, r] of Object.entries(results.rates)) {
    const extra = formula ? rate - 1 : 0;
    const how = (at, ms) => (extra ? `measured ${at} ms + ${extra} × worker ${ms} ms` : `${Number(rate) > 1 ? `worker slowed ${rate}×` : 'worker at full speed'}; its compute ${ms} ms`);
    console.log(`\nCPU ${rate}×        input→next frame   input→chosen point   input→settled    worker compute p95`);
    for (const w of r.widgets) {
      console.log(`${w.widget.padEnd(10)} ${f(w.frame_p50)} ${f(w.frame_p95)}      ${f(w.point_p50)} ${f(w.point_p95)}      ${f(w.settled_p50)} ${f(w.settled_p95)}    ${f(w.compute_p95)}`);
    }
    if (!loadOnly) console.log(`main-thread long tasks during the moves: ${r.moveLongTasks}, longest ${r.moveLongest.toFixed(0)} ms`);
    for (const h of r.heavy) {
      console.log(`heavy: ${h.widget} ${h.param}=${h.value}: ${h.refused ? 'REFUSED' : 'accepted'}; handler ${h.handler.toFixed(1)} ms, settled ${h.accounted.toFixed(0)} ms (worker ${h.computeMs.toFixed(0)} ms), longest main-thread task ${h.longest.toFixed(0)} ms (${h.longTasks} long)`);
    }
    const p50 = (k) => pct(r.load.map((l) => l[k]), 50).toFixed(0);
    const max = (k) => Math.max(...r.load.map((l) => l[k])).toFixed(0);
    console.log(`first load (${r.load.length}; p50, max; ms from the navigation's start)${extra ? `, worker compute added ${extra}×` : ''}:`);
    console.log(`  first widget on screen (${r.load[0].widget}) shows numbers and charts: ${p50('first')}, ${max('first')}`);
    console.log(`  a step of its main slider made then is answered at: ${p50('key')}, ${max('key')} (${p50('keyAfter')}, ${max('keyAfter')} after the step)`);
    if (r.load[0].far !== null) {
      console.log(`  ${FAR} scrolled into view (page quiet): numbers and charts ${p50('far')}, ${max('far')} after the scroll; a step then answered in ${p50('farKey')}, ${max('farKey')}`);
    }
    console.log(`  the wasm starts building the page at p50 ${pct(r.load.map((l) => l.mount[0]), 50).toFixed(0)} ms; ` +
      `its first widgets are built at ${pct(r.load.map((l) => l.mount[1]), 50).toFixed(0)} ms; longest task ${max('longest')} ms`);
  }
  const kb = (b) => (b / 1024).toFixed(1);
  console.log('\nPage weight            raw KB   gzip KB');
  for (const [k, w] of Object.entries(weight)) console.log(`${k.padEnd(20)} ${kb(w.raw).padStart(7)}   ${kb(w.gz).padStart(7)}`);
  console.log(`${'total'.padEnd(20)} ${kb(Object.values(weight).reduce((a, w) => a + w.raw, 0)).padStart(7)}   ${kb(results.total_gz).padStart(7)}   (cap 450 KB gzip)`);
}
