// attach(page): Sightline's snapshot and removeBlocker inside a Playwright
// or Puppeteer script. The engine runs in the page (see frame-engine.js),
// frames are stitched by the engine's own stitch in Node (stitch-node.js),
// and the user acts on refs with their own library.
import { appendFileSync } from "node:fs";
import { engineAnswer, replacedReadsNote } from "./frame-engine.js";
import { initScript } from "./engine-source.js";
import { playwright } from "./host-playwright.js";
import { puppeteer } from "./host-puppeteer.js";
import { removeBlocker } from "./remove-blocker.js";
import { guardedLocator } from "./guarded-locator.js";
import { refFrame, SHADOW_SEPARATOR } from "./selectors.js";
import { FrameNumbers, snapshotPage } from "./snapshot-plan.js";
import { stitch } from "./stitch-node.js";

const ACTION_TIMEOUT_MS = 5000;
const attached = new WeakMap();

function libraryOf(page) {
  const lib = [puppeteer, playwright].find((l) => l.is(page));
  if (!lib) throw new TypeError("attach() takes a Playwright Page or a Puppeteer Page");
  return lib;
}

// How often a snapshot is taken again when the page navigated meanwhile.
const SNAPSHOT_RETRIES = 2;

/**
 * Whether an error says the document went away under a call (a navigation,
 * or its frame replaced), in Playwright's and Puppeteer's words, rather than
 * that the page or browser closed.
 */
function navigatedMeanwhile(e) {
  const message = String((e && e.message) || e);
  return /Execution context was destroyed|Cannot find context with specified id|Frame was detached|frame got detached|Navigating frame was detached/i.test(
    message,
  );
}

class Sightline {
  constructor(page, lib, options) {
    this.page = page;
    this.lib = lib;
    this.options = { jsBuild: options.jsBuild !== false };
    this.numbers = new FrameNumbers();
    // Frame objects are the libraries' own, stable for a frame's life.
    this.ids = new WeakMap();
    this.nextId = 1;
    this.frames = new Map();
    this.docs = new WeakMap();
    this.last = null;
    // Refs of earlier snapshots: a ref lasts as long as its element, not
    // only until the next snapshot (a viewport one lists fewer). Each is
    // kept with its frame and that frame's document then, and holds only
    // while the frame's latest snapshot is of that same document.
    this.earlier = new Map();
    // What the frames of the snapshot under way said of replaced built-ins.
    this.replacedReads = new Set();
  }

  frameId(frame) {
    if (!this.ids.has(frame)) this.ids.set(frame, `frame-${this.nextId++}`);
    const id = this.ids.get(frame);
    this.frames.set(id, frame);
    return id;
  }

  async call(frame, fn, arg) {
    const answer = await engineAnswer(this.lib.evaluate, frame, fn, arg, this.options);
    // Refs are numbered per document: each frame's snapshot document is
    // kept, so that a ref is never looked up in a later one (whose own
    // numbering, a blocker scan's say, may give the same ref to another element).
    if (fn === "snapshot") this.docs.set(frame, answer.doc);
    if (answer.replaced) this.replacedReads.add(answer.replaced);
    return answer.value;
  }

  host() {
    return {
      mainFrame: () => this.page.mainFrame(),
      childFrames: (frame) => frame.childFrames().filter((f) => !this.lib.isDetached(f)),
      frameId: (frame) => this.frameId(frame),
      frameUrl: (frame) => frame.url(),
      engineCall: (frame, fn, arg) => this.call(frame, fn, arg),
      frameKey: async (_parent, child) => {
        const el = await this.lib.frameElement(child);
        if (!el) return null;
        try {
          return await el.evaluate((e) => globalThis.__sightline && globalThis.__sightline.frameKeyOf(e));
        } finally {
          await el.dispose();
        }
      },
      stitch: async (request) => stitch(request),
    };
  }

  /**
   * The page as a model sees it: `sightline snapshot --json`'s object.
   * @param {{mode?: "full"|"viewport", obscured?: "outline"|"mark"|"drop", viewport?: {width: number, height: number}, scrollY?: number}} [options]
   */
  async snapshot(options) {
    options = options ?? {};
    if (typeof options !== "object") throw new TypeError("snapshot() takes an options object, or nothing");
    for (const [name, size] of [["viewport width", options.viewport?.width], ["viewport height", options.viewport?.height]]) {
      if (options.viewport && !(Number.isInteger(size) && size > 0)) {
        throw new TypeError(`snapshot(): the ${name} must be a whole number of pixels above 0 (got ${size})`);
      }
    }
    if (options.scrollY != null && !Number.isFinite(options.scrollY)) {
      throw new TypeError(`snapshot(): scrollY must be a number of pixels (got ${options.scrollY})`);
    }
    // A snapshot that fails leaves the last one's refs as they were.
    const [frames, docs] = [this.frames, this.docs];
    try {
      if (options.viewport) await this.lib.setViewport(this.page, options.viewport);
      const previous = this.last;
      this.last = await this.snapshotSettled(options);
      if (this.replacedReads.size) {
        this.last.tree = `# ${replacedReadsNote([...this.replacedReads].join("; "))}\n${this.last.tree}`;
      }
      for (const [ref, info] of Object.entries(previous ? previous.refs : {})) {
        const frame = refFrame(ref) ? frames.get(this.numbers.frameOf(refFrame(ref))) : this.page.mainFrame();
        if (frame) this.earlier.set(ref, { info, frame, doc: docs.get(frame) });
      }
      // Refs of documents gone (a frame detached, or read again in another
      // document) are let go.
      for (const [ref, kept] of this.earlier) {
        const now = this.docs.get(kept.frame);
        if (this.lib.isDetached(kept.frame) || (now !== undefined && now !== kept.doc)) this.earlier.delete(ref);
      }
    } catch (e) {
      [this.frames, this.docs] = [frames, docs];
      throw e;
    }
    return this.last;
  }

  /**
   * One snapshot of the page, taken again when the page navigated while it
   * was taken (the library then says the frame's context was destroyed): a
   * page that redirects, reloads or submits itself is read once it has
   * settled. A page still navigating after that gets a clear error.
   */
  async snapshotSettled(options) {
    for (let attempt = 0; ; attempt++) {
      this.frames = new Map();
      this.docs = new WeakMap();
      this.replacedReads = new Set();
      try {
        if (options.scrollY != null) {
          // Instantly, whatever the page's `scroll-behavior` says (again
          // after a navigation: the new document starts at the top).
          await this.lib.evaluate(this.page.mainFrame(), (y) => window.scrollTo({ top: y, behavior: "instant" }), options.scrollY);
        }
        return await snapshotPage(this.host(), this.numbers, options);
      } catch (e) {
        if (!navigatedMeanwhile(e)) throw e;
        if (attempt === SNAPSHOT_RETRIES) {
          throw new Error(
            `The page navigated while its snapshot was taken, ${SNAPSHOT_RETRIES + 1} times: take the snapshot again once it has loaded (${e.message})`,
            { cause: e },
          );
        }
        await new Promise((r) => setTimeout(r, 150 * (attempt + 1)));
      }
    }
  }

  /** A ref's facts (selector, role, name) from the last snapshot, or from an earlier one of the same document. */
  refInfo(ref) {
    if (this.last && this.last.refs[ref]) return this.last.refs[ref];
    const kept = this.earlier.get(ref);
    const current = kept && !this.lib.isDetached(kept.frame) && this.docs.get(kept.frame) === kept.doc;
    return current ? kept.info : null;
  }

  /** The frame a ref lives in (from the last snapshot's numbering, or an earlier snapshot's). */
  frameOfRef(ref) {
    if (!this.refInfo(ref)) {
      throw new Error(
        this.last
          ? `unknown ref ${ref}: no snapshot of this page gave it; use a ref of the latest snapshot`
          : `unknown ref ${ref}: take a snapshot first and use one of its refs`,
      );
    }
    const kept = !(this.last && this.last.refs[ref]) && this.earlier.get(ref);
    if (kept) return kept.frame;
    const prefix = refFrame(ref);
    if (!prefix) return this.page.mainFrame();
    const frame = this.frames.get(this.numbers.frameOf(prefix));
    if (!frame || this.lib.isDetached(frame)) throw new Error(`the frame of ${ref} is gone`);
    return frame;
  }

  /**
   * Playwright: a Locator for a ref of the last snapshot (by the engine's
   * selector). Its actions fail, as elementHandle(ref) does, once the ref's
   * element is gone or the selector finds another (see guarded-locator.js).
   */
  locator(ref) {
    if (!this.lib.locator) throw new Error("locator() is Playwright's; with Puppeteer use elementHandle(ref)");
    const frame = this.frameOfRef(ref);
    const selector = this.refInfo(ref).selector;
    const doc = this.docs.get(frame);
    const check = async () => {
      const state = await this.lib.evaluate(
        frame,
        ([r, s, d]) => {
          if (performance.timeOrigin !== d) return "gone";
          const S = globalThis.__sightline;
          const el = S && S.resolve(r);
          if (!el) return "gone";
          return S.resolve(s) === el ? "same" : "moved";
        },
        [ref, selector, doc],
      );
      if (state === "gone") throw new Error(`${ref} is no longer on the page: take a new snapshot`);
      if (state === "moved") throw new Error(`${ref}'s selector now finds another element: take a new snapshot`);
    };
    const viaHandle = selector.includes(SHADOW_SEPARATOR) ? () => this.elementHandle(ref) : null;
    return guardedLocator(this.lib.locator(frame, selector), check, viaHandle);
  }

  /** An ElementHandle for a ref of the last snapshot (the very element the engine numbered). */
  async elementHandle(ref) {
    const frame = this.frameOfRef(ref);
    const handle = await frame.evaluateHandle(
      ([r, d]) => (performance.timeOrigin === d && globalThis.__sightline?.resolve(r)) || null,
      [ref, this.docs.get(frame)],
    );
    const el = handle.asElement();
    if (!el) {
      await handle.dispose();
      throw new Error(`${ref} is no longer on the page: take a new snapshot`);
    }
    return el;
  }

  /**
   * Closes the pop-up, promo or overlay in the way, as the driver's removeBlocker does.
   * @param {{aggressive?: boolean, consent?: "leave"|"reject"|"accept", allowedSelectors?: string[], auditFile?: string}} [options]
   * @returns {Promise<{result: object, audit: object}>}
   */
  async removeBlocker(options = {}) {
    const main = this.page.mainFrame();
    // A record that cannot be written fails before anything is closed.
    if (options.auditFile) appendFileSync(options.auditFile, "");
    const outcome = await removeBlocker(
      {
        blockers: (request) => this.call(main, "blockers", request),
        invalidSelector: (css) =>
          this.lib.evaluate(
            main,
            (s) => {
              try {
                document.createDocumentFragment().querySelector(s);
                return null;
              } catch (e) {
                return String((e && e.message) || e);
              }
            },
            css,
          ),
        allowListed: (target, css) =>
          this.lib.evaluate(
            main,
            ([t, s]) => {
              const el = globalThis.__sightline.resolve(t);
              try {
                return !!el && (el.matches(s) || !!el.closest(s) || !!el.querySelector(s));
              } catch {
                return false;
              }
            },
            [target, css],
          ),
        click: (selector) => this.lib.click(main, selector, ACTION_TIMEOUT_MS),
        frameOf: async (iframeSelector) => {
          const handle = await main.evaluateHandle(
            (s) => (globalThis.__sightline && globalThis.__sightline.resolve(s)) || null,
            iframeSelector,
          );
          const el = handle.asElement();
          try {
            return el ? await el.contentFrame() : null;
          } finally {
            await handle.dispose();
          }
        },
        frameBlockers: (frame, request) => this.call(frame, "blockers", request),
        clickIn: (frame, selector) => this.lib.click(frame, selector, ACTION_TIMEOUT_MS),
        pressEscape: () => this.lib.pressEscape(this.page),
        sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      },
      options,
    );
    if (options.auditFile) appendFileSync(options.auditFile, `${JSON.stringify(outcome.audit)}\n`);
    return outcome;
  }
}

/**
 * Sightline for a Playwright or Puppeteer page. Attach before navigating,
 * so the engine and its hook are in every document before page scripts
 * (closed shadow roots and click listeners are seen from the start).
 * @param {object} page a Playwright Page or a Puppeteer Page
 * @param {{jsBuild?: boolean}} [options] `jsBuild: false`: on pages whose CSP
 *   refuses WebAssembly, throw (naming bypassCSP / setBypassCSP) instead of
 *   using the engine's JS build
 */
export async function attach(page, options = {}) {
  if (page === null || typeof page !== "object") throw new TypeError("attach() takes a Playwright Page or a Puppeteer Page");
  if (attached.has(page)) {
    // The same object (two calls at once share one); options given again
    // are the newest word on them.
    const existing = await attached.get(page);
    if ("jsBuild" in options) existing.options.jsBuild = options.jsBuild !== false;
    return existing;
  }
  const lib = libraryOf(page);
  const sightline = new Sightline(page, lib, options);
  const ready = lib.addInitScript(page, initScript()).then(() => sightline);
  attached.set(page, ready);
  try {
    return await ready;
  } catch (e) {
    attached.delete(page);
    throw e;
  }
}
