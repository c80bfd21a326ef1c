// Builds the JS build of the engine: the same engine, translated from
// WebAssembly to plain JavaScript by binaryen's wasm2js, for pages whose CSP
// refuses WebAssembly ('wasm-unsafe-eval' missing: every world is refused,
// an extension's content script and a CDP isolated world included). Hosts
// load it only after the wasm bundle reported `__sightlineRefused`.
//
//   (function(){ const __sl_reads = <dom_reads.js>;
//     const WebAssembly = <a stand-in running the wasm2js translation>;
//     <wasm-bindgen glue>; <engine-api.js> })();
//
// Inputs (scripts/build-js-engine.sh): <pkg dir> holds the glue of a build
// without reference types (wasm2js handles one table only) and
// engine.asm.js, wasm2js's translation of its module.
// Usage: node js-glue/build-js-bundle.mjs <pkg dir> <out file>
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { engineBundle } from "./bundle-frame.mjs";

const [pkgDir, outFile] = process.argv.slice(2);
if (!pkgDir || !outFile) {
  console.error("usage: node build-js-bundle.mjs <pkg dir> <out file>");
  process.exit(2);
}

// wasm2js writes an ES module: `import * as $_x from './x';`, top-level
// helpers, `function asmFunc(imports) {…}`, then exports. Keep the helpers
// and asmFunc, bind the import namespace from the imports object instead.
function asmFactory(asm) {
  const importLine = /^import \* as (\S+) from '([^']+)';\n/m;
  const m = asm.match(importLine);
  if (!m) throw new Error("engine.asm.js: no import line");
  const [, binding, module] = m;
  const body = asm.replace(importLine, "");
  const tail = body.indexOf("\nvar retasmFunc = asmFunc(");
  if (tail < 0) throw new Error("engine.asm.js: no asmFunc call");
  // WebAssembly memory detaches its old buffer when it grows, and the glue
  // and dom_reads.js rely on that to renew their views (a detached view's
  // length is 0). wasm2js copies into a new buffer and leaves the old one
  // intact: transfer it instead, which detaches it the same way.
  const copy = [
    "   var newBuffer = new ArrayBuffer(newPages << 16);",
    "   var newHEAP8 = new Int8Array(newBuffer);",
    "   newHEAP8.set(HEAP8);",
  ].join("\n");
  const grown = body.slice(0, tail).split(copy);
  if (grown.length !== 2) throw new Error("engine.asm.js: memory growth not found exactly once");
  const transfer = "   var newBuffer = buffer.transfer(newPages << 16);";
  return [
    "(imports) => {",
    `const ${binding} = imports[${JSON.stringify(module)}];`,
    grown.join(transfer),
    "return asmFunc(imports);",
    "}",
  ].join("\n");
}

const glue = readFileSync(join(pkgDir, "sightline_engine.js"), "utf8");
const asm = readFileSync(join(pkgDir, "engine.asm.js"), "utf8");
const bundle = engineBundle([
  // Shadows the global for the glue below: `initSync` compiles and
  // instantiates through these, and gets the translation's exports.
  "const WebAssembly = (() => {",
  `  const instantiate = ${asmFactory(asm)};`,
  "  function Module() {}",
  "  function Instance(_module, imports) { this.exports = instantiate(imports); }",
  "  return { Module, Instance };",
  "})();",
  glue,
  'const __SL_BUILD = "js";',
  "const __sl_module = () => new WebAssembly.Module();",
]);
writeFileSync(outFile, bundle);
console.log(`JS build bundle: ${outFile} (${bundle.length} chars)`);
