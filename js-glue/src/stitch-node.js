// The engine's own stitch, run in Node: the engine bundle (the very module
// the pages get) evaluated in a separate V8 context, so nothing leaks into
// the caller's globals. Stitching touches no DOM.
import vm from "node:vm";
import { engineBundle } from "./engine-source.js";

let engine = null;

/** Stitch request JSON in (StitchRequest in engine-wasm/src/protocol/snapshot.rs), SnapshotResult JSON out. */
export function stitch(requestJson) {
  if (!engine) {
    const context = vm.createContext({ atob, TextEncoder, TextDecoder });
    vm.runInContext(engineBundle(), context, { filename: "sightline-engine.bundle.js" });
    engine = vm.runInContext("globalThis.__sightline", context);
    if (!engine) throw new Error("the engine bundle did not load in Node");
  }
  return engine.stitch(requestJson);
}
