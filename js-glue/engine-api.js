// Sightline engine API. Concatenated after the wasm-bindgen glue and the
// embedded module bytes by build-bundle.mjs; runs inside the bundle's IIFE.
//
// Expects in scope: `wasm_bindgen` (the no-modules glue), `__SL_BUILD`
// ("wasm" or "js") and `__sl_module()`, which gives what `initSync` takes:
// the module's bytes (build-bundle.mjs) or, in the JS build of the engine
// (build-js-bundle.mjs), a stand-in the build's own `WebAssembly` turns
// into the wasm2js translation of the very same module.
// Defines `globalThis.__sightline` once per JS world. The driver loads the
// bundle into an isolated world; an MV3 content script or a Playwright/
// Puppeteer init script loads the very same file.
//
// A page whose CSP lacks 'wasm-unsafe-eval' refuses WebAssembly in every
// world (main, isolated, content script). Then nothing is defined but
// `globalThis.__sightlineRefused` (the browser's reason), so that a host can
// load the JS build instead, or say what to do; the page sees no error.
try {
  wasm_bindgen.initSync({ module: __sl_module() });
} catch (e) {
  Object.defineProperty(globalThis, "__sightlineRefused", {
    value: String((e && e.message) || e),
    enumerable: false,
    configurable: true,
  });
  return;
}
// A form submission (a click on a submit button, Enter in a field) fires
// `submit` at once but only queues its navigation as a task, which Chromium
// runs after the next frame when the click changed the page. The driver
// asks (`takeSubmit`) while settling, so it can wait for that navigation.
// The event is kept, not a flag: listeners after this one may cancel it.
let __sl_lastSubmit = null;
if (typeof document !== "undefined") {
  document.addEventListener("submit", (e) => { __sl_lastSubmit = e; }, true);
}
const __sl_api = Object.freeze({
  protocol: wasm_bindgen.protocol_version(),
  /** "wasm", or "js" for the JS build used where a page's CSP refuses WebAssembly. */
  build: __SL_BUILD,
  /** FrameSnapshotRequest JSON in, FrameSnapshot JSON out. */
  snapshot: (requestJson) => wasm_bindgen.snapshot(requestJson),
  /** Stitch request JSON (frames of one page, StitchRequest in engine-wasm/src/protocol/snapshot.rs) in, SnapshotResult JSON out. */
  stitch: (requestJson) => wasm_bindgen.stitch(requestJson),
  /** Key linking an <iframe> element to its child frame (FrameSlot.key). */
  frameKeyOf: (el) => wasm_bindgen.frame_key_of(el),
  /** Element for a ref ("e12") or engine selector, or null. */
  resolve: (target) => wasm_bindgen.resolve(target),
  /** Actionability facts: TargetRequest JSON in, TargetInfo JSON out. */
  actionTarget: (requestJson) => wasm_bindgen.action_target(requestJson),
  /** DOM-level operation (set a picker value, choose options, scroll…): DomAction JSON in, result JSON out. */
  domAction: (actionJson) => wasm_bindgen.dom_action(actionJson),
  /** removeBlocker: {"op":"scan"} → candidates; {"op":"state"|"remove","target"} → result JSON. */
  blockers: (requestJson) => wasm_bindgen.blockers(requestJson),
  /** True once after an uncancelled `submit` event: a form's navigation is queued. */
  takeSubmit: () => {
    const e = __sl_lastSubmit;
    __sl_lastSubmit = null;
    return e !== null && !e.defaultPrevented;
  },
  /** Debug and conformance: [{found, role, name, description, hidden}] for a CSS selector. */
  describeAll: (css) => wasm_bindgen.describe_all(css),
});
Object.defineProperty(globalThis, "__sightline", { value: __sl_api, enumerable: false, configurable: false, writable: false });
