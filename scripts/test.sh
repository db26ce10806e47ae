#!/usr/bin/env bash
# Runs every test of bplab: format, lints, the wasm build of the core,
# unit/golden/claims/property/CLI tests, the live-service integration tests,
# one pass of each criterion benchmark, and the browser suites (wasm-pack
# test in headless Chromium + end-to-end against the built page).
# Installs what a fresh machine lacks first (idempotent).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
# A one-shot run gains nothing from incremental caches, which doubled
# target/'s size; CI's disk is shared and finite.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
step() { printf '\n=== %s ===\n' "$*"; }

step "install tools"
df -h . | tail -1
bash scripts/install-tools.sh

step "format"
cargo fmt --all -- --check

step "lints (native)"
cargo clippy --workspace --exclude bplab-web --all-targets -- -D warnings
if [ -d crates/bplab-web ]; then
  step "lints (wasm)"
  cargo clippy -p bplab-web --target wasm32-unknown-unknown -- -D warnings
fi

step "core and charts build for wasm32-unknown-unknown"
cargo build --target wasm32-unknown-unknown -p bplab-core -p bplab-charts

step "tests: unit, golden, claims, properties, CLI, live service"
cargo test --workspace --exclude bplab-web

step "benchmarks run (one pass each; measure with: cargo bench -p bplab-core)"
cargo bench -p bplab-core --benches -- --test

if [ -f scripts/test-web.sh ]; then
  step "browser: wasm-pack test --headless --chrome, then end-to-end in Chromium"
  SKIP_INSTALL=1 bash scripts/test-web.sh
fi
step "disk"
df -h . | tail -1
du -sh target 2>/dev/null || true
step "all tests passed"
