#!/usr/bin/env bash
# Packs the npm module (js-glue/, package "sightline") with the engine the
# project's own scripts build: the engine bundle and its .wasm, the JS build
# for strict-CSP pages, the main-world hook. Prints the tarball's path.
# Usage: bash scripts/build-npm.sh [OUT DIR]   (default target/npm)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$SIGHTLINE_ROOT"
out="${1:-$SIGHTLINE_ROOT/target/npm}"
bash scripts/build-engine.sh
bash scripts/build-js-engine.sh
dist=js-glue/dist
rm -rf "$dist"
mkdir -p "$dist" "$out"
cp engine-wasm/pkg/sightline-engine.bundle.js engine-wasm/pkg/sightline-engine.wasm \
  engine-wasm/pkg/sightline-engine-js.bundle.js js-glue/main-world-hook.js "$dist/"
# npm pack prints the file name last.
name=$(cd js-glue && npm pack --silent --pack-destination "$out" | tail -n 1)
echo "$out/$name"
