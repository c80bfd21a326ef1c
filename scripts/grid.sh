#!/usr/bin/env bash
# Starts a Selenium Grid 4 standalone on 127.0.0.1 with Debian's Chromium and
# chromedriver, for `sightline batch --grid http://127.0.0.1:4444`:
#   bash scripts/grid.sh [SLOTS] [PORT]        (default: 2 slots, port 4444)
# `--host 127.0.0.1` matters: without it the grid announces the machine's
# other address, and the se:cdp URLs it hands out point there.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
slots="${1:-2}"
port="${2:-4444}"
[ -f "$SELENIUM_JAR" ] || bash "$SIGHTLINE_ROOT/scripts/setup.sh"
dir="$(mktemp -d -t sightline-grid-XXXXXX)"
cat > "$dir/grid.toml" <<TOML
[node]
detect-drivers = false
[[node.driver-configuration]]
display-name = "chromium"
stereotype = '{"browserName": "chrome", "goog:chromeOptions": {"binary": "${SIGHTLINE_CHROME:-/usr/bin/chromium}"}}'
max-sessions = $slots
webdriver-executable = "$(command -v chromedriver || echo /usr/bin/chromedriver)"
TOML
echo "[grid] $slots Chromium slot(s) on http://127.0.0.1:$port (config $dir/grid.toml)" >&2
exec java -jar "$SELENIUM_JAR" standalone --config "$dir/grid.toml" --host 127.0.0.1 --port "$port"
