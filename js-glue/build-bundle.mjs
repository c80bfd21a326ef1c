// Builds the single-file engine bundle from wasm-pack's no-modules output:
//   (function(){ const __sl_reads = <dom_reads.js>; <wasm-bindgen glue>;
//     const __SL_WASM_B64 = "..."; <engine-api.js> })();
// and writes the module it embeds (import names shortened, see
// wasm-imports.mjs) as <pkg dir>/sightline-engine.wasm, the file the size
// budget applies to.
// Usage: node js-glue/build-bundle.mjs <pkg dir> <out file>
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { engineBundle } from "./bundle-frame.mjs";
import { shortenImports } from "./wasm-imports.mjs";

const [pkgDir, outFile] = process.argv.slice(2);
if (!pkgDir || !outFile) {
  console.error("usage: node build-bundle.mjs <pkg dir> <out file>");
  process.exit(2);
}
const { wasm, glue } = shortenImports(
  readFileSync(join(pkgDir, "sightline_engine_bg.wasm")),
  readFileSync(join(pkgDir, "sightline_engine.js"), "utf8"),
);
writeFileSync(join(pkgDir, "sightline-engine.wasm"), wasm);
// The glue refers to `document.currentScript` only on the async init path we
// never take; initSync gets the bytes directly.
const bundle = engineBundle([
  glue,
  'const __SL_BUILD = "wasm";',
  `const __SL_WASM_B64 = "${wasm.toString("base64")}";`,
  "const __sl_module = () => {",
  // Native decoding (Chromium 140+) takes a third of the JS loop's time at
  // every document start.
  "  if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(__SL_WASM_B64);",
  "  const bin = atob(__SL_WASM_B64);",
  "  const bytes = new Uint8Array(bin.length);",
  "  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);",
  "  return bytes;",
  "};",
]);
writeFileSync(outFile, bundle);
console.log(`bundle: ${outFile} (${bundle.length} chars, wasm ${wasm.length} bytes)`);
