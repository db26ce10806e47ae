// End-to-end: the limit widget exports its number to the edge. The nginx
// download carries the limit the record ships, with the record as comments,
// and follows the widget's inputs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { lab } from './harness.mjs';

const L = lab();

async function download(page, id) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.evaluate((i) => document.getElementById(i).click(), id)]);
  return { name: dl.suggestedFilename(), text: await readFile(await dl.path(), 'utf8') };
}

test('the limit widget downloads nginx, haproxy, envoy and tower configs carrying its number', async () => {
  const page = await L.open('?littles.workers=4&littles.service-ms=12');
  const nginx = await download(page, 'littles-export-nginx-download');
  assert.equal(nginx.name, 'nginx.conf');
  assert.match(nginx.text, /limit_conn\s+\S+\s+76;/, 'queue 72 + 4 workers in service');
  assert.match(nginx.text, /What would reverse it/);
  const haproxy = await download(page, 'littles-export-haproxy-download');
  assert.match(haproxy.text, /maxconn 4 maxqueue 72/);
  const envoy = await download(page, 'littles-export-envoy-download');
  assert.match(envoy.text, /max_pending_requests: 72/);
  const tower = await download(page, 'littles-export-tower-download');
  assert.match(tower.text, /ConcurrencyLimitLayer::new\(IN_SYSTEM_LIMIT\)/);
  await L.done(page);
});
