// Phone-first (issue 37 item 1): at 390 × 844 and 320 × 844, after scrolling
// a widget's heading to the top of the screen, its headline readout, its main
// chart and its main controls are on screen without further scrolling, for
// every widget; the other controls wait under "More settings", built when it
// opens; every expandable section keeps its disclosure marker at every width
// and on touch screens (D4).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { SHOTS, lab, openMore, openPage, ready, show, showAll } from './harness.mjs';

const L = lab();

/** What of widget `name` lies outside the viewport once its heading is at the top. */
async function offScreen(page, name) {
  const scroll = () => page.evaluate((n) => document.getElementById(`${n}-title`).scrollIntoView({ block: 'start' }), name);
  await show(page, name);
  await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
  await scroll(); // widgets above it laid out for real on the way may have moved it
  await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
  return page.evaluate((n) => {
    const s = document.getElementById(`w-${n}`);
    const items = [
      ['the heading', s.querySelector(`#${n}-title`)],
      ['the headline readout', s.querySelector('.headline output')],
      ['the main chart', s.querySelector(`#${n}-chart-0`)],
      ...[...s.querySelectorAll('.main-controls input')].map((i) => [`main control ${i.id}`, i]),
    ];
    const out = [];
    if (s.querySelectorAll('.main-controls input[type=range]').length === 0) out.push('no main slider');
    for (const [what, e] of items) {
      if (!e) { out.push(`${what}: missing`); continue; }
      const r = e.getBoundingClientRect();
      if (r.height === 0) out.push(`${what}: not shown`);
      if (r.top < -1 || r.bottom > innerHeight + 1 || r.left < -1 || r.right > innerWidth + 1) {
        out.push(`${what}: at ${Math.round(r.top)}–${Math.round(r.bottom)} of ${innerHeight} (x ${Math.round(r.left)}–${Math.round(r.right)} of ${innerWidth})`);
      }
    }
    return out;
  }, name);
}

for (const width of [390, 320]) {
  test(`at ${width} × 844 every widget's headline, main chart and main controls are on one screen under its heading`, async () => {
    const page = await openPage(L.browser, L.origin(), { width, height: 844 });
    await page.goto(L.url);
    await ready(page);
    const names = await page.$$eval('.widgets > section', (ss) => ss.map((s) => s.id.slice(2)));
    assert.ok(names.length >= 9, names.join(', '));
    const problems = [];
    for (const n of names) {
      const off = await offScreen(page, n);
      if (off.length) problems.push(`${n}: ${off.join('; ')}`);
      await page.screenshot({ path: join(SHOTS, `phone-${width}-${n}.png`) });
    }
    assert.deepEqual(problems, [], problems.join('\n'));
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), width, 'no sideways scroll');
    await L.done(page);
  });
}

test('other settings wait under "More settings", built when it first opens; a link that sets one opens it', async () => {
  const page = await L.open('', { width: 390, height: 844 });
  const w = await show(page, 'lesson');
  const more = w.locator('details.more');
  assert.equal(await more.locator(':scope > summary').textContent(), 'More settings');
  assert.equal(await more.getAttribute('open'), null);
  assert.equal(await more.locator('input').count(), 0, 'not built while closed');
  const mains = await w.locator('.main-controls input[type=range]').evaluateAll((ii) => ii.map((i) => i.dataset.param));
  assert.deepEqual(mains, ['workers', 'limit']);
  await openMore(w);
  assert.ok(await w.getByRole('textbox', { name: 'Seed (integer)', exact: true }).isVisible());
  assert.equal(await more.getByRole('group', { name: 'More settings' }).count(), 1, 'a labelled group');
  await L.done(page);
  const linked = await L.open('?lesson.seed=7', { width: 390, height: 844 });
  await show(linked, 'lesson');
  await show(linked, 'collapse');
  assert.equal(await linked.locator('#w-lesson details.more').getAttribute('open'), '', 'open: the link sets one of its settings');
  assert.equal(await linked.locator('#lesson-seed').inputValue(), '7');
  assert.equal(await linked.locator('#w-collapse details.more').getAttribute('open'), null);
  await L.done(linked);
});

for (const [what, ctx] of [['at 390 px', { width: 390, height: 844 }], ['on a touch screen', { width: 1400, height: 1000, touch: true }], ['at 1400 px', { width: 1400, height: 1000 }]]) {
  test(`D4: every expandable section shows its disclosure marker ${what}`, async () => {
    const context = await L.browser.newContext({ viewport: { width: ctx.width, height: ctx.height }, hasTouch: !!ctx.touch, isMobile: !!ctx.touch });
    const page = await context.newPage();
    await page.goto(L.url);
    await ready(page);
    await showAll(page);
    if (ctx.touch) assert.ok(await page.evaluate(() => matchMedia('(pointer: coarse)').matches), 'a coarse pointer');
    const summaries = await page.$$eval('summary', (ss) => ss.map((s) => {
      const c = getComputedStyle(s);
      return { text: s.textContent, display: c.display, list: c.listStyleType };
    }));
    assert.ok(summaries.length >= 18, `${summaries.length} summaries`);
    const bad = summaries.filter((s) => s.display !== 'list-item' || s.list === 'none');
    assert.deepEqual(bad, [], 'a summary shown as a list item keeps its ▶ marker');
    await context.close();
  });
}
