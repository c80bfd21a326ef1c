#!/usr/bin/env bash
# Builds the in-page engine (Rust -> WebAssembly) and packs it into one JS
# bundle: engine-wasm/pkg/sightline-engine.bundle.js. The driver's build.rs
# runs this automatically whenever engine or glue sources changed.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$SIGHTLINE_ROOT"
for tool in wasm-pack wasm-bindgen wasm-opt node; do
  command -v "$tool" >/dev/null 2>&1 || { echo "missing $tool: run 'bash scripts/setup.sh' first" >&2; exit 1; }
done
# Own target dir: keeps the nested build (from build.rs) off the outer cargo's lock.
export CARGO_TARGET_DIR="$SIGHTLINE_ROOT/target/engine-wasm"
wasm-pack --quiet build engine-wasm --target no-modules --profile wasm-release \
  --out-dir pkg --no-typescript --no-pack >&2
node js-glue/build-bundle.mjs engine-wasm/pkg engine-wasm/pkg/sightline-engine.bundle.js >&2
# The module the bundle embeds (import names shortened by build-bundle.mjs).
size=$(stat -c %s engine-wasm/pkg/sightline-engine.wasm)
if [ "$size" -gt 250000 ]; then
  echo "engine .wasm is $size bytes, over the 250 KB (250,000 bytes) budget" >&2
  exit 1
fi
