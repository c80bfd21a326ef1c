// The engine's scripts as the package ships them (dist/, built by
// scripts/build-npm.sh from the project's own build): the main-world hook,
// the engine bundle (wasm-bindgen glue and the .wasm), and the JS build for
// pages whose CSP refuses WebAssembly (read only when one does: 1.6 MB).
import { readFileSync } from "node:fs";

const dist = new URL("../dist/", import.meta.url);
const read = (name) => readFileSync(new URL(name, dist), "utf8");

let hookAndEngine = null;
let engine = null;
let jsBuild = null;

/** The engine bundle alone (what Node loads to stitch). */
export function engineBundle() {
  engine ??= read("sightline-engine.bundle.js");
  return engine;
}

/** What goes into every frame before page scripts: the hook, then the engine. */
export function initScript() {
  hookAndEngine ??= `${read("main-world-hook.js")}\n;${engineBundle()}`;
  return hookAndEngine;
}

/** The JS build of the engine (binaryen's wasm2js), same API, no WebAssembly. */
export function jsBuildBundle() {
  jsBuild ??= read("sightline-engine-js.bundle.js");
  return jsBuild;
}
