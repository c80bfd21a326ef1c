#!/usr/bin/env bash
# Idempotent setup for a fresh Debian machine, run as root: Chromium and
# chromedriver, the wasm32 target, wasm-pack, the exact wasm-bindgen-cli, and
# wasm-opt (npm binaryen) plus the npm packages the fixtures and benchmarks use,
# and Java with the Selenium Grid 4 server jar for the batch grid tests.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$SIGHTLINE_ROOT"
say() { echo "[setup] $*" >&2; }

need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need_apt+=(chromium-driver)
command -v node >/dev/null 2>&1 || need_apt+=(nodejs npm)
command -v python3 >/dev/null 2>&1 || need_apt+=(python3)
command -v java >/dev/null 2>&1 || need_apt+=(default-jre-headless)
if [ ${#need_apt[@]} -gt 0 ]; then
  say "apt-get install ${need_apt[*]}"
  # Slim images drop man pages, and the Java packages' scripts expect this directory.
  mkdir -p /usr/share/man/man1
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  say "rustup target add wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WASM_BINDGEN_VERSION" ]; then
  say "cargo install wasm-bindgen-cli $WASM_BINDGEN_VERSION (takes a few minutes)"
  cargo install -q wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
fi

if [ "$(wasm-pack --version 2>/dev/null | awk '{print $2}')" != "$WASM_PACK_VERSION" ]; then
  say "cargo install wasm-pack $WASM_PACK_VERSION (takes a few minutes)"
  cargo install -q wasm-pack --version "$WASM_PACK_VERSION"
fi

# npm tools live in .tools/ (git-ignored); versions pinned in env.sh.
mkdir -p .tools
[ -f .tools/package.json ] || echo '{"name":"sightline-tools","private":true}' > .tools/package.json
# The MCP SDK is the real client of the MCP tests and `bench mcp`; Playwright
# MCP is what `bench mcp` compares against.
npm_version() { node -p "require('./.tools/node_modules/$1/package.json').version" 2>/dev/null || true; }
if [ "$(wasm-opt --version 2>/dev/null | awk '{print $3}')" != "132" ] \
   || [ "$(npm_version playwright-core)" != "$PLAYWRIGHT_CORE_VERSION" ] \
   || [ "$(npm_version @modelcontextprotocol/sdk)" != "$MCP_SDK_VERSION" ] \
   || [ "$(npm_version @playwright/mcp)" != "$PLAYWRIGHT_MCP_VERSION" ]; then
  say "npm install binaryen@$BINARYEN_NPM_VERSION playwright-core@$PLAYWRIGHT_CORE_VERSION @modelcontextprotocol/sdk@$MCP_SDK_VERSION @playwright/mcp@$PLAYWRIGHT_MCP_VERSION"
  npm install --prefix .tools --no-audit --no-fund --silent \
    "binaryen@$BINARYEN_NPM_VERSION" "playwright-core@$PLAYWRIGHT_CORE_VERSION" \
    "@modelcontextprotocol/sdk@$MCP_SDK_VERSION" "@playwright/mcp@$PLAYWRIGHT_MCP_VERSION" >/dev/null
fi

# agent-browser ships its Linux binary inside the package; its install script
# (which would set the run bit and may download) is skipped, so the run bit is set here.
if [ "$(npm_version agent-browser)" != "$AGENT_BROWSER_VERSION" ]; then
  say "npm install agent-browser@$AGENT_BROWSER_VERSION (--ignore-scripts)"
  npm install --prefix .tools --ignore-scripts --no-audit --no-fund --silent \
    "agent-browser@$AGENT_BROWSER_VERSION" >/dev/null
fi
chmod +x .tools/node_modules/agent-browser/bin/agent-browser-linux-x64

# Stagehand v3 (`bench cua` runs its CUA clients), in a folder of its own so
# its SDKs (openai, @anthropic-ai/sdk, @google/genai) stay apart from the MCP
# SDK's dependencies. Its peer playwright-core is the pinned one; no install
# scripts (they would download a browser).
stagehand_version() { node -p "require('./.tools/stagehand/node_modules/@browserbasehq/stagehand/package.json').version" 2>/dev/null || true; }
if [ "$(stagehand_version)" != "$STAGEHAND_VERSION" ]; then
  say "npm install @browserbasehq/stagehand@$STAGEHAND_VERSION (in .tools/stagehand)"
  mkdir -p .tools/stagehand
  [ -f .tools/stagehand/package.json ] || echo '{"name":"sightline-stagehand","private":true}' > .tools/stagehand/package.json
  npm install --prefix .tools/stagehand --legacy-peer-deps --ignore-scripts --save-exact --no-audit --no-fund --silent \
    "@browserbasehq/stagehand@$STAGEHAND_VERSION" "playwright-core@$PLAYWRIGHT_CORE_VERSION" "zod@$STAGEHAND_ZOD_VERSION" >/dev/null
fi

# The Selenium Grid 4 server jar ships inside this npm package; its install
# script downloads another copy (which fails offline), so it is skipped.
if [ ! -f "$SELENIUM_JAR" ]; then
  say "npm install @nightwatch/selenium-server@$SELENIUM_SERVER_VERSION (--ignore-scripts)"
  mkdir -p .grid
  [ -f .grid/package.json ] || echo '{"name":"sightline-grid","private":true}' > .grid/package.json
  npm install --prefix .grid --ignore-scripts --save-exact --no-audit --no-fund --silent \
    "@nightwatch/selenium-server@$SELENIUM_SERVER_VERSION" >/dev/null
fi

# npm packages pinned by a lock file in DIR, reinstalled whenever it changes.
npm_ci_locked() {
  local dir=$1 what=$2
  [ -f "$dir/package-lock.json" ] || return 0
  local want have
  want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
  have=$(cat "$dir/node_modules/.sightline-stamp" 2>/dev/null || true)
  if [ "$want" != "$have" ]; then
    say "npm ci $what"
    # Puppeteer's install script would download a browser: the tests use Debian's.
    (cd "$dir" && PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund --silent >/dev/null)
    echo "$want" > "$dir/node_modules/.sightline-stamp"
  fi
}
# Fixture libraries (real npm modal and consent libraries), served locally by tests.
npm_ci_locked tests/fixtures "fixture libraries"
# The libraries the npm module's tests drive: playwright-core and puppeteer-core
# (24.x: 25 needs Node 22).
npm_ci_locked tests/npm "playwright-core, puppeteer-core and TypeScript for the npm module's tests"
say "ok"
