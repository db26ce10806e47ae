// End-to-end: edge values typed into every control of every widget. After
// each value the page must have no page error or console error, and every
// widget must still answer: typing its default back into the control makes
// its readouts show the default result again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lab, openMore, settle, show, showAll } from './harness.mjs';

const L = lab();

// Edges of every accepted range and beyond it: minimum and maximum,
// smallest positive, subnormals, huge, negative, junk, lists, none/off/B.
const EDGES = [
  '0', '1', '-1', '1e-10', '5e-324', '2.2250738585072014e-308', '1e308', '1e400', 'NaN', 'inf', '', ' ',
  'abc', '0.999999', '3600000', '4294967295', '1,1,1', 'none', 'off', 'B', 'fixed:0.001', 'mix:20,100%x1000',
];

test('edge values in every control never break a widget', async () => {
  const page = await L.open();
  const widgets = await showAll(page);
  assert.ok(widgets.length >= 7, `all widgets mounted (${widgets})`);
  let typed = 0;
  for (const w of widgets) {
    const section = await show(page, w);
    await openMore(section);
    const outputs = section.locator('output');
    const before = await outputs.allTextContents();
    const boxes = await section.locator('input[type=text]:not([disabled])').all();
    for (const box of boxes) {
      const original = await box.inputValue();
      for (const v of EDGES) {
        await box.fill(v);
        await box.dispatchEvent('input');
        typed += 1;
      }
      await box.fill(original);
      await box.dispatchEvent('input');
    }
    await settle(page);
    // The widget still answers: back at its defaults it shows the default result.
    assert.deepEqual(await outputs.allTextContents(), before, `${w} answers again after the edges`);
  }
  assert.ok(typed > 500, `typed ${typed} values`);
  await L.done(page);
});
