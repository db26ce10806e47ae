#!/usr/bin/env bash
# Measures the one engine against the two it replaced (commit 4a2df7c, whose
# commit added benches/engine.rs to measure them), in a worktree of that
# commit and in this tree, alternating which goes first, ROUNDS rounds at
# nice -n -10 (run as root), then the ratio new / old of each case's minimum
# and median over the rounds:
#  * criterion: the engine bench itself (each case's estimate per round);
#  * probe: old-vs-new/probe.rs, the bench's cases in one process, each the
#    fastest of 15 batches (much less moved by other work on the machine).
# The README's "One engine vs the two it replaced" table comes from this.
#   crates/bplab-core/benches/old-vs-new.sh            # 4 rounds, both
#   MODE=probe ROUNDS=6 OLD=/tmp/old crates/bplab-core/benches/old-vs-new.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
OLD="${OLD:-/tmp/old}"
ROUNDS="${ROUNDS:-4}"
MODE="${MODE:-both}"
OUT="${OUT:-$ROOT/target/old-vs-new}"
[ -d "$OLD" ] || git -C "$ROOT" worktree add --detach "$OLD" 4a2df7c
bin() { (cd "$1" && cargo bench -p bplab-core --bench engine --no-run 2>&1 | sed -n 's/.*Executable .*(\(.*\))/\1/p' | tail -1); }
# shellcheck source=harness.sh
. "$ROOT/crates/bplab-core/benches/harness.sh"
# The probe, built against a tree's core (same release profile as the workspace).
probe() {
  harness_build probe "$ROOT/crates/bplab-core/benches/old-vs-new/probe.rs" "$1" "$OUT/probe-$2" \
    $'opt-level = 3\nlto = "thin"\ncodegen-units = 4'
}
mkdir -p "$OUT"
rm -f "$OUT"/[cp]*-*.txt
if [ "$MODE" != probe ]; then old_bin="$OLD/$(bin "$OLD")"; new_bin="$ROOT/$(bin "$ROOT")"; fi
if [ "$MODE" != criterion ]; then old_probe=$(probe "$OLD" old); new_probe=$(probe "$ROOT" new); fi
for r in $(seq 1 "$ROUNDS"); do
  order="old new"; [ $((r % 2)) = 0 ] && order="new old"
  for w in $order; do
    if [ "$w" = old ]; then dir=$OLD; exe=${old_bin:-}; pr=${old_probe:-}; else dir=$ROOT; exe=${new_bin:-}; pr=${new_probe:-}; fi
    echo "round $r $w: load average $(uptime | sed 's/.*load average: //')"
    if [ "$MODE" != probe ]; then
      (cd "$dir" && nice -n -10 "$exe" --bench --warm-up-time 1 --measurement-time 2 --noplot >"$OUT/c$r-$w.txt" 2>&1)
    fi
    if [ "$MODE" != criterion ]; then nice -n -10 "$pr" >"$OUT/p$r-$w.txt"; fi
  done
done
echo "after: load average $(uptime | sed 's/.*load average: //')"
for kind in c p; do
  ls "$OUT"/$kind*-*.txt >/dev/null 2>&1 || continue
  [ $kind = c ] && echo "== criterion" || echo "== probe"
  python3 - "$OUT" "$kind" <<'PY'
import collections, glob, re, statistics, sys
unit = {'ns': 1e-3, 'µs': 1.0, 'us': 1.0, 'ms': 1e3, 's': 1e6}
runs = collections.defaultdict(lambda: collections.defaultdict(list))
for path in sorted(glob.glob(sys.argv[1] + '/' + sys.argv[2] + '*-*.txt')):
    tree, name, seen = path.rsplit('-', 1)[1][:-4], None, set()
    for line in open(path, encoding='utf-8'):
        m = re.match(r'^(engine_\S+) ([\d.]+)$', line)  # the probe's lines
        if m:
            runs[m.group(1)][tree].append(float(m.group(2)))
            continue
        m = re.match(r'^(engine_\S+)', line)
        name = m.group(1) if m else name
        m = re.search(r'time:\s+\[[\d.]+ \S+ ([\d.]+) (\S+) [\d.]+ \S+\]', line)
        if m and name and name not in seen:
            seen.add(name)
            runs[name][tree].append(float(m.group(1)) * unit[m.group(2)])
print(f"{'case':48} {'old min µs':>10} {'new/old min':>11} {'new/old median':>14}")
groups = collections.defaultdict(list)
for k, v in runs.items():
    o, n = v['old'], v['new']
    if not o or not n:
        continue
    rmin, rmed = min(n) / min(o), statistics.median(n) / statistics.median(o)
    groups['/'.join(k.split('/')[:2]) if k.startswith('engine_adaptive') else k].append((rmin, rmed))
    print(f"{k:48} {min(o):10.1f} {rmin:11.3f} {rmed:14.3f}")
print()
for g, xs in groups.items():
    gm = statistics.geometric_mean
    print(f"{g:48} min {gm([x[0] for x in xs]):.3f} (range {min(x[0] for x in xs):.2f}-{max(x[0] for x in xs):.2f}), median {gm([x[1] for x in xs]):.3f}")
PY
done
