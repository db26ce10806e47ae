#!/usr/bin/env bash
# Runs N fuzz cases (default 1,000,000) over every experiment's parameter
# space in release: counts panics (must be 0), invariant violations (must be
# 0), refusals and results, and the slowest case. Usage: scripts/fuzz.sh [N] [SEED]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
exec cargo run --quiet --release -p bplab-core --example fuzz -- "${1:-1000000}" "${2:-20261130}"
