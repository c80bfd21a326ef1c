// Sightline engine API. Concatenated after the wasm-bindgen glue and the
// embedded module bytes by build-bundle.mjs; runs inside the bundle's IIFE.
//
// Expects in scope: `wasm_bindgen` (the no-modules glue) and `__SL_WASM_B64`.
// Defines `globalThis.__sightline` once per JS world. The driver loads the
// bundle into an isolated world; an MV3 content script or a Playwright/
// Puppeteer `addInitScript` can load the very same file.
const __sl_decode = (b64) => {
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
};
wasm_bindgen.initSync({ module: __sl_decode(__SL_WASM_B64) });
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
  /** FrameSnapshotRequest JSON in, FrameSnapshot JSON out. */
  snapshot: (requestJson) => wasm_bindgen.snapshot(requestJson),
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
