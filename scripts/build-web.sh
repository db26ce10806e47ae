#!/usr/bin/env bash
# Builds the browser lab into dist/ (Trunk, release, offline): wasm + js + css,
# nothing fetched at run time; then dist/bplab.html, the same lab in one
# self-contained file that opens from file:// (scripts/single-file.mjs).
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
trunk build --release --skip-version-check
# The Web Worker (the glue as a classic script + web/worker.js), carried by index.html.
node scripts/worker-glue.mjs dist
node scripts/single-file.mjs dist
ls -l dist
