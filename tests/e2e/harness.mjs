// Shared by the end-to-end tests and scripts/measure-page.mjs: a static
// server for dist/ on 127.0.0.1 (unless BASE_URL points at one already),
// Debian's chromium through playwright-core, and a console-error trap.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
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
};

/** Serves DIST on a free 127.0.0.1 port; returns { url, close }. */
export async function serveDist() {
  const server = createServer(async (req, res) => {
    try {
      const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      let file = normalize(join(DIST, path));
      if (!file.startsWith(DIST)) throw new Error('outside dist');
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
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

/** Waits until the wasm has mounted the widgets (or the embedded one). */
export async function ready(page) {
  await page.waitForSelector('section.widget', { timeout: 15000 });
}
