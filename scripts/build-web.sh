#!/usr/bin/env bash
# Builds the browser lab into dist/ (Trunk, release, offline): wasm + js + css,
# nothing fetched at run time; then dist/bplab.html, the same lab in one
# self-contained file that opens from file:// (scripts/single-file.mjs); then
# dist/bplab-scorm.zip, a SCORM 1.2 package of that file (see below).
# Installs missing tools first unless SKIP_INSTALL=1.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
if [ "${SKIP_INSTALL:-0}" != 1 ]; then
  bash scripts/install-tools.sh
fi
# npm's binaryen@132 wasm-opt first on PATH (never Debian's binaryen), then cargo's bin.
export PATH="$ROOT/node_modules/.bin:$HOME/.cargo/bin:$PATH"
# Trunk runs offline (Trunk.toml), which makes cargo offline too: fetch crates first.
cargo fetch --quiet
# wasm-bindgen never empties its output folder, and Trunk copies (and preloads) every snippet
# in it: a build from before the helpers left inline_js would leave stale ones there.
rm -rf "${CARGO_TARGET_DIR:-target}/wasm-bindgen/release/snippets"
trunk build --release --skip-version-check
# One more wasm-opt pass over Trunk's -Oz output: --converge repeats the passes until the
# module stops shrinking, and the producers and target-features sections (tools' metadata, never
# read by a browser) go: about 1 KB gzip, which the 400 KB cap needs. worker-glue.mjs then puts
# the new file's integrity hash in index.html. --low-memory-unused: Rust's linker puts the
# 1 MB stack first and the data after it, so the low 1 KB of memory is never addressed and
# Binaryen may fold constant offsets into loads and stores (docs/performance.md, page weight).
for wasm in dist/bplab-web-*_bg.wasm; do
  wasm-opt -Oz --converge --low-memory-unused --strip-producers --strip-target-features "$wasm" -o "$wasm.opt"
  mv "$wasm.opt" "$wasm"
done
# The worker's glue: wasm-bindgen's own classic-script target, `--target no-modules`, run on the
# wasm Trunk bound. Its `_bg.wasm` must be byte for byte the one Trunk's wasm-bindgen wrote
# (target/wasm-bindgen/release/, before wasm-opt): then the two glues belong to one module;
# worker-glue.mjs also checks the imports and exports against the optimised wasm in dist/. The
# Web Worker is that JS + web/worker.js, carried by index.html; the single file starts the page
# with the same JS.
TARGET="${CARGO_TARGET_DIR:-target}"
NO_MODULES="$(mktemp -d)"
trap 'rm -rf "$NO_MODULES"' EXIT
wasm-bindgen --target no-modules --no-typescript --out-dir "$NO_MODULES" --out-name bplab-web \
  "$TARGET/wasm32-unknown-unknown/release-wasm/bplab_web.wasm"
if ! cmp -s "$NO_MODULES/bplab-web_bg.wasm" "$TARGET/wasm-bindgen/release/bplab-web_bg.wasm"; then
  echo "build-web: wasm-bindgen --target no-modules did not write the wasm Trunk bound" \
    "($TARGET/wasm-bindgen/release/bplab-web_bg.wasm): another wasm-bindgen than $(wasm-bindgen --version)," \
    "another input, or Trunk keeps its output elsewhere now" >&2
  exit 1
fi
node scripts/worker-glue.mjs dist "$NO_MODULES"
node scripts/single-file.mjs dist "$NO_MODULES"
# SCORM 1.2 package for course platforms: imsmanifest.xml (web/scorm/imsmanifest.xml,
# the template the lesson builder fills too) and bplab.html whose questions block holds
# the built-in questions (web/questions.json), so the whole lab asks them and reports
# completion and the score to the LMS. Zipped by Python's zipfile.
python3 - web/scorm/imsmanifest.xml web/questions.json dist <<'PY'
import pathlib, re, sys, zipfile
tpl, questions, dist = pathlib.Path(sys.argv[1]).read_text(), pathlib.Path(sys.argv[2]).read_text(), pathlib.Path(sys.argv[3])
manifest = tpl.replace('{identifier}', 'bplab-lab').replace('{title}', 'bplab: the backpressure lab').replace('{mastery}', '')
page = (dist / 'bplab.html').read_text(encoding='utf-8')
block = re.compile(r'(<script type="application/json" id="bplab-questions">)(.*?)(</script>)', re.S)
if len(block.findall(page)) != 1:
    sys.exit('build-web: bplab.html has no single questions block')
page = block.sub(lambda m: m.group(1) + '\n' + questions.replace('</', '<\\/') + m.group(3), page)
def entry(name):
    # writestr with a bare name stores mode 0600 (owner only); an LMS that unzips as another
    # user could not read the files. Readable by all (0644), with a fixed date: same bytes.
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    info.create_system = 3  # Unix, so the mode below is read as one
    info.external_attr = 0o100644 << 16
    return info
with zipfile.ZipFile(dist / 'bplab-scorm.zip', 'w', zipfile.ZIP_DEFLATED) as z:
    z.writestr(entry('imsmanifest.xml'), manifest)
    z.writestr(entry('bplab.html'), page)
print(f"build-web: wrote {dist / 'bplab-scorm.zip'} ({(dist / 'bplab-scorm.zip').stat().st_size // 1024} KB)")
PY
ls -l dist
