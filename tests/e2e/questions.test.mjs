// Predict, then check (web/questions.json): the question comes first as a
// labelled radio group, the widget's results stay hidden until a pick, the
// verdict is announced politely, each option says why, and the right option
// is computed from the widget's current parameters (change them and it moves).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { SHOTS, lab, openPage, ready, settle } from './harness.mjs';

const L = lab();
const open = (query, viewport = { width: 720, height: 1000 }) => L.open(query, viewport);
const { done } = L;

const verdict = (page, w) => page.locator(`#${w}-q-verdict`);

test("the Check on littles: 72 (the number the record ships) computed by the calculator; two workers move the options' number", async () => {
  const page = await open('?embed=littles&q=check-limit');
  const group = page.getByRole('radiogroup', { name: /deploy the lesson's limit of ten queued requests to production/ });
  assert.match(await group.getAttribute('aria-labelledby'), /littles-q-legend/);
  assert.match(await page.locator('#littles-q-legend').textContent(), /with 4 worker\(s\) .* 12 ms/);
  assert.equal(await group.getByRole('radio').count(), 4);
  assert.equal(await verdict(page, 'littles').getAttribute('aria-live'), 'polite');
  // Predict mode: results hidden, controls shown (the question's params: 4 workers at 12 ms).
  assert.ok(await page.getByRole('status', { name: /^Queue limit/ }).isHidden());
  assert.ok(await page.locator('#littles-chart-0').isHidden());
  assert.equal(await page.getByRole('textbox', { name: 'Workers', exact: true }).inputValue(), '4');
  await page.screenshot({ path: join(SHOTS, 'question-littles-before.png'), fullPage: true });

  // Keyboard: focus the first radio and choose it with Space.
  await group.getByRole('radio').first().focus();
  await page.keyboard.press('Space');
  await settle(page);
  assert.match(await verdict(page, 'littles').textContent(), /^Right: A/);
  assert.equal(await page.getByRole('status', { name: /^Queue limit/ }).textContent(), '72');
  assert.ok(await page.locator('#littles-chart-0').isVisible());
  const reasons = page.locator('#w-littles .q-reasons li');
  assert.equal(await reasons.count(), 4);
  assert.match(await reasons.nth(2).textContent(), /^C \(Wrong\): The limit is right as it is: .*\. The limit record ships 72 for 4 worker\(s\) at 12 ms\./);

  // Two workers: the calculator now says 36; the option's number follows it
  // (computed, never fixed), and A stays right because 36 is still above ten.
  const workers = page.getByRole('textbox', { name: 'Workers', exact: true });
  await workers.fill('2');
  await settle(page);
  assert.match(await verdict(page, 'littles').textContent(), /^Right: A — .*2 worker\(s\) at 12 ms against the same budget allow 36 queued/);
  assert.match(await reasons.nth(0).textContent(), /A \(Right\).*With 2 worker\(s\) at 12 ms .* = 36\.33, and the limit record ships 36:/);
  await page.waitForURL(/workers=2/);
  assert.match(page.url(), /[?&]q=check-limit/, 'the question stays in the URL after an edit');
  await group.getByRole('radio').nth(1).check();
  assert.match(await verdict(page, 'littles').textContent(), /^Not quite: you picked B; the model says A/);
  await page.screenshot({ path: join(SHOTS, 'question-littles-after.png'), fullPage: true });
  await done(page);
});

test('the Predict on lesson: the model delivers the ceiling at twice capacity', async () => {
  const page = await open('?embed=lesson&q=predict-ceiling');
  const group = page.getByRole('radiogroup', { name: /twice the traffic it can serve \(95\.24 a second/ });
  assert.ok(await page.locator('#w-lesson .charts').isHidden());
  for (const dl of await page.locator('#w-lesson .readouts').all()) assert.ok(await dl.isHidden(), 'the headline and the other readouts');
  assert.ok(await page.locator('#lesson-explain-panel').isHidden());
  await group.getByRole('radio', { name: /falls far below the ceiling/ }).check();
  const v = await verdict(page, 'lesson').textContent();
  assert.match(v, /^Not quite: you picked C; the model says B — It holds near the ceiling of 47\.62 a second, because the limit refuses the excess/);
  assert.ok(await page.locator('#w-lesson .charts').isVisible());
  const why = await page.locator('#w-lesson .q-reasons li').nth(1).textContent();
  const delivered = Number(why.match(/The model delivers ([\d.]+) a second/)[1]);
  assert.ok(Math.abs(delivered - 47.62) < 2, `delivered ${delivered} ≈ capacity`);
  // Without the limit the same question's model answer moves away from the ceiling.
  const off = await open('?embed=lesson&q=predict-ceiling&limit=off');
  await off.getByRole('radio').first().check();
  assert.doesNotMatch(await verdict(off, 'lesson').textContent(), /the model says B|Right: B/);
  await page.screenshot({ path: join(SHOTS, 'question-lesson.png'), fullPage: true });
  await done(off);
  await done(page);
});

// Audit (explanations #29): the Check marks right what the limit record ships, and the
// Predict's premise is conditional text that is true at every setting.
test('audit #29: the Check\'s right option is the number the record ships (72, not 73)', async () => {
  const page = await open('?embed=littles&q=check-limit');
  await page.getByRole('radio').first().check();
  assert.match(await verdict(page, 'littles').textContent(), /^Right: A — .*allow 72 queued/);
  const record = await page.locator('#littles-record').textContent();
  assert.match(record, /\b72\b/, 'the record ships 72');
  assert.match(await page.locator('#w-littles .q-reasons li').first().textContent(), /= 72\.67, and the limit record ships 72:/);
  await done(page);
});

test('audit #29 and T12: the Predict\'s premise and its right reason follow the run (limit 50, limit off)', async () => {
  const at50 = await open('?embed=lesson&q=predict-ceiling&limit=50');
  assert.match(await at50.locator('#lesson-q-legend').textContent(), /You set an admission limit \(50 queued\)/);
  await done(at50);
  const off = await open('?embed=lesson&q=predict-ceiling&limit=off');
  const text = await off.locator('#lesson-q-legend').textContent();
  assert.match(text, /queue limit: off; nothing is refused here/);
  await off.getByRole('radio').nth(2).check();
  assert.match(await verdict(off, 'lesson').textContent(), /^Right: C — It falls far below the ceiling, because callers give up on answers that come too late/);
  // The halving option's outcome is not what is marked: its reason (refusals) is false here.
  const items = await off.locator('#w-lesson .q-reasons li').allTextContents();
  assert.match(items[0], /^A \(Wrong\):.* of \d+ arrivals 0 are refused and \d+ callers give up\./);
  await done(off);
});

test('page.md #15: each option and its reason are separate sentences', async () => {
  const page = await open('?embed=lesson&q=predict-ceiling');
  await page.getByRole('radio').first().check();
  const items = await page.locator('#w-lesson .q-reasons li').allTextContents();
  assert.match(items[0], /^A \(Wrong\): It roughly halves, because about half the arrivals are refused\. The model delivers/);
  assert.match(items[3], /because refusing work frees capacity\. Refusing frees no capacity/);
  await done(page);
});

test('a question that does not exist says so, names the field, and leaves the widget usable', async () => {
  const page = await open('?embed=littles&q=nope');
  const msg = page.locator('#littles-q-msg');
  assert.ok(await msg.isVisible());
  assert.match(await msg.textContent(), /q: no question 'nope' for the littles widget; questions for it: check-limit/);
  assert.ok(await page.getByRole('status', { name: /^Queue limit/ }).isVisible(), 'no predict mode');
  const wrong = await open('?embed=admission&q=check-limit');
  assert.match(await wrong.locator('#admission-q-msg').textContent(), /no question 'check-limit' for the admission widget/);
  await done(wrong);
  await done(page);
});

test('bplab.html from file:// asks the compiled-in question without fetching anything', async () => {
  const { DIST } = await import('./harness.mjs');
  const url = `file://${join(DIST, 'bplab.html')}?embed=littles&q=check-limit`;
  const page = await openPage(L.browser, 'file://', { width: 720, height: 1000 });
  await page.goto(url);
  await ready(page);
  await page.getByRole('radio').nth(2).check();
  assert.match(await verdict(page, 'littles').textContent(), /^Not quite: you picked C; the model says A/);
  await done(page);
});
