#!/usr/bin/env node
// The floor under the page's first load: how long the browser takes to show the
// lab's content with no script at all. It loads the page (dist/, or DIST_DIR)
// once, waits until it has settled, and keeps its DOM with every script, preload
// and the CSP removed (the canvases stay, blank): the page as if prerendered. Then,
// at a CPU throttling rate, headless Chromium loads, each --loads times, in turn:
//   - `static`: that snapshot with the page's stylesheet;
//   - `static, no text boxes`: the same with each typed-value box (input
//     type=text) replaced by a <span> of its value;
//   - `trivial`: a heading and a paragraph.
// For each it prints the p50 of first contentful paint and of the first frame
// after DOMContentLoaded (an animation frame, then a task: that frame is drawn),
// from navigation start. The lab's own first load is scripts/measure-page.mjs's
// "first load to every widget answering"; no script can make the page answer
// sooner than its content alone is first drawn.
//
// Usage: node scripts/load-floor.mjs [--rate 4] [--loads 5]
import { mkdtemp, readdir, copyFile, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIST, launch, openPage, ready, serveDirs, site } from '../tests/e2e/harness.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  if (i < 0) return dflt;
  const v = Number(args[i + 1]);
  if (!Number.isInteger(v) || v < 1 || v > 100) {
    console.error(`load-floor: ${name} ${args[i + 1] ?? ''}: expected a whole number from 1 to 100`);
    process.exit(2);
  }
  return v;
};
const RATE = opt('--rate', 4);
const LOADS = opt('--loads', 5);

const browser = await launch();
const dir = await mkdtemp(join(tmpdir(), 'bplab-floor-'));
try {
  // The settled page's DOM, scripts removed.
  const srv = await site();
  const page = await openPage(browser, srv.url.replace(/\/$/, ''));
  await page.goto(srv.url);
  await ready(page);
  const html = await page.evaluate(() => {
    const d = document.documentElement.cloneNode(true);
    // A typed or moved value is a property, not an attribute: kept as the attribute.
    const live = document.querySelectorAll('input');
    d.querySelectorAll('input').forEach((e, i) => e.setAttribute('value', live[i].value));
    d.querySelectorAll('script, link[rel=modulepreload], link[rel=preload], meta[http-equiv]').forEach((e) => e.remove());
    return `<!doctype html>${d.outerHTML}`;
  });
  await page.context().close();
  await srv.close();
  const boxes = /<input\b[^>]*\btype="text"[^>]*>/g;
  const noBoxes = html.replace(boxes, (tag) => `<span>${(tag.match(/\bvalue="([^"]*)"/) || [])[1] || ''}</span>`);
  const pages = {
    static: html,
    'static, no text boxes': noBoxes,
    trivial: '<!doctype html><html lang="en"><head><title>trivial</title></head><body><main><h1>Hello</h1><p>A paragraph.</p></main></body></html>',
  };
  for (const f of await readdir(DIST)) if (f.endsWith('.css') || f.endsWith('.svg')) await copyFile(join(DIST, f), join(dir, f));
  const files = {};
  for (const [i, [name, body]] of Object.entries(pages).entries()) {
    await writeFile(join(dir, `p${i}.html`), body);
    files[name] = `/p${i}.html`;
  }
  const srv2 = await serveDirs({ '/': dir });
  console.log(`load floor at ${RATE}× CPU (p50 of ${LOADS} loads, ms from navigation start); ${(html.match(boxes) || []).length} text boxes`);
  for (const [name, path] of Object.entries(files)) {
    const rows = [];
    for (let i = 0; i < LOADS; i++) {
      const p = await openPage(browser, srv2.url.replace(/\/$/, ''));
      await p.addInitScript(() => {
        window.__drawn = new Promise((ok) => document.addEventListener('DOMContentLoaded', () =>
          requestAnimationFrame(() => setTimeout(() => ok(performance.now()), 0))));
      });
      const cdp = await p.context().newCDPSession(p);
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: RATE });
      // Awaited over CDP: nothing of Playwright's is evaluated in the page meanwhile.
      await p.goto(srv2.url.replace(/\/$/, '') + path, { waitUntil: 'commit' });
      const drawn = (await cdp.send('Runtime.evaluate', { expression: 'window.__drawn', awaitPromise: true })).result.value;
      const fcp = (await cdp.send('Runtime.evaluate', {
        expression: 'performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? null', returnByValue: true,
      })).result.value;
      rows.push({ drawn, fcp });
      await p.context().close();
    }
    const p50 = (k) => {
      const a = rows.map((r) => r[k]).filter((v) => typeof v === 'number').sort((x, y) => x - y);
      return a.length ? a[Math.floor(a.length / 2)].toFixed(0) : '-';
    };
    console.log(`${name.padEnd(22)} first contentful paint ${p50('fcp').padStart(5)}   first frame after DOMContentLoaded ${p50('drawn').padStart(5)}`);
  }
  await srv2.close();
} finally {
  await browser.close();
  await rm(dir, { recursive: true, force: true });
}
