#!/usr/bin/env bash
# Whole-process time of `bplab run <experiment>` with 600 s windows, one
# thread (BPLAB_THREADS=1, the old sequential sweep) vs every core, median
# of 5 runs each. Usage: scripts/time-experiments.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo build --quiet --release -p bplab
B=target/release/bplab
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_one() { # threads, args...
  local th=$1; shift
  for _ in 1 2 3 4 5; do
    local s e
    s=$(date +%s%N)
    BPLAB_THREADS=$th "$B" run "$@" --output-dir "$OUT" -q --no-charts
    e=$(date +%s%N)
    echo $(( (e - s) / 1000000 ))
  done | median
}
printf '%-10s %12s %12s\n' experiment "1 thread ms" "all cores ms"
for e in collapse admission shaping shedding priority; do
  printf '%-10s %12s %12s\n' "$e" "$(time_one 1 "$e" --duration-ms 600000)" "$(time_one 0 "$e" --duration-ms 600000)"
done
for e in lesson adaptive; do
  printf '%-10s %12s %12s\n' "$e" "$(time_one 1 "$e" --seconds 600)" "$(time_one 0 "$e" --seconds 600)"
done
