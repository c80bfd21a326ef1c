#!/usr/bin/env bash
# Builds the JS build of the engine (engine-wasm/pkg/sightline-engine-js.bundle.js):
# the same Rust engine translated to JavaScript by binaryen's wasm2js, which
# the npm module and the extension load only on pages whose CSP refuses
# WebAssembly. The driver never needs it (it lifts the CSP over CDP).
#
# wasm2js handles one table only, so this is a second build without
# reference types (wasm-bindgen then keeps JS objects in a JS-side heap
# instead of an externref table), with bulk memory, sign extension and
# saturating float conversions lowered to plain instructions.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$SIGHTLINE_ROOT"
for tool in wasm-bindgen wasm-opt wasm2js node; do
  command -v "$tool" >/dev/null 2>&1 || { echo "missing $tool: run 'bash scripts/setup.sh' first" >&2; exit 1; }
done
# Own target dir: other flags than the wasm build, so neither rebuilds the other.
export CARGO_TARGET_DIR="$SIGHTLINE_ROOT/target/engine-wasm-js"
# Replaces .cargo/config.toml's flags for this target: keep its inline threshold.
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-C llvm-args=-inline-threshold=30 -C target-feature=-reference-types,-multivalue"
cargo build --quiet -p sightline-engine --lib --target wasm32-unknown-unknown --profile wasm-release >&2
out="$SIGHTLINE_ROOT/target/engine-wasm-js/pkg"
mkdir -p "$out"
features=(--enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals)
# The standard library is built with reference types; its target_features
# section would make wasm-bindgen expect an externref table. Without the
# section it sees a module that uses none.
wasm-opt "$CARGO_TARGET_DIR/wasm32-unknown-unknown/wasm-release/sightline_engine.wasm" "${features[@]}" \
  --strip-target-features -o "$out/raw.wasm"
wasm-bindgen "$out/raw.wasm" --out-dir "$out" --out-name sightline_engine --no-typescript --target no-modules
wasm-opt "$out/sightline_engine_bg.wasm" "${features[@]}" -Oz \
  --llvm-memory-copy-fill-lowering --llvm-nontrapping-fptoint-lowering --signext-lowering \
  --strip-debug --strip-producers -o "$out/lowered.wasm"
wasm2js "$out/lowered.wasm" -Oz -o "$out/engine.asm.js"
mkdir -p engine-wasm/pkg
node js-glue/build-js-bundle.mjs "$out" engine-wasm/pkg/sightline-engine-js.bundle.js >&2
