// End-to-end: the worker's glue is wasm-bindgen's own classic-script target (`--target
// no-modules`, scripts/build-web.sh), not the page's ES-module glue rewritten.
//   - The page's glue imports nothing: the wasm's JS helpers are no `inline_js` snippets (which
//     `--target no-modules` refuses) but web/dom-helpers.js's `globalThis.bplabDom`, inlined
//     before the glue; dist/ has no snippets/ folder and the page requests no script but its glue.
//   - The worker's text (index.html's #bplab-worker-src, and bplab-worker-<hash>.js for the JS
//     API) compiles as a classic script (an import or export would not), carries no stand-ins for
//     the page's helpers, and runs: the page starts its workers from a Blob URL of it and every
//     experiment widget computes there, served and from file:// (bplab.html).
//   - web/fast-strings.js, the page's faster short-string decoding, gives what the browser's own
//     TextDecoder gives.
// Needs a built dist/ (DIST_DIR, default dist/): scripts/test-web.sh, or
//   bash scripts/build-web.sh && node --test tests/e2e/worker-glue.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Script } from 'node:vm';
import { DIST, lab, openPage, ready, showAll } from './harness.mjs';

const L = lab();
const HELPERS = ['copy_text', 'guarded', 'make', 'mark_on_screen', 'post_height', 'watch', 'worker_url'];

/** The worker's text as index.html carries it. */
function workerText() {
  const html = readFileSync(join(DIST, 'index.html'), 'utf8');
  const m = html.match(/<script type="text\/plain" id="bplab-worker-src">([\s\S]*?)<\/script>/);
  assert.ok(m, 'index.html carries the worker in #bplab-worker-src');
  return m[1];
}

test('the worker is one classic script and the page glue imports no snippet', () => {
  const text = workerText();
  assert.doesNotThrow(() => new Script(text, { filename: 'bplab-worker' }), 'compiles as a classic script: no import or export');
  const files = JSON.parse(readFileSync(join(DIST, 'bplab-files.json'), 'utf8'));
  assert.equal(readFileSync(join(DIST, files.worker), 'utf8'), text, "the JS API's worker file is the same text");
  assert.doesNotMatch(text, /page helper/, 'no stand-ins written over the glue for the page helpers');
  assert.ok(!existsSync(join(DIST, 'snippets')), 'dist/ has no wasm-bindgen snippets');
});

/** A page that notes every script it requests (but its workers' Blob URLs) and every worker it starts. */
async function watched(url, origin) {
  const page = await openPage(L.browser, origin);
  page.scripts = [];
  page.workerUrls = [];
  page.on('request', (r) => {
    if (r.resourceType() === 'script' && !r.url().startsWith('blob:')) page.scripts.push(r.url());
  });
  page.on('worker', (w) => page.workerUrls.push(w.url()));
  await page.goto(url);
  await ready(page);
  return page;
}

/** Every experiment widget computed in the worker, and the page's helpers are ours. */
async function computedInWorkers(page) {
  await showAll(page);
  const widgets = await page.locator('section.widget').count();
  assert.ok(widgets >= 6, `every widget mounted (${widgets})`);
  assert.equal(await page.locator('section.widget[data-compute="worker"]').count(), widgets - 1, 'every experiment widget computed in the worker');
  assert.equal(await page.locator('#bplab-fallback').count(), 0, 'no failure message');
  assert.ok(page.workerUrls.length >= 1, 'a worker started');
  for (const u of page.workerUrls) assert.match(u, /^blob:/, 'the worker starts from a Blob URL');
  const helpers = await page.evaluate(() => Object.entries(globalThis.bplabDom ?? {}).filter(([, f]) => typeof f === 'function').map(([k]) => k).sort());
  assert.deepEqual(helpers, HELPERS, "the page's helpers are web/dom-helpers.js's");
}

test('served: the page requests its glue alone and computes in workers started from Blob URLs', async () => {
  const page = await watched(L.url, L.origin());
  const files = JSON.parse(readFileSync(join(DIST, 'bplab-files.json'), 'utf8'));
  assert.deepEqual(page.scripts.map((u) => new URL(u).pathname.split('/').pop()), [files.glue], 'no script but the glue (no snippets)');
  await computedInWorkers(page);
  await L.done(page);
});

test('bplab.html from file:// computes in its workers too', async () => {
  const page = await watched(pathToFileURL(join(DIST, 'bplab.html')).href, 'file://');
  assert.deepEqual(page.scripts, [], 'nothing requested');
  await computedInWorkers(page);
  await L.done(page);
});

test('fast-strings.js decodes as the browser does', async () => {
  const page = await watched(L.url, L.origin());
  const out = await page.evaluate(() => {
    const Native = Object.getPrototypeOf(TextDecoder);
    const bytes = (...b) => new Uint8Array(b);
    const cases = [
      ['utf-8', {}, [bytes(104, 105)]],
      ['utf-8', {}, [bytes()]],
      ['utf-8', {}, [new TextEncoder().encode('a'.repeat(48))]],
      ['utf-8', {}, [new TextEncoder().encode('b'.repeat(49))]],
      ['utf-8', {}, [new TextEncoder().encode('ms · µs')]],
      ['utf-8', {}, [bytes(0xef, 0xbb, 0xbf, 65)]],
      ['utf-8', { ignoreBOM: true }, [bytes(0xef, 0xbb, 0xbf, 65)]],
      ['utf-16le', {}, [bytes(65, 0, 66, 0)]],
      ['windows-1252', {}, [bytes(65, 0x80)]],
      // A character split across a streaming call: the ASCII call after it flushes it.
      ['utf-8', {}, [bytes(0xe2, 0x82), { stream: true }], [bytes(65)]],
      ['utf-8', {}, [bytes(0xe2, 0x82), { stream: true }], [bytes(0xac)]],
    ];
    const run = (D, [label, opts, ...calls]) => {
      const d = new D(label, opts);
      return calls.map(([input, o]) => d.decode(input, o));
    };
    const fatal = (D) => {
      try {
        return new D('utf-8', { fatal: true }).decode(bytes(0xff));
      } catch (e) {
        return e.name;
      }
    };
    return {
      wrapped: Native !== Function.prototype && Native.name === 'TextDecoder',
      same: cases.map((c) => [run(TextDecoder, c), run(Native, c)]),
      fatal: [fatal(TextDecoder), fatal(Native)],
    };
  });
  assert.ok(out.wrapped, 'TextDecoder is the subclass of the browser\'s');
  for (const [mine, native] of out.same) assert.deepEqual(mine, native);
  assert.deepEqual(out.fatal, ['TypeError', 'TypeError']);
  await L.done(page);
});
