// Compiled (never run) by tests/e2e/npm_module.rs with TypeScript in strict
// mode, as a user's script would be: what the typings allow must compile,
// and each misuse marked `@ts-expect-error` must fail to (an expected error
// that does not come is an error of its own).
import { attach, type BlockerKind, type RefInfo, type SnapshotResult } from "sightline";
import { chromium, type ElementHandle as PlaywrightHandle, type Locator } from "playwright-core";
import puppeteer, { type ElementHandle as PuppeteerHandle } from "puppeteer-core";

export async function withPlaywright(): Promise<void> {
  const browser = await chromium.launch();
  const page = await browser.newPage();
  const sl = await attach(page);
  const snap: SnapshotResult = await sl.snapshot({ mode: "viewport", obscured: "drop", scrollY: 10 });
  const first: RefInfo | undefined = snap.refs["e1"];
  console.log(first?.frame, snap.modal?.ref, snap.stats.total_ms);
  // Refs as the library's own Locators and handles.
  const locator: Locator = sl.locator("e1").first();
  await locator.click();
  const handle: PlaywrightHandle = await sl.elementHandle("e1");
  await handle.click();
  // @ts-expect-error a Locator has no such method
  sl.locator("e1").noSuchMethod();
  // @ts-expect-error modes are "full" and "viewport"
  await sl.snapshot({ mode: "Viewport" });
  const { result, audit } = await sl.removeBlocker({ consent: "reject", allowedSelectors: ["#promo"] });
  const kind: BlockerKind | undefined = result.kind;
  console.log(kind, audit.result);
  // @ts-expect-error kinds are the driver's
  if (result.kind === "cookie-banner") console.log("never");
  // @ts-expect-error allowedSelectors is a list
  await sl.removeBlocker({ allowedSelectors: "#promo" });
  // @ts-expect-error not a page
  await attach({ not: "a page" });
  // @ts-expect-error a browser is not a page
  await attach(browser);
}

export async function withPuppeteer(): Promise<void> {
  const browser = await puppeteer.launch();
  const page = await browser.newPage();
  const sl = await attach(page);
  const handle: PuppeteerHandle = await sl.elementHandle("e1");
  await handle.click();
  await sl.snapshot();
  // @ts-expect-error locator(ref) is Playwright's
  sl.locator("e1");
}
