#!/usr/bin/env bash
# Peak memory (max RSS) and wall time of the lesson's M/M/2 run at 1e5, 1e6
# and 5e6 customers (80 rps for CUSTOMERS / 80 s), in two parts:
#  1. cli: issue 37's command, `bplab run lesson --rate 80 --seconds S
#     --workers 2 --service exp:20 --limit off` (three replicas at 80 rps,
#     the 60 rps histogram run, the deterministic model, CSVs, charts,
#     report), built from commit OLD and from this tree, alternating which
#     goes first, ROUNDS rounds; every output file's sha256 compared (both
#     run from their own folder with the same arguments, so even
#     manifest.json's command line is the same);
#  2. one: one M/M/2 run of the engine, keeping every request (`kept`, the
#     lesson's path before) or summarised as it goes (`summarised`, now),
#     alternating, and the same run in SimPy (scripts/engine-mm2-simpy.py).
# Prints one line per run, then min and median per case. Wall times move
# with whatever else the machine runs: compare them within one invocation.
#   scripts/engine-memory.sh                         # everything
#   SIZES="1e5 1e6" ROUNDS=3 PARTS=cli scripts/engine-memory.sh
#   OLD_BIN=/path/to/old/bplab scripts/engine-memory.sh   # skip the old build
# Env: OLD (commit, default ec33f23), OLD_BIN, ROUNDS (2), SIZES
# ("1e5 1e6 5e6"), PARTS ("cli one simpy"), OUT (target/engine-memory).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OLD="${OLD:-ec33f23}"
ROUNDS="${ROUNDS:-2}"
SIZES="${SIZES:-1e5 1e6 5e6}"
PARTS="${PARTS:-cli one simpy}"
OUT="${OUT:-$ROOT/target/engine-memory}"
case "${1:-}" in -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
mkdir -p "$OUT/old" "$OUT/new"
has() { [[ " $PARTS " == *" $1 "* ]]; }

if has cli; then
  (cd "$ROOT" && cargo build --release -q -p bplab)
  cp "$ROOT/target/release/bplab" "$OUT/new/bplab"
  if [ -n "${OLD_BIN:-}" ]; then
    cp "$OLD_BIN" "$OUT/old/bplab"
  else
    tree="$OUT/old-tree"
    [ -d "$tree" ] || git -C "$ROOT" worktree add --detach "$tree" "$OLD"
    (cd "$tree" && cargo build --release -q -p bplab)
    cp "$tree/target/release/bplab" "$OUT/old/bplab"
  fi
fi
if has one; then
  # shellcheck source=../crates/bplab-core/benches/harness.sh
  . "$ROOT/crates/bplab-core/benches/harness.sh"
  MM2=$(harness_build mm2 "$ROOT/crates/bplab-core/benches/engine-memory/mm2.rs" "$ROOT" "$OUT/mm2" \
    $'opt-level = 3\nlto = "thin"\ncodegen-units = 4')
fi
if has simpy; then python3 -c 'import simpy' 2>/dev/null || { echo "needs simpy (pip install simpy)" >&2; exit 1; }; fi

# measure LABEL CMD...: one line "LABEL wall_s max_rss_kb", the command's stdout to $OUT/LABEL.out.
LOG="$OUT/runs.txt"
: >"$LOG"
measure() {
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$OUT/time.txt" "$@" >"$OUT/${label// /_}.out"
  echo "$label $(cat "$OUT/time.txt")" | tee -a "$LOG"
}
echo "start: $(date -u +%FT%TZ), load average $(uptime | sed 's/.*load average: //'), $(nproc) cores"
for n in $SIZES; do
  seconds=$(python3 -c "print(int(float('$n') / 80))")
  for r in $(seq 1 "$ROUNDS"); do
    order="old new"; [ $((r % 2)) = 0 ] && order="new old"
    if has cli; then
      for w in $order; do
        rm -rf "$OUT/$w/out"
        (cd "$OUT/$w" && measure "cli $n $w" ./bplab run lesson --rate 80 --seconds "$seconds" --workers 2 \
          --service exp:20 --limit off --output-dir out -q)
        (cd "$OUT/$w/out" && find . -type f | sort | xargs sha256sum) >"$OUT/$w.sha256"
      done
      if cmp -s "$OUT/old.sha256" "$OUT/new.sha256"; then echo "cli $n: same bytes, every output file"
      else echo "cli $n: OUTPUTS DIFFER"; diff "$OUT/old.sha256" "$OUT/new.sha256" || true; fi
    fi
    if has one; then
      modes="kept summarised"; [ $((r % 2)) = 0 ] && modes="summarised kept"
      for m in $modes; do measure "one $n $m" "$MM2" "$m" "$n"; done
      if cmp -s "$OUT/one_${n}_kept.out" "$OUT/one_${n}_summarised.out"; then echo "one $n: same row"
      else echo "one $n: ROWS DIFFER"; fi
    fi
  done
  # SimPy once per size (minutes at 5e6).
  if has simpy; then measure "simpy $n" python3 "$ROOT/scripts/engine-mm2-simpy.py" "$n"; fi
done
echo "end: $(date -u +%FT%TZ), load average $(uptime | sed 's/.*load average: //')"
python3 - "$LOG" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    *label, wall, rss = line.split()
    runs[' '.join(label)].append((float(wall), int(rss)))
print(f"{'case':28} {'runs':>4} {'wall min s':>10} {'wall med s':>10} {'max RSS MB':>10}")
for k, v in runs.items():
    walls = [w for w, _ in v]
    print(f"{k:28} {len(v):4} {min(walls):10.2f} {statistics.median(walls):10.2f} {max(r for _, r in v) / 1024:10.1f}")
PY
