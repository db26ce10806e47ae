#!/usr/bin/env node
// Writes dist/bplab.html: the whole lab in one self-contained file that opens
// from file:// (or any host, an LMS upload, an e-mail attachment).
//
// From Trunk's dist/index.html it:
//   - inlines the stylesheet as <style> and the favicon as a data: URI;
//   - drops Trunk's module preloads, integrity/crossorigin attributes and its
//     <script type="module"> that imports the wasm-bindgen JS by URL;
//   - puts the wasm, gzipped then base64, in a non-executed data block, and
//     wasm-bindgen's `--target no-modules` JS (which imports nothing) in one
//     inline module script that decodes and gunzips the bytes
//     (DecompressionStream) and hands them to its documented entry
//     (`wasm_bindgen({ module_or_path: bytes })`): nothing is fetched;
//   - marks <html data-single-file> (web/fallback.js then skips its file://
//     warning but still reports a failed start);
//   - replaces the Content-Security-Policy with one that allows no network at
//     all: default-src 'none', the page's own inline scripts by SHA-256 hash,
//     'wasm-unsafe-eval', inline styles, images from data:/blob:.
// Then it checks that no tag still points at a file and prints the size.
//
// Usage: node scripts/single-file.mjs DIST NO_MODULES_DIR   (after scripts/worker-glue.mjs;
// scripts/build-web.sh runs both). Needs terser (package.json) besides Node's standard library.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { minify } from 'terser';

// Follows the page's 450 KB gzip cap: the wasm's gzip as base64 (4/3) plus the page's text.
const TARGET_RAW_KB = 680;
if (process.argv.length !== 4) {
  console.error('Usage: node scripts/single-file.mjs DIST NO_MODULES_DIR');
  process.exit(2);
}
const dist = resolve(process.argv[2]);
const noModules = resolve(process.argv[3]);
const OUT = 'bplab.html';

function die(msg) {
  console.error(`single-file: ${msg}`);
  process.exit(1);
}

/** Attributes of one start tag, e.g. `<link rel="x" href="y">` → { rel: 'x', href: 'y' }. */
function attrs(tag) {
  const out = {};
  const re = /([^\s=<>/"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?/g;
  const body = tag.replace(/^<\s*[a-zA-Z]+/, '').replace(/\/?>$/, '');
  for (const m of body.matchAll(re)) out[m[1].toLowerCase()] = m[2] ?? m[3] ?? m[4] ?? '';
  return out;
}

/** A dist-relative URL from the page (`./x.css`, `x.css`, `/x.css`) → a path in dist. */
function local(url) {
  if (/^[a-z][a-z0-9+.-]*:/i.test(url) || url.startsWith('//')) die(`unexpected external URL ${url}`);
  const path = decodeURIComponent(url.split(/[?#]/)[0]).replace(/^\.?\//, '');
  const full = resolve(dist, path);
  if (!full.startsWith(dist)) die(`URL outside dist: ${url}`);
  return full;
}

const read = (url, enc) => {
  try {
    return readFileSync(local(url), enc);
  } catch (e) {
    return die(`cannot read ${url} from ${dist}: ${e.message}`);
  }
};

// `</script` or `</style` inside inlined text would end the element early.
const safe = (text, tag) => text.replace(new RegExp(`</(${tag})`, 'gi'), '<\\/$1');

const MIME = { '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon' };

let html;
try {
  html = readFileSync(join(dist, 'index.html'), 'utf8');
} catch (e) {
  die(`no ${join(dist, 'index.html')}: run trunk build first (${e.message})`);
}

// Script and style contents are set aside while tags are rewritten (a comment
// inside a script may well mention `<link ...>`), and put back afterwards.
const blocks = [];
const hold = (text) => `<!--bplab-block-${blocks.push(text) - 1}-->`;

// 1. Trunk's loader: <script type="module"> importing the wasm-bindgen JS.
let jsUrl = null;
let wasmUrl = null;
html = html.replace(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi, (whole, open, code) => {
  const a = attrs(`<script${open}>`);
  if (a.src) die(`external script ${a.src}: not expected in Trunk's output`);
  if (a.type !== 'module') return hold(whole); // classic inline scripts (web/fallback.js) stay
  const js = code.match(/from\s*['"]([^'"]+\.js)['"]/);
  const wasm = code.match(/['"]([^'"]+_bg\.wasm)['"]/);
  if (!js || !wasm) die('found a module script that is not Trunk\'s wasm loader');
  if (jsUrl) die('more than one wasm loader in index.html');
  jsUrl = js[1];
  wasmUrl = wasm[1];
  return '<!--bplab-loader-->';
});
if (!jsUrl) die('Trunk\'s wasm loader (<script type="module">) not found in index.html');
html = html.replace(/<style\b[^>]*>[\s\S]*?<\/style>/gi, hold);

// 2. <link>: stylesheet → <style>, icon → data:, preloads dropped.
html = html.replace(/<link\b[^>]*>/gi, (tag) => {
  const a = attrs(tag);
  const rel = (a.rel || '').toLowerCase().split(/\s+/);
  if (rel.includes('modulepreload') || rel.includes('preload') || rel.includes('prefetch')) return '';
  if (rel.includes('stylesheet')) {
    const css = read(a.href, 'utf8');
    if (/url\(\s*(?!['"]?data:)/i.test(css) || /@import/i.test(css)) die(`${a.href} refers to another file`);
    return `<style>${safe(css, 'style')}</style>`;
  }
  if (rel.includes('icon')) {
    const ext = a.href.match(/\.[a-z]+$/i)?.[0].toLowerCase();
    const type = MIME[ext] || die(`favicon of unknown type: ${a.href}`);
    const data = `data:${type};base64,${read(a.href).toString('base64')}`;
    return `<link rel="icon" type="${type}" href="${data}" />`;
  }
  return die(`unexpected <link> in index.html: ${tag}`);
});

// 3. The wasm-bindgen JS as one inline module that imports nothing: wasm-bindgen's
//    `--target no-modules` output (NO_MODULES_DIR, from build-web.sh: made from the same wasm,
//    checked against it by worker-glue.mjs), compacted by terser, as it is. Its documented entry,
//    `wasm_bindgen({ module_or_path })`, takes the bytes: nothing is fetched, and nothing here
//    depends on what the glue calls its functions inside.
const wasm = read(wasmUrl);
if (wasm.readUInt32BE(0) !== 0x0061736d) die(`${wasmUrl} is not a wasm module`);

// The start: the wasm is in #bplab-wasm and the worker's text in #bplab-worker-gz, each gzipped
// then base64; nothing is fetched. The worker text goes to globalThis.__bplabWorkerSrc (the DOM
// stays as parsed, so the builder's pristine copy is this file byte for byte).
const boot = `
(async () => {
  const unpack = async (id) => {
    const text = document.getElementById(id).textContent.replace(/\\s+/g, '');
    let packed;
    if (typeof Uint8Array.fromBase64 === 'function') {
      packed = Uint8Array.fromBase64(text);
    } else {
      const bin = atob(text);
      packed = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) packed[i] = bin.charCodeAt(i);
    }
    const gunzip = new Blob([packed]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Response(gunzip).arrayBuffer();
  };
  const [bytes, worker] = await Promise.all([unpack('bplab-wasm'), unpack('bplab-worker-gz')]);
  globalThis.__bplabWorkerSrc = new TextDecoder().decode(worker);
  await wasm_bindgen({ module_or_path: bytes });
})().catch((e) => {
  console.error('bplab: the WebAssembly module could not be instantiated:', e);
  dispatchEvent(new CustomEvent('bplab-start-failed', { detail: e }));
});
`;
// The glue and the start compacted as one module (terser may shorten `wasm_bindgen` too).
let moduleCode;
const glueFile = join(noModules, 'bplab-web.js');
try {
  moduleCode = (await minify({ 'bplab-web.js': readFileSync(glueFile, 'utf8'), 'start.js': boot }, { module: true, ecma: 2020 })).code;
} catch (e) {
  die(`cannot read or compact ${glueFile} and the start: ${e.message}`);
}
if (moduleCode.includes('<!--') || moduleCode.toLowerCase().includes('</script')) {
  die('the wasm-bindgen JS contains <!-- or </script, which would change how HTML parses an inline script');
}
const packed = gzipSync(wasm, { level: 9 });
const b64 = packed.toString('base64').replace(/.{1,76}/g, '$&\n');
// The worker's text (index.html's #bplab-worker-src: the glue again, with the
// worker's loop) is packed like the wasm: gzipped then base64.
const workerRe = /<script type="text\/plain" id="bplab-worker-src">([\s\S]*?)<\/script>/;
const workerHeld = html.match(/<!--bplab-block-(\d+)-->/g)?.map((m) => Number(m.match(/\d+/)[0]))
  .find((i) => workerRe.test(blocks[i]));
if (workerHeld === undefined && !workerRe.test(html)) die('index.html carries no <script type="text/plain" id="bplab-worker-src"> (run scripts/worker-glue.mjs)');
const packWorker = (tag) => {
  const text = tag.match(workerRe)[1];
  const gz = gzipSync(Buffer.from(text, 'utf8'), { level: 9 }).toString('base64').replace(/.{1,76}/g, '$&\n');
  return `<script type="application/octet-stream" id="bplab-worker-gz">\n${gz}</script>`;
};
if (workerHeld !== undefined) blocks[workerHeld] = blocks[workerHeld].replace(workerRe, (t) => packWorker(t));
else html = html.replace(workerRe, (t) => packWorker(t));
html = html.replace(
  '<!--bplab-loader-->',
  () => `<script type="application/octet-stream" id="bplab-wasm">\n${b64}</script>\n` +
    `<script type="module">${moduleCode}</script>`,
);

html = html.replace(/<!--bplab-block-(\d+)-->/g, (_, i) => blocks[Number(i)]);

// 4. Mark the single file for web/fallback.js.
html = html.replace(/<html\b([^>]*)>/i, (t, rest) => (/data-single-file/.test(rest) ? t : `<html${rest} data-single-file>`));

// 5. CSP: no network at all; the inline scripts by hash (of the text as the
//    parser will see it: line endings normalised to LF first).
html = html.replace(/\r\n?/g, '\n');
const hashes = [];
for (const m of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
  const type = attrs(`<script${m[1]}>`).type;
  if (type && type !== 'module' && type !== 'text/javascript') continue; // data block, never run
  hashes.push(`'sha256-${createHash('sha256').update(m[2], 'utf8').digest('base64')}'`);
}
const csp = [
  "default-src 'none'",
  `script-src ${hashes.join(' ')} 'wasm-unsafe-eval'`,
  "style-src 'unsafe-inline'",
  'img-src data: blob:',
  // The lab's worker starts from a Blob URL of its text (unpacked from #bplab-worker-gz).
  'worker-src blob:',
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');
let cspCount = 0;
html = html.replace(/<meta\b[^>]*http-equiv\s*=\s*["']?Content-Security-Policy["']?[^>]*>/gi, () => {
  cspCount += 1;
  return cspCount === 1 ? `<meta http-equiv="Content-Security-Policy" content="${csp}" />` : '';
});
if (cspCount === 0) html = html.replace(/<head\b[^>]*>/i, (t) => `${t}\n  <meta http-equiv="Content-Security-Policy" content="${csp}" />`);

// 6. Nothing may point at a file any more.
const tags = html.replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1>/gi, '');
for (const m of tags.matchAll(/\s(src|href|integrity|crossorigin)\s*=\s*["']?([^"'\s>]*)/gi)) {
  const [, name, value] = m;
  if (/^(integrity|crossorigin)$/i.test(name)) die(`${name} attribute left in ${OUT}`);
  if (!value.startsWith('data:') && !value.startsWith('#')) die(`${OUT} still refers to ${value}`);
}

writeFileSync(join(dist, OUT), html);
const raw = Buffer.byteLength(html);
const gz = gzipSync(html, { level: 9 }).length;
const kb = (b) => (b / 1024).toFixed(1);
console.log(`single-file: wrote ${join(dist, OUT)}: ${kb(raw)} KB raw, ${kb(gz)} KB gzip ` +
  `(wasm ${kb(wasm.length)} KB, gzipped ${kb(packed.length)} KB, as base64; js ${kb(moduleCode.length)} KB; target <= ${TARGET_RAW_KB} KB raw)`);
if (raw > TARGET_RAW_KB * 1024) console.warn(`single-file: WARNING: ${OUT} is over the ${TARGET_RAW_KB} KB target`);
