#!/usr/bin/env bash
# Builds dist/ and prints the slider-latency table (p50/p95 per widget,
# 100 moves each, headless chromium) and the page weight (gzip KB).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/build-web.sh >/dev/null
node scripts/measure-page.mjs "$@"
