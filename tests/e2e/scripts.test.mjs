// The page's scripts as a user runs them (no browser): D14, measure-page.mjs's
// --help prints its usage and exits at once; a wrong argument is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './harness.mjs';

const measure = (...args) => spawnSync(process.execPath, [join(ROOT, 'scripts/measure-page.mjs'), ...args], { encoding: 'utf8', timeout: 20000 });

test('measure-page.mjs --help prints its usage and exits 0 without measuring', () => {
  for (const flag of ['--help', '-h']) {
    const r = measure(flag);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^Usage: node scripts\/measure-page\.mjs/);
    assert.match(r.stdout, /--load-only/);
  }
});

test('measure-page.mjs refuses an unknown argument or a bad value with its usage', () => {
  let r = measure('--bogus');
  assert.equal(r.status, 2);
  assert.match(r.stderr, /^measure-page: unknown argument '--bogus'/);
  r = measure('--moves', 'x');
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--moves: 'x' is not accepted; expected a whole number/);
  r = measure('--rates', '0');
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--rates: '0' is not accepted/);
});
