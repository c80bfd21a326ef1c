#!/usr/bin/env bash
# Packs the MV3 extension (js-glue/extension/) with the engine the project's
# own scripts build, into target/extension/sightline-extension.zip, and
# prints the zip's path. Unpacked, the same files load with
# `chromium --load-extension=DIR`.
# Usage: bash scripts/build-extension.sh [OUT DIR]   (default target/extension)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$SIGHTLINE_ROOT"
out="${1:-$SIGHTLINE_ROOT/target/extension}"
bash scripts/build-engine.sh
bash scripts/build-js-engine.sh
dir="$out/sightline-extension"
rm -rf "$dir"
mkdir -p "$dir/engine" "$dir/lib"
cp js-glue/extension/*.json js-glue/extension/*.js js-glue/extension/*.html js-glue/extension/*.css "$dir/"
cp engine-wasm/pkg/sightline-engine.bundle.js engine-wasm/pkg/sightline-engine-js.bundle.js \
  js-glue/main-world-hook.js "$dir/engine/"
# Shared with the npm module: the snapshot plan and removeBlocker's policy.
cp js-glue/src/snapshot-plan.js js-glue/src/remove-blocker.js js-glue/src/selectors.js "$dir/lib/"
zip="$out/sightline-extension.zip"
rm -f "$zip"
(cd "$dir" && zip -q -r -X "$zip" .)
echo "$zip"
