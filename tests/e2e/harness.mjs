// Shared by the end-to-end tests and scripts/measure-page.mjs: a static
// server for dist/ on 127.0.0.1 (unless BASE_URL points at one already),
// Debian's chromium through playwright-core, a console-error trap, and the
// one before/after pair every test file uses (`lab()`).
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const DIST = process.env.DIST_DIR || join(ROOT, 'dist');
export const SHOTS = join(ROOT, 'target', 'e2e-shots');

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.xml': 'application/xml',
};

/**
 * A static server on a free 127.0.0.1 port over several folders on one origin
 * (for pages beside dist/: a host page for mount(), the test LMS, an unzipped
 * SCORM package): `dirs` maps a URL prefix to a folder, longest prefix first;
 * `files` adds single files by URL path. Returns { url, close }.
 */
export async function serveDirs(dirs, files = {}) {
  const prefixes = Object.keys(dirs).sort((a, b) => b.length - a.length);
  const server = createServer(async (req, res) => {
    try {
      const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      let file = files[path];
      if (!file) {
        const prefix = prefixes.find((p) => path.startsWith(p));
        if (!prefix) throw new Error('no folder');
        const base = dirs[prefix];
        file = normalize(join(base, path.slice(prefix.length)));
        if (!file.startsWith(base)) throw new Error('outside');
        if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      }
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] || 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((ok) => server.close(ok)) };
}

/** Serves DIST on a free 127.0.0.1 port; returns { url, close }. */
export function serveDist() {
  return serveDirs({ '/': DIST });
}

/** The page under test: BASE_URL, or dist/ served here. */
export async function site() {
  if (process.env.BASE_URL) return { url: process.env.BASE_URL.replace(/\/?$/, '/'), close: async () => {} };
  return serveDist();
}

/** Headless Debian chromium. `extraArgs` e.g. to unthrottle frames for timing. */
export function launch(extraArgs = []) {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', ...extraArgs],
  });
}

/**
 * A new page that records console errors, page errors, failed requests and
 * any request to another origin into `page.problems`.
 */
export async function openPage(browser, origin, viewport = { width: 1400, height: 1000 }) {
  const context = await browser.newContext({ viewport, acceptDownloads: true });
  const page = await context.newPage();
  page.problems = [];
  page.on('console', (m) => {
    if (m.type() === 'error') page.problems.push(`console error: ${m.text()}`);
  });
  page.on('pageerror', (e) => page.problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => page.problems.push(`request failed: ${r.url()}`));
  page.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith(origin) && !u.startsWith('data:') && !u.startsWith('blob:')) {
      page.problems.push(`request to another origin: ${u}`);
    }
  });
  return page;
}

/**
 * Waits until the wasm has mounted the widgets (or the embedded one) and
 * every one of them has answered: the runs are computed in a worker (or in
 * later tasks) and drawn when they land; a widget is `aria-busy` meanwhile.
 */
export async function ready(page) {
  await page.waitForSelector('section.widget', { timeout: 15000 });
  await settle(page);
}

/**
 * Waits until no widget is computing or waiting to redraw. An accepted edit
 * marks its widget `aria-busy` in the input handler itself, so calling this
 * right after an edit waits for exactly that edit's answer. Checked every
 * 50 ms by a timer, not in animation frames (Playwright's default): a frame
 * that gets no frames (an iframe the browser does not render, a starved
 * renderer) would otherwise never be checked again, however soon its
 * widgets settled.
 */
export async function settle(page, timeout = 30000) {
  await page.waitForFunction(() => !document.querySelector('[aria-busy=true]'), null, { timeout, polling: 50 });
}

/**
 * Scrolls widget `name` into view as a reader would (until it nears the viewport, or a link asks
 * for it, a widget is a placeholder: its heading in a `section.stub`), then waits until it is
 * built and has answered. Returns a locator of its section. `page` may be a frame.
 */
export async function show(page, name) {
  await page.locator(`#w-${name}`).evaluate((e) => e.scrollIntoView());
  await page.locator(`section.widget#w-${name}`).waitFor({ state: 'attached', timeout: 15000 });
  await settle(page);
  return page.locator(`#w-${name}`);
}

/** Scrolls to every widget of the page in turn (see `show`), then back to the top; returns their names. */
export async function showAll(page) {
  const names = await page.$$eval('.widgets > section', (ss) => ss.map((s) => s.id.slice(2)));
  for (const n of names) await show(page, n);
  await page.evaluate(() => scrollTo(0, 0));
  return names;
}

/**
 * The before/after pair of a test file: a browser (and the site, unless
 * `serve: false`), closed after the file's tests. Returns helpers:
 * `open(query, viewport)` a checked page, ready; `done(page)` asserts no
 * problems and closes it; `origin()`; `url`; `browser`.
 */
export function lab({ serve = true } = {}) {
  const ctx = {};
  let up;
  const started = new Promise((ok) => { up = ok; });
  before(async () => {
    await mkdir(SHOTS, { recursive: true });
    if (serve) ctx.srv = await site();
    ctx.browser = await launch();
    up();
  });
  after(async () => {
    await ctx.browser?.close();
    await ctx.srv?.close();
  });
  const origin = () => ctx.srv.url.replace(/\/$/, '');
  return {
    /** Resolves once the browser (and the site) are up: for a file's own extra `before`. */
    started,
    get browser() { return ctx.browser; },
    get url() { return ctx.srv.url; },
    origin,
    async open(query = '', viewport) {
      const page = await openPage(ctx.browser, origin(), viewport);
      await page.goto(ctx.srv.url + query);
      await ready(page);
      return page;
    },
    async done(page) {
      await page.waitForTimeout(50);
      assert.deepEqual(page.problems, [], 'no console errors, failed requests or other origins');
      await page.context().close();
    },
  };
}

/**
 * Opens widget `section`'s "More settings" (a locator of its section, or of
 * the page in an embed) and waits for its controls, which are built when it
 * first opens. A widget without the group (Little's law) is left as it is.
 */
export async function openMore(section) {
  const d = section.locator('details.more');
  if ((await d.count()) === 0) return;
  if (!(await d.evaluate((e) => e.open))) await d.locator(':scope > summary').click();
  await d.locator('.control').first().waitFor();
}

/** The core's registry as the page's JS API gives it: `[{ name, title, params, tables, charts }]`. */
export async function registry(page) {
  return page.evaluate(async () => (await import('./bplab-api.js')).experiments());
}
