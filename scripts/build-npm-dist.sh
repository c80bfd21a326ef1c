#!/usr/bin/env bash
# Fills js-glue/dist/ with what the npm module ships besides its sources:
# the engine bundle and its .wasm, the JS build for strict-CSP pages and the
# main-world hook, built by the project's own scripts. npm runs it before
# packing (js-glue/package.json's "prepack"), so `npm pack` and
# `npm publish` in js-glue/ give the same package as scripts/build-npm.sh.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$SIGHTLINE_ROOT"
# npm pack prints the tarball's name on stdout, last: keep ours off it.
exec >&2
bash scripts/build-engine.sh
bash scripts/build-js-engine.sh
dist=js-glue/dist
rm -rf "$dist"
mkdir -p "$dist"
cp engine-wasm/pkg/sightline-engine.bundle.js engine-wasm/pkg/sightline-engine.wasm \
  engine-wasm/pkg/sightline-engine-js.bundle.js js-glue/main-world-hook.js "$dist/"
