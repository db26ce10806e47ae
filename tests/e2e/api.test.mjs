// The JavaScript API (dist/bplab-api.js) and "the page proves its numbers":
// the example page fills its sentences from the API; a refused value throws
// the core's message; the SHA-256 the page shows for a CSV equals the one
// `bplab run` with the page's command line writes to manifest.json.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, launch, openPage, ready, site } from './harness.mjs';

let srv;
let browser;

before(async () => {
  srv = await site();
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await srv?.close();
});

const origin = () => srv.url.replace(/\/$/, '');

async function done(page) {
  await page.waitForTimeout(50);
  assert.deepEqual(page.problems, [], 'no console errors, failed requests or other origins');
  await page.context().close();
}

test('examples/lesson.html fills its sentences from the API', async () => {
  const page = await openPage(browser, origin(), { width: 800, height: 700 });
  await page.goto(`${srv.url}examples/lesson.html`);
  const span = (name) => page.locator(`[data-bplab="${name}"]`);
  await page.waitForFunction(() => document.querySelector('[data-bplab="ok-100"]').textContent !== '…');
  assert.ok(await page.locator('#error').isHidden(), await page.locator('#error').textContent());
  assert.equal(await span('limit-1').textContent(), '10');
  assert.equal(await span('limit-4').textContent(), '73');
  assert.match(await page.locator('#four').textContent(), /^With four workers at 12 ms the limit is 73\.$/);
  assert.equal(await span('capacity').textContent(), '47.6');
  assert.equal(await span('in-flight').textContent(), '10.95');
  const ok = Number(await span('ok-100').textContent());
  assert.ok(ok > 45 && ok < 50, `held at the ceiling: ${ok}`);
  await done(page);
});

test('the API takes and returns plain objects; refusals throw the core message', async () => {
  const page = await openPage(browser, origin(), { width: 800, height: 700 });
  await page.goto(`${srv.url}examples/lesson.html`);
  const out = await page.evaluate(async () => {
    const api = await import('../bplab-api.js');
    const thrown = (f) => {
      try {
        f();
        return 'no throw';
      } catch (e) {
        return `${e instanceof Error ? 'Error' : typeof e}: ${e.message}`;
      }
    };
    const r = api.run('admission', { 'service-ms': 7 });
    return {
      limit: api.limit({ workers: 4, budget_ms: 230, service_ms: 12 }).queue_limit,
      littles: api.littles({ arrivals_rps: 48, latency_ms: 230 }).in_flight,
      readout: r.readouts[0],
      command: r.command,
      csvHead: r.tables['bp-post2-plateau.csv'].split('\n')[0],
      sha: r.sha256['bp-post2-plateau.csv'],
      explain: api.explain('admission', { 'service-ms': 7 })[0].title,
      names: api.experiments().map((e) => e.name),
      badValue: thrown(() => api.run('lesson', { workers: 0 })),
      notUsed: thrown(() => api.run('lesson', { 'service-ms': 3 })),
      badLimit: thrown(() => api.limit({ workers: 4, budget_ms: 5, service_ms: 12 })),
      missing: thrown(() => api.limit({ budget_ms: 230, service_ms: 12 })),
    };
  });
  assert.equal(out.limit, 73);
  assert.ok(Math.abs(out.littles - 11.04) < 1e-9, String(out.littles));
  assert.deepEqual(out.readout, { name: 'B = capacity × deadline', value: '29 requests (deadline-safe 28)' });
  assert.equal(out.command, 'bplab run admission --service-ms 7');
  assert.match(out.csvHead, /,/);
  assert.match(out.sha, /^[0-9a-f]{64}$/);
  assert.ok(out.explain.length > 0);
  assert.ok(out.names.includes('lesson'));
  assert.equal(out.badValue, "Error: workers: '0' is not accepted; expected a whole number from 1 to 1024 (servers)");
  assert.equal(out.notUsed, 'Error: service-ms: not used by the lesson experiment; drop it');
  assert.equal(out.badLimit, 'Error: budget-ms: 5 leaves no room to queue behind a 12 ms service; expected a budget above 12');
  assert.equal(out.missing, 'Error: limit: missing field `workers`');
  await done(page);
});

function bplab() {
  const bin = join(ROOT, 'target', 'release', 'bplab');
  if (!existsSync(bin)) execFileSync('cargo', ['build', '--release', '-p', 'bplab'], { cwd: ROOT, stdio: 'inherit' });
  return bin;
}

/** `bplab run lesson --limit 5 …` → ['run', 'lesson', '--limit', '5', …] (the page quotes only when needed). */
const words = (cmd) => cmd.match(/'[^']*'|\S+/g).map((w) => w.replace(/^'|'$/g, '')).slice(1);

test('the page shows the command line and CSV hashes that bplab run reproduces', async () => {
  const page = await openPage(browser, origin(), { width: 720, height: 1000 });
  await page.goto(`${srv.url}?embed=lesson&limit=5&rate=60,100&replicas=2&seconds=5`);
  await ready(page);
  const cmd = await page.locator('#lesson-proof code.cmd').textContent();
  assert.equal(cmd, 'bplab run lesson --rate 60,100 --seconds 5 --limit 5 --replicas 2');
  await page.locator('#lesson-hashes summary').click();
  const shown = {};
  for (const h of await page.locator('#lesson-hashes code.hash').all()) {
    shown[await h.getAttribute('data-file')] = await h.textContent();
  }
  assert.deepEqual(Object.keys(shown).sort(), ['lesson-latency.csv', 'lesson-replicas.csv', 'lesson-sweep.csv']);
  // Editing a value recomputes the command and the hashes.
  await page.getByRole('textbox', { name: 'Seed (integer)' }).fill('7');
  await page.waitForFunction(() => document.querySelector('#lesson-proof code.cmd').textContent.includes('--seed 7'));
  const cmd2 = await page.locator('#lesson-proof code.cmd').textContent();
  const shown2 = {};
  for (const h of await page.locator('#lesson-hashes code.hash').all()) {
    shown2[await h.getAttribute('data-file')] = await h.textContent();
  }
  assert.notEqual(shown2['lesson-sweep.csv'], shown['lesson-sweep.csv']);

  const out = mkdtempSync(join(tmpdir(), 'bplab-proof-'));
  try {
    execFileSync(bplab(), [...words(cmd2), '--output-dir', out, '--no-charts', '-q'], { cwd: ROOT });
    const manifest = JSON.parse(readFileSync(join(out, 'lesson', 'manifest.json'), 'utf8'));
    for (const [file, sha] of Object.entries(shown2)) {
      assert.equal(manifest.files.find((f) => f.file === file)?.sha256, sha, `${file}: page hash = bplab run's`);
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  await done(page);
});
