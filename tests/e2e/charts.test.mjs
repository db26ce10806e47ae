// Charts at their real size, in real Chromium: every visible canvas is drawn
// at its CSS width × devicePixelRatio and follows resizes; the renderer's
// layout record (data-layout: every text's box and font size, CSS px) shows
// no text under 11 px, no two texts overlapping, none outside the canvas or
// under the legend, no label on the data; this test checks those boxes
// itself at 320, 720 and 1,400 px (and in 320 px embeds). Dark pages get
// dark charts and follow a scheme change; PNG downloads are 960 × 540 and
// light whatever the screen. Screenshots: target/e2e-shots/charts-*.png.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SHOTS, launch, openPage, ready, showAll, site } from './harness.mjs';

let srv;
let browser;

before(async () => {
  await mkdir(SHOTS, { recursive: true });
  srv = await site();
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await srv?.close();
});

const origin = () => srv.url.replace(/\/$/, '');

async function open(query, viewport, options = {}) {
  const page = await openPage(browser, origin(), viewport);
  if (options.colorScheme) await page.emulateMedia({ colorScheme: options.colorScheme });
  await page.goto(srv.url + query);
  await ready(page);
  await showAll(page); // every widget built (each as it is scrolled to)
  await settled(page);
  return page;
}

/**
 * Waits until every visible canvas is drawn at its current CSS size. Widgets
 * off screen skip rendering (content-visibility: auto), so a resize reaches
 * their canvases when they are scrolled to: visit each one first.
 */
async function settled(page) {
  await page.evaluate(async () => {
    const frame = () => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)));
    for (const c of document.querySelectorAll('canvas')) {
      c.scrollIntoView({ block: 'center' });
      await frame();
    }
    window.scrollTo(0, 0);
  });
  await page.waitForFunction(
    () => {
      const shown = [...document.querySelectorAll('canvas')].filter((c) => c.clientWidth > 0);
      return (
        shown.length > 0 &&
        shown.every((c) => {
          if (!c.dataset.layout) return false;
          const l = JSON.parse(c.dataset.layout);
          return l.width === c.clientWidth && Math.abs(l.height - c.clientHeight) <= 1;
        })
      );
    },
    null,
    { timeout: 20000 },
  );
}

async function done(page) {
  await page.waitForTimeout(50);
  assert.deepEqual(page.problems, [], 'no console errors, failed requests or other origins');
  await page.context().close();
}

/** The layout records and backing sizes of every visible canvas. */
function records(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll('canvas')]
      .filter((c) => c.clientWidth > 0)
      .map((c) => ({
        id: c.id,
        backing: [c.width, c.height],
        css: [c.clientWidth, c.clientHeight],
        dpr: devicePixelRatio,
        error: c.getAttribute('data-error'),
        layout: JSON.parse(c.dataset.layout),
      })),
  );
}

const overlaps = (a, b) => a[0] < b[0] + b[2] && b[0] < a[0] + a[2] && a[1] < b[1] + b[3] && b[1] < a[1] + a[3];

/** Every broken rule of one canvas, checked here from the boxes alone. */
function broken(r) {
  const out = [];
  const { layout: l } = r;
  if (r.error) out.push(`drawing error: ${r.error}`);
  if (r.backing[0] !== Math.round(r.css[0] * r.dpr)) out.push(`backing width ${r.backing[0]} ≠ ${r.css[0]} × ${r.dpr}`);
  if (Math.abs(r.backing[1] - r.css[1] * r.dpr) > 2) out.push(`backing height ${r.backing[1]} ≠ ${r.css[1]} × ${r.dpr}`);
  if (l.texts.length < 5) out.push(`only ${l.texts.length} texts`);
  for (const h of l.dataHits) out.push(`label on the data: ${h}`);
  l.texts.forEach((t, i) => {
    const [x, y, w, h] = t.box;
    if (t.font < 11) out.push(`${JSON.stringify(t.text)} at ${t.font} px`);
    if (x < -0.5 || y < -0.5 || x + w > l.width + 0.5 || y + h > l.height + 0.5) out.push(`${JSON.stringify(t.text)} clipped`);
    if (l.legend && t.kind !== 'legend' && overlaps(t.box, l.legend)) out.push(`${JSON.stringify(t.text)} under the legend`);
    for (const u of l.texts.slice(i + 1)) {
      if (overlaps(t.box, u.box)) out.push(`${JSON.stringify(t.text)} overlaps ${JSON.stringify(u.text)}`);
    }
  });
  return out;
}

async function checkAll(page, what) {
  const rs = await records(page);
  assert.ok(rs.length >= 2, `${what}: canvases shown`);
  const problems = rs.flatMap((r) => broken(r).map((p) => `${what} ${r.id} (${r.css[0]} px): ${p}`));
  assert.deepEqual(problems, [], problems.join('\n'));
  return rs;
}

async function shots(page, tag) {
  for (const s of await page.locator('section.widget').all()) {
    await s.scrollIntoViewIfNeeded();
    await s.screenshot({ path: join(SHOTS, `charts-${tag}-${await s.getAttribute('data-widget')}.png`) });
  }
}

for (const width of [320, 720, 1400]) {
  test(`at ${width} px: every chart at its real size, no overlap, no text under 11 px`, async () => {
    const page = await open('', { width, height: 900 });
    const rs = await checkAll(page, `${width} px`);
    assert.ok(rs.length >= 15, `all charts visible (${rs.length})`);
    if (width === 320) assert.ok(rs.every((r) => r.layout.texts.every((t) => t.font >= 11)));
    await shots(page, `${width}`);
    await done(page);
  });
}

test('320 px embeds of lesson and adaptive keep the rules; devicePixelRatio 2 is sharp', async () => {
  for (const w of ['lesson', 'adaptive']) {
    const context = await browser.newContext({ viewport: { width: 320, height: 900 }, deviceScaleFactor: 2 });
    const page = await context.newPage();
    page.problems = [];
    page.on('pageerror', (e) => page.problems.push(e.message));
    await page.goto(`${srv.url}?embed=${w}`);
    await ready(page);
    await settled(page);
    const rs = await checkAll(page, `embed ${w}`);
    assert.ok(rs.every((r) => r.dpr === 2 && r.backing[0] === 2 * r.css[0]));
    await page.screenshot({ path: join(SHOTS, `charts-embed-320-${w}.png`), fullPage: true });
    assert.deepEqual(page.problems, []);
    await context.close();
  }
});

test('a resize redraws every chart at the new width', async () => {
  const page = await open('', { width: 1400, height: 900 });
  const before = await records(page);
  await page.setViewportSize({ width: 480, height: 900 });
  await settled(page);
  const after = await checkAll(page, 'after resize');
  const narrower = after.filter((r) => before.find((b) => b.id === r.id && b.css[0] > r.css[0]));
  assert.ok(narrower.length >= 10, `charts got narrower and were redrawn (${narrower.length})`);
  await done(page);
});

/** The canvas's top-left pixel, as drawn. */
const corner = (page, id) =>
  page.evaluate((id) => [...document.getElementById(id).getContext('2d').getImageData(2, 2, 1, 1).data].slice(0, 3), id);

test('dark pages get dark charts, follow a scheme change; PNGs stay 960 × 540 and light', async () => {
  const page = await open('', { width: 720, height: 900 }, { colorScheme: 'dark' });
  const id = 'lesson-chart-0';
  const dark = await corner(page, id);
  assert.ok(dark.every((c) => c < 60), `dark background (${dark})`);
  await checkAll(page, 'dark');
  await page.locator(`#${id}`).scrollIntoViewIfNeeded();
  await page.locator('section.widget[data-widget=lesson]').screenshot({ path: join(SHOTS, 'charts-720-dark-lesson.png') });
  // The download: a fixed size, light colours.
  const fig = page.locator(`figure:has(#${id})`);
  const [download] = await Promise.all([page.waitForEvent('download'), fig.getByRole('button').click()]);
  const png = await readFile(await download.path());
  assert.equal(png.readUInt32BE(16), 960, 'PNG width');
  assert.equal(png.readUInt32BE(20), 540, 'PNG height');
  const pixel = await page.evaluate(async (b64) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const c = document.createElement('canvas');
    [c.width, c.height] = [img.width, img.height];
    const ctx = c.getContext('2d');
    ctx.drawImage(img, 0, 0);
    return [...ctx.getImageData(2, 2, 1, 1).data].slice(0, 3);
  }, png.toString('base64'));
  assert.deepEqual(pixel, [255, 255, 255], 'the PNG is light on a dark page');
  // The page follows the reader switching to a light scheme.
  await page.emulateMedia({ colorScheme: 'light' });
  await page.waitForFunction((id) => {
    const d = document.getElementById(id).getContext('2d').getImageData(2, 2, 1, 1).data;
    return d[0] === 255 && d[1] === 255 && d[2] === 255;
  }, id);
  await done(page);
});
