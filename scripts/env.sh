# Shared environment for Sightline scripts (sourced, not run).
# Puts the pinned tools first on PATH: npm's binaryen (wasm-opt 132; Debian's
# binaryen 108 produces broken modules) and cargo-installed binaries.
SIGHTLINE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export SIGHTLINE_ROOT
export PATH="$SIGHTLINE_ROOT/.tools/node_modules/.bin:$HOME/.cargo/bin:$PATH"
WASM_BINDGEN_VERSION="0.2.130"
WASM_PACK_VERSION="0.15.1"
BINARYEN_NPM_VERSION="132.0.0"
PLAYWRIGHT_CORE_VERSION="1.65.1"
MCP_SDK_VERSION="1.32.2"
PLAYWRIGHT_MCP_VERSION="0.0.83"
# agent-browser: a peer of `bench living` and `bench sessions` (its Linux binary ships in the package).
AGENT_BROWSER_VERSION="0.41.2"
# Stagehand v3's computer-use clients (`bench cua`), with the peers it names.
STAGEHAND_VERSION="3.7.3"
STAGEHAND_ZOD_VERSION="4.6.7"
# Selenium Grid 4 (`batch --grid` tests and benchmarks); tests/support/grid.rs pins the same.
SELENIUM_SERVER_VERSION="4.20.0"
SELENIUM_JAR="$SIGHTLINE_ROOT/.grid/node_modules/@nightwatch/selenium-server/lib/selenium-server-$SELENIUM_SERVER_VERSION.jar"
