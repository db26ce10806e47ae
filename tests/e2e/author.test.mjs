// Course authors without a toolchain (issue #20): a question added to
// bplab.html's questions block in a text editor, opened from file:// and
// answered; the same question in the URL (qj=); mount() on a host page; the
// lesson builder's outputs (served and from file://), each answered.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIST, ROOT, launch, openPage, ready, serveDirs } from './harness.mjs';

let srv;
let browser;
let tmp;

// The host page for mount(): its own element with an id a widget also uses.
const HOST = `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Course host</title></head>
<body><h1>Lesson 3</h1><p id="littles-q-verdict">host text</p>
<div id="one"></div><div id="two"></div>
<script type="module">
  import { mount } from '/bplab-api.js';
  window.mounted = [
    mount(document.getElementById('one'), { widget: 'littles', params: { workers: 2 }, question: JSON.parse(document.getElementById('q').textContent) }),
    mount(document.getElementById('two'), { widget: 'lesson', question: 'predict-ceiling' }),
  ];
  try { mount(document.getElementById('two'), { widget: 'littles', question: { id: 'x', widget: 'littles', prompt: 'p', options: [{ text: 'a' }], answer: { closest: 1 } } }); }
  catch (e) { window.refused = e.message; }
  try { mount(document.getElementById('two'), { widget: 'nope' }); } catch (e) { window.refusedWidget = e.message; }
</script>
<script type="application/json" id="q">QUESTION</script>
</body></html>`;

/** A question an author writes: computed right answer, conditional text, markup that must stay text. */
const QUESTION = {
  id: 'how-many-wait',
  widget: 'littles',
  params: { workers: 2, 'service-ms': 10 },
  prompt: [
    'With {workers} workers at {service-ms} ms and a {budget-ms} ms budget, how many requests may wait <b>at most</b>?',
    { if: ['$right', '>', 40], then: ' (It is more than forty.)', else: ' (It is forty or fewer.)' },
  ],
  vars: { right: { kind: 'limit', workers: '$workers', budget_ms: '$budget-ms', service_ms: '$service-ms', field: 'record_limit' } },
  options: [
    { text: 'About 10', value: 10, why: 'Ten is the lesson\'s number for one worker at 21 ms; here the record ships {right}.' },
    { text: 'About {right}', value: '$right', why: 'The record ships {right}: the largest queue whose slowest answer still fits the {budget-ms} ms budget.' },
    { text: 'About 90', value: 90, why: 'That would let the slowest answer take far longer than {budget-ms} ms.' },
  ],
  answer: { closest: '$right' },
};

const b64url = (text) => Buffer.from(text, 'utf8').toString('base64url');

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'bplab-author-'));
  const host = join(tmp, 'host.html');
  await writeFile(host, HOST.replace('QUESTION', JSON.stringify(QUESTION)));
  srv = await serveDirs({ '/': DIST }, { '/host.html': host });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await srv?.close();
});

async function done(page) {
  await page.waitForTimeout(50);
  assert.deepEqual(page.problems, [], 'no console errors, failed requests or other origins');
  await page.context().close();
}

/** bplab.html with its questions block replaced, as an author does in a text editor. */
async function authored(block, name) {
  const html = await readFile(join(DIST, 'bplab.html'), 'utf8');
  const re = /(<script type="application\/json" id="bplab-questions">)[\s\S]*?(<\/script>)/;
  assert.match(html, re, 'bplab.html carries the questions block');
  const file = join(tmp, name);
  await writeFile(file, html.replace(re, (_, open, close) => `${open}\n${block}\n${close}`));
  return file;
}

async function openFile(file, query = '') {
  const page = await openPage(browser, 'file://', { width: 720, height: 1000 });
  await page.goto(`file://${file}${query}`);
  await ready(page);
  return page;
}

async function served(query) {
  const page = await openPage(browser, srv.url.replace(/\/$/, ''), { width: 720, height: 1000 });
  await page.goto(`${srv.url}${query}`);
  await ready(page);
  return page;
}

/** Answers the question on `w` with option `i`; returns the verdict text. */
async function answer(page, w, i) {
  await page.locator(`#${w}-q-${i}`).check();
  return page.locator(`#${w}-q-verdict`).textContent();
}

test('an author adds a question to bplab.html in a text editor; from file:// a learner answers it', async () => {
  // The README's worked example, copied as it stands, is the same question.
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const example = readme.match(/\*\*A worked example\*\*[\s\S]*?```json\n([\s\S]*?)\n```/)[1];
  // The author's own edit in the text editor: markup in the prompt, which must stay text.
  const edited = example.replace('may wait?', 'may wait <b>at most</b>?');
  assert.deepEqual(JSON.parse(edited), { embed: 'littles', questions: [QUESTION] });
  const file = await authored(edited, 'lesson.html');
  const page = await openFile(file);
  const legend = page.locator('#littles-q-legend');
  assert.equal(
    await legend.textContent(),
    'With 2 workers at 10 ms and a 230 ms budget, how many requests may wait <b>at most</b>? (It is more than forty.)',
    'placeholders filled, only the branch that holds, markup shown as text',
  );
  assert.equal(await legend.locator('b').count(), 0, 'author text is never HTML');
  assert.equal(await page.locator('section.widget').count(), 1, 'the block asks for the widget alone');
  assert.ok(await page.getByRole('status', { name: /^Queue limit/ }).isHidden(), 'results hidden until the pick');
  assert.match(await page.locator('#littles-q-1 + label, label[for=littles-q-1]').first().textContent(), /B\. About 44/);
  assert.match(await answer(page, 'littles', 1), /^Right: B — About 44/);
  const reasons = page.locator('#w-littles .q-reasons li');
  assert.match(await reasons.nth(0).textContent(), /^A \(Wrong\): About 10\. Ten is/, 'a full stop between option and reason');
  // The premise follows the parameters: one worker → 22, the other branch.
  await page.getByRole('textbox', { name: 'Workers', exact: true }).fill('1');
  await page.waitForFunction(() => /forty or fewer/.test(document.getElementById('littles-q-legend').textContent));
  assert.match(await legend.textContent(), /With 1 workers at 10 ms .*\(It is forty or fewer\.\)$/);
  await done(page);
});

test('a mistake in the block is named by its field, and the lab still works', async () => {
  const bad = { questions: [{ ...QUESTION, options: [QUESTION.options[0], { text: 'no reason' }] }] };
  const page = await openFile(await authored(JSON.stringify(bad), 'bad.html'));
  const msg = page.locator('#bplab-questions-msg');
  assert.match(await msg.textContent(), /bplab-questions.*questions\[0\]\.options\[1\]: missing field 'why'/);
  assert.ok(await page.getByRole('status', { name: /^Queue limit/ }).isVisible(), 'no predict mode, widgets usable');
  const syntax = await openFile(await authored('{ "questions": [ { "id": "x", } ] }', 'syntax.html'));
  assert.match(await syntax.locator('#bplab-questions-msg').textContent(), /not valid JSON: .*\(line \d+ column \d+\)/);
  await done(syntax);
  await done(page);
});

test('the URL form qj= carries a question; old q= links keep working; the length is capped', async () => {
  const page = await served(`?embed=littles&qj=${b64url(JSON.stringify(QUESTION))}`);
  assert.match(await page.locator('#littles-q-legend').textContent(), /^With 2 workers at 10 ms/);
  assert.match(await answer(page, 'littles', 1), /^Right: B/);
  await page.getByRole('textbox', { name: 'Workers', exact: true }).fill('3');
  await page.waitForURL(/workers=3/);
  assert.match(page.url(), /[?&]qj=[\w-]+/, 'the question stays in the link');
  await done(page);
  const old = await served('?embed=littles&q=check-limit');
  assert.match(await old.locator('#littles-q-legend').textContent(), /deploy the lesson's limit of ten/);
  await done(old);
  const long = await served(`?embed=littles&qj=${'A'.repeat(6001)}`);
  assert.match(await long.locator('#littles-q-msg').textContent(), /qj: 6001 characters is too long; at most 6000/);
  await done(long);
  const broken = b64url(JSON.stringify({ ...QUESTION, answer: { closest: '$right', extra: 1 } }));
  const bad = await served(`?embed=littles&qj=${broken}`);
  assert.match(await bad.locator('#littles-q-msg').textContent(), /qj\.answer: unknown field 'extra'; expected one of: closest/);
  await done(bad);
});

test('mount() puts several widgets with their questions on a host page without touching its URL or ids', async () => {
  const page = await openPage(browser, srv.url.replace(/\/$/, ''), { width: 900, height: 1000 });
  await page.goto(`${srv.url}host.html?lesson=3`);
  await page.waitForFunction(() => window.mounted?.length === 2);
  assert.match(await page.evaluate(() => window.refused), /question\.options: expected 2 to 6 options, found 1/);
  assert.match(await page.evaluate(() => window.refusedWidget), /widget: expected one of littles, collapse/);
  assert.equal(await page.locator('iframe').count(), 2);
  const one = page.frameLocator('#one iframe');
  await one.locator('section.widget').waitFor();
  assert.match(await one.locator('#littles-q-legend').textContent(), /^With 2 workers at 10 ms/, 'the mount\'s params win');
  await one.locator('#littles-q-1').check();
  assert.match(await one.locator('#littles-q-verdict').textContent(), /^Right: B/);
  const two = page.frameLocator('#two iframe');
  await two.locator('#lesson-q-legend').waitFor();
  assert.match(await two.locator('#lesson-q-legend').textContent(), /twice the traffic it can serve/);
  await one.getByRole('textbox', { name: 'Workers', exact: true }).fill('3');
  await page.waitForTimeout(400); // past the widget's debounced URL write
  assert.equal(new URL(page.url()).search, '?lesson=3', 'a mount never writes the host\'s URL');
  assert.equal(await page.locator('#littles-q-verdict').textContent(), 'host text', 'the host\'s ids are its own');
  const h = await page.locator('#one iframe').evaluate((f) => f.getBoundingClientRect().height);
  assert.ok(h > 300, `the frame follows its content (${h} px)`);
  await done(page);
});

/** Sets a builder field by its visible label. */
async function fill(page, label, value) {
  await page.getByLabel(label, { exact: true }).fill(value);
}

async function download(page, id) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.locator(`#${id}`).click()]);
  const file = join(tmp, `${Date.now()}-${dl.suggestedFilename()}`);
  await dl.saveAs(file);
  return { name: dl.suggestedFilename(), file };
}

/** Builds a question in the builder open in `page`; returns after the preview shows it. */
async function build(page) {
  await page.getByLabel('Widget', { exact: true }).selectOption('littles');
  await fill(page, 'Question id (letters, digits, - and _)', 'built-one');
  await fill(page, 'Prompt (text; a JSON list makes conditional text)', 'Built: {workers} workers at {service-ms} ms. How many may wait?');
  await fill(page, 'Computed values (JSON object: name → value)', JSON.stringify(QUESTION.vars));
  const opts = [['About 10', '10', 'Too few: the record ships {right}.'], ['About {right}', '$right', 'The record ships {right}.'], ['About 90', '90', 'Too many.']];
  for (let i = 0; i < 6; i++) {
    const [t, v, w] = opts[i] || ['', '', ''];
    await fill(page, `Option ${'ABCDEF'[i]}: text`, t);
    await fill(page, `Option ${'ABCDEF'[i]}: value (number, $name or {"kind": …})`, v);
    await fill(page, `Option ${'ABCDEF'[i]}: why it is right or wrong`, w);
    // This question is marked by the closest value: the template's outcomes and reasons go.
    await fill(page, `Option ${'ABCDEF'[i]}: its outcome holds when (condition, e.g. ["$right", ">", 10])`, '');
    await fill(page, `Option ${'ABCDEF'[i]}: its reason holds when (condition)`, '');
  }
  await fill(page, 'Right option: the one whose value is closest to', '$right');
  // Parameters with the widget's own controls, in the preview, once it has settled.
  const preview = page.locator('#b-preview:not([aria-busy])');
  await preview.locator('#littles-q-legend').waitFor();
  await preview.getByRole('textbox', { name: 'Workers', exact: true }).fill('2');
  await preview.getByRole('textbox', { name: 'Service time (ms)', exact: true }).fill('10');
  await fill(page, 'Lesson title (SCORM)', 'Built lesson');
  await page.waitForFunction(() => /Built: 2 workers at 10 ms/.test(document.getElementById('littles-q-legend')?.textContent));
  assert.ok(await page.locator('#b-msg').isHidden(), await page.locator('#b-msg').textContent());
  await page.waitForFunction(() => /"params": \{ "workers": "2", "service-ms": "10" \}/.test(document.getElementById('b-json').value));
  const json = JSON.parse(await page.getByLabel('The question as JSON (for the questions block)').inputValue());
  assert.deepEqual(json.params, { workers: '2', 'service-ms': '10' }, 'params from the preview\'s controls');
  // The live preview is answerable as a learner would.
  await preview.locator('#littles-q-1').check();
  assert.match(await preview.locator('#littles-q-verdict').textContent(), /^Right: B — About 44/);
}

test('the lesson builder (served): preview, snippets, and a downloaded bplab.html answered from file://', async () => {
  const page = await openPage(browser, srv.url.replace(/\/$/, ''), { width: 1100, height: 1200 });
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: srv.url });
  await page.goto(`${srv.url}?build`);
  await page.locator('#b-widget').waitFor();
  // Keyboard and screen readers: every field has a label tied to it.
  const unlabeled = await page.evaluate(() => [...document.querySelectorAll('.builder-form input, .builder-form textarea, .builder-form select')]
    .filter((e) => !e.labels || e.labels.length === 0).map((e) => e.id));
  assert.deepEqual(unlabeled, []);
  await build(page);
  assert.equal(new URL(page.url()).search, '?build', 'the preview never rewrites the builder\'s address');
  // A mistake is named by its field.
  await fill(page, 'Option B: why it is right or wrong', '');
  await fill(page, 'Option B: text', '');
  await fill(page, 'Option C: text', '');
  await fill(page, 'Option C: why it is right or wrong', '');
  await page.waitForFunction(() => !document.getElementById('b-msg').hidden);
  assert.match(await page.locator('#b-msg').textContent(), /question\.options: expected 2 to 6 options, found 1/);
  await fill(page, 'Option B: text', 'About {right}');
  await fill(page, 'Option B: why it is right or wrong', 'The record ships {right}.');
  await fill(page, 'Option C: text', 'About 90');
  await fill(page, 'Option C: why it is right or wrong', 'Too many.');
  await page.waitForFunction(() => document.getElementById('b-msg').hidden);

  await page.locator('#b-copy-iframe').click();
  const iframe = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(iframe, /^<iframe src="http:\/\/127\.0\.0\.1:\d+\/\?embed=littles&amp;workers=2&amp;service-ms=10&amp;qj=[\w-]+" title=/);
  const src = iframe.match(/src="([^"]+)"/)[1].replaceAll('&amp;', '&');
  await page.locator('#b-copy-js').click();
  const js = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(js, /import \{ mount \} from 'http:\/\/127\.0\.0\.1:\d+\/bplab-api\.js';/);
  assert.match(js, /widget: 'littles',\n\s+params: \{ "workers": "2", "service-ms": "10" \}/);
  const embed = await openPage(browser, srv.url.replace(/\/$/, ''), { width: 720, height: 1000 });
  await embed.goto(src);
  await ready(embed);
  assert.match(await answer(embed, 'littles', 1), /^Right: B — About 44/, 'the iframe snippet\'s page asks the question');
  await done(embed);

  const { name, file } = await download(page, 'b-download');
  assert.equal(name, 'bplab.html');
  await done(page);
  const learner = await openFile(file);
  assert.match(await learner.locator('#littles-q-legend').textContent(), /^Built: 2 workers at 10 ms/);
  assert.match(await answer(learner, 'littles', 0), /^Not quite: you picked A; the model says B — About 44/);
  await done(learner);
});

test('D6: a package field typed right after a question edit still rebuilds the preview with the edit', async () => {
  const page = await openPage(browser, srv.url.replace(/\/$/, ''), { width: 1100, height: 1200 });
  await page.goto(`${srv.url}?build`);
  await page.locator('#littles-q-legend').waitFor();
  await page.waitForFunction(() => !document.getElementById('b-preview').hasAttribute('aria-busy'));
  // The template is the built-in question, marked by its options' outcomes and reasons.
  assert.ok(await page.locator('#b-msg').isHidden(), await page.locator('#b-msg').textContent());
  const template = JSON.parse(await page.locator('#b-json').inputValue());
  assert.deepEqual(template.answer, { statements: { otherwise: 'At these settings no option holds.' } });
  assert.deepEqual(template.options[0].outcome, ['$right', '>', 10]);
  // The prompt, then at once (well within the builder's wait) the title and the mastery score.
  await page.getByLabel('Prompt (text; a JSON list makes conditional text)', { exact: true }).fill('Edited: {workers} workers. How many may wait?');
  await page.getByLabel('Lesson title (SCORM)', { exact: true }).fill('A title typed right after');
  await page.getByLabel('Mastery score (SCORM, 0 to 100 %; empty: completed when answered)', { exact: true }).fill('50');
  await page.waitForFunction(() => !document.getElementById('b-preview').hasAttribute('aria-busy'));
  await page.waitForTimeout(400);
  assert.match(await page.locator('#littles-q-legend').textContent(), /^Edited: \d+ workers/, 'the preview shows the question being built');
  assert.match(await page.locator('#b-json').inputValue(), /Edited: \{workers\} workers/);
  await done(page);
});

test('the lesson builder from file:// downloads its own pristine copy with the question inside (CSP hashes intact)', async () => {
  const p = await openFile(join(DIST, 'bplab.html'), '?build');
  await p.locator('#b-widget').waitFor();
  await build(p);
  // D16: from a file, a snippet cannot point at file:// (no course page loads it): a placeholder host, said so.
  await p.locator('#b-copy-iframe').click();
  await p.waitForFunction(() => !document.getElementById('b-msg').hidden);
  assert.match(await p.locator('#b-msg').textContent(), /points at https:\/\/your-site\.example\/bplab\/: replace that with the address where you host dist\//);
  const { file } = await download(p, 'b-download');
  await done(p);
  const out = await readFile(file, 'utf8');
  const orig = await readFile(join(DIST, 'bplab.html'), 'utf8');
  const scripts = (html) => [...html.matchAll(/<script\b(?![^>]*application\/(?:json|octet-stream))[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
  assert.deepEqual(scripts(out), scripts(orig), 'inline scripts byte-identical, so their CSP hashes match');
  assert.match(out, /"embed": "littles"/);
  const learner = await openFile(file);
  assert.match(await answer(learner, 'littles', 1), /^Right: B — About 44/);
  await done(learner);
});
