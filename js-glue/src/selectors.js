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

/**
 * A trusted click, through the library's own ElementHandle (Playwright and
 * Puppeteer alike), on the very element the engine resolves for `selector`
 * in `frame`: through a library's selector, a step into a shadow root would
 * also match the host's light (slotted) children, which come first.
 */
export async function clickResolved(frame, selector, clickOptions) {
  const handle = await frame.evaluateHandle((s) => globalThis.__sightline.resolve(s), selector);
  const el = handle.asElement();
  if (!el) {
    await handle.dispose();
    throw new Error(`no element matches ${selector}`);
  }
  try {
    await el.click(clickOptions);
  } finally {
    await el.dispose();
  }
}
