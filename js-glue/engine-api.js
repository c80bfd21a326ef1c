// Sightline engine API. Concatenated after the wasm-bindgen glue and the
// embedded module bytes by build-bundle.mjs; runs inside the bundle's IIFE.
//
// Expects in scope: `wasm_bindgen` (the no-modules glue), `__SL_BUILD`
// ("wasm" or "js") and `__sl_module()`, which gives what `initSync` takes:
// the module's bytes (build-bundle.mjs) or, in the JS build of the engine
// (build-js-bundle.mjs), a stand-in the build's own `WebAssembly` turns
// into the wasm2js translation of the very same module.
// Defines `globalThis.__sightline` once per JS world. The driver loads the
// bundle into an isolated world; an MV3 content script or a Playwright/
// Puppeteer init script loads the very same file.
//
// A page whose CSP lacks 'wasm-unsafe-eval' refuses WebAssembly in every
// world (main, isolated, content script). Then nothing is defined but
// `globalThis.__sightlineRefused` (the browser's reason), so that a host can
// load the JS build instead, or say what to do; the page sees no error.
try {
  wasm_bindgen.initSync({ module: __sl_module() });
} catch (e) {
  Object.defineProperty(globalThis, "__sightlineRefused", {
    value: String((e && e.message) || e),
    enumerable: false,
    configurable: true,
  });
  return;
}
// A form submission (a click on a submit button, Enter in a field) fires
// `submit` at once but only queues its navigation as a task, which Chromium
// runs after the next frame when the click changed the page. The driver
// asks (`readiness`) while it waits for a step, so it can wait for that navigation.
// The event is kept, not a flag: listeners after this one may cancel it.
let __sl_lastSubmit = null;
if (typeof document !== "undefined") {
  document.addEventListener("submit", (e) => { __sl_lastSubmit = e; }, true);
}
// Readiness: what the driver asks while it waits for a step (its rules and
// their reasons are in driver/src/page/readiness.rs). A MutationObserver
// notes when the page changed; a region that keeps changing at a steady beat
// (a clock, a ticker, a carousel) stops counting after its third change.
// Changes are only placed (in or near the viewport?) when the driver asks,
// so the page's own tasks never pay for layout reads.
const __sl_readiness = (() => {
  if (typeof document === "undefined" || typeof MutationObserver === "undefined") return null;
  const now = () => performance.now();
  let lastChange = -1;
  let unplaced = [];
  const MAX_UNPLACED = 256;
  const regions = new WeakMap();
  // Two gaps in a row within this share of each other (and under
  // MAX_BEAT_MS) make a beat; a region quiet for FORGET_MS starts afresh.
  const BEAT_TOLERANCE = 0.35;
  const MAX_BEAT_MS = 1500;
  const FORGET_MS = 2500;
  const onBeat = (region, t) => {
    const s = regions.get(region);
    if (!s || t - s.last > FORGET_MS) {
      regions.set(region, { last: t, gap: -1, beats: 0 });
      return false;
    }
    const gap = t - s.last;
    const similar = s.gap > 0 && gap <= MAX_BEAT_MS && Math.abs(gap - s.gap) <= Math.max(40, s.gap * BEAT_TOLERANCE);
    s.beats = similar ? s.beats + 1 : 0;
    s.gap = gap;
    s.last = t;
    return s.beats >= 1;
  };
  const INVISIBLE = { SCRIPT: 1, STYLE: 1, LINK: 1, META: 1, NOSCRIPT: 1, TEMPLATE: 1, TITLE: 1, BASE: 1 };
  // The node whose box tells where a change happened.
  const measured = (r) => {
    if (r.type === "characterData") return r.target.parentElement;
    if (r.type === "childList") {
      for (const n of r.addedNodes) {
        if (n.nodeType === 1 && !INVISIBLE[n.nodeName]) return n;
      }
      // (The document itself, its root swapped, is no box to measure.)
      const box = r.target.nodeType === 1 ? r.target : null;
      for (const n of r.addedNodes) {
        if (n.nodeType === 3 && n.data.trim() !== "") return box;
      }
      return r.removedNodes.length ? box : null;
    }
    return r.target;
  };
  // Status messages (live regions): what they said and when, so that a
  // toast gone before the step is ready ("Saved!", an error snackbar) is
  // still told. Regions that change at a beat (a clock) are left out.
  // (Not role=log: a chat transcript grows, it does not come and go, and
  // reading it whole on every token would cost the page.) Hand-written
  // toasts and snackbars often have no role: their class names them, as a
  // whole word (a `toast-provider` around the app is none).
  const LIVE = '[aria-live]:not([aria-live="off"]):not([role="log"]),[role="status"],[role="alert"],output,' +
    '[class~="toast" i],[class~="snackbar" i]';
  const MAX_SAID = 8;
  let said = [];
  // What each region said last: a region is noted again only when its
  // text changes (a toast's exit animation is no new message).
  const lastSaid = new WeakMap();
  const textOf = (el) => (el.textContent || "").replace(/\s+/g, " ").trim();
  const shown = (el) => el.isConnected && textOf(el) !== ""
    && (typeof el.checkVisibility !== "function" || el.checkVisibility({ visibilityProperty: true, opacityProperty: true }));
  const noteSaid = (region, t) => {
    if (!region) return;
    if (!shown(region)) {
      // Cleared: the same message said again later is a new one.
      lastSaid.delete(region);
      return;
    }
    const text = textOf(region).slice(0, 200);
    if (lastSaid.get(region) === text) return;
    lastSaid.set(region, text);
    if (said.length >= MAX_SAID) said.shift();
    said.push([region, text, t]);
  };
  // Growth: a container gaining children chunk after chunk (a list
  // rendered in batches of frames or timers, rows arriving one by one) is
  // content on its way, though its cadence reads as a beat and its new rows
  // fall below the viewport. Each task in which a container gained
  // elements, and lost none, is one run of its growth if it came within
  // GROWTH_GAP_MS of the last; the driver is told the latest growth of a
  // container near the viewport (placed by the container's own box) and
  // its runs, when that run of growth began during the step (readiness.rs
  // decides what holds a step).
  const GROWTH_GAP_MS = 300;
  const growth = new WeakMap();
  let grown = [];
  let lastGrowth = -1;
  let lastGrowthRuns = 0;
  let lastGrowthBegan = -1;
  // Changes of regions at a beat, placed apart: the latest in or near the
  // viewport is when the page last changed at all there.
  let beating = [];
  let lastBeat = -1;
  // (Not the body's own children: scripts add pixels, frames and portals
  // there in bursts; a list has a container of its own.)
  const grows = (r) => {
    if (r.type !== "childList" || r.removedNodes.length > 0) return false;
    if (r.target === document.body || r.target === document.documentElement || r.target === document.head) return false;
    for (const n of r.addedNodes) {
      if (n.nodeType === 1 && !INVISIBLE[n.nodeName]) return true;
    }
    return false;
  };
  const noteGrowth = (container, t) => {
    const g = growth.get(container);
    if (grown.length >= MAX_UNPLACED) grown = grown.slice(MAX_UNPLACED / 2);
    grown.push([container, t]);
    if (!g || t - g.last > GROWTH_GAP_MS) {
      growth.set(container, { last: t, runs: 1, began: t });
      return;
    }
    // (One task's appends are one chunk.)
    if (t > g.last) g.runs += 1;
    g.last = t;
  };
  const observer = new MutationObserver((records) => {
    const t = now();
    // The parser at work: the step waits for DOMContentLoaded anyway, and
    // the driver counts from there.
    if (document.readyState === "loading") return;
    const seen = new Set();
    const grew = new Set();
    for (const r of records) {
      if (grows(r) && !grew.has(r.target)) {
        grew.add(r.target);
        noteGrowth(r.target, t);
      }
      const region = r.type === "childList" ? r.target : r.target.parentNode || r.target;
      if (seen.has(region)) continue;
      seen.add(region);
      if (onBeat(region, t)) {
        // Not a change that counts, but a sign of life: a reply streaming
        // in at an even pace reads as a beat.
        const node = measured(r);
        if (node) {
          if (beating.length >= MAX_UNPLACED) beating = beating.slice(MAX_UNPLACED / 2);
          beating.push([node, t]);
        }
        continue;
      }
      // (A change to the document itself, its root swapped by a
      // document.write or a script, has no element to look up from.)
      const changed = r.type === "characterData" ? r.target.parentElement : r.target;
      noteSaid(changed && changed.nodeType === 1 ? changed.closest(LIVE) : null, t);
      // A toast rendered into a new portal (a container appended with the
      // alert inside it) is a region below the added node, not above it.
      for (const n of r.type === "childList" ? r.addedNodes : []) {
        if (n.nodeType === 1) noteSaid(n.matches(LIVE) ? n : n.querySelector(LIVE), t);
      }
      const node = measured(r);
      if (!node) continue;
      if (unplaced.length >= MAX_UNPLACED) unplaced = unplaced.slice(MAX_UNPLACED / 2);
      unplaced.push([node, t]);
    }
  });
  observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  // The parser's last insertions are delivered just after readyState left
  // "loading": they are the document, not a change to it.
  document.addEventListener("readystatechange", () => {
    if (document.readyState === "interactive") observer.takeRecords();
  }, true);
  const near = (node) => {
    if (!node.isConnected || typeof node.getBoundingClientRect !== "function") return false;
    const h = innerHeight, w = innerWidth;
    const b = node.getBoundingClientRect();
    return (b.width > 0 || b.height > 0) && b.bottom >= -h / 2 && b.top <= h * 1.5 && b.right >= -w / 2 && b.left <= w * 1.5;
  };
  // Of `[node, time]` pairs, the newest after `after` in or near the
  // viewport (half a viewport around it), or null.
  const newestNear = (list, after) => {
    for (let i = list.length - 1; i >= 0; i--) {
      if (list[i][1] <= after) break;
      if (near(list[i][0])) return list[i];
    }
    return null;
  };
  // The latest change that counts, the latest at a beat, the latest growth.
  const place = () => {
    const change = newestNear(unplaced, lastChange);
    if (change) lastChange = change[1];
    const beat = newestNear(beating, lastBeat);
    if (beat) lastBeat = beat[1];
    const grew = newestNear(grown, lastGrowth);
    if (grew) {
      const g = growth.get(grew[0]);
      [lastGrowth, lastGrowthRuns, lastGrowthBegan] = [grew[1], g.runs, g.began];
    }
    unplaced = [];
    beating = [];
    grown = [];
  };
  let timers = "";
  document.addEventListener("__sightline_timers_state", (e) => { timers = String(e.detail); }, true);
  // Class names as component libraries write them: `spinner`, `ant-skeleton`,
  // MUI's `MuiSkeleton-root` (a word run into its prefix), Tailwind's
  // `animate-spin` and `animate-pulse`, Bootstrap's `placeholder-glow`.
  const BUSY_SELECTOR = '[aria-busy="true"],[role="progressbar"],[class*="spin" i],[class*="load" i],[class*="skeleton" i],[class*="shimmer" i],[class*="animate-pulse" i],[class*="placeholder-glow" i],[class*="placeholder-wave" i]';
  // A whole word in any case; or run into a component prefix, capitalised.
  const BUSY_WORD = /(^|[\s_-])(spinner|spinning|loading|loader|skeleton|shimmer|animate-spin|animate-pulse|placeholder-glow|placeholder-wave)($|[\s_-])/i;
  const BUSY_RUN_IN = /[a-z](Skeleton|Spinner|Shimmer)($|[\s_-])/;
  const BUSY_TEXT = "//body//text()[string-length(normalize-space(.)) < 40 and (starts-with(normalize-space(.), 'Loading') or starts-with(normalize-space(.), 'loading') or starts-with(normalize-space(.), 'Searching') or starts-with(normalize-space(.), 'Fetching') or starts-with(normalize-space(.), 'Please wait'))]";
  const inView = (el) => {
    if (!el || typeof el.getBoundingClientRect !== "function") return false;
    const b = el.getBoundingClientRect();
    return b.width > 0 && b.height > 0 && b.bottom > 0 && b.top < innerHeight && b.right > 0 && b.left < innerWidth
      && (typeof el.checkVisibility !== "function" || el.checkVisibility({ visibilityProperty: true, opacityProperty: true }));
  };
  // A loading indicator in the viewport: the page says it is still waiting.
  const busy = () => {
    const marked = document.querySelectorAll(BUSY_SELECTOR);
    for (let i = 0; i < marked.length && i < 64; i++) {
      const el = marked[i];
      const classes = typeof el.className === "string" ? el.className : el.getAttribute("class") || "";
      const named = el.getAttribute("aria-busy") === "true" || el.getAttribute("role") === "progressbar"
        || BUSY_WORD.test(classes) || BUSY_RUN_IN.test(classes);
      if (named && inView(el)) return true;
    }
    const texts = document.evaluate(BUSY_TEXT, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    for (let i = 0; i < texts.snapshotLength && i < 16; i++) {
      if (inView(texts.snapshotItem(i).parentElement)) return true;
    }
    return false;
  };
  // What live regions said since `since` and no longer show (emptied,
  // hidden, removed): the status messages the final tree will not have.
  const gone = (since) => {
    const out = [];
    let page = null;
    for (const [region, text, t] of said) {
      if (t < since || shown(region) || out.includes(text)) continue;
      // A framework that rendered the message anew (same text, new
      // element) still shows it: it is in the tree, not gone.
      // (innerText: what is rendered, not the text of hidden elements.)
      if (page === null) page = (document.body ? document.body.innerText : "").replace(/\s+/g, " ");
      if (!page.includes(text)) out.push(text);
    }
    return out.slice(-3);
  };
  return {
    // [readyState, ms since the latest change that counts (-1: none),
    //  "timers due soon,ms to the next,consent", a busy indicator in view,
    //  status messages of the step already gone, ms since a container near
    //  the viewport last grew in the step (-1: none), its runs of growth,
    //  ms since the latest change in or near the viewport, beats included]
    probe: (withBusy, stepMs) => {
      timers = "";
      // (Placed first: the hook tells a ticker's callback from the chunks
      // of the list that grew last by when it grew.)
      place();
      document.dispatchEvent(new CustomEvent("__sightline_timers", { detail: stepMs + "," + lastGrowth }));
      const t = now();
      return [
        document.readyState,
        lastChange < 0 ? -1 : Math.round(t - lastChange),
        timers,
        withBusy ? busy() : false,
        gone(t - stepMs),
        // (A feed that was growing before the step began is no list the
        // step is waiting for.)
        lastGrowth < 0 || lastGrowthBegan < t - stepMs ? -1 : Math.round(t - lastGrowth),
        lastGrowthRuns,
        Math.max(lastChange, lastBeat) < 0 ? -1 : Math.round(t - Math.max(lastChange, lastBeat)),
      ];
    },
  };
})();
// One turn of the event loop through a posted message: tasks the page
// queued before it (a scheduler's MessageChannel work) have run by then.
const __sl_turn = (done) => {
  const c = new MessageChannel();
  c.port1.onmessage = () => {
    c.port1.close();
    done();
  };
  c.port2.postMessage(0);
};
// Longest wait for a frame (a page that stops drawing, a frame the browser skips).
const __SL_FRAME_LIMIT_MS = 25;
const __sl_api = Object.freeze({
  protocol: wasm_bindgen.protocol_version(),
  /** "wasm", or "js" for the JS build used where a page's CSP refuses WebAssembly. */
  build: __SL_BUILD,
  /** FrameSnapshotRequest JSON in, FrameSnapshot JSON out. */
  snapshot: (requestJson) => wasm_bindgen.snapshot(requestJson),
  /** Stitch request JSON (frames of one page, StitchRequest in engine-wasm/src/protocol/snapshot.rs) in, SnapshotResult JSON out. */
  stitch: (requestJson) => wasm_bindgen.stitch(requestJson),
  /** Key linking an <iframe> element to its child frame (FrameSlot.key). */
  frameKeyOf: (el) => wasm_bindgen.frame_key_of(el),
  /** Element for a ref ("e12") or engine selector, or null. */
  resolve: (target) => wasm_bindgen.resolve(target),
  /** Actionability facts: TargetRequest JSON in, TargetInfo JSON out. */
  actionTarget: (requestJson) => wasm_bindgen.action_target(requestJson),
  /** DOM-level operation (set a picker value, choose options, scroll…): DomAction JSON in, result JSON out. */
  domAction: (actionJson) => wasm_bindgen.dom_action(actionJson),
  /** removeBlocker: {"op":"scan"} → candidates; {"op":"state"|"remove","target"} → result JSON. */
  blockers: (requestJson) => wasm_bindgen.blockers(requestJson),
  /** Readiness probe (the step began `stepMs` ago): [readyState, submit queued,
   *  ms since the page last changed in view (-1: never), "timers due soon,ms to
   *  the next,consent manager state,frames asked for and not drawn,ms since
   *  one of those timers ran,ms to the end of the step's animations,ms to
   *  a meta refresh,ms to the next callback set from its own run", a busy
   *  indicator in view, status messages the step's live regions said and no
   *  longer show, ms since a container near the viewport last grew (-1:
   *  none), its runs of growth, ms since the latest change in or near the
   *  viewport, beats included]. */
  readiness: (withBusy, stepMs) => {
    const e = __sl_lastSubmit;
    __sl_lastSubmit = null;
    const submitting = e !== null && !e.defaultPrevented;
    const p = __sl_readiness ? __sl_readiness.probe(withBusy, stepMs) : [document.readyState, -1, "", false, [], -1, 0, -1];
    return [p[0], submitting, p[1], p[2], p[3], p[4], p[5], p[6], p[7]];
  },
  /** The page's echo of a step: resolves, with the ms it took, after one
   *  turn of the event loop, and first after the next frame when `frame`. */
  echo: (frame) => new Promise((resolve) => {
    const t0 = performance.now();
    const turn = () => __sl_turn(() => resolve(performance.now() - t0));
    // A hidden document draws no frames (and its timers are throttled).
    const hidden = typeof document !== "undefined" && document.visibilityState === "hidden";
    if (!frame || hidden || typeof requestAnimationFrame !== "function") return turn();
    let drawn = false;
    const once = () => {
      if (drawn) return;
      drawn = true;
      turn();
    };
    requestAnimationFrame(once);
    setTimeout(once, __SL_FRAME_LIMIT_MS);
  }),
  /** Debug and conformance: [{found, role, name, description, hidden}] for a CSS selector. */
  describeAll: (css) => wasm_bindgen.describe_all(css),
});
Object.defineProperty(globalThis, "__sightline", { value: __sl_api, enumerable: false, configurable: false, writable: false });
