#!/usr/bin/env bash
# Sets everything up, then runs every test: engine host unit tests, the
# engine's DOM-layer tests in headless Chromium (wasm-bindgen-test), and the
# driver's unit and end-to-end tests against real Chromium on 127.0.0.1.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$SIGHTLINE_ROOT"
bash scripts/setup.sh

echo "== engine: host unit tests"
cargo test -p sightline-engine

echo "== engine: DOM-layer tests in headless Chromium"
# Own target dir, so this wasm build does not fight the driver build for a lock.
CARGO_TARGET_DIR="$SIGHTLINE_ROOT/target/engine-wasm-test" \
  wasm-pack test --headless --chrome engine-wasm

echo "== driver: unit and end-to-end tests"
cargo test -p sightline -- --test-threads=2
