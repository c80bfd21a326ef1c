// What attach() needs from a Playwright Page (playwright or playwright-core,
// any browser: only the public Page, Frame, Locator and ElementHandle API).
import { clickResolved, enginePath } from "./selectors.js";

export const playwright = {
  name: "playwright",
  is: (page) => typeof page.addInitScript === "function" && typeof page.mainFrame === "function",
  addInitScript: (page, source) => page.addInitScript({ content: source }),
  evaluate: (frame, fn, arg) => frame.evaluate(fn, arg),
  isDetached: (frame) => frame.isDetached(),
  frameElement: (frame) => frame.frameElement(),
  setViewport: (page, size) => page.setViewportSize(size),
  pressEscape: (page) => page.keyboard.press("Escape"),
  /**
   * A Locator for an engine selector. Its first step is light-DOM CSS, as
   * the engine's is: Playwright's CSS pierces shadow roots, so `my-card >
   * button` would also find a button in the card's own shadow root. A
   * ` >>> ` step goes into a shadow root, which takes the piercing CSS.
   */
  locator(frame, selector) {
    let loc = null;
    for (const part of enginePath(selector)) loc = loc ? loc.locator(part) : frame.locator(`css:light=${part}`);
    return loc;
  },
  /**
   * A trusted click with Playwright's own actionability checks, on the
   * element the engine resolves (through a Locator, a pop-up's slotted
   * "Subscribe" was clicked for its "Close").
   */
  click: (frame, selector, timeout) => clickResolved(frame, selector, { timeout }),
};
