// Types of the `sightline` npm module. The snapshot types are the driver's
// `--json` output (engine-wasm/src/protocol.rs), field for field.

/** Scroll position and size of the document, in CSS pixels. */
export interface ViewportInfo {
  scroll_x: number;
  scroll_y: number;
  viewport_width: number;
  viewport_height: number;
  doc_width: number;
  doc_height: number;
  pages_above: number;
  pages_below: number;
  at_top: boolean;
  at_bottom: boolean;
}

/** An open modal that makes the rest of the page unreachable. */
export interface ModalInfo {
  kind: "aria" | "dialog" | "inert" | "heuristic";
  selector: string;
  name: string;
  ref?: string;
}

/** One element a model may act on. */
export interface RefInfo {
  role: string;
  name: string;
  /** Engine selector: CSS per tree scope, ` >>> ` stepping into a shadow root. */
  selector: string;
  url?: string;
  /** "f1"… for elements inside iframes. */
  frame?: string;
  in_viewport: boolean;
  obscured: boolean;
  covered_by: string | null;
}

export interface SnapshotStats {
  elements: number;
  refs: number;
  engine_ms: number;
  total_ms: number;
  occlusion_ms: number;
}

/** What `sightline snapshot --json` prints; `tree` is exactly the text a model is given. */
export interface SnapshotResult {
  url: string;
  title: string;
  tree: string;
  viewport: ViewportInfo;
  modal: ModalInfo | null;
  refs: Record<string, RefInfo>;
  stats: SnapshotStats;
}

export interface SnapshotOptions {
  /** The whole page (default), or only what meets the viewport plus counts of what lies outside. */
  mode?: "full" | "viewport";
  /** Elements outside an open modal: landmarks, headings and a count per
   *  landmark, marked `[obscured]` ("outline", the default, as the driver);
   *  everything, marked ("mark"); or left out ("drop"). */
  obscured?: "outline" | "mark" | "drop";
  /** Resize the page's viewport first. */
  viewport?: { width: number; height: number };
  /** Scroll the window to this Y (CSS pixels) first. */
  scrollY?: number;
}

export interface RemoveBlockerOptions {
  /** Also act on consent, login, age-gate and paywall dialogs, and allow DOM removal. */
  aggressive?: boolean;
  /** What to do with cookie consent dialogs (default "leave"). */
  consent?: "leave" | "reject" | "accept";
  /** CSS selectors of blockers that may always be closed and removed. */
  allowedSelectors?: string[];
  /** Append the audit record to this file, one JSON line per call. */
  auditFile?: string;
}

/** What a blocker was taken for (the driver's `BlockerKind`). */
export type BlockerKind =
  | "consent"
  | "login"
  | "age_gate"
  | "paywall"
  | "newsletter_promo"
  | "generic_modal"
  | "banner"
  | "tooltip"
  | "empty_overlay";

/** The driver's removeBlocker result (`sightline unblock --json`). */
export interface RemoveBlockerResult {
  removed: boolean;
  method: "click" | "esc" | "remove" | "none";
  selector?: string;
  kind?: BlockerKind;
  note?: string;
}

/** The driver's audit line for one removeBlocker call. */
export interface RemoveBlockerAudit {
  timestamp: string;
  url: string;
  selector: string | null;
  kind: BlockerKind | null;
  method: "click" | "esc" | "remove" | "none";
  result: "removed" | "left";
  reason: string;
}

/**
 * A Playwright `Page`, as far as `attach` needs to tell it (structurally, so
 * the module depends on neither library).
 */
export interface PlaywrightPage {
  addInitScript(...args: any[]): Promise<unknown>;
  mainFrame(): unknown;
  locator(selector: string, ...rest: any[]): unknown;
  $(selector: string, ...rest: any[]): Promise<unknown>;
}

/** A Puppeteer `Page`, as far as `attach` needs to tell it. */
export interface PuppeteerPage {
  evaluateOnNewDocument(...args: any[]): Promise<unknown>;
  mainFrame(): unknown;
  $(selector: string, ...rest: any[]): Promise<unknown>;
}

/** The element handle type of a page's own library (`page.$`'s, never null). */
export type HandleOf<P extends { $(selector: string, ...rest: any[]): Promise<unknown> }> = NonNullable<
  Awaited<ReturnType<P["$"]>>
>;

/** Snapshot and removeBlocker, for either library. */
export interface Sightline<Handle = unknown> {
  snapshot(options?: SnapshotOptions): Promise<SnapshotResult>;
  removeBlocker(options?: RemoveBlockerOptions): Promise<{ result: RemoveBlockerResult; audit: RemoveBlockerAudit }>;
  /**
   * An element handle of the page's own library for a ref of the last
   * snapshot; it throws when the ref's element is gone (a new document, a
   * re-render).
   */
  elementHandle(ref: string): Promise<Handle>;
}

/** Sightline on a Playwright page: refs also as Locators. */
export interface PlaywrightSightline<P extends PlaywrightPage = PlaywrightPage> extends Sightline<HandleOf<P>> {
  /**
   * A Locator for a ref of the last snapshot (and those chained from it):
   * its actions fail, as elementHandle(ref) does, once the ref's element
   * is gone.
   */
  locator(ref: string): ReturnType<P["locator"]>;
}

export interface AttachOptions {
  /**
   * On pages whose CSP refuses WebAssembly, use the engine's JavaScript build
   * (default true). With false, such pages throw a `CspError` naming
   * `bypassCSP: true` (Playwright) and `page.setBypassCSP(true)` (Puppeteer).
   */
  jsBuild?: boolean;
}

/** Sightline for a Playwright `Page`; attach before navigating. */
export function attach<P extends PlaywrightPage>(page: P, options?: AttachOptions): Promise<PlaywrightSightline<P>>;
/** Sightline for a Puppeteer `Page`; attach before navigating. */
export function attach<P extends PuppeteerPage>(page: P, options?: AttachOptions): Promise<Sightline<HandleOf<P>>>;

/** Thrown when a page's CSP refuses WebAssembly and `jsBuild` is false. */
export class CspError extends Error {
  readonly reason: string;
}

/**
 * Thrown when a page replaced JavaScript built-ins (`Array.prototype.push`,
 * `JSON.stringify`, `WebAssembly`…) that code in the page's own world, where
 * attach() runs, relies on. The command line and MCP server read such pages
 * from an isolated world.
 */
export class HostilePageError extends Error {
  /** The built-ins found replaced, comma-separated. */
  readonly replaced: string;
  readonly cause: unknown;
}

/** The advice a `CspError` gives. */
export const CSP_ADVICE: string;
