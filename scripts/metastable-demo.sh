#!/usr/bin/env bash
# A metastable failure of the real server (issue #19, item 3): one worker,
# spin 2 ms + wait 18 ms (about 21 ms a request, capacity about 47 rps),
# a waiting line of 40, a 3x slowdown for 3 s from 10 s after the server
# starts, and callers at RATE first tries per second that give up after
# 500 ms and retry 3 times 50 ms after each failure. Per client policy, a
# fresh server and one `bplab load --compare --timeline 1000` run: the live
# goodput and the model's (the core engine with the same client, trigger
# and door) per window, and the metastable experiment's verdict on both
# (stuck, or recovered after X ms).
#
#   naive:    --retries 3 --backoff-ms 50            (the line stays full after the slowdown)
#   budget:   the same + --retry-budget 0.1          (retries stop while nothing succeeds)
#   throttle: the same + --throttle-k 2              (only with POLICIES="naive budget throttle")
#
# Usage: scripts/metastable-demo.sh [PORT]   (default 18393; needs cargo)
# Env: RATE (default 30), RUN_SECONDS (30), POLICIES (default "naive budget"),
# KEEP=DIR copies each policy's full load output there, FROM=DIR prints the
# tables of outputs kept before (no run), BPLAB_BIN=PATH uses
# that binary instead of building one, CARGO_TARGET_DIR (default target).
set -euo pipefail
cd "$(dirname "$0")/.."
port="${1:-18393}"
rate="${RATE:-30}"
seconds="${RUN_SECONDS:-30}"
policies="${POLICIES:-naive budget}"
# shellcheck source=scripts/live-lib.sh
. scripts/live-lib.sh

client=(--retries 3 --backoff fixed --backoff-ms 50 --client-timeout-ms 500)
for policy in $policies; do
    if [ -n "${FROM:-}" ]; then cp "$FROM/load-$policy.txt" "$out/"; continue; fi
    case "$policy" in
        naive) extra=() ;;
        budget) extra=(--retry-budget 0.1) ;;
        throttle) extra=(--throttle-k 2) ;;
        *) echo "unknown policy '$policy'; expected naive, budget or throttle" >&2; exit 2 ;;
    esac
    live_serve "$port" "$out/serve-$policy.log" --workers 1 --spin-ms 2 --wait-ms 18 --limit 40 \
        --slowdown-at 10s --slowdown-for 3s --slowdown-factor 3
    "$bin" load --target "http://127.0.0.1:$port/" --rate "$rate" --seconds "$seconds" --compare --timeline 1000 \
        -q "${client[@]}" "${extra[@]}" >"$out/load-$policy.txt"
    live_stop
done

for policy in $policies; do
    echo "== $policy: $(grep '^client:' "$out/load-$policy.txt")"
    awk '
        /^ offered/ { for (i = 1; i <= NF; i++) row[$i] = i; getline
            printf "sent %s ok %s done (served) %s first %s retries %s rejected %s denied %s, model ok/s %s (live %s)\n",
                $row["sent"], $row["ok"], $row["done"], $row["first"], $row["retries"], $row["rejected"],
                $row["denied"], $row["model_ok/s"], $row["ok_per_sec"] }
        /^timeline/ { sub(/^timeline [^,]*, /, ""); print }
        /^ start_ms/ { for (i = 1; i <= NF; i++) col[$i] = i; table = 1
            printf "%9s %8s %9s %9s %9s %9s\n", "start_ms", "live_ok", "model_ok", "gap_%cap", "retries", "m_retries"; next }
        table && $1 ~ /^[0-9]+$/ { start[++n] = $1; ok[n] = $col["ok"]; mok[n] = $col["model_ok"]
            re[n] = $col["retries"]; mre[n] = $col["model_retries"]; next }
        table { table = 0 }
        /^verdict/ { verdict = $0; match($0, /capacity [0-9.]+/); cap = substr($0, RSTART + 9, RLENGTH - 9) + 0 }
        /^model vs live/ { gapline = $0 }
        END {
            for (i = 1; i <= n; i++)
                printf "%9s %8s %9s %+8.1f%% %9s %9s\n", start[i], ok[i], mok[i],
                    (cap > 0 ? 100 * (mok[i] - ok[i]) / cap : 0), re[i], mre[i]
            print verdict; print gapline
        }' "$out/load-$policy.txt"
    echo
done
if [ -n "${KEEP:-}" ]; then cp "$out"/load-*.txt "$KEEP"/; fi
