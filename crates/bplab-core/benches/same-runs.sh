#!/usr/bin/env bash
# The engine's same-runs check: N seeded random models (same-runs/main.rs)
# through the engine of commit BASE and of this tree, every Run hashed per
# case; the two outputs must be equal. Run it after any change to the
# engine made for speed (BASE: the commit before the change; any commit
# with the one engine's `Model`).
#   crates/bplab-core/benches/same-runs.sh            # BASE=HEAD, N=100000
#   BASE=dad534b N=20000 crates/bplab-core/benches/same-runs.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
BASE="${BASE:-HEAD}"
N="${N:-100000}"
OUT="${OUT:-$ROOT/target/same-runs}"
base_tree="$OUT/base-$(git -C "$ROOT" rev-parse --short "$BASE")"
if [ ! -d "$base_tree" ]; then
  mkdir -p "$base_tree"
  git -C "$ROOT" archive "$BASE" | tar -x -C "$base_tree"
fi
# shellcheck source=harness.sh
. "$ROOT/crates/bplab-core/benches/harness.sh"
build() {
  harness_build same-runs "$ROOT/crates/bplab-core/benches/same-runs/main.rs" "$1" "$OUT/harness-$2" \
    $'opt-level = 3\ndebug-assertions = true\noverflow-checks = true'
}
b=$(build "$base_tree" base)
n=$(build "$ROOT" new)
"$b" "$N" >"$OUT/base.txt"
"$n" "$N" >"$OUT/new.txt"
if cmp -s "$OUT/base.txt" "$OUT/new.txt"; then
  echo "same runs: $N cases ($(grep -c ' err ' "$OUT/base.txt") refused by validate) against $BASE"
else
  echo "DIFFERENT runs against $BASE (case, tries, hash):"
  diff "$OUT/base.txt" "$OUT/new.txt" | head -10
  exit 1
fi
