// A whole-page snapshot from a host that is not the driver: the npm module
// (Playwright, Puppeteer) and the extension's panel. It asks each frame's
// engine for its part and hands them to the engine's own stitch (compiled to
// WebAssembly), so the text is the driver's.
//
// The steps mirror the driver's `Page::snapshot` (driver/src/page/snapshot.rs):
// frames numbered f1, f2… depth first in frame-tree order (stable for as
// long as a frame lives), child frames asked with the part of their viewport
// that is visible at the top level, and a modal open inside a child frame
// makes the rest of the page obscured. The npm and extension tests compare
// the result with `sightline snapshot --json` on the same pages.
//
// A host provides:
//   mainFrame()                      the top frame
//   childFrames(frame)               its child frames, in frame-tree order
//   frameId(frame)                   a string that identifies the frame for its life
//   frameUrl(frame)                  for notes about frames left out
//   engineCall(frame, fn, arg)       globalThis.__sightline[fn](arg) in the frame's engine
//   frameKey(parent, child)          FrameSlot.key of the child's iframe element, or null
//   stitch(requestJson)              the engine's stitch: SnapshotResult JSON

/** Frame numbers per host (one per page), kept across snapshots. */
export class FrameNumbers {
  constructor() {
    this.numbers = new Map();
  }
  /** `f<N>` for a frame id, numbered on first sight. */
  prefix(id) {
    if (!this.numbers.has(id)) this.numbers.set(id, this.numbers.size + 1);
    return `f${this.numbers.get(id)}`;
  }
  /** The frame id behind a ref prefix ("f2"), if a snapshot numbered it. */
  frameOf(prefix) {
    for (const [id, n] of this.numbers) if (`f${n}` === prefix) return id;
    return null;
  }
}

/** The frame tree as {frame, id, children}. */
async function frameTree(host, frame) {
  const children = [];
  for (const child of host.childFrames(frame)) children.push(await frameTree(host, child));
  return { frame, id: host.frameId(frame), children };
}

/** Numbers every frame not yet numbered, depth first (as the driver does). */
function numberFrames(tree, numbers) {
  for (const child of tree.children) {
    numbers.prefix(child.id);
    numberFrames(child, numbers);
  }
}

const OWN = { kind: "own" };
const ALL = { kind: "all" };

function applyOcclusion(occlusion, request) {
  if (occlusion.kind === "all") request.obscure_all = true;
  if (occlusion.kind === "except") {
    request.obscure_all = true;
    request.obscure_except_frame = occlusion.path[0];
  }
}

function childOcclusion(occlusion, slot) {
  if (occlusion.kind === "all") return ALL;
  if (occlusion.kind === "except") {
    if (occlusion.path[0] !== slot.key) return ALL;
    return occlusion.path.length === 1 ? OWN : { kind: "except", path: occlusion.path.slice(1) };
  }
  return slot.obscured ? ALL : OWN;
}

const reliableModal = (snapshot) => !!snapshot.modal && snapshot.modal.kind !== "heuristic";

/** Keys from the main frame down to the first child frame with a reliable modal. */
function childModalPath(node) {
  for (const [key, child] of node.children) {
    if (reliableModal(child.snapshot)) return [key];
    const rest = childModalPath(child);
    if (rest) return [key, ...rest];
  }
  return null;
}

/** The visible part of a child frame's viewport, in the child's coordinates. */
function childClip(content, parentClip) {
  const x = Math.max(content.x, parentClip.x);
  const y = Math.max(content.y, parentClip.y);
  const right = Math.min(content.x + content.width, parentClip.x + parentClip.width);
  const bottom = Math.min(content.y + content.height, parentClip.y + parentClip.height);
  if (right <= x || bottom <= y) return { x: 0, y: 0, width: 0, height: 0 };
  return { x: x - content.x, y: y - content.y, width: right - x, height: bottom - y };
}

function skippedNote(url, error) {
  const short = url.length > 120 ? `${url.slice(0, 120)}…` : url;
  // (The model reads this: the developer's advice stays in the error.)
  const message =
    // (By name: the extension ships this file without frame-engine.js.)
    error && error.name === "SightlineCspError"
      ? "its Content-Security-Policy refuses WebAssembly, and attach() was given jsBuild: false"
      : String((error && error.message) || error).split("\n")[0];
  return `The frame ${short} was left out: ${message}.`;
}

async function frameSnapshot(host, frame, request) {
  const raw = await host.engineCall(frame, "snapshot", JSON.stringify(request));
  return { raw, snapshot: JSON.parse(raw) };
}

/**
 * How long a child frame may take to answer. A frame of another site runs
 * in a process of its own, whose main thread may be busy (an ad's script in
 * a long loop) while the page answers: it is left out, with a note, rather
 * than holding the whole snapshot.
 */
export const FRAME_ANSWER_MS = 5000;

/** `work`, or an error once `ms` have passed without its answer. */
function within(ms, work) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`its page did not answer within ${ms / 1000} s (busy?)`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

async function snapshotChildren(host, tree, parent, parentClip, options, occlusion, numbers) {
  const children = [];
  const notes = [];
  if (tree.children.length === 0 || parent.frame_slots.length === 0) return { children, notes };
  // All at once, as the driver does: each child costs several round trips.
  const results = await Promise.allSettled(
    tree.children.map((child) => snapshotChild(host, tree, child, parent, parentClip, options, occlusion, numbers)),
  );
  results.forEach((r, i) => {
    if (r.status === "fulfilled") {
      if (r.value) children.push(r.value);
    } else {
      notes.push(skippedNote(host.frameUrl(tree.children[i].frame), r.reason));
    }
  });
  return { children, notes };
}

async function snapshotChild(host, parentTree, child, parent, parentClip, options, occlusion, numbers) {
  const key = await host.frameKey(parentTree.frame, child.frame);
  if (key == null) return null;
  const slot = parent.frame_slots.find((s) => s.key === key);
  // A hidden or unrendered iframe: the parent shows no line for it.
  if (!slot) return null;
  // An offscreen iframe (viewport mode) renders nothing; a clip far beyond
  // its content makes the engine count its interactive elements.
  const clip =
    slot.offscreen === "above"
      ? { x: 0, y: 1e9, width: 0, height: 0 }
      : slot.offscreen
        ? { x: 0, y: -1e9, width: 0, height: 0 }
        : childClip(slot.content_rect, parentClip);
  const prefix = numbers.prefix(child.id);
  const request = { mode: options.mode, ref_prefix: prefix, visible_clip: clip, obscured_mode: options.obscuredMode };
  const own = childOcclusion(occlusion, slot);
  applyOcclusion(own, request);
  // (The frame's own answer: a busy frame below it is left out on its own.)
  const node = await within(FRAME_ANSWER_MS, frameSnapshot(host, child.frame, request));
  const sub = await snapshotChildren(host, child, node.snapshot, clip, options, own, numbers);
  addNotes(node, sub.notes);
  return [key, { ...node, prefix, children: sub.children }];
}

/** Notes for frames left out go into the frame's own snapshot, as in the driver. */
function addNotes(node, notes) {
  if (notes.length === 0) return;
  node.snapshot.notes.push(...notes);
  node.raw = JSON.stringify(node.snapshot);
}

async function snapshotTree(host, tree, options, occlusion, numbers) {
  const request = { mode: options.mode, ref_prefix: "", obscured_mode: options.obscuredMode };
  applyOcclusion(occlusion, request);
  const node = await frameSnapshot(host, tree.frame, request);
  const v = node.snapshot.viewport;
  const clip = { x: 0, y: 0, width: v.viewport_width, height: v.viewport_height };
  const sub = await snapshotChildren(host, tree, node.snapshot, clip, options, occlusion, numbers);
  addNotes(node, sub.notes);
  return { ...node, prefix: "", children: sub.children };
}

/** The stitch request: frames flat, each after its parent. */
function stitchRequest(root, mode) {
  const frames = [];
  const visit = (node, parent, key) => {
    const index = frames.length;
    frames.push(
      `{"parent":${parent === null ? "null" : parent},"key":${JSON.stringify(key)},` +
        `"prefix":${JSON.stringify(node.prefix)},"snapshot":${node.raw}}`,
    );
    for (const [childKey, child] of node.children) visit(child, index, childKey);
  };
  visit(root, null, "");
  return `{"mode":${JSON.stringify(mode)},"frames":[${frames.join(",")}]}`;
}

/**
 * Snapshots the page and every frame in it.
 * @param {object} host see the top of this file
 * @param {FrameNumbers} numbers the page's frame numbers
 * @param {{mode?: "full"|"viewport", obscured?: "outline"|"mark"|"drop"}} [options]
 * @returns {Promise<object>} the SnapshotResult: {url, title, tree, viewport, modal, refs, stats}
 */
export async function snapshotPage(host, numbers, options = {}) {
  const started = Date.now();
  const opts = { mode: options.mode || "full", obscuredMode: options.obscured || "outline" };
  if (opts.mode !== "full" && opts.mode !== "viewport") throw new Error(`unknown snapshot mode "${opts.mode}"`);
  if (!["outline", "mark", "drop"].includes(opts.obscuredMode)) {
    throw new Error(`unknown obscured mode "${opts.obscuredMode}" (outline, mark or drop)`);
  }
  const tree = await frameTree(host, host.mainFrame());
  numberFrames(tree, numbers);
  let root = await snapshotTree(host, tree, opts, OWN, numbers);
  if (!reliableModal(root.snapshot)) {
    const path = childModalPath(root);
    if (path) root = await snapshotTree(host, tree, opts, { kind: "except", path }, numbers);
  }
  const result = JSON.parse(await host.stitch(stitchRequest(root, opts.mode)));
  result.stats.total_ms = Date.now() - started;
  return result;
}
