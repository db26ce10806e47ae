#!/usr/bin/env bash
# Builds the browser lab (scripts/build-web.sh) and serves dist/ on
# http://127.0.0.1:${PORT:-8080}/ until interrupted. dist/ is a plain static
# folder: any static host serves it the same way.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PORT="${PORT:-8080}"
bash "$ROOT/scripts/build-web.sh"
echo "serving $ROOT/dist on http://127.0.0.1:$PORT/ (Ctrl-C to stop)"
exec python3 -m http.server "$PORT" --bind 127.0.0.1 --directory "$ROOT/dist"
