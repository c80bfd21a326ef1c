// What attach() needs from a Playwright Page (playwright or playwright-core,
// any browser: only the public Page, Frame, Locator and ElementHandle API).
import { enginePath } from "./selectors.js";

export const playwright = {
  name: "playwright",
  is: (page) => typeof page.addInitScript === "function" && typeof page.mainFrame === "function",
  addInitScript: (page, source) => page.addInitScript({ content: source }),
  evaluate: (frame, fn, arg) => frame.evaluate(fn, arg),
  isDetached: (frame) => frame.isDetached(),
  frameElement: (frame) => frame.frameElement(),
  setViewport: (page, size) => page.setViewportSize(size),
  pressEscape: (page) => page.keyboard.press("Escape"),
  /** A Locator for an engine selector (` >>> ` steps into a shadow root; Playwright's CSS pierces them). */
  locator(frame, selector) {
    let loc = null;
    for (const part of enginePath(selector)) loc = loc ? loc.locator(part) : frame.locator(part);
    return loc;
  },
  /** A trusted click with Playwright's own actionability checks. */
  click: (frame, selector, timeout) => playwright.locator(frame, selector).first().click({ timeout }),
};
