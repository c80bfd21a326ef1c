// The panel's view of one tab: the host that lib/snapshot-plan.js and
// lib/remove-blocker.js expect, over the content script in each frame
// (chrome.tabs.sendMessage to a frame id). Frames come from webNavigation;
// the engine's stitch runs in the panel page itself (an extension page may
// run WebAssembly: the manifest's CSP has 'wasm-unsafe-eval').
import { FrameNumbers, snapshotPage } from "./lib/snapshot-plan.js";
import { removeBlocker } from "./lib/remove-blocker.js";
import { refFrame } from "./lib/selectors.js";

export class TabHost {
  constructor(tabId) {
    this.tabId = tabId;
    this.numbers = new FrameNumbers();
  }

  async send(frameId, message) {
    const reply = await chrome.tabs.sendMessage(this.tabId, message, { frameId });
    if (!reply) throw new Error(`frame ${frameId} did not answer (no content script there)`);
    if (reply.error) throw new Error(reply.error);
    return reply.value;
  }

  engineCall(frame, fn, arg) {
    return this.send(frame.frameId, { sightline: "engine", fn, arg });
  }

  /** The frame tree, each frame's children in the order webNavigation lists them. */
  async frames() {
    const all = (await chrome.webNavigation.getAllFrames({ tabId: this.tabId })) || [];
    const byParent = new Map();
    for (const f of all) {
      if (!byParent.has(f.parentFrameId)) byParent.set(f.parentFrameId, []);
      byParent.get(f.parentFrameId).push({ frameId: f.frameId, url: f.url });
    }
    return byParent;
  }

  async snapshot(options) {
    const byParent = await this.frames();
    const host = {
      mainFrame: () => ({ frameId: 0, url: "" }),
      childFrames: (frame) => byParent.get(frame.frameId) || [],
      frameId: (frame) => String(frame.frameId),
      frameUrl: (frame) => frame.url,
      engineCall: (frame, fn, arg) => this.engineCall(frame, fn, arg),
      frameKey: async (parent, child) => {
        const nonce = `${child.frameId}-${crypto.randomUUID()}`;
        await this.send(child.frameId, { sightline: "announce", nonce });
        return this.send(parent.frameId, { sightline: "frameKeyFor", nonce });
      },
      stitch: async (request) => globalThis.__sightline.stitch(request),
    };
    this.last = await snapshotPage(host, this.numbers, options);
    return this.last;
  }

  /** The frame id a ref lives in, by the numbering of the snapshots so far. */
  frameOfRef(ref) {
    const prefix = refFrame(ref);
    if (!prefix) return 0;
    const id = this.numbers.frameOf(prefix);
    if (id === null) throw new Error(`unknown frame ${prefix}`);
    return Number(id);
  }

  highlight(ref) {
    return this.send(this.frameOfRef(ref), { sightline: "highlight", target: ref });
  }

  unhighlight(ref) {
    return this.send(this.frameOfRef(ref), { sightline: "unhighlight" });
  }

  scrollIntoView(ref) {
    return this.send(this.frameOfRef(ref), { sightline: "scrollIntoView", target: ref });
  }

  /** The main frame's child frame whose <iframe> the engine selector finds (null: none). */
  async childFrameOf(iframeSelector) {
    const want = await this.send(0, { sightline: "frameKeyOfTarget", target: iframeSelector });
    if (!want) return null;
    const children = (await this.frames()).get(0) || [];
    // All at once; a frame with no content script to announce itself (a
    // data: or sandboxed ad frame) is passed over, not waited for.
    const keys = await Promise.all(
      children.map(async (child) => {
        const nonce = `${child.frameId}-${crypto.randomUUID()}`;
        const announced = await this.send(child.frameId, { sightline: "announce", nonce }).catch(() => false);
        return announced === true ? this.send(0, { sightline: "frameKeyFor", nonce }).catch(() => null) : null;
      }),
    );
    return children[keys.indexOf(want)] || null;
  }

  removeBlocker(options) {
    return removeBlocker(
      {
        blockers: (request) => this.engineCall({ frameId: 0 }, "blockers", request),
        allowListed: (target, css) => this.send(0, { sightline: "allowListed", target, css }),
        invalidSelector: (css) => this.send(0, { sightline: "invalidSelector", css }),
        click: (selector) => this.send(0, { sightline: "click", target: selector }),
        frameOf: (iframeSelector) => this.childFrameOf(iframeSelector),
        frameBlockers: (frame, request) => this.engineCall(frame, "blockers", request),
        clickIn: (frame, selector) => this.send(frame.frameId, { sightline: "click", target: selector }),
        pressEscape: () => this.send(0, { sightline: "pressEscape" }),
        sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      },
      options,
    );
  }
}
