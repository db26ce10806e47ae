#!/usr/bin/env node
// Makes the lab's Web Worker and compacts the page's scripts (run after `trunk build` and the
// wasm-opt pass, before scripts/single-file.mjs; scripts/build-web.sh does all of it).
//
// The worker must be a *classic* script: a module worker started from a Blob URL does not run
// from file:// (bplab.html). wasm-bindgen writes one itself: build-web.sh runs
// `wasm-bindgen --target no-modules` on the wasm Trunk bound (NO_MODULES_DIR), whose JS defines
// a global `wasm_bindgen` with `initSync`. The worker is that JS followed by web/worker.js (the
// message loop), both as they are: nothing wasm-bindgen wrote is rewritten here, so a
// wasm-bindgen upgrade needs no change to this script. The worker instantiates the module the
// page compiled (posted to it), so the wasm is never fetched or shipped twice; that module went
// through wasm-opt since wasm-bindgen wrote it, so this script first checks, with the engine's
// own WebAssembly.Module.imports/exports, that every import it asks for is one the no-modules
// glue provides and every export that glue calls is still there (the build stops if not).
//
// Compaction, by terser (pinned in package.json): the page's glue (Trunk's, an ES module), the
// worker, and index.html's inline classic scripts (web/fallback.js, web/fast-strings.js,
// web/dom-helpers.js) lose comments, blanks and long local names; the stylesheet loses its
// comments and indentation. The integrity hashes in index.html follow (the wasm's too:
// build-web.sh's wasm-opt pass changed it).
//
// Writes into DIST:
//   - bplab-worker-<hash>.js: the worker (for bplab-api.js on host pages);
//   - index.html: the same text in <script type="text/plain" id="bplab-worker-src">, which the
//     page starts from a Blob URL (the same path in index.html and in bplab.html, which
//     single-file.mjs makes from it);
//   - bplab-files.json: { glue, wasm, worker }, the hashed names, so that bplab-api.js never
//     has to read them out of index.html.
//
// Usage: node scripts/worker-glue.mjs DIST NO_MODULES_DIR
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync, unlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { minify } from 'terser';

if (process.argv.length !== 4) {
  console.error('Usage: node scripts/worker-glue.mjs DIST NO_MODULES_DIR');
  process.exit(2);
}
const dist = resolve(process.argv[2]);
const noModules = resolve(process.argv[3]);
const LOOP = fileURLToPath(new URL('../web/worker.js', import.meta.url));

function die(msg) {
  console.error(`worker-glue: ${msg}`);
  process.exit(1);
}

const files = readdirSync(dist);
const one = (re, what) => {
  const found = files.filter((f) => re.test(f));
  if (found.length !== 1) die(`expected one ${what} in ${dist}, found ${found.length}: ${found.join(', ')}`);
  return found[0];
};
const glue = one(/^bplab-web(-[0-9a-f]+)?\.js$/, 'wasm-bindgen glue (bplab-web-<hash>.js)');
const wasm = one(/^bplab-web(-[0-9a-f]+)?_bg\.wasm$/, 'wasm file (bplab-web-<hash>_bg.wasm)');
// wasm-bindgen's `--target no-modules` refuses `inline_js` snippets (the page's helpers are
// web/dom-helpers.js), so the page's glue can have none either.
if (files.includes('snippets')) die(`${dist}/snippets: wasm-bindgen snippets, which the worker's glue cannot carry`);
for (const f of files.filter((f) => /^bplab-worker-[0-9a-f]+\.js$/.test(f))) unlinkSync(join(dist, f));

// The no-modules glue belongs to the wasm wasm-bindgen wrote beside it; the page's wasm is that
// one after wasm-opt, which keeps every name but may drop an import nothing calls.
const bound = new WebAssembly.Module(readFileSync(join(noModules, 'bplab-web_bg.wasm')));
const shipped = new WebAssembly.Module(readFileSync(join(dist, wasm)));
const names = (list) => new Set(list.map((d) => `${d.module ?? ''} ${d.name} (${d.kind})`));
const missing = (want, have) => [...want].filter((n) => !have.has(n));
const unknownImports = missing(names(WebAssembly.Module.imports(shipped)), names(WebAssembly.Module.imports(bound)));
const lostExports = missing(names(WebAssembly.Module.exports(bound)), names(WebAssembly.Module.exports(shipped)));
if (unknownImports.length || lostExports.length) {
  die(`${wasm} does not match ${noModules}/bplab-web.js: imports the glue does not provide: ` +
    `${unknownImports.join(', ') || 'none'}; exports the glue calls that are gone: ${lostExports.join(', ') || 'none'}`);
}

async function compact(code, options, what) {
  try {
    const out = await minify(code, { ecma: 2020, ...options });
    return out.code;
  } catch (e) {
    return die(`terser could not compact ${what}: ${e.message}`);
  }
}

const pageGlue = await compact(readFileSync(join(dist, glue), 'utf8'), { module: true }, glue);
writeFileSync(join(dist, glue), pageGlue);

// One classic script: wasm-bindgen's, then ours. `toplevel` lets terser shorten the global names
// too (nothing but this script runs in the worker).
const worker = await compact(
  { 'bplab-web.js': readFileSync(join(noModules, 'bplab-web.js'), 'utf8'), 'worker.js': readFileSync(LOOP, 'utf8') },
  { toplevel: true },
  'the worker',
);
const lower = worker.toLowerCase();
if (lower.includes('</script') || worker.includes('<!--')) die('the worker text contains </script or <!--, which would end its data block early');

const hash = createHash('sha256').update(worker).digest('hex').slice(0, 16);
const name = `bplab-worker-${hash}.js`;
writeFileSync(join(dist, name), worker);
writeFileSync(join(dist, 'bplab-files.json'), `${JSON.stringify({ glue, wasm, worker: name }, null, 2)}\n`);

// index.html is Trunk's rendering of our own index.html: the edits below match what Trunk writes.
const indexPath = join(dist, 'index.html');
let html = readFileSync(indexPath, 'utf8');
const sri = (bytes) => `sha384-${createHash('sha384').update(bytes).digest('base64')}`;
function integrity(file, bytes) {
  const link = new RegExp(`(href="\\./${file.replace(/[.]/g, '\\.')}"[^>]*integrity=")[^"]*(")`);
  if (/integrity=/.test(html) && !link.test(html)) die(`index.html has no integrity attribute for ${file} to update`);
  html = html.replace(link, (_, a, b) => `${a}${sri(bytes)}${b}`);
}
integrity(glue, pageGlue);
integrity(wasm, readFileSync(join(dist, wasm)));
// Our stylesheet without its comments and indentation (no rule holds a quoted `/*`).
for (const css of files.filter((f) => /^style-[0-9a-f]+\.css$/.test(f))) {
  const text = readFileSync(join(dist, css), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^[ \t]+/gm, '').replace(/\n{2,}/g, '\n');
  writeFileSync(join(dist, css), text);
  integrity(css, text);
}
// Our inline classic scripts (Trunk writes each `rel="inline"` one as a bare `<script>`).
const inline = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)];
if (inline.length !== 3) die(`index.html has ${inline.length} inline classic scripts; expected 3 (web/fallback.js, web/fast-strings.js, web/dom-helpers.js)`);
const compacted = [];
for (const [i, m] of inline.entries()) compacted.push(await compact(m[1], {}, `index.html's inline script ${i + 1}`));
let k = 0;
html = html.replace(/<script>([\s\S]*?)<\/script>/g, () => `<script>${compacted[k++]}</script>`);
html = html.replace(/\n?<script type="text\/plain" id="bplab-worker-src">[\s\S]*?<\/script>/, '');
if (!/<\/body>/i.test(html)) die('index.html has no </body>');
html = html.replace(/<\/body>/i, () => `<script type="text/plain" id="bplab-worker-src">${worker}</script>\n</body>`);
writeFileSync(indexPath, html);
console.log(`worker-glue: wrote ${name} (${(worker.length / 1024).toFixed(1)} KB) and bplab-files.json; index.html carries the worker`);
