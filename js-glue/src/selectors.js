// Engine selectors (engine-wasm/src/selector.rs): plain CSS per tree scope,
// ` >>> ` stepping into an element's shadow root.
export const SHADOW_SEPARATOR = " >>> ";

/** The CSS steps of an engine selector, outermost first. */
export const enginePath = (selector) => selector.split(SHADOW_SEPARATOR).map((s) => s.trim());

/** The frame prefix of a ref ("f2" of "f2e7"), or "" for the main frame. */
export function refFrame(ref) {
  const m = /^(f\d+)e\d+$/.exec(ref);
  return m ? m[1] : "";
}
