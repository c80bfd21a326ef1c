// What attach() needs from a Puppeteer Page (puppeteer or puppeteer-core;
// only the public Page, Frame and ElementHandle API).
import { clickResolved } from "./selectors.js";

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
  click: (frame, selector) => clickResolved(frame, selector),
};
