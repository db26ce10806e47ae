#!/usr/bin/env bash
# Tests the browser lab: wasm-bindgen tests in headless Chrome (wasm-pack),
# then builds dist/, serves it on a free 127.0.0.1 port and runs the
# end-to-end tests (node --test tests/e2e/, Debian chromium via
# playwright-core; file.test.mjs also opens dist/ from file://).
# Screenshots go to target/e2e-shots/. Exits non-zero on any failure.
# MEASURE=1 also prints the slider latency and page weight.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
if [ "${SKIP_INSTALL:-0}" != 1 ]; then
  bash scripts/install-tools.sh
fi
export PATH="$ROOT/node_modules/.bin:$HOME/.cargo/bin:$PATH"

echo "== wasm-bindgen tests (headless Chrome)"
start=$SECONDS
(cd crates/bplab-web && wasm-pack test --headless --chrome)
echo "wasm tests: $((SECONDS - start)) s"

echo "== build dist/"
SKIP_INSTALL=1 bash scripts/build-web.sh

mkdir -p "$ROOT/target"
PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
python3 -m http.server "$PORT" --bind 127.0.0.1 --directory "$ROOT/dist" >"$ROOT/target/test-web-server.log" 2>&1 &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null || true' EXIT
for _ in $(seq 50); do
  curl -fsS -o /dev/null "http://127.0.0.1:$PORT/" 2>/dev/null && break
  sleep 0.1
done

echo "== end-to-end tests against http://127.0.0.1:$PORT/"
start=$SECONDS
BASE_URL="http://127.0.0.1:$PORT/" DIST_DIR="$ROOT/dist" node --test --test-concurrency=1 tests/e2e/
echo "e2e tests: $((SECONDS - start)) s"

if [ "${MEASURE:-0}" = 1 ]; then
  echo "== measure"
  BASE_URL="http://127.0.0.1:$PORT/" node scripts/measure-page.mjs
fi
