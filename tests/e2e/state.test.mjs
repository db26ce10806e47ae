// End-to-end: exact state, phones, and the worker.
//   - Every widget at random typed values (seeded): its link carries exactly
//     what was typed, the link loads the same readouts, commands and charts'
//     CSVs again, and the command names the typed value.
//   - At 320 px every embed has no horizontal scroll and touch-sized controls.
//   - The queue limit's "off" is the slider's last step (aria-valuetext), and
//     ArrowRight at "off" stays "off".
//   - Without Web Workers the page computes on the main thread and shows the
//     same numbers; with them, every experiment widget computes in the worker.
//   - The meta description is generated from the registry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lab, openMore, registry, settle, show, showAll } from './harness.mjs';

const L = lab();

/** A small seeded generator (mulberry32), so a failure names a reproducible case. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A value to type into a slider's box: on its span, with up to three decimals where the step allows. */
function pick(r, min, max, step) {
  const whole = Number.isInteger(step);
  const v = min + r() * (max - min);
  if (whole) return String(Math.round(v));
  const digits = 1 + Math.floor(r() * 3);
  return String(Number(v.toFixed(digits)));
}

const state = (page, w) => page.evaluate((w) => {
  const s = document.querySelector(`section.widget[data-widget="${w}"]`);
  return {
    outputs: [...s.querySelectorAll('output')].map((o) => o.textContent),
    commands: [...s.querySelectorAll('.proof code.cmd')].map((c) => c.textContent),
    boxes: [...s.querySelectorAll('input[type=text]')].map((b) => [b.dataset.param, b.value, b.getAttribute('aria-invalid')]),
  };
}, w);

test('every widget at random typed values: the link carries them exactly and loads the same results', async () => {
  const page = await L.open();
  const widgets = await showAll(page);
  assert.equal(widgets.length, (await registry(page)).length + 1);
  for (const [n, w] of widgets.entries()) {
    const r = rng(20261201 + n);
    await show(page, w);
    await openMore(page.locator(`section.widget[data-widget="${w}"]`));
    const sliders = await page.$$eval(`section.widget[data-widget="${w}"] input[type=range]`, (ss) =>
      ss.filter((s) => !s.disabled).map((s) => ({ param: s.dataset.param, min: +s.min, max: +s.max, step: +s.step || 1 })));
    const typed = {};
    const defaults = {};
    for (const s of sliders.filter(() => r() < 0.7)) {
      const v = pick(r, s.min, s.max, s.step);
      const box = page.locator(`#${w}-${s.param}`);
      const was = await box.inputValue();
      defaults[s.param] ??= was;
      await box.fill(v);
      await settle(page);
      if ((await box.getAttribute('aria-invalid')) !== 'true') {
        typed[s.param] = v;
      } else {
        await box.fill(was); // refused (e.g. a budget below the service time): back to the last good value
        await settle(page);
      }
    }
    const before = await state(page, w);
    // The address bar is written 150 ms after the last edit: wait until it names every typed
    // value that differs from the default (a busy machine may take longer than 150 ms).
    const want = Object.entries(typed).filter(([k, v]) => Number(v) !== Number(defaults[k])).map(([k]) => `${w}.${k}`);
    await page.waitForFunction((keys) => keys.every((k) => new URL(location.href).searchParams.has(k)), want, { polling: 50 });
    const url = new URL(page.url());
    for (const [param, v] of Object.entries(typed)) {
      const inUrl = url.searchParams.get(`${w}.${param}`);
      // A value equal to the default is not written; otherwise exactly as typed.
      if (inUrl !== null) assert.equal(Number(inUrl), Number(v), `${w}.${param}: the link says ${inUrl}, ${v} was typed`);
      for (const c of before.commands.filter((c) => c.includes(`--${param} `))) {
        assert.match(c, new RegExp(`--${param} '?${v.replace('.', '\\.')}`), `${w}: ${c} names the typed ${param}`);
      }
    }
    const again = await L.open(url.search);
    await show(again, w);
    assert.deepEqual(await state(again, w), before, `${w}: the link loads the same view (${url.search})`);
    await again.context().close();
  }
  await L.done(page);
});

test('the limit widget carries 12.345 and 0.004 exactly (the link once said 12.35 and 0)', async () => {
  const page = await L.open('?embed=littles');
  await page.locator('#littles-workers').fill('4');
  await page.locator('#littles-service-ms').fill('12.345');
  await settle(page);
  await page.waitForFunction(() => location.search.includes('service-ms=12.345'));
  assert.match(await page.locator('#littles-proof').textContent(), /--service-ms 12\.345/);
  const shown = await page.locator('#littles-out-0').textContent();
  const again = await L.open(new URL(page.url()).search);
  assert.equal(await again.locator('#littles-out-0').textContent(), shown);
  await again.context().close();
  await page.locator('#littles-service-ms').fill('0.004');
  await settle(page);
  const refused = (await page.locator('#littles-service-ms').getAttribute('aria-invalid')) === 'true';
  if (!refused) {
    await page.waitForFunction(() => location.search.includes('service-ms=0.004'));
    assert.match(await page.locator('#littles-proof').textContent(), /--service-ms 0\.004/);
  }
  await L.done(page);
});

test('at 320 px no embed scrolls sideways and its controls are touch-sized', async () => {
  const first = await L.open();
  const widgets = await first.$$eval('.widgets > section', (s) => s.map((e) => e.id.slice(2)));
  await first.context().close();
  for (const w of widgets) {
    const page = await L.open(`?embed=${w}`, { width: 320, height: 700 });
    const m = await page.evaluate(() => {
      const d = document.documentElement;
      const small = [...document.querySelectorAll('button, select, input[type=text], input[type=range]')]
        .filter((e) => e.offsetParent)
        .map((e) => [e.id || e.textContent.trim().slice(0, 30), Math.round(e.getBoundingClientRect().height)])
        .filter(([, h]) => h < 44);
      const wide = [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > d.clientWidth + 1)
        .map((e) => `${e.tagName.toLowerCase()}#${e.id}.${e.className}`).slice(0, 5);
      return { sw: d.scrollWidth, cw: d.clientWidth, small, wide, h1: document.querySelectorAll('section.widget > h1').length };
    });
    assert.ok(m.sw <= m.cw, `${w}: no horizontal scroll at 320 px (${m.sw} > ${m.cw}; ${m.wide.join(', ')})`);
    assert.deepEqual(m.small, [], `${w}: controls under 44 px tall`);
    assert.equal(m.h1, 1, `${w}: the embed's heading is its level-one heading`);
    await L.done(page);
  }
});

test('the queue limit "off" is the slider\'s last step; ArrowRight keeps it off, ArrowLeft gives a number', async () => {
  const page = await L.open('?embed=lesson');
  const s = page.getByRole('slider', { name: 'Queue limit (requests)', exact: true });
  const box = page.getByRole('textbox', { name: 'Queue limit (requests)', exact: true });
  await box.fill('off');
  await settle(page);
  assert.equal(await s.getAttribute('aria-valuetext'), 'off');
  assert.equal(await s.inputValue(), await s.getAttribute('max'));
  await s.focus();
  await page.keyboard.press('ArrowRight');
  await settle(page);
  assert.equal(await box.inputValue(), 'off', 'ArrowRight at off stays off');
  assert.equal(await s.getAttribute('aria-valuetext'), 'off');
  await page.keyboard.press('ArrowLeft');
  await settle(page);
  const n = await box.inputValue();
  assert.match(n, /^\d+$/, `ArrowLeft from off gives a number (${n})`);
  assert.equal(await s.getAttribute('aria-valuetext'), null);
  await page.keyboard.press('ArrowRight');
  await settle(page);
  assert.equal(await box.inputValue(), 'off');
  assert.match(await page.locator('#lesson-proof code.cmd').textContent(), /--limit off/);
  await L.done(page);
});

test('without Web Workers the page computes on the main thread and shows the same numbers', async () => {
  const withWorker = await L.open('?lesson.seed=3&admission.service-ms=7');
  await showAll(withWorker);
  const all = (p) => p.$$eval('section.widget', (s) => s.map((e) => [e.dataset.widget, e.dataset.compute ?? '', [...e.querySelectorAll('output')].map((o) => o.textContent)]));
  const a = await all(withWorker);
  assert.deepEqual(a.filter(([, c]) => c !== '').map(([, c]) => c), Array((await registry(withWorker)).length).fill('worker'), 'experiments computed in the worker');
  await L.done(withWorker);

  const page = await (async () => {
    const { openPage } = await import('./harness.mjs');
    const p = await openPage(L.browser, L.origin());
    await p.addInitScript(() => { delete globalThis.Worker; });
    await p.goto(`${L.url}?lesson.seed=3&admission.service-ms=7`);
    const { ready } = await import('./harness.mjs');
    await ready(p);
    await showAll(p);
    return p;
  })();
  const b = await all(page);
  assert.deepEqual(b.filter(([, c]) => c !== '').map(([, c]) => c), Array((await registry(page)).length).fill('main'), 'computed on the main thread');
  assert.deepEqual(b.map(([w, , o]) => [w, o]), a.map(([w, , o]) => [w, o]), 'the same numbers');
  await L.done(page);
});

test('the meta description is generated from the registry', async () => {
  const page = await L.open();
  const d = await page.evaluate(() => document.querySelector('meta[name=description]').content);
  const titles = await page.$$eval('.widgets > section > h2', (hs) => hs.map((h) => h.textContent));
  assert.ok(d.startsWith(`${titles.length} live widgets`), d);
  for (const t of titles) assert.ok(d.includes(t), `${d} names ${t}`);
  await L.done(page);
});

test('the adaptive widget reads out every controller it races, and only those', async () => {
  const page = await L.open('?embed=adaptive&controllers=aimd,vegas');
  const names = await page.$$eval('#w-adaptive dl.readouts dt', (d) => d.map((x) => x.textContent));
  assert.ok(names.some((n) => n.startsWith('AIMD: p99')), names.join(' | '));
  assert.ok(names.some((n) => n.startsWith('Vegas: p99')), names.join(' | '));
  assert.ok(!names.some((n) => /^(Fixed|CoDel|Gradient2): p99/.test(n)), names.join(' | '));
  const values = await page.$$eval('#w-adaptive output', (o) => o.map((x) => x.textContent));
  assert.ok(!values.some((v) => v === 'not raced'), values.join(' | '));
  // Racing more controllers adds their rows.
  await openMore(page.locator('#w-adaptive'));
  await page.getByRole('textbox', { name: /^Controllers/ }).fill('fixed,codel,aimd,vegas,gradient2,gradient');
  await settle(page);
  const all = await page.$$eval('#w-adaptive dl.readouts dt', (d) => d.map((x) => x.textContent));
  assert.equal(all.filter((n) => / p99 before → after the deploy$/.test(n)).length, 6, all.join(' | '));
  await L.done(page);
});

test('a 5,000-character paste gives a short message that names the value', async () => {
  const page = await L.open('?embed=lesson');
  await openMore(page.locator('#w-lesson'));
  const box = page.getByRole('textbox', { name: 'Service time (ms)', exact: true });
  await box.fill('x'.repeat(5000));
  await settle(page);
  const msg = await page.locator('#lesson-service-msg').textContent();
  assert.ok(msg.length < 400, `message of ${msg.length} characters`);
  assert.match(msg, /'x{20,60}…'/);
  const sw = await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);
  assert.ok(sw, 'the message does not spill sideways');
  await L.done(page);
});
