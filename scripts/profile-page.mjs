#!/usr/bin/env node
// Where the main thread's time goes: a CDP CPU profile (Profiler domain) of
// the first load, or of one widget's main-slider moves, at a CPU throttling
// rate, summarised as self time per function (the wasm has no name section:
// its functions show as wasm-function[n]; the glue's imports show which DOM
// or canvas call was made) and the page's own performance.measure entries
// (bplab:mount, bplab:receive, bplab:render:*, bplab:charts; the page records
// all but the mount's only when window.__bplabMeasure is set before it starts,
// as this script does).
//
// Usage: node scripts/profile-page.mjs [--rate 4] [--widget admission] [--moves 20] [--top 30]
//   without --widget: the first load. --out FILE writes the raw .cpuprofile.
import { writeFile } from 'node:fs/promises';
import { launch, openPage, ready, site } from '../tests/e2e/harness.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const RATE = Number(arg('--rate', 4));
const WIDGET = arg('--widget', null);
const MOVES = Number(arg('--moves', 20));
const TOP = Number(arg('--top', 30));
const OUT = arg('--out', null);

const srv = await site();
const browser = await launch();
try {
  const page = await openPage(browser, srv.url.replace(/\/$/, ''));
  // Every draw and receive measured (the page keeps only the mount's otherwise).
  await page.addInitScript(() => { window.__bplabMeasure = true; });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: RATE });
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  if (!WIDGET) await cdp.send('Profiler.start');
  const t0 = Date.now();
  await page.goto(srv.url);
  await ready(page);
  const loadMs = Date.now() - t0;
  if (WIDGET) {
    await page.evaluate(() => performance.clearMeasures());
    await cdp.send('Profiler.start');
    await page.evaluate(async ({ widget, n }) => {
      const sec = document.querySelector(`section.widget[data-widget="${widget}"]`);
      sec.scrollIntoView();
      const s = sec.querySelector('input[type=range][data-main]');
      const step = Number(s.step) || 1;
      const start = Number(s.value);
      const frame = () => new Promise((ok) => requestAnimationFrame(ok));
      for (let i = 0; i < n; i++) {
        const k = i < n / 2 ? i + 1 : n - i - 1;
        let v = start + k * step;
        if (v > Number(s.max)) v = start - k * step;
        await frame();
        s.value = String(v);
        s.dispatchEvent(new Event('input', { bubbles: true }));
        await new Promise((ok) => {
          const done = () => sec.getAttribute('aria-busy') !== 'true';
          if (done()) return ok();
          const mo = new MutationObserver(() => { if (done()) { mo.disconnect(); ok(); } });
          mo.observe(sec, { attributes: true });
        });
        await frame();
      }
    }, { widget: WIDGET, n: MOVES });
  }
  const { profile } = await cdp.send('Profiler.stop');
  if (OUT) await writeFile(OUT, JSON.stringify(profile));
  const measures = await page.evaluate(() =>
    performance.getEntriesByType('measure').filter((m) => m.name.startsWith('bplab:')).map((m) => [m.name, m.startTime, m.duration]));
  // Self time per node: sample counts × the mean interval.
  const dt = (profile.endTime - profile.startTime) / 1000 / Math.max(1, profile.samples.length);
  const self = new Map();
  const counts = new Map();
  for (const s of profile.samples) counts.set(s, (counts.get(s) || 0) + 1);
  for (const n of profile.nodes) {
    const c = counts.get(n.id) || 0;
    if (!c) continue;
    const f = n.callFrame;
    const key = `${f.functionName || '(anonymous)'} ${f.url ? f.url.split('/').pop() : ''}`.trim();
    self.set(key, (self.get(key) || 0) + c * dt);
  }
  const rows = [...self].sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((a, r) => a + r[1], 0);
  console.log(`${WIDGET ? `${WIDGET}, ${MOVES} moves` : `first load (${loadMs} ms wall to ready)`} at ${RATE}×: ${total.toFixed(0)} ms sampled`);
  for (const [k, v] of rows.slice(0, TOP)) console.log(`${v.toFixed(1).padStart(8)} ms  ${k}`);
  const byName = new Map();
  for (const [name, , d] of measures) {
    const key = name.replace(/:[a-z-]+$/, (m) => (name.startsWith('bplab:render') ? '' : m));
    const e = byName.get(key) || { n: 0, sum: 0, max: 0 };
    e.n++; e.sum += d; e.max = Math.max(e.max, d);
    byName.set(key, e);
  }
  console.log('\nperformance.measure (ms): name, count, total, max');
  for (const [k, e] of byName) console.log(`${k.padEnd(24)} ${String(e.n).padStart(4)} ${e.sum.toFixed(1).padStart(8)} ${e.max.toFixed(1).padStart(8)}`);
  if (!WIDGET) console.log(`\nfirst measures: ${measures.slice(0, 40).map(([n, s, d]) => `${n}@${s.toFixed(0)}+${d.toFixed(0)}`).join(' ')}`);
} finally {
  await browser.close();
  await srv.close();
}
