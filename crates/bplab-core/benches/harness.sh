# Sourced by old-vs-new.sh and same-runs.sh: builds a one-file program
# against one tree's bplab-core, as its own package outside the workspace
# (so one source can be built against two trees), and prints its path.
#   harness_build NAME SRC TREE DIR PROFILE
# PROFILE: the lines of its [profile.release].
harness_build() {
  local name=$1 src=$2 tree=$3 dir=$4 profile=$5
  mkdir -p "$dir"
  cat >"$dir/Cargo.toml" <<TOML
[package]
name = "$name"
version = "0.0.0"
edition = "2024"
publish = false

[[bin]]
name = "$name"
path = "$src"

[dependencies]
bplab-core = { path = "$tree/crates/bplab-core" }

[profile.release]
$profile

[workspace]
TOML
  (cd "$dir" && CARGO_TARGET_DIR="$dir/target" cargo build --release -q)
  echo "$dir/target/release/$name"
}
