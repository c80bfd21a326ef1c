// The engine in a frame of a Playwright or Puppeteer page: it runs in the
// page's own world (the libraries' public API reaches no other), put there
// by an init script before page scripts, or loaded on first use into a
// document that was already there.
//
// Where the page's CSP refuses WebAssembly, the wasm bundle defines nothing
// but `__sightlineRefused`; then the JS build of the same engine is loaded
// instead (unless `jsBuild: false`, when the caller gets CSP_ADVICE).
import { initScript, jsBuildBundle } from "./engine-source.js";

export const CSP_ADVICE =
  "this page's Content-Security-Policy refuses WebAssembly (it has no 'wasm-unsafe-eval'), " +
  "so Sightline's engine can't run in it. Lift the policy before navigating: with Playwright, " +
  "create the context with `bypassCSP: true`; with Puppeteer, call `await page.setBypassCSP(true)`. " +
  "(Or leave `jsBuild` on: attach() then uses the engine's JavaScript build on such pages.)";

/** Thrown when a page's CSP refuses WebAssembly and the JS build is off. */
export class CspError extends Error {
  constructor(reason) {
    super(`${CSP_ADVICE} The browser said: ${reason}`);
    this.name = "SightlineCspError";
    this.reason = reason;
  }
}

/**
 * Thrown when the page replaced JavaScript built-ins that code in its own
 * world relies on: the engine, and the library's own evaluate.
 */
export class HostilePageError extends Error {
  constructor(replaced, cause) {
    const said = String((cause && cause.message) || cause).split("\n")[0];
    super(
      `this page replaced JavaScript built-ins (${replaced}) that code in its own world relies on, ` +
        "and attach() reads pages from that world: it can't read this one. The sightline command line " +
        `and MCP server read pages from an isolated world, out of the page's reach. (It failed with: ${said})`,
    );
    this.name = "SightlineHostilePageError";
    this.replaced = replaced;
    this.cause = cause;
  }
}

// Built-ins whose replacement breaks evaluating in the page's world (the
// library's own evaluate, the engine's glue). Written as an expression with
// no arguments and a string answer: the least an evaluate needs of the page.
// A check that itself throws (a replaced `call`) counts as replaced.
const BUILTINS_PROBE = `(function () {
  var names = ["Array.prototype.push", "Array.prototype.map", "Array.prototype.forEach", "Array.prototype.filter",
    "JSON.stringify", "JSON.parse", "Object.keys", "Function.prototype.call", "Function.prototype.apply",
    "WebAssembly.instantiate"];
  var toText = Function.prototype.toString;
  var replaced = "";
  for (var i = 0; i < names.length; i++) {
    var native = false;
    try {
      var path = names[i].split("."), v = globalThis;
      for (var j = 0; j < path.length && v; j++) v = v[path[j]];
      native = typeof v === "function" && /\\[native code\\]/.test(Reflect.apply(toText, v, []));
    } catch (e) {}
    if (!native) replaced += (replaced ? ", " : "") + names[i];
  }
  return replaced;
})()`;

/** `error`, or a HostilePageError when the page's built-ins explain it. */
async function explained(evaluate, frame, error) {
  if (error instanceof CspError) return error;
  let replaced = "";
  try {
    replaced = await evaluate(frame, BUILTINS_PROBE);
  } catch (_) {
    // (A frame gone or navigating answers nothing: the error stands.)
  }
  return replaced ? new HostilePageError(replaced, error) : error;
}

// Runs in the page: one round trip when the engine is there.
function callEngine([fn, arg]) {
  const engine = globalThis.__sightline;
  if (!engine) return { missing: true, refused: globalThis.__sightlineRefused || null };
  // The document answering, as the driver names one (its time origin).
  const answer = { value: engine[fn](arg), doc: performance.timeOrigin };
  if (fn === "snapshot") {
    // Built-ins the engine reads the page with, in the page's own world:
    // replaced (boxes all zero, every style hidden), they give it a wrong
    // picture without any error. Said, so the tree is not taken as true.
    const reads = [
      [Element.prototype, "Element.prototype", "getBoundingClientRect"],
      [Element.prototype, "Element.prototype", "getClientRects"],
      [Element.prototype, "Element.prototype", "getAttribute"],
      [Element.prototype, "Element.prototype", "matches"],
      [Document.prototype, "Document.prototype", "elementFromPoint"],
      [Document.prototype, "Document.prototype", "elementsFromPoint"],
      [globalThis, "window", "getComputedStyle"],
    ];
    const replaced = [];
    for (const [owner, label, name] of reads) {
      let native = false;
      try {
        native = /\[native code\]/.test(Function.prototype.toString.call(owner[name]));
      } catch (_) {}
      if (!native) replaced.push(`${label}.${name}`);
    }
    if (replaced.length) answer.replaced = replaced.join(", ");
  }
  return answer;
}

/** The tree's note for a page that replaced the built-ins the engine reads it with. */
export function replacedReadsNote(replaced) {
  return (
    `This page replaced built-ins the engine reads it with in its own world (${replaced}): ` +
    "this tree may be wrong (the command line and MCP server read pages from an isolated world)."
  );
}

function loadState() {
  return globalThis.__sightline ? { build: globalThis.__sightline.build } : { refused: globalThis.__sightlineRefused || null };
}

/**
 * Calls `globalThis.__sightline[fn](arg)` in a frame, loading the engine first
 * when the frame's document has none yet.
 * @param {(frame: object, fn: Function|string, arg?: unknown) => Promise<any>} evaluate the library's evaluate
 * @param {{jsBuild: boolean}} options
 */
export async function engineCall(evaluate, frame, fn, arg, options) {
  return (await engineAnswer(evaluate, frame, fn, arg, options)).value;
}

/**
 * engineCall's answer with the document that gave it: `{value, doc}`, `doc`
 * being its `performance.timeOrigin` (refs belong to one document).
 */
export async function engineAnswer(evaluate, frame, fn, arg, options) {
  try {
    return await engineCallOnce(evaluate, frame, fn, arg, options);
  } catch (e) {
    throw await explained(evaluate, frame, e);
  }
}

async function engineCallOnce(evaluate, frame, fn, arg, options) {
  const first = await evaluate(frame, callEngine, [fn, arg]);
  if (!first.missing) return first;
  await loadEngine(evaluate, frame, first.refused, options);
  const second = await evaluate(frame, callEngine, [fn, arg]);
  if (second.missing) throw new Error(`the engine did not load in ${frame.url()}`);
  return second;
}

async function loadEngine(evaluate, frame, refused, options) {
  // A document that loaded before attach(): the hook comes too late for
  // closed shadow roots and listeners already there, but not for later ones.
  if (!refused) {
    await evaluate(frame, initScript());
    const state = await evaluate(frame, loadState);
    if (!state.refused) return;
    refused = state.refused;
  }
  if (!options.jsBuild) throw new CspError(refused);
  await evaluate(frame, jsBuildBundle());
  const state = await evaluate(frame, loadState);
  if (state.refused || !state.build) throw new CspError(refused);
}
