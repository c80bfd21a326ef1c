#!/usr/bin/env bash
# Sets everything up, builds the driver (which builds and embeds the engine),
# and snapshots the bundled example shop page.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$SIGHTLINE_ROOT"
bash scripts/setup.sh
cargo build --release -q -p sightline-cli
exec target/release/sightline snapshot tests/fixtures/example/shop.html "$@"
