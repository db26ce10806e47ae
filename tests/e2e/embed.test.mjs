// Real iframe embedding: a host page on another origin, under a restrictive
// CSP, frames two widgets; each posts { type: 'bplab:height', widget,
// height } to its parent on load and on resize, and the host's documented
// snippet sizes the iframe. Also: compact embeds (explanation one click
// away, `explain=open`), 320 px without horizontal scroll, dark scheme,
// reduced motion, and canvases sharp at devicePixelRatio 2.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { SHOTS, lab, ready } from './harness.mjs';

// The host's snippet, as documented in the README.
const SNIPPET = `
addEventListener('message', (e) => {
  const d = e.data;
  if (!d || d.type !== 'bplab:height' || !(d.height > 0)) return;
  for (const f of document.querySelectorAll('iframe')) {
    if (f.contentWindow === e.source) f.style.height = Math.ceil(d.height) + 'px';
  }
});
`;

const L = lab();
let host;

function hostPage(lab) {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>A course page embedding two bplab widgets</title></head>
<body>
<h1>Two widgets</h1>
<iframe id="f-littles" src="${lab}?embed=littles" title="Little's law and the limit" width="100%" height="150" frameborder="0"></iframe>
<p>Between the widgets.</p>
<iframe id="f-admission" src="${lab}?embed=admission&service-ms=7" title="Admission limits" width="100%" height="150" frameborder="0"></iframe>
<div style="height: 3000px">A long page: the next widget is far below the fold.</div>
<iframe id="f-shedding" src="${lab}?embed=shedding" title="Shedding" width="100%" height="150" frameborder="0"></iframe>
<script>${SNIPPET}</script>
</body></html>`;
}

before(async () => {
  await L.started;
  const hash = createHash('sha256').update(SNIPPET, 'utf8').digest('base64');
  const labOrigin = L.origin();
  const csp = `default-src 'none'; script-src 'sha256-${hash}'; style-src 'unsafe-inline'; frame-src ${labOrigin}; base-uri 'none'; form-action 'none'`;
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': csp });
    res.end(hostPage(L.url));
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  host = { url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((ok) => server.close(ok)) };
});

after(async () => {
  await host?.close();
});

/** A page allowed to talk to the host and the lab origins only; problems recorded. */
async function openHost(options) {
  const context = await L.browser.newContext(options);
  const page = await context.newPage();
  page.problems = [];
  const origins = [host.url, L.url];
  page.on('console', (m) => {
    if (m.type() === 'error') page.problems.push(`console error: ${m.text()}`);
  });
  page.on('pageerror', (e) => page.problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => page.problems.push(`request failed: ${r.url()}`));
  page.on('request', (r) => {
    const u = r.url();
    if (!origins.some((o) => u.startsWith(o)) && !/^(data|blob):/.test(u)) page.problems.push(`other origin: ${u}`);
  });
  await page.addInitScript(() => {
    window.bplabMessages = [];
    addEventListener('message', (e) => window.bplabMessages.push(e.data));
  });
  await page.goto(host.url);
  return page;
}

async function done(page) {
  await page.waitForTimeout(50);
  assert.deepEqual(page.problems, [], 'no console errors, CSP violations, failed requests or other origins');
  await page.context().close();
}

const frameOf = (page, widget) => page.frames().find((f) => f.url().includes(`embed=${widget}`));

/** Waits until the iframe is exactly as tall as its document. */
async function sized(page, widget) {
  const frame = frameOf(page, widget);
  await frame.waitForSelector('section.widget');
  await ready(frame);
  await page.waitForFunction(
    async (id) => {
      const f = document.getElementById(id);
      return f.style.height !== '' && f.clientHeight > 300;
    },
    `f-${widget}`,
  );
  for (let i = 0; i < 40; i++) {
    const inner = await frame.evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height));
    const outer = await page.evaluate((id) => document.getElementById(id).clientHeight, `f-${widget}`);
    if (inner === outer) return { frame, height: inner };
    await page.waitForTimeout(50);
  }
  assert.fail(`iframe ${widget} never matched its content height`);
}

test('two widgets in iframes on another origin under a strict CSP size themselves', async () => {
  const page = await openHost({ viewport: { width: 720, height: 900 } });
  const a = await sized(page, 'littles');
  const b = await sized(page, 'admission');
  const msgs = await page.evaluate(() => window.bplabMessages);
  const last = (w) => msgs.filter((m) => m.widget === w).at(-1);
  assert.deepEqual(Object.keys(last('littles')).sort(), ['height', 'type', 'widget']);
  assert.equal(last('littles').type, 'bplab:height');
  assert.equal(last('littles').height, a.height);
  assert.equal(last('admission').height, b.height);
  // The record now shows without expanding anything (page audit D8): it is counted apart, and kept short.
  const record = await a.frame.evaluate(() => Math.ceil(document.querySelector('#w-littles .ship').getBoundingClientRect().height));
  assert.ok(record <= 320, `the record block is kept short (${record} px)`);
  // 1,700: the 1,600 of before plus the headline's two lines (the number to ship and the lesson's figure, D8).
  assert.ok(a.height - record < 1700, `the Little's-law embed is compact at 720 px (${a.height} px, ${record} of them the record)`);
  // No scrollbar inside: the whole widget is visible.
  for (const f of [a.frame, b.frame]) {
    const [sh, ch] = await f.evaluate(() => [document.documentElement.scrollHeight, innerHeight]);
    assert.ok(sh <= ch + 1, `no inner vertical scroll (${sh} > ${ch})`);
  }
  // Explanation one click away; opening it grows the frame (ResizeObserver → new message).
  const panel = a.frame.locator('#littles-explain-panel');
  assert.equal(await panel.getAttribute('open'), null);
  await a.frame.locator('#littles-explain-panel > summary').click();
  let grown;
  for (let i = 0; i < 40 && !(grown > a.height); i++) {
    await page.waitForTimeout(50);
    grown = await page.evaluate(() => document.getElementById('f-littles').clientHeight);
  }
  assert.ok(grown > a.height + 200, `opened explanation grows the iframe (${a.height} → ${grown})`);
  await page.screenshot({ path: join(SHOTS, 'embed-host.png'), fullPage: true });
  await done(page);
});

test('at 320 px, dark and with reduced motion: no horizontal scroll, dark page, light charts', async () => {
  const page = await openHost({ viewport: { width: 320, height: 800 }, colorScheme: 'dark', reducedMotion: 'reduce' });
  for (const w of ['littles', 'admission']) {
    const { frame } = await sized(page, w);
    const [sw, cw] = await frame.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
    assert.ok(sw <= cw, `${w}: no horizontal scroll at 320 px (${sw} > ${cw})`);
    const style = await frame.evaluate(() => {
      const s = getComputedStyle(document.documentElement);
      return {
        bg: s.backgroundColor,
        fg: s.color,
        canvas: getComputedStyle(document.querySelector('canvas')).backgroundColor,
        reduce: matchMedia('(prefers-reduced-motion: reduce)').matches,
      };
    });
    assert.equal(style.bg, 'rgb(13, 17, 23)', `${w}: the page follows the dark scheme`);
    assert.equal(style.fg, 'rgb(230, 237, 243)');
    assert.equal(style.canvas, 'rgb(255, 255, 255)', 'charts keep their light canvas');
    assert.ok(style.reduce);
  }
  await page.screenshot({ path: join(SHOTS, 'embed-host-320-dark.png'), fullPage: true });
  await done(page);
});

test('embeds: explanation closed unless explain=open; canvases sharp at devicePixelRatio 2', async () => {
  const context = await L.browser.newContext({ viewport: { width: 720, height: 900 }, deviceScaleFactor: 2 });
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(`${L.url}?embed=admission`);
  await ready(page);
  assert.equal(await page.locator('#admission-explain-panel').getAttribute('open'), null);
  const sizes = await page.evaluate(() =>
    [...document.querySelectorAll('canvas')].map((c) => [c.width, c.height, c.clientWidth, c.clientHeight]),
  );
  assert.ok(sizes.length >= 2);
  for (const [w, h, cw, ch] of sizes) {
    assert.equal(w, 2 * cw, `backing store width = 2 × CSS width (${w} vs ${cw})`);
    assert.ok(Math.abs(h - 2 * ch) <= 2, `backing store height ≈ 2 × CSS height (${h} vs ${ch})`);
  }
  await page.goto(`${L.url}?embed=admission&explain=open`);
  await ready(page);
  assert.equal(await page.locator('#admission-explain-panel').getAttribute('open'), '');
  assert.ok(await page.getByText('It assumes').first().isVisible());
  await page.getByRole('textbox', { name: 'Service time (ms)' }).fill('7');
  await page.waitForURL(/service-ms=7/);
  assert.match(page.url(), /explain=open/, 'explain=open stays in the URL');
  assert.deepEqual(errors, []);
  await context.close();
});

test('the first height an embed reports is its real one, also far below the fold', async () => {
  const page = await openHost({ viewport: { width: 720, height: 900 } });
  const a = await sized(page, 'littles');
  const b = await sized(page, 'admission');
  // The third widget is 3,000 px below the fold: never scrolled to.
  const frame = frameOf(page, 'shedding');
  await frame.waitForSelector('section.widget');
  await ready(frame);
  await page.waitForFunction(() => window.bplabMessages.some((m) => m.widget === 'shedding'));
  const msgs = await page.evaluate(() => window.bplabMessages);
  const inner = await frame.evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height));
  for (const [w, h] of [['littles', a.height], ['admission', b.height], ['shedding', inner]]) {
    const first = msgs.find((m) => m.widget === w);
    assert.equal(first.height, h, `${w}: the first message (${first.height} px) is the settled height (${h} px)`);
  }
  const heading = await frame.evaluate(() => [...document.querySelectorAll('h1')].filter((h) => h.offsetParent).map((h) => h.textContent));
  assert.equal(heading.length, 1, `one visible level-one heading (${heading})`);
  await done(page);
});
