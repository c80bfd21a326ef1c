// What attach() needs from a Puppeteer Page (puppeteer or puppeteer-core;
// only the public Page, Frame and ElementHandle API).
export const puppeteer = {
  name: "puppeteer",
  is: (page) => typeof page.evaluateOnNewDocument === "function" && typeof page.mainFrame === "function",
  addInitScript: (page, source) => page.evaluateOnNewDocument(source),
  evaluate: (frame, fn, arg) => (typeof fn === "string" ? frame.evaluate(fn) : frame.evaluate(fn, arg)),
  isDetached: (frame) => (typeof frame.isDetached === "function" ? frame.isDetached() : frame.detached),
  frameElement: (frame) => frame.frameElement(),
  setViewport: (page, size) => page.setViewport(size),
  pressEscape: (page) => page.keyboard.press("Escape"),
  locator: null,
  /** A trusted click on the element the engine resolves (Puppeteer scrolls it into view). */
  async click(frame, selector) {
    const handle = await frame.evaluateHandle((s) => globalThis.__sightline.resolve(s), selector);
    const el = handle.asElement();
    if (!el) {
      await handle.dispose();
      throw new Error(`no element matches ${selector}`);
    }
    try {
      await el.click();
    } finally {
      await el.dispose();
    }
  },
};
