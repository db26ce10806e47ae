#!/usr/bin/env bash
# The model beside the measurement for every door (issue #21): one worker,
# spin 2 ms + wait 18 ms, a deploy that makes the handler 3x slower 10 s
# after the server starts, and `load --rate 60,100 --seconds 30 --compare`
# against a fresh server per door. Prints, per door and rate, the live and
# modelled ok/s and p99 and their gaps (model minus live, in % of live).
#
# Usage: scripts/compare-doors.sh [PORT]   (default 18392; needs cargo)
# Env: CARGO_TARGET_DIR (default target), DOORS (default
# "10 aimd vegas gradient2 gradient codel"), SERVE_FLAGS (extra serve
# flags, e.g. "--budget-ms 2000"), KEEP=DIR copies each door's full load
# output there, BPLAB_BIN=PATH uses that binary instead of building one.
set -euo pipefail
cd "$(dirname "$0")/.."
port="${1:-18392}"
doors="${DOORS:-10 aimd vegas gradient2 gradient codel}"
# shellcheck source=scripts/live-lib.sh
. scripts/live-lib.sh

for door in $doors; do
    # shellcheck disable=SC2086
    live_serve "$port" "$out/serve-$door.log" --workers 1 --spin-ms 2 --wait-ms 18 --limit "$door" \
        --slowdown-at 10s --slowdown-factor 3 ${SERVE_FLAGS:-}
    "$bin" load --target "http://127.0.0.1:$port/" --rate 60,100 --seconds 30 --compare -q \
        >"$out/load-$door.txt"
    live_stop
done

# model_range: the model's ok/s for starts up to 1 s later than the live one
# (the model starts each rate from the state /stats reported as it started;
# against a server that does not report it, also up to 1 s earlier) and the
# service time 1 % either side, where that range is wider than 10 % of the
# row's own (the load tool's "hangs on when the rate started" note); "-"
# where it is not.
printf '%-10s %5s %10s %10s %8s %10s %10s %8s %12s\n' door rate live_ok/s model_ok/s gap_ok live_p99 model_p99 gap_p99 model_range
for door in $doors; do
    awk -v door="$door" '
        function gap(m, l) { return (l + 0 == 0) ? "-" : sprintf("%+.1f%%", 100 * (m - l) / l) }
        function flush() { if (line != "") printf "%s %12s\n", line, range; line = "" }
        /^ offered/ { rows = 1; next }
        rows && $1 ~ /^[0-9.]+$/ && NF >= 14 {
            flush()
            name = (door ~ /^[0-9]+$/) ? "fixed " door : door
            line = sprintf("%-10s %5s %10s %10s %8s %10s %10s %8s", name, $1, $7, $13, gap($13, $7), $9, $14, gap($14, $9))
            range = "-"
            next
        }
        line != "" && /hangs on when the rate started/ {
            for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.]+–[0-9.]+$/) range = $i
        }
        END { flush() }' "$out/load-$door.txt"
done
if [ -n "${KEEP:-}" ]; then cp "$out"/load-*.txt "$KEEP"/; fi
