#!/usr/bin/env node
// Main-thread CPU time of the page (dist/, or DIST_DIR) in headless chromium at a CPU
// throttling rate: the first load, or N moves of one widget's main slider (each after the
// last settled). From a CDP trace (Tracing domain): the thread time (`tdur`) of every
// main-thread task, so unlike the wall-clock latencies of scripts/measure-page.mjs it barely
// moves when other processes share the machine. Prints the total, the tasks over 50 ms of CPU,
// and where the time went (script, frames, layout, paint, compositor commit, ...).
//
// Usage: node scripts/page-cpu.mjs [rate=4] [widget] [moves=20]
//   node scripts/page-cpu.mjs 4            the first load at 4x
//   node scripts/page-cpu.mjs 4 lesson 20  twenty lesson moves at 4x
import { launch, openPage, ready, site } from '../tests/e2e/harness.mjs';
const RATE = Number(process.argv[2] || 4);
const WIDGET = process.argv[3] || '';
const MOVES = Number(process.argv[4] || 20);
const srv = await site();
const browser = await launch();
const page = await openPage(browser, srv.url.replace(/\/$/, ''));
const cdp = await page.context().newCDPSession(page);
await cdp.send('Emulation.setCPUThrottlingRate', { rate: RATE });
const events = [];
cdp.on('Tracing.dataCollected', (d) => events.push(...d.value));
const finished = new Promise((ok) => cdp.once('Tracing.tracingComplete', ok));
const startTrace = () => cdp.send('Tracing.start', { categories: 'disabled-by-default-devtools.timeline,devtools.timeline', transferMode: 'ReportEvents' });
if (!WIDGET) await startTrace();
await page.goto(srv.url);
await ready(page);
if (WIDGET) {
  await page.evaluate((w) => document.querySelector(`section.widget[data-widget="${w}"]`).scrollIntoView({ block: 'start' }), WIDGET);
  await ready(page);
  await page.waitForTimeout(300);
  await startTrace();
  await page.evaluate(async ({ widget, n }) => {
    const sec = document.querySelector(`section.widget[data-widget="${widget}"]`);
    const s = sec.querySelector('input[type=range][data-main]');
    const step = Number(s.step) || 1; const start = Number(s.value);
    const frame = () => new Promise((ok) => requestAnimationFrame(ok));
    const idle = () => new Promise((ok) => { const d = () => sec.getAttribute('aria-busy') !== 'true'; if (d()) return ok(); const mo = new MutationObserver(() => { if (d()) { mo.disconnect(); ok(); } }); mo.observe(sec, { attributes: true }); });
    for (let i = 0; i < n; i++) {
      const k = i < n / 2 ? i + 1 : n - i - 1;
      let v = start + k * step; if (v > Number(s.max)) v = start - k * step;
      await frame();
      s.value = String(v); s.dispatchEvent(new Event('input', { bubbles: true }));
      await idle(); await frame(); await frame();
    }
  }, { widget: WIDGET, n: MOVES });
}
await page.waitForTimeout(300);
await cdp.send('Tracing.end');
await finished;
const names = events.filter((e) => e.name === 'thread_name');
const main = names.find((e) => e.args.name === 'CrRendererMain' && events.some((x) => x.pid === e.pid && x.tid === e.tid && x.name === 'FireAnimationFrame'));
const mine = events.filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === 'X');
const tasks = mine.filter((e) => e.name === 'RunTask');
const cpu = tasks.reduce((a, e) => a + (e.tdur || 0), 0) / 1000;
const wall = tasks.reduce((a, e) => a + (e.dur || 0), 0) / 1000;
const by = new Map();
for (const e of mine) if (e.name !== 'RunTask') by.set(e.name, (by.get(e.name) || 0) + (e.tdur || 0) / 1000);
const top = [...by].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ');
const longCpu = tasks.filter((e) => (e.tdur || 0) > 50000).length;
console.log(`${WIDGET || 'load'} @${RATE}x: main-thread CPU ${cpu.toFixed(0)} ms (wall in tasks ${wall.toFixed(0)}), tasks>50ms CPU: ${longCpu}, max task CPU ${(Math.max(...tasks.map((e) => e.tdur || 0)) / 1000).toFixed(0)} | ${top}`);
await browser.close(); await srv.close();
