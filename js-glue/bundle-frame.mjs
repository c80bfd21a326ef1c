// The frame both engine bundles share (build-bundle.mjs: WebAssembly;
// build-js-bundle.mjs: the JS build):
//   (function(){ if defined, stop; const __sl_reads = <dom_reads.js>;
//     <the build's own parts>; <engine-api.js> })();
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

/** One self-contained script around `parts` (which define `wasm_bindgen`, `__SL_BUILD` and `__sl_module`). */
export function engineBundle(parts) {
  const api = readFileSync(join(here, "engine-api.js"), "utf8");
  // The engine's batched DOM reads (engine-wasm/src/adapter/reads.rs imports
  // them from the `__sl_reads` namespace): in the bundle's own scope, so page
  // scripts can't reach or replace them.
  const reads = readFileSync(join(here, "..", "engine-wasm", "src", "adapter", "dom_reads.js"), "utf8");
  return [
    "(function () {",
    '"use strict";',
    "if (globalThis.__sightline) return;",
    `const __sl_reads = ${reads.trim()};`,
    ...parts,
    api,
    "})();",
    "",
  ].join("\n");
}
