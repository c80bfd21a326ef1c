#!/usr/bin/env bash
# Packs the npm module (js-glue/, package "sightline"). npm runs the
# package's prepack first (scripts/build-npm-dist.sh: the engine bundle and
# its .wasm, the JS build for strict-CSP pages, the main-world hook into
# js-glue/dist/), as it does for a plain `npm pack` or `npm publish` there.
# Prints the tarball's path.
# Usage: bash scripts/build-npm.sh [OUT DIR]   (default target/npm)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$SIGHTLINE_ROOT"
out="${1:-$SIGHTLINE_ROOT/target/npm}"
mkdir -p "$out"
# npm pack prints the file name last.
name=$(cd js-glue && npm pack --silent --pack-destination "$out" | tail -n 1)
echo "$out/$name"
