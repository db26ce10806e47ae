#!/usr/bin/env bash
# Install everything a fresh machine lacks to build, serve and test bplab.
# Idempotent: every step checks for the exact version first and skips if present.
# Tools only come from the package registries (crates.io, Debian, npm).
set -euo pipefail

WASM_BINDGEN_VERSION=0.2.130   # must equal the `wasm-bindgen = "=..."` pin in crates/bplab-web
WASM_PACK_VERSION=0.15.1
TRUNK_VERSION=0.21.14          # 0.22 needs a newer rustc than this machine has
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="$HOME/.cargo/bin:$PATH"

log() { printf '[install-tools] %s\n' "$*"; }

# What to install; default: everything. `--only web|trunk|browser|edge|npm` narrows it.
want() { [ -z "${ONLY:-}" ] || [[ ",$ONLY," == *",$1,"* ]]; }
while [ $# -gt 0 ]; do
  case "$1" in
    --only) ONLY="$2"; shift 2 ;;
    *) echo "install-tools: unknown argument '$1' (accepted: --only web,trunk,browser,edge,npm)" >&2; exit 2 ;;
  esac
done

if want web; then
  if rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    log "rustup target wasm32-unknown-unknown: present"
  else
    log "rustup target add wasm32-unknown-unknown"
    rustup target add wasm32-unknown-unknown
  fi

  if command -v wasm-bindgen >/dev/null && [ "$(wasm-bindgen --version | awk '{print $2}')" = "$WASM_BINDGEN_VERSION" ] \
     && command -v wasm-bindgen-test-runner >/dev/null; then
    log "wasm-bindgen-cli $WASM_BINDGEN_VERSION: present"
  else
    log "cargo install wasm-bindgen-cli $WASM_BINDGEN_VERSION (not --locked: the locked tree wants a crate the registry lacks)"
    cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
  fi

  if command -v wasm-pack >/dev/null && [ "$(wasm-pack --version | awk '{print $2}')" = "$WASM_PACK_VERSION" ]; then
    log "wasm-pack $WASM_PACK_VERSION: present"
  else
    log "cargo install wasm-pack $WASM_PACK_VERSION"
    cargo install wasm-pack --version "$WASM_PACK_VERSION" --locked --force
  fi
fi

if want trunk; then
  if command -v trunk >/dev/null && [ "$(trunk --version | awk '{print $2}')" = "$TRUNK_VERSION" ]; then
    log "trunk $TRUNK_VERSION: present"
  else
    log "cargo install trunk $TRUNK_VERSION (~12 min cold)"
    cargo install trunk --version "$TRUNK_VERSION" --locked --force
  fi
fi

if want browser; then
  if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
    log "chromium + chromedriver: present"
  else
    log "apt-get install chromium chromium-driver"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq chromium chromium-driver >/dev/null
  fi
  # Debian's binaryen (wasm-opt 108) corrupts wasm-bindgen output; never use it.
  if dpkg -s binaryen >/dev/null 2>&1; then
    log "removing Debian binaryen (its wasm-opt breaks wasm-bindgen output)"
    apt-get remove -y -qq binaryen >/dev/null
  fi
fi

if want edge; then
  # nginx and haproxy: `cargo test -p bplab --test export` checks the exported configs with them.
  if command -v nginx >/dev/null && command -v haproxy >/dev/null; then
    log "nginx + haproxy: present"
  else
    log "apt-get install nginx-light haproxy (services not started)"
    export DEBIAN_FRONTEND=noninteractive
    # A package's postinst would start the daemon (nginx on port 80); forbid it for this install only.
    made_policy=""
    if [ ! -e /usr/sbin/policy-rc.d ]; then
      printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
      chmod 755 /usr/sbin/policy-rc.d
      made_policy=1
    fi
    apt-get update -qq
    apt-get install -y -qq nginx-light haproxy >/dev/null || status=$?
    if [ -n "$made_policy" ]; then rm -f /usr/sbin/policy-rc.d; fi
    [ "${status:-0}" -eq 0 ] || exit "$status"
  fi
fi

if want browser; then
  # xmllint (Debian libxml2-utils): tests/e2e/scorm.test.mjs validates the SCORM manifest against the 1.2 XSDs.
  if command -v xmllint >/dev/null; then
    log "xmllint: present"
  else
    log "apt-get install libxml2-utils (xmllint)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq libxml2-utils >/dev/null
  fi
fi

if want npm; then
  # binaryen (wasm-opt), terser and playwright-core, pinned by package-lock.json.
  if [ -f "$ROOT/package-lock.json" ]; then
    if [ -x "$ROOT/node_modules/.bin/wasm-opt" ] && [ -d "$ROOT/node_modules/playwright-core" ] \
       && [ -d "$ROOT/node_modules/terser" ] \
       && cmp -s "$ROOT/package-lock.json" "$ROOT/node_modules/.package-lock.json.installed" 2>/dev/null; then
      log "npm packages: present"
    else
      log "npm ci"
      (cd "$ROOT" && npm ci --no-audit --no-fund --loglevel=error)
      cp "$ROOT/package-lock.json" "$ROOT/node_modules/.package-lock.json.installed"
    fi
  fi
fi
log "done"
