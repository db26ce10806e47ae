#!/usr/bin/env node
// Makes the lab's Web Worker from Trunk's output (run after `trunk build`,
// before scripts/single-file.mjs; scripts/build-web.sh does both).
//
// The worker must be a *classic* script: a module worker started from a
// Blob URL does not run from file:// (bplab.html). So the wasm-bindgen glue
// (an ES module, `--target web`) is rewritten as a classic script:
//   - `export function f` / `export class C` lose `export`, and the glue is
//     wrapped in `const bplab = (() => { …; return { initSync, f, … }; })();`
//     (its last `export { initSync, __wbg_init as default }` goes);
//   - its `import { f } from './snippets/…'` and `import * as m from
//     './snippets/…'` lines (the page's `#[wasm_bindgen(inline_js)]` DOM
//     helpers, never called in a worker) become stubs that throw if they
//     ever are;
//   - `import.meta.url` becomes `self.location.href`;
// then web/worker.js (the message loop) follows. The worker instantiates the
// module the page compiled (posted to it), so the wasm is never fetched or
// shipped twice.
//
// Writes into DIST (and compacts the glue in place: no comments or
// indentation; its integrity hash in index.html updated, and the wasm's;
// the inline fallback script in index.html and the stylesheet are compacted the same way):
//   - bplab-worker-<hash>.js: the worker (for bplab-api.js on host pages);
//   - index.html: the same text in <script type="text/plain"
//     id="bplab-worker-src">, which the page starts from a Blob URL (the same
//     path in index.html and in bplab.html, which single-file.mjs makes from it);
//   - bplab-files.json: { glue, wasm, worker }, the hashed names, so that
//     bplab-api.js never has to read them out of index.html.
//
// Usage: node scripts/worker-glue.mjs [dist-dir]
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync, unlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = resolve(process.argv[2] || 'dist');
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
for (const f of files.filter((f) => /^bplab-worker-[0-9a-f]+\.js$/.test(f))) unlinkSync(join(dist, f));

// The page's own glue loses its comments and indentation too (see compact() below); its
// integrity hash in index.html follows.
const pageGlue = compact(fastStrings(readFileSync(join(dist, glue), 'utf8')));
writeFileSync(join(dist, glue), pageGlue);
let js = pageGlue;
js = js.replace(/^\s*import\s*\{([^}]*)\}\s*from\s*['"](\.\/snippets\/[^'"]+)['"]\s*;?/gm, (_, names) =>
  names.split(',').map((n) => n.trim()).filter(Boolean).map((n) => {
    const local = n.split(/\s+as\s+/).pop();
    return `const ${local} = () => { throw new Error('bplab worker: ${local} is a page helper, not available in the worker'); };`;
  }).join('\n'));
js = js.replace(/^\s*import\s*\*\s*as\s+([\w$]+)\s+from\s*['"](\.\/snippets\/[^'"]+)['"][ \t]*;?/gm, (_, ns) =>
  `const ${ns} = new Proxy({}, { get: (_, name) => () => { throw new Error(\`bplab worker: \${String(name)} is a page helper, not available in the worker\`); } });`);
const exported = [];
js = js.replace(/^export\s+(function\*?|class|const|let)\s+([\w$]+)/gm, (_, kind, name) => {
  exported.push(name);
  return `${kind} ${name}`;
});
js = js.replace(/^export\s*\{[^}]*\}\s*;?\s*$/gm, '');
js = js.replace(/\bimport\.meta\.url\b/g, 'self.location.href');
if (/^\s*(import|export)\b/m.test(js) || /\bimport\s*\(/.test(js)) die(`${glue}: an import or export this script cannot rewrite`);
if (!/function\s+initSync\s*\(/.test(js)) die(`${glue}: no initSync (wasm-bindgen changed its output?)`);
if (!exported.includes('__bplab_compute')) die(`${glue}: no __bplab_compute export (not bplab-web's glue?)`);
const loop = readFileSync(LOOP, 'utf8');
// Every string the wasm hands to JS (a tag, an attribute, a chart label, a colour) goes
// through the glue's getStringFromWasm0, which calls TextDecoder.decode: about 0.2 µs a call
// in Chromium at 1× for the short ASCII strings nearly all of them are, against under 0.1 µs
// for a loop over the bytes (measured, 200,000 calls of 3–40 bytes). A page load makes tens
// of thousands of them. Strings of at most 48 bytes that are all ASCII are built by the loop;
// the rest go to the decoder as before (the same text either way: ASCII bytes are their own
// UTF-16 code units).
function fastStrings(text) {
  const re = /function getStringFromWasm0\(ptr, len\) \{\s*ptr = ptr >>> 0;\s*return decodeText\(getUint8ArrayMemory0\(\)\.subarray\(ptr, ptr \+ len\)\);\s*\}/;
  if (!re.test(text)) die(`${glue}: no getStringFromWasm0 of the expected form (wasm-bindgen changed its output?)`);
  return text.replace(re, () => `function getStringFromWasm0(ptr, len) {
ptr = ptr >>> 0;
const mem = getUint8ArrayMemory0();
if (len <= 48) {
let s = '';
for (let i = ptr, end = ptr + len; i < end; i++) {
const c = mem[i];
if (c > 127) return decodeText(mem.subarray(ptr, ptr + len));
s += String.fromCharCode(c);
}
return s;
}
return decodeText(mem.subarray(ptr, ptr + len));
}`);
}
// The page carries this text besides the glue it loads itself (the weight cap counts both), so
// both go without comments and indentation: whole-line `/** … */` blocks and `//` lines, and
// leading blanks. Safe for this generated code: no line is inside a multi-line template
// literal (checked: a line with an odd number of backticks stops the compaction).
function compact(text) {
  if (text.split('\n').some((l) => (l.match(/`/g) || []).length % 2)) return text;
  return text
    .replace(/^[ \t]*\/\*\*[\s\S]*?\*\/[ \t]*\n/gm, '')
    .replace(/^[ \t]*\/\/[^\n]*\n/gm, '')
    .replace(/^[ \t]+/gm, '');
}
const worker = `// bplab worker: ${glue} as a classic script, then web/worker.js.\n` +
  compact(`const bplab = (() => {\n${js}\nreturn { initSync, ${exported.join(', ')} };\n})();\n${loop}`);
if (/<\/script|<!--/i.test(worker)) die('the worker text contains </script or <!--, which would end its data block early');

const hash = createHash('sha256').update(worker).digest('hex').slice(0, 16);
const name = `bplab-worker-${hash}.js`;
writeFileSync(join(dist, name), worker);
writeFileSync(join(dist, 'bplab-files.json'), `${JSON.stringify({ glue, wasm, worker: name }, null, 2)}\n`);

const indexPath = join(dist, 'index.html');
let html = readFileSync(indexPath, 'utf8');
const sri = `sha384-${createHash('sha384').update(pageGlue).digest('base64')}`;
const preload = new RegExp(`(href="\\./${glue.replace(/[.]/g, '\\.')}"[^>]*integrity=")[^"]*(")`);
if (/integrity=/.test(html) && !preload.test(html)) die(`index.html has no integrity attribute for ${glue} to update`);
html = html.replace(preload, (_, a, b) => `${a}${sri}${b}`);
// The wasm's too: build-web.sh runs one more wasm-opt pass over Trunk's output.
const wasmSri = `sha384-${createHash('sha384').update(readFileSync(join(dist, wasm))).digest('base64')}`;
const wasmLink = new RegExp(`(href="\\./${wasm.replace(/[.]/g, '\\.')}"[^>]*integrity=")[^"]*(")`);
if (/integrity=/.test(html) && !wasmLink.test(html)) die(`index.html has no integrity attribute for ${wasm} to update`);
html = html.replace(wasmLink, (_, a, b) => `${a}${wasmSri}${b}`);
// The stylesheet without its comments and indentation (no rule holds a quoted `/*`), its
// integrity hash in index.html updated.
for (const css of files.filter((f) => /^style-[0-9a-f]+\.css$/.test(f))) {
  const text = readFileSync(join(dist, css), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^[ \t]+/gm, '').replace(/\n{2,}/g, '\n');
  writeFileSync(join(dist, css), text);
  const link = new RegExp(`(href="\\./${css.replace(/[.]/g, '\\.')}"[^>]*integrity=")[^"]*(")`);
  if (/integrity=/.test(html) && !link.test(html)) die(`index.html has no integrity attribute for ${css} to update`);
  html = html.replace(link, (_, a, b) => `${a}sha384-${createHash('sha384').update(text).digest('base64')}${b}`);
}
// The inline fallback script (web/fallback.js, the page's first classic <script>) loses its
// comments and indentation too: they are a third of it, and index.html counts toward the cap.
html = html.replace(/<script>([\s\S]*?)<\/script>/, (_, body) => `<script>${compact(body)}</script>`);
html = html.replace(/\n?<script type="text\/plain" id="bplab-worker-src">[\s\S]*?<\/script>/, '');
if (!/<\/body>/i.test(html)) die('index.html has no </body>');
html = html.replace(/<\/body>/i, () => `<script type="text/plain" id="bplab-worker-src">${worker}</script>\n</body>`);
writeFileSync(indexPath, html);
console.log(`worker-glue: wrote ${name} (${(worker.length / 1024).toFixed(1)} KB) and bplab-files.json; index.html carries the worker`);
