// End-to-end: the lab opened from disk (file://), in Debian's chromium.
//   - dist/bplab.html, the single-file build, runs every widget from a file
//     URL: controls found by label, URL state in the file URL's query, embed
//     mode, CSV downloads equal to golden/, and not one request leaves file://.
//   - dist/index.html opened from a file (or served with its wasm missing, or
//     in a browser without WebAssembly) shows what happened and the two ways
//     forward instead of a blank page.
// Needs a built dist/ (DIST_DIR, default dist/): scripts/test-web.sh, or
//   bash scripts/build-web.sh && node --test tests/e2e/file.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DIST, ROOT, SHOTS, lab, openPage, ready, settle, show, showAll, site } from './harness.mjs';

const SINGLE = pathToFileURL(join(DIST, 'bplab.html')).href;
const INDEX = pathToFileURL(join(DIST, 'index.html')).href;
// The single file carries the page's wasm gzipped then base64 (4/3 of its gzip) beside the
// page's text: with the page at its 450 KB gzip cap (the wasm about 424 KB of it) that is about
// 650 KB, so the budget follows the cap (it was 600 KB under the earlier 400 KB cap).
const MAX_RAW = 680 * 1024;

const L = lab({ serve: false });

const box = (scope, label) => scope.getByRole('textbox', { name: label, exact: true });
const result = (scope, name) => scope.getByRole('status', { name, exact: true });
/** The readout's leading value ("29 requests ..."): the wording after it may grow. */
const lead = async (loc) => (await loc.textContent()).match(/^\S+ \S+/)?.[0];

async function openFile(url, viewport) {
  const page = await openPage(L.browser, 'file://', viewport);
  await page.goto(url);
  await ready(page);
  return page;
}

async function done(page) {
  await page.waitForTimeout(50);
  assert.deepEqual(page.problems, [], 'no console errors, failed requests or requests leaving file://');
  await page.context().close();
}

/** Problems other than the expected failure to load the module (what the message is about). */
const leaks = (page) => page.problems.filter((p) => p.startsWith('request to another origin'));

async function fallback(page) {
  const msg = page.locator('#bplab-fallback');
  await msg.waitFor({ state: 'visible', timeout: 15000 });
  assert.equal(await msg.getAttribute('role'), 'alert');
  const text = await msg.innerText();
  assert.match(text, /could not start/);
  assert.match(text, /scripts\/serve\.sh/, 'names the first way forward');
  assert.match(text, /bplab\.html/, 'names the second way forward');
  assert.equal(await page.locator('section.widget').count(), 0);
  return text;
}

test('bplab.html is one self-contained file within its size budget', async () => {
  const html = await readFile(join(DIST, 'bplab.html'), 'utf8');
  const { size } = await stat(join(DIST, 'bplab.html'));
  assert.ok(size <= MAX_RAW, `${(size / 1024).toFixed(1)} KB raw (target <= 680 KB)`);
  assert.doesNotMatch(html, /\sintegrity=|\scrossorigin/i, 'no integrity or crossorigin attributes');
  assert.doesNotMatch(html, /rel="?(module)?preload/i, 'no preloads');
  assert.doesNotMatch(html, /<script[^>]*\ssrc=/i, 'no external script');
  assert.doesNotMatch(html, /rel="?stylesheet/i, 'no external stylesheet');
  assert.doesNotMatch(html, /^\s*import\s/m, 'no module imports');
  const csp = html.match(/http-equiv="Content-Security-Policy" content="([^"]+)"/)?.[1] ?? '';
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /'wasm-unsafe-eval'/);
  assert.match(csp, /worker-src blob:/);
  assert.doesNotMatch(csp, /'self'|https?:|connect-src/, `no network allowed: ${csp}`);
  assert.match(html, /<link rel="icon" type="image\/svg\+xml" href="data:/, 'favicon inlined');
});

test('bplab.html from file:// runs every widget: labels, URL state, golden CSVs, PNG', async () => {
  const page = await openFile(SINGLE);
  assert.ok(page.url().startsWith('file://'));
  await showAll(page);
  const widgets = await page.locator('section.widget').count();
  assert.ok(widgets >= 6, `every widget mounted (${widgets})`);
  for (const s of await page.locator('section.widget').all()) {
    assert.ok((await s.getByRole('status').count()) + (await s.locator('canvas').count()) > 0, 'widget shows results');
  }
  assert.equal(await page.locator('#bplab-fallback').count(), 0, 'no failure message');
  // From file:// too, the runs are computed in the worker (a classic Blob worker, CSP worker-src blob:).
  assert.equal(await page.locator('section.widget[data-compute="worker"]').count(), widgets - 1, 'every experiment widget computed in the worker');

  // Downloads at the defaults: the admission widget's CSVs are golden/bp-post2/'s bytes.
  const w = await show(page, 'admission');
  const goldens = (await readdir(join(ROOT, 'golden', 'bp-post2'))).filter((f) => f.endsWith('.csv'));
  assert.ok(goldens.length >= 1);
  for (const file of goldens) {
    const btn = w.getByRole('button', { name: `CSV: ${file}`, exact: true });
    const [dl] = await Promise.all([page.waitForEvent('download'), btn.click()]);
    assert.equal(dl.suggestedFilename(), file);
    const golden = await readFile(join(ROOT, 'golden', 'bp-post2', file));
    assert.ok((await readFile(await dl.path())).equals(golden), `${file} equals golden/ from file://`);
  }
  const [png] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'PNG: bp-post2-limit-sweep.png' }).click(),
  ]);
  const bytes = await readFile(await png.path());
  assert.equal(bytes.subarray(1, 4).toString(), 'PNG');

  // Drive a control by its label; the state lands in the file URL's query.
  const service = box(w, 'Service time (ms)');
  const b = result(w, 'B = capacity × deadline');
  assert.equal(await lead(b), '20 requests');
  await service.fill('7');
  await settle(page);
  assert.equal(await lead(b), '29 requests');
  await page.waitForFunction(() => location.search.includes('admission.service-ms=7'));
  const link = page.url();
  assert.ok(link.startsWith(SINGLE + '?'), link);
  await page.screenshot({ path: join(SHOTS, 'file-single.png') });
  await done(page);

  // The copied file URL reproduces the view.
  const again = await openFile(link);
  const w2 = await show(again, 'admission');
  assert.equal(await box(w2, 'Service time (ms)').inputValue(), '7');
  assert.equal(await lead(result(w2, 'B = capacity × deadline')), '29 requests');
  await done(again);
});

test('bplab.html?embed=admission from file:// shows that widget alone', async () => {
  const page = await openFile(`${SINGLE}?embed=admission&service-ms=7`, { width: 900, height: 1100 });
  assert.equal(await page.locator('section.widget').count(), 1);
  assert.ok(await page.locator('#w-admission').isVisible());
  assert.ok(await page.locator('.page-head').isHidden());
  assert.equal(await box(page, 'Service time (ms)').inputValue(), '7');
  assert.equal(await lead(result(page, 'B = capacity × deadline')), '29 requests');
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 900, `fits the iframe width (${width}px)`);
  await page.screenshot({ path: join(SHOTS, 'file-embed-admission.png'), fullPage: true });
  await done(page);
});

test('index.html from file:// says why it cannot run and names both ways forward', async () => {
  const page = await openPage(L.browser, 'file://');
  await page.goto(`${INDEX}?admission.service-ms=7`);
  const text = await fallback(page);
  assert.match(text, /file:\/\//, 'says what happened');
  await page.screenshot({ path: join(SHOTS, 'file-index-message.png') });
  assert.deepEqual(leaks(page), [], 'nothing leaves file://');

  // Its link opens the single file, carrying the state along.
  await page.getByRole('link', { name: 'bplab.html' }).click();
  await ready(page);
  assert.ok(page.url().startsWith(SINGLE), page.url());
  assert.equal(await box(await show(page, 'admission'), 'Service time (ms)').inputValue(), '7');
  assert.deepEqual(leaks(page), []);
  await page.context().close();
});

test('served, with its wasm failing to load or instantiate, or no WebAssembly, the page says so', async () => {
  const srv = await site();
  try {
    const origin = srv.url.replace(/\/$/, '');
    const page = await openPage(L.browser, origin);
    await page.route('**/*.wasm', (r) => r.abort());
    await page.goto(srv.url);
    assert.match(await fallback(page), /WebAssembly file could not be loaded/);
    assert.deepEqual(leaks(page), []);
    await page.context().close();

    const broken = await openPage(L.browser, origin);
    await broken.route('**/*.wasm', (r) => r.fulfill({ contentType: 'application/wasm', body: Buffer.from('\0asm not a module') }));
    await broken.goto(srv.url);
    assert.match(await fallback(broken), /could not be loaded or instantiated/);
    assert.deepEqual(leaks(broken), []);
    await broken.context().close();

    const bare = await openPage(L.browser, origin);
    await bare.addInitScript(() => {
      delete globalThis.WebAssembly;
    });
    await bare.goto(srv.url);
    assert.match(await fallback(bare), /WebAssembly/);
    assert.deepEqual(leaks(bare), []);
    await bare.context().close();
  } finally {
    await srv.close();
  }
});

test('a failed wasm fetch is classified the same whichever of its two events comes first', async () => {
  const fallbackJs = await readFile(join(ROOT, 'web', 'fallback.js'), 'utf8');
  const html = `<!doctype html><html><head><link rel="preload" href="http://127.0.0.1:9/bplab-web-0_bg.wasm" as="fetch">
<script>${fallbackJs}</script></head><body><main id="bplab"></main></body></html>`;
  const texts = [];
  for (const order of [['rejection', 'preload'], ['preload', 'rejection'], ['module-error', 'preload']]) {
    const page = await L.browser.newPage();
    await page.route('**/*', (r) => r.abort());
    await page.setContent(html);
    await page.evaluate((order) => {
      const err = new TypeError('Failed to fetch');
      for (const what of order) {
        if (what === 'rejection') {
          const promise = Promise.reject(err);
          promise.catch(() => {});
          dispatchEvent(new PromiseRejectionEvent('unhandledrejection', { promise, reason: err }));
        } else if (what === 'module-error') {
          // A module's top-level await rejecting is reported as an error event.
          dispatchEvent(new ErrorEvent('error', { error: err, message: err.message }));
        } else {
          document.querySelector('link').dispatchEvent(new Event('error'));
        }
      }
    }, order);
    const box = page.locator('#bplab-fallback');
    await box.waitFor({ state: 'visible' });
    texts.push(await box.locator('p').first().textContent());
    await page.close();
  }
  assert.match(texts[0], /^The lab's WebAssembly file could not be loaded \(http:\/\/127\.0\.0\.1:9\/bplab-web-0_bg\.wasm\)\.$/);
  assert.deepEqual(new Set(texts).size, 1, `one message whatever the order: ${texts.join(' | ')}`);
});
