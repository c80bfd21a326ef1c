#!/usr/bin/env bash
# Sets everything up, then runs every test: engine host unit tests, the
# engine's DOM-layer tests in headless Chromium (wasm-bindgen-test), and the
# driver's unit and end-to-end tests against real Chromium on 127.0.0.1
# (the npm module and the extension among them, as packed here).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$SIGHTLINE_ROOT"
bash scripts/setup.sh

# The suite is built once per run: incremental state would only double the
# build's size on disk (the CI machine's disk is small) and buy nothing.
export CARGO_INCREMENTAL=0
# A failing test's message and location are what a CI log must show; the
# log keeps only its head and tail, and a backtrace through the test
# harness and tokio would push the message out of the tail.
export RUST_BACKTRACE=0

echo "== engine: host unit tests"
cargo test -p sightline-engine

echo "== engine: DOM-layer tests in headless Chromium"
# Own target dir, so this wasm build does not fight the driver build for a lock.
# The test runner gives chromedriver 5 s to bind its port by default; a busy
# 2-core machine has missed that ("driver failed to bind port during
# startup"), so it gets a minute (the runner restarts a stuck driver every
# 10 s), and a test binary's whole run two (default 20 s).
CARGO_TARGET_DIR="$SIGHTLINE_ROOT/target/engine-wasm-test" \
  WASM_BINDGEN_TEST_DRIVER_TIMEOUT=60 WASM_BINDGEN_TEST_TIMEOUT=120 \
  wasm-pack test --headless --chrome engine-wasm

echo "== packaging: the npm tarball and the extension zip (the end-to-end tests install these)"
SIGHTLINE_NPM_TARBALL=$(bash scripts/build-npm.sh | tail -n 1)
SIGHTLINE_EXTENSION_ZIP=$(bash scripts/build-extension.sh | tail -n 1)
export SIGHTLINE_NPM_TARBALL SIGHTLINE_EXTENSION_ZIP

echo "== driver, command line and test kit: unit tests, then the end-to-end crate"
# setup.sh installed Java and the grid's jar: the Selenium Grid test must run, not skip.
SIGHTLINE_REQUIRE_GRID=1 cargo test -p sightline -p sightline-testkit -p sightline-cli -- --test-threads=2
