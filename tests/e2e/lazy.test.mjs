// Built when needed (issue 37 item 2): every widget starts as a placeholder
// (a `section.stub` holding its heading, id `w-<name>`) and is built when it
// nears the viewport, when a link (`#w-<name>`, a table-of-contents link)
// asks for it, or before the page is printed; an embed builds its one widget.
// The table of contents is whole from the start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lab, openPage, ready, registry, settle, show } from './harness.mjs';

const L = lab();

/** `[id, built]` of every widget of the page, in page order. */
const widgets = (page) => page.$$eval('.widgets > section', (ss) => ss.map((s) => [s.id, s.matches('section.widget')]));

test('the widgets far below wait as placeholders with their headings; the table of contents is whole', async () => {
  const page = await L.open();
  const reg = await registry(page);
  const all = await widgets(page);
  assert.equal(all.length, reg.length + 1, 'one section per widget');
  assert.deepEqual(all[0], ['w-littles', true], 'the widget on screen is built');
  assert.deepEqual(all.at(-1), ['w-metastable', false], 'the last one waits');
  const stub = page.locator('section.stub#w-metastable');
  const title = reg.find((e) => e.name === 'metastable').title;
  assert.equal(await stub.getByRole('heading', { level: 2 }).textContent(), title);
  assert.equal(await page.getByRole('region', { name: title }).count(), 1, 'the placeholder is named by its heading');
  assert.equal(await stub.locator('input, canvas, output').count(), 0, 'no controls, charts or readouts yet');
  assert.ok((await stub.boundingBox()).height >= 600, 'room kept for the widget');
  const links = await page.getByRole('navigation', { name: 'Widgets' }).getByRole('link').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
  assert.deepEqual(links, all.map(([id]) => `#${id}`));
  await L.done(page);
});

test('scrolling to a placeholder builds its widget, which answers', async () => {
  const page = await L.open();
  await page.locator('#w-metastable').evaluate((e) => e.scrollIntoView());
  const w = page.locator('section.widget#w-metastable');
  await w.waitFor({ state: 'attached' });
  await settle(page);
  assert.ok(await w.getAttribute('data-shown'), 'its first answer is on screen');
  const s = w.locator('input[type=range][data-main]').first();
  const gen = await w.getAttribute('data-gen');
  await s.focus();
  await page.keyboard.press('ArrowRight');
  await settle(page);
  assert.notEqual(await w.getAttribute('data-gen'), gen, 'a key moved it and it answered');
  assert.ok((await widgets(page)).some(([, built]) => !built), 'the widgets not scrolled past still wait');
  await L.done(page);
});

test('#w-<name> builds that widget first and shows it; a table-of-contents link does the same', async () => {
  const page = await openPage(L.browser, L.origin());
  await page.goto(`${L.url}#w-lesson`);
  await page.locator('section.widget#w-lesson').waitFor({ state: 'attached' });
  await settle(page);
  const top = await page.locator('#w-lesson').evaluate((e) => e.getBoundingClientRect().top);
  assert.ok(Math.abs(top) < 2, `scrolled to its top (${top})`);
  const built = Object.fromEntries(await widgets(page));
  assert.equal(built['w-littles'], false, 'the widgets above it are not built');
  assert.equal(built['w-admission'], false);
  await page.getByRole('navigation', { name: 'Widgets' }).getByRole('link', { name: 'Little\'s law and the limit' }).click();
  await page.locator('section.widget#w-littles').waitFor({ state: 'attached' });
  await settle(page);
  assert.equal(new URL(page.url()).hash, '#w-littles');
  const y = await page.locator('#w-littles').evaluate((e) => e.getBoundingClientRect().top);
  assert.ok(y >= -2 && y < 200, `on screen (${y})`);
  await L.done(page);
});

test('an embed builds its one widget, with no placeholders', async () => {
  const page = await L.open('?embed=shaping');
  assert.equal(await page.locator('section.widget').count(), 1);
  assert.equal(await page.locator('section.stub').count(), 0);
  assert.ok(await page.locator('#w-shaping').getAttribute('data-shown'));
  await L.done(page);
});

test('printing builds every widget', async () => {
  const page = await L.open();
  assert.ok(await page.locator('section.stub').count() > 0);
  await page.pdf();
  assert.equal(await page.locator('section.stub').count(), 0, 'no placeholder left on paper');
  assert.equal(await page.locator('section.widget').count(), (await registry(page)).length + 1);
  await settle(page);
  await L.done(page);
});

test('a link\'s state for a widget not built yet stays in the address and applies when it is built', async () => {
  const page = await L.open('?shaping.window-burst=33');
  assert.equal(await page.locator('section.widget#w-shaping').count(), 0, 'not built at load');
  await page.getByRole('textbox', { name: 'Workers', exact: true }).fill('4');
  await settle(page);
  await page.waitForFunction(() => location.search.includes('littles.workers=4'), null, { polling: 50 });
  assert.match(new URL(page.url()).search, /shaping\.window-burst=33/, 'kept while shaping is not built');
  const w = await show(page, 'shaping');
  assert.equal(await w.getByRole('slider', { name: 'Timeline burst (requests)', exact: true }).inputValue(), '33');
  await L.done(page);
});

test('the first widget on screen is built before any other', async () => {
  const page = await openPage(L.browser, L.origin());
  await page.addInitScript(() => {
    window.__built = [];
    new MutationObserver((rs) => {
      for (const r of rs) for (const n of r.addedNodes) if (n.nodeType === 1 && n.matches('section.widget')) window.__built.push(n.id);
    }).observe(document, { subtree: true, childList: true });
  });
  await page.goto(`${L.url}#w-admission`);
  await ready(page);
  await page.locator('section.widget#w-shaping').waitFor({ state: 'attached' });
  assert.deepEqual((await page.evaluate(() => window.__built)).slice(0, 2), ['w-admission', 'w-shaping'], 'the link\'s widget, then the next one down');
  await L.done(page);
});
