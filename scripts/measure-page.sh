#!/usr/bin/env bash
# Builds dist/ and prints the page's measurements (scripts/measure-page.mjs:
# input latencies p50/p95 per widget, 40 moves each at 1x and 4x CPU, long
# tasks, first load, headless chromium) and the page weight (gzip KB).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/build-web.sh >/dev/null
node scripts/measure-page.mjs "$@"
