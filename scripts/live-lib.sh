# Shared by scripts/deploy-demo.sh and scripts/compare-doors.sh (sourced):
# the release binary, a scratch directory removed on exit, and one
# `bplab serve` at a time on a loopback port.
# Env: BPLAB_BIN=PATH uses that binary instead of building one;
# CARGO_TARGET_DIR (default target).

if [ -n "${BPLAB_BIN:-}" ]; then
    bin="$BPLAB_BIN"
else
    cargo build --release -q -p bplab
    bin="${CARGO_TARGET_DIR:-target}/release/bplab"
fi
out="$(mktemp -d)"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
    rm -rf "$out"
}
trap cleanup EXIT

# live_serve PORT LOG FLAGS...: start `bplab serve` on 127.0.0.1:PORT with
# FLAGS, its output in LOG, and wait until it listens.
live_serve() {
    local port="$1" log="$2"
    shift 2
    "$bin" serve --addr "127.0.0.1:$port" "$@" >"$log" 2>&1 &
    server_pid=$!
    for _ in $(seq 200); do grep -qs listening "$log" && break; sleep 0.05; done
}

# live_stop: stop the server started by live_serve.
live_stop() {
    kill "$server_pid" && wait "$server_pid" 2>/dev/null || true
    server_pid=""
    sleep 0.5
}
