// End-to-end: the built page (dist/) in Debian's chromium via playwright-core.
// Controls are found by their labels, results by their accessible names.
// Every test fails on a console error, a page error, a failed request or a
// request to another origin. Screenshots go to target/e2e-shots/.
//
// Run: scripts/test-web.sh (builds, serves, runs), or after a build:
//   node --test tests/e2e/            (serves dist/ itself)
//   BASE_URL=http://127.0.0.1:8080/ node --test tests/e2e/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT, SHOTS, lab, openPage, ready, registry, settle, show, showAll } from './harness.mjs';

const L = lab();
const { open, done } = L;

const slider = (scope, label) => scope.getByRole('slider', { name: label, exact: true });
const box = (scope, label) => scope.getByRole('textbox', { name: label, exact: true });
const result = (scope, name) => scope.getByRole('status', { name });

test('the page loads one widget per experiment, plus Little\'s law, offline-clean and screenshots them', async () => {
  const page = await open();
  const reg = await registry(page);
  const widgets = reg.length + 1; // + the Little's-law and limit widget
  assert.equal((await showAll(page)).length, widgets);
  assert.equal(await page.locator('section.widget').count(), widgets, 'each built once scrolled to');
  // One canvas per registry chart, plus the limit curve.
  assert.equal(await page.locator('canvas').count(), 1 + reg.reduce((a, e) => a + e.charts.length, 0));
  await page.screenshot({ path: join(SHOTS, 'page-top.png') });
  await page.screenshot({ path: join(SHOTS, 'page-full.png'), fullPage: true });
  for (const s of await page.locator('section.widget').all()) {
    await s.scrollIntoViewIfNeeded();
    await s.screenshot({ path: join(SHOTS, `widget-${await s.getAttribute('data-widget')}.png`) });
  }
  await done(page);
});

test('dragging the budget slider updates the limit; the keyboard moves it too', async () => {
  const page = await open();
  const w = page.locator('#w-littles');
  const budget = slider(w, 'Latency budget (ms)');
  const limit = result(w, /^Queue limit/);
  assert.equal(await limit.textContent(), '9', 'the headline is the deadline-safe number the record ships');
  assert.match(await w.locator('#littles-lesson-fig').textContent(), /^The lesson's half-up figure: 10 \(from 9\.95\)$/);
  // Drag from the thumb towards the right end.
  const b = await budget.boundingBox();
  await page.mouse.move(b.x + b.width * 0.23, b.y + b.height / 2);
  await page.mouse.down();
  for (let i = 1; i <= 10; i++) await page.mouse.move(b.x + b.width * (0.23 + 0.04 * i), b.y + b.height / 2);
  await page.mouse.up();
  await settle(page);
  const v = Number(await budget.inputValue());
  assert.ok(v > 400, `dragged to ${v}`);
  assert.equal(await box(w, 'Latency budget (ms)').inputValue(), String(v), 'the typed box follows');
  assert.equal(await limit.textContent(), String(Math.floor((v - 21) / 21)), 'deadline-safe: (queue + 1) × 21 ms within the budget');
  assert.match(await w.locator('#littles-lesson-fig').textContent(), new RegExp(`half-up figure: ${Math.round((v - 21) / 21)} `));
  // Keyboard: Home, then two steps right.
  await budget.focus();
  await page.keyboard.press('Home');
  await settle(page);
  await page.keyboard.press('ArrowRight');
  await settle(page);
  await page.keyboard.press('ArrowRight');
  await settle(page);
  assert.equal(await budget.inputValue(), '3');
  assert.match(await w.getByRole('alert').filter({ hasText: /budget/ }).first().textContent(), /expected a budget above 21/);
  await budget.fill('300');
  await settle(page);
  assert.equal(await limit.textContent(), '13');
  assert.match(await w.locator('#littles-lesson-fig').textContent(), /half-up figure: 13 \(from 13\.29\)$/);
  await w.screenshot({ path: join(SHOTS, 'littles-dragged.png') });
  await done(page);
});

test('D8: the limit\'s headline is the number the record and the exports ship, the lesson\'s figure beside it; the record shows unexpanded', async () => {
  const page = await open();
  const w = page.locator('#w-littles');
  await box(w, 'Workers').fill('4');
  await box(w, 'Service time (ms)').fill('12');
  await settle(page);
  const limit = result(w, /^Queue limit to ship/);
  assert.equal(await limit.textContent(), '72');
  assert.match(await w.locator('#littles-lesson-fig').textContent(), /^The lesson's half-up figure: 73 \(from 72\.67\)$/);
  assert.equal(await w.locator('#littles-explain-panel').getAttribute('open'), null, 'the explanation stays closed');
  assert.ok(await w.locator('#littles-record').isVisible(), 'the record is on show without expanding anything');
  assert.match(await w.locator('#littles-record').textContent(), /\b72\b/);
  await done(page);
});

test('a bad typed value shows the accepted range beside the control and keeps the result', async () => {
  const page = await open();
  const w = await show(page, 'admission');
  const service = box(w, 'Service time (ms)');
  const b = result(w, 'B = capacity × deadline');
  assert.equal(await b.textContent(), '20 requests (deadline-safe 20)');
  for (const bad of ['0', '-3', 'abc', '1e9']) {
    await service.fill(bad);
    await settle(page);
    const msg = w.locator('#admission-service-ms-msg');
    await assert.doesNotReject(msg.waitFor({ state: 'visible' }));
    assert.match(await msg.textContent(), /a whole number from 1 to 60000 \(ms\)/);
    assert.equal(await msg.getAttribute('role'), 'alert');
    assert.equal(await service.getAttribute('aria-invalid'), 'true');
    assert.equal(await b.textContent(), '20 requests (deadline-safe 20)', 'last good result stays');
  }
  await w.screenshot({ path: join(SHOTS, 'bad-input.png') });
  await service.fill('7');
  await settle(page);
  assert.equal(await b.textContent(), '29 requests (deadline-safe 28)');
  assert.ok(await w.locator('#admission-service-ms-msg').isHidden());
  await done(page);
});

test('explanations start closed, one click away, and fill when opened; <widget>.explain=open opens one', async () => {
  const page = await open();
  await showAll(page);
  const panels = page.locator('details.explain');
  const n = await panels.count();
  assert.equal(n, (await registry(page)).length + 1, 'one explanation panel per widget');
  for (let i = 0; i < n; i++) assert.equal(await panels.nth(i).getAttribute('open'), null, `panel ${i} starts closed`);
  // An experiment's closed panel holds no explanation until it opens.
  assert.equal((await page.locator('#admission-explain').textContent()).trim(), '');
  await page.locator('#admission-explain-panel > summary').click();
  await page.waitForFunction(() => document.querySelector('#admission-explain').textContent.includes('It assumes'));
  assert.ok(await page.locator('#admission-explain').getByText('It assumes').first().isVisible());
  await done(page);

  const asked = await open('?admission.explain=open');
  await show(asked, 'admission');
  await show(asked, 'collapse');
  assert.equal(await asked.locator('#admission-explain-panel').getAttribute('open'), '');
  assert.equal(await asked.locator('#collapse-explain-panel').getAttribute('open'), null);
  await asked.waitForFunction(() => document.querySelector('#admission-explain').textContent.includes('It assumes'));
  await done(asked);
});

test('each widget enters the document whole, in place of its placeholder', async () => {
  // Chrome's form autofill scans every control of the document (forcing its style and layout)
  // 100 ms after controls are added to it: a widget is built out of the document, then put in
  // place of its placeholder at once, never control by control.
  const page = await openPage(L.browser, L.origin());
  await page.addInitScript(() => {
    window.__arrivals = [];
    new MutationObserver((records) => {
      for (const r of records) {
        for (const n of r.addedNodes) {
          if (n.nodeType !== 1) continue;
          const widgets = n.matches('section.widget') ? 1 : n.querySelectorAll('section.widget').length;
          const controls = n.matches('input') ? 1 : n.querySelectorAll('input').length;
          if ((widgets || controls) && n.isConnected) window.__arrivals.push([n.id, widgets]);
        }
      }
    }).observe(document, { subtree: true, childList: true });
  });
  await page.goto(L.url);
  await ready(page);
  const names = await showAll(page);
  const arrivals = await page.evaluate(() => window.__arrivals);
  assert.deepEqual(arrivals.map(([id]) => id).sort(), names.map((n) => `w-${n}`).sort(), 'each widget once, nothing else with controls');
  assert.ok(arrivals.every(([, n]) => n === 1), JSON.stringify(arrivals));
  await done(page);
});

test('at first load a widget on screen is marked shown only once its numbers and charts are rendered', async () => {
  // `data-shown` says the answer's numbers and its charts in view are on screen (painted at the
  // end of the frame that marks it; scripts/measure-page.mjs times the first load by it). A
  // widget is `content-visibility: auto`: the browser skips its content until it has found it
  // near the viewport, which it does only after the frame in which the widgets arrive. The
  // state is read in the mutation callback of the marking itself, for a desktop and a phone.
  for (const viewport of [{ width: 1400, height: 1000 }, { width: 360, height: 740 }]) {
    const page = await openPage(L.browser, L.origin(), viewport);
    await page.addInitScript(() => {
      window.__marks = [];
      const onScreen = (e) => {
        const r = e.getBoundingClientRect();
        return r.bottom > 0 && r.top < innerHeight && r.right > 0 && r.left < innerWidth;
      };
      new MutationObserver((records) => {
        for (const r of records) {
          const sec = r.target;
          if (r.oldValue || !sec.matches('section.widget') || !sec.dataset.shown || !onScreen(sec)) continue;
          const out = sec.querySelector('output');
          const canvases = [...sec.querySelectorAll('canvas')].filter(onScreen);
          window.__marks.push({
            widget: sec.dataset.widget,
            rendered: !!out && out.checkVisibility({ contentVisibilityAuto: true }),
            undrawn: canvases.filter((c) => !c.hasAttribute('data-layout')).map((c) => c.id),
          });
        }
      }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-shown'], attributeOldValue: true });
    });
    await page.goto(L.url);
    await ready(page);
    const marks = await page.evaluate(() => window.__marks);
    assert.ok(marks.length >= 1, `${viewport.width} px: a widget on screen was marked shown`);
    for (const m of marks) {
      assert.ok(m.rendered, `${viewport.width} px: ${m.widget} marked shown while the browser skips its content`);
      assert.deepEqual(m.undrawn, [], `${viewport.width} px: ${m.widget} marked shown before its charts on screen are drawn`);
    }
    await done(page);
  }
});

test('a copied link reproduces the view', async () => {
  const page = await open();
  const w = await show(page, 'shaping');
  await box(w, 'Gate rate (rps)').fill('150');
  await settle(page);
  await slider(w, 'Timeline burst (requests)').fill('33');
  await settle(page);
  await page.waitForFunction(() => location.search.includes('shaping.window-burst=33'));
  const link = page.url();
  const readouts = await w.getByRole('status').allTextContents();
  await done(page);

  const again = await open(link.slice(L.url.length));
  const w2 = await show(again, 'shaping');
  assert.equal(await box(w2, 'Gate rate (rps)').inputValue(), '150');
  assert.equal(await slider(w2, 'Timeline burst (requests)').inputValue(), '33');
  assert.deepEqual(await w2.getByRole('status').allTextContents(), readouts);
  await w2.screenshot({ path: join(SHOTS, 'shared-link.png') });
  await done(again);
});

test('an embed URL renders that widget alone, sized for an iframe', async () => {
  const page = await open('?embed=priority&critical-share=0.5', { width: 900, height: 1100 });
  assert.equal(await page.locator('section.widget').count(), 1);
  assert.ok(await page.locator('.page-head').isHidden());
  assert.equal(await result(page, 'Ceiling = capacity / critical share').textContent(), '200 rps');
  assert.equal(await box(page, 'Critical share (fraction)').inputValue(), '0.5');
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 900, `fits the iframe width (${width}px)`);
  await page.screenshot({ path: join(SHOTS, 'embed-priority.png'), fullPage: true });
  await done(page);
});

test('metastable shows its six lanes first; the phase diagram and the sizing follow with the full run', async () => {
  const page = await openPage(L.browser, L.origin());
  // The worker made 20× slower (as scripts/measure-page.mjs does at 4×): it holds each answer 19 ×
  // its compute time, so the preview (about 30 ms of cold compute) is on screen for more than half a
  // second before the full run can land, and cannot be overtaken. Each answer is recorded as it is
  // marked shown: its generation and phase, the readouts, the phase chart's legend.
  await page.addInitScript(() => {
    window.__bplabWorkerSlow = 20;
    window.__seen = [];
    new MutationObserver(() => {
      const sec = document.querySelector('section.widget[data-widget="metastable"]');
      const shown = sec?.dataset.shown;
      if (!shown || window.__seen.at(-1)?.shown === shown) return;
      const layout = JSON.parse(sec.querySelectorAll('canvas')[2]?.dataset.layout || '{"texts":[]}');
      window.__seen.push({
        shown,
        outputs: [...sec.querySelectorAll('dl.readouts output')].map((o) => o.textContent),
        legend: layout.texts.filter((t) => t.kind === 'legend').length,
      });
    }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-shown'] });
  });
  await page.goto(`${L.url}?embed=metastable`);
  await ready(page);
  const gen = await page.locator('section.widget[data-widget="metastable"]').getAttribute('data-gen');
  const seen = (await page.evaluate(() => window.__seen)).filter((x) => x.shown.startsWith(`${gen}:`));
  assert.deepEqual(seen.map((x) => x.shown.split(':')[1]), ['preview', 'full'], 'the preview, then the full run');
  const [preview, full] = seen;
  // The last two readouts are the sizing's: pending in the preview, the full run's answer after.
  assert.ok(preview.outputs.slice(-2).every((t) => t.startsWith('pending')), preview.outputs.join(' | '));
  assert.ok(full.outputs.slice(-2).every((t) => !t.startsWith('pending')), full.outputs.join(' | '));
  // Every other readout (capacity, each policy's recovery) is the full run's already.
  assert.deepEqual(preview.outputs.slice(0, -2), full.outputs.slice(0, -2));
  // Nothing was drawn before: the preview's phase chart is empty axes; the full run draws the diagram.
  assert.equal(preview.legend, 0, 'no phase diagram before it is computed');
  assert.ok(full.legend > 0, 'the full run draws the phase diagram');
  await done(page);
});

test('CSV downloads at the defaults are the golden bytes; charts download as PNG', async () => {
  const page = await open();
  await showAll(page);
  // The nine article CSVs (the lesson's have no published reference).
  const buttons = page.getByRole('button', { name: /^CSV: bp-/ });
  assert.equal(await buttons.count(), 9);
  for (const btn of await buttons.all()) {
    const [dl] = await Promise.all([page.waitForEvent('download'), btn.click()]);
    const file = dl.suggestedFilename();
    const golden = await readFile(join(ROOT, 'golden', file.split('-').slice(0, 2).join('-'), file));
    const got = await readFile(await dl.path());
    assert.ok(got.equals(golden), `${file} equals golden/`);
  }
  const [png] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'PNG: bp-post2-limit-sweep.png' }).click(),
  ]);
  assert.equal(png.suggestedFilename(), 'bp-post2-limit-sweep.png');
  const bytes = await readFile(await png.path());
  assert.equal(bytes.subarray(1, 4).toString(), 'PNG');
  assert.ok(bytes.length > 5000, 'not an empty image');
  await done(page);
});

test('bad URL parameters show inline messages and keep the defaults', async () => {
  const page = await open('?collapse.max-retries=99&collapse.duration-ms=NaN&admission.deadline-ms=3&embed=nope');
  const c = await show(page, 'collapse');
  await show(page, 'admission');
  assert.match(await c.locator('#collapse-max-retries-msg').textContent(), /from 0 to 10/);
  assert.match(await c.locator('#collapse-duration-ms-msg').textContent(), /'NaN'/);
  assert.match(await page.locator('#admission-status').textContent(), /Showing the article defaults/);
  assert.match(await page.getByRole('alert').filter({ hasText: 'embed' }).textContent(), /unknown widget 'nope'/);
  assert.equal(await result(page, 'B = capacity × deadline').textContent(), '20 requests (deadline-safe 20)');
  await done(page);
});
