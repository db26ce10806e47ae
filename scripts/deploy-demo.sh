#!/usr/bin/env bash
# The deploy demonstration on loopback (issue #11): one worker, spin 2 ms +
# wait 18 ms, 100 requests per second offered for 30 s, and a deploy that
# makes the handler 2x slower 10 s after the server starts, once per door
# (a fixed limit of 10, CoDel, Gradient2, AIMD). Prints one summary table:
# p99 of answered requests and ok/s before and after the deploy, refusals,
# and the time after the deploy until every later 500 ms window's p99 is
# back under the 250 ms budget ("never" if the last window is still over).
#
# Usage: scripts/deploy-demo.sh [PORT]   (default 18391; needs cargo)
# Env: CARGO_TARGET_DIR (default target), DOORS (default "10 codel gradient2 aimd"),
# KEEP=DIR copies each door's full load output (table + timeline) there,
# BPLAB_BIN=PATH uses that binary instead of building one.
set -euo pipefail
cd "$(dirname "$0")/.."
port="${1:-18391}"
doors="${DOORS:-10 codel gradient2 aimd}"
budget=250
window=500
# shellcheck source=scripts/live-lib.sh
. scripts/live-lib.sh

for door in $doors; do
    live_serve "$port" "$out/serve-$door.log" --workers 1 --spin-ms 2 --wait-ms 18 --limit "$door" \
        --budget-ms "$budget" --slowdown-at 10s --slowdown-factor 2
    "$bin" load --target "http://127.0.0.1:$port/" --rate 100 --seconds 30 --timeline "$window" -q \
        >"$out/load-$door.txt"
    live_stop
done

printf '%-10s %10s %10s %10s %10s %8s %14s\n' door p99_before p99_after ok/s_before ok/s_after refused recovery_ms
for door in $doors; do
    awk -v door="$door" -v budget="$budget" -v w="$window" '
        /^ offered/ { row = 1; next }
        row == 1 { refused = $4; row = 0 }
        /^deploy split at/ {
            at = $4; okb = $8; p99b = $10; oka = $14; p99a = $16
        }
        /^ *start_ms/ { tl = 1; next }
        tl && $1 ~ /^[0-9]+$/ { n++; start[n] = $1; p99[n] = $7 }
        END {
            # The core adaptive summary''s rule: the windows from the one
            # holding the deploy on; the last one over budget ends the recovery.
            last = 0
            for (i = 1; i <= n; i++) {
                if (start[i] + w <= at) continue
                if (p99[i] != "-" && p99[i] + 0 > budget) last = i
            }
            if (last == 0) rec = 0
            else {
                later = 0
                for (i = last + 1; i <= n; i++) if (p99[i] != "-") later = 1
                rec = later ? start[last] + w - at : "never"
            }
            name = (door ~ /^[0-9]+$/) ? "fixed " door : door
            printf "%-10s %10s %10s %10s %10s %8s %14s\n", name, p99b, p99a, okb, oka, refused, rec
        }' "$out/load-$door.txt"
done
if [ -n "${KEEP:-}" ]; then cp "$out"/load-*.txt "$KEEP"/; fi
