// Sightline main-world hook. Injected before any page script, in the page's
// own world, in every frame. It has one purpose: let the engine and the
// driver (which live in an isolated world and in CDP) see what the page
// hides from them.
//
// 1. Closed shadow roots. Worlds share DOM nodes but not JS objects, so a
//    closed root can't be handed over (a CustomEvent detail holding it
//    arrives as null in another world). We attach it in `open` mode, so the
//    isolated world's native `shadowRoot` getter returns it, and give the page
//    a closed-looking view: `host.shadowRoot` is null and `root.mode` is
//    "closed" for page scripts. Expando properties are per world, so the
//    engine still sees the real values.
// 2. Click listeners registered with addEventListener, or set as handler
//    properties (`el.onclick = fn`; a handler property belongs to the world
//    that set it, so the engine reads it as null): remembered here and
//    announced to the engine on request with a DOM event whose target is the
//    element (targets cross worlds; event details do not).
//
// 3. Work the page has scheduled soon (for readiness; the rules are in
//    driver/src/page/readiness.rs): one-shot timers due within a second
//    (and idle callbacks),
//    at most two links down a chain of timers set from timer callbacks (a
//    longer chain, or a handler set again soon after it ran, is a ticker or
//    a polling loop, not content on its way), animation frames
//    asked for outside frame callbacks and not drawn yet, and whether an IAB
//    TCF consent manager is still loading (its `__tcfapi` stub answers `ping`
//    with cmpLoaded false until its dialog can show), animations the step's
//    input started that end within a second, and a meta refresh due within
//    one. Reported on request as
//    a string (primitives cross worlds; objects do not).
//
// Everything is captured at install time and called through the captured
// Reflect.apply, never through prototype methods (Array.prototype.push,
// Function.prototype.call…), so a page that sabotages them later does not
// break this code or its own addEventListener calls.
(() => {
  const w = window;
  if (w.__sightlineHook) return;
  const apply = Reflect.apply;
  const defineProperty = Object.defineProperty;
  const getDescriptor = Object.getOwnPropertyDescriptor;
  defineProperty(w, "__sightlineHook", { value: true, enumerable: false });
  const ElementCtor = w.Element;
  const ElementProto = ElementCtor.prototype;
  const origAttach = ElementProto.attachShadow;
  const origAdd = w.EventTarget.prototype.addEventListener;
  const dispatch = w.EventTarget.prototype.dispatchEvent;
  const EventCtor = w.Event;
  const WeakRefCtor = w.WeakRef;
  const deref = w.WeakRef.prototype.deref;
  const isConnected = getDescriptor(w.Node.prototype, "isConnected").get;
  const doc = w.document;
  // A replacement reads as the built-in it stands for when asked the usual
  // ways (`String(fn)`, `fn.toString()`, `Function.prototype.toString.call(fn)`,
  // which bot checks use), with no own `toString` to give it away:
  // Function.prototype.toString answers for the replacements, itself
  // included, and passes everything else to the original. Replacements are
  // methods, as built-ins are: no `prototype`, and `new` refuses them.
  // (A fresh frame's own toString still tells; so do stack traces.)
  const FunctionProto = w.Function.prototype;
  const originalToString = FunctionProto.toString;
  const disguises = new w.WeakMap();
  const disguiseOf = w.WeakMap.prototype.get;
  const disguise = w.WeakMap.prototype.set;
  const native = (fn) => {
    apply(disguise, disguises, [fn, "function " + fn.name + "() { [native code] }"]);
    return fn;
  };
  const { toString } = { toString() {
    const said = typeof this === "function" ? apply(disguiseOf, disguises, [this]) : undefined;
    return said === undefined ? apply(originalToString, this, arguments) : said;
  } };
  defineProperty(FunctionProto, "toString", { value: native(toString), writable: true, configurable: true });

  if (origAttach) {
    const { attachShadow } = { attachShadow(init) {
      if (init && init.mode === "closed") {
        const open = {};
        for (const k in init) open[k] = init[k];
        open.mode = "open";
        const root = apply(origAttach, this, [open]);
        defineProperty(this, "shadowRoot", { get: () => null, configurable: true });
        defineProperty(root, "mode", { get: () => "closed", configurable: true });
        return root;
      }
      return apply(origAttach, this, [init]);
    } };
    defineProperty(ElementProto, "attachShadow", { value: native(attachShadow), writable: true, configurable: true });
  }

  // (A drop listener makes a drop zone: `drag` needs a ref to drop onto.)
  const CLICK_TYPES = { click: 1, mousedown: 1, mouseup: 1, pointerdown: 1, pointerup: 1, dblclick: 1, drop: 1 };
  // A plain index-addressed list: no Array.prototype methods involved.
  let pending = [];
  let count = 0;
  const MAX_PENDING = 100000;
  const remember = (el) => {
    if (el instanceof ElementCtor && count < MAX_PENDING) {
      pending[count] = new WeakRefCtor(el);
      count += 1;
    }
  };
  // Elements and animations whose end the page waits for (to render what
  // comes next: a dialog's body, a removed row), for readiness: a
  // `transitionend` or `animationend` listener on an element, a `finish`
  // listener on an animation (its `finished` promise and `onfinish` too,
  // below). Only animations someone awaits can hold a step.
  const END_TYPES = { transitionend: 1, animationend: 1, webkitTransitionEnd: 1, webkitAnimationEnd: 1 };
  const WeakSetCtor = w.WeakSet;
  const setAdd = WeakSetCtor.prototype.add;
  const setHas = WeakSetCtor.prototype.has;
  const awaitsEnd = new WeakSetCtor();
  const AnimationCtor = w.Animation;
  const awaited = (target) => {
    apply(setAdd, awaitsEnd, [target]);
  };
  const { addEventListener } = { addEventListener(type, listener, options) {
    if (CLICK_TYPES[type] === 1) remember(this);
    if ((END_TYPES[type] === 1 && this instanceof ElementCtor) || (type === "finish" && AnimationCtor && this instanceof AnimationCtor)) {
      awaited(this);
    }
    return apply(origAdd, this, [type, listener, options]);
  } };
  defineProperty(w.EventTarget.prototype, "addEventListener", { value: native(addEventListener), writable: true, configurable: true });

  // The same for handler properties: each setter is wrapped, the getter kept.
  const wrapSetter = (proto, key, note) => {
    const d = proto && getDescriptor(proto, key);
    if (!d || !d.set) return;
    const set = d.set;
    defineProperty(proto, key, {
      get: d.get,
      set: function (handler) {
        if (typeof handler === "function") note(this);
        return apply(set, this, [handler]);
      },
      enumerable: d.enumerable,
      configurable: true,
    });
  };
  for (const Ctor of [w.HTMLElement, w.SVGElement]) {
    if (!Ctor) continue;
    for (const type in CLICK_TYPES) wrapSetter(Ctor.prototype, "on" + type, remember);
    wrapSetter(Ctor.prototype, "ontransitionend", awaited);
    wrapSetter(Ctor.prototype, "onanimationend", awaited);
  }
  if (AnimationCtor) {
    wrapSetter(AnimationCtor.prototype, "onfinish", awaited);
    // Reading `finished` is waiting for it (`await el.animate(…).finished`).
    const finished = getDescriptor(AnimationCtor.prototype, "finished");
    if (finished && finished.get) {
      const get = finished.get;
      defineProperty(AnimationCtor.prototype, "finished", {
        get: function () {
          awaited(this);
          return apply(get, this, []);
        },
        enumerable: finished.enumerable,
        configurable: true,
      });
    }
  }

  // Timers. Ids of pending qualifying timers → when they are due, in a plain
  // object (no Map methods a page could replace).
  const origSetTimeout = w.setTimeout;
  const origClearTimeout = w.clearTimeout;
  const origSetInterval = w.setInterval;
  const now = w.performance.now.bind(w.performance);
  const SOON_MS = 1000;
  const due = {};
  const born = {};
  // The latest qualifying timer that ran: when it was set and when it ran
  // (its work, a request say, may take a moment to show).
  let ranBorn = -1;
  let ranAt = -1;
  // How deep the page is in its timer and frame callbacks.
  const depth = { timer: 0, frame: 0 };
  // A timer set from a timer's callback is one link further down a chain
  // (show, then settle: 400 ms then 400 ms); links past MAX_CHAIN are a
  // ticker made of timers, not a reply on its way.
  const MAX_CHAIN = 2;
  let chain = 0;
  // A handler that ran as a timer lately and is set again, outside the
  // page's handling of user input, is a polling loop (fetch → then →
  // setTimeout(poll)): it does not count. A debounced search set again by
  // the next keystroke still counts.
  const WeakMapCtor = w.WeakMap;
  const indexOf = w.String.prototype.indexOf;
  const slice = w.String.prototype.slice;
  // After the microtasks a callback queued (a framework's render flush):
  // the end of its run as the page's mutation observers see it.
  const afterMicrotasks = typeof w.queueMicrotask === "function" ? w.queueMicrotask : null;
  const mapGet = WeakMapCtor.prototype.get;
  const mapSet = WeakMapCtor.prototype.set;
  const lastRun = new WeakMapCtor();
  const eventDescriptor = getDescriptor(w, "event");
  const currentEvent = eventDescriptor && eventDescriptor.get;
  const handlingInput = () => {
    const e = currentEvent ? apply(currentEvent, w, []) : undefined;
    return !!e && e.isTrusted === true;
  };
  const LOOP_MS = 2000;
  // The timer callback running now (null outside one), when it began, and
  // the keys of the callbacks it set again from its own run.
  let running = null;
  let runBegan = -1;
  let runRearmed = null;
  // Runs a callback `depth` deep in its kind, at `link` of a timer chain.
  const run = (kind, handler, self, args, link) => {
    const outer = chain;
    const outerRunning = running;
    const outerBegan = runBegan;
    const outerRearmed = runRearmed;
    depth[kind] += 1;
    chain = link;
    if (kind === "timer") {
      running = handler;
      runBegan = now();
      // (Made when the run sets itself again: most runs never do.)
      runRearmed = null;
    }
    try {
      return apply(handler, self, args);
    } finally {
      if (kind === "timer" && runRearmed !== null) {
        // The run each callback it set again came from: what that run
        // added to the page tells a list being filled from a ticker. Its
        // end is taken after the microtasks it queued (Vue, Svelte and Lit
        // render in one), which run before the engine hears of the rows.
        const span = [runBegan, now()];
        for (let i = 0; i < runRearmed.length; i++) {
          if (runRearmed[i] in rearmed) rearmedRun[runRearmed[i]] = span;
        }
        if (afterMicrotasks) apply(afterMicrotasks, w, [() => { span[1] = now(); }]);
      }
      depth[kind] -= 1;
      chain = outer;
      running = outerRunning;
      runBegan = outerBegan;
      runRearmed = outerRearmed;
    }
  };
  // A one-shot callback that sets itself again from its own run, due
  // within REARM_MS: the next chunk of work cut in pieces (a list rendered
  // a few rows at a time) or a ticker; it counts as no timer (a loop), but
  // is told apart, so that the driver can wait for it while its runs are
  // filling a list in. Keys → when due.
  const REARM_MS = 300;
  const rearmed = {};
  const rearmedBorn = {};
  // Keys → [began, ended] of the run that set them.
  const rearmedRun = {};
  // A growth the engine saw this soon after a run ended came from it (its
  // mutation observer is told among the microtasks that end the run's task).
  const RUN_TIE_MS = 4;
  const forgetRearmed = (key) => {
    delete rearmed[key];
    delete rearmedBorn[key];
    delete rearmedRun[key];
  };
  // Schedules a one-shot callback (a timer's, an idle callback's) through
  // `original`, with the wrapped callback in args[0]. It counts while
  // pending when it is due within SOON_MS, at most MAX_CHAIN links down a
  // chain, and not a loop. Keys are prefixed: timers and idle callbacks
  // number their ids apart.
  const schedule = (original, args, handler, ms, prefix) => {
    const ran = apply(mapGet, lastRun, [handler]);
    const looping = ran !== undefined && now() - ran < LOOP_MS && !handlingInput();
    const link = depth.timer > 0 ? chain + 1 : 0;
    const soon = link <= MAX_CHAIN && ms <= SOON_MS && !looping;
    const again = !soon && running === handler && ms <= REARM_MS;
    let key = "";
    args[0] = function () {
      if (soon) {
        delete due[key];
        ranBorn = born[key];
        ranAt = now();
        delete born[key];
      }
      if (again) forgetRearmed(key);
      apply(mapSet, lastRun, [handler, now()]);
      return run("timer", handler, this, arguments, link);
    };
    const id = apply(original, w, args);
    key = prefix + id;
    if (soon) {
      born[key] = now();
      due[key] = born[key] + ms;
    }
    if (again) {
      rearmedBorn[key] = now();
      rearmed[key] = rearmedBorn[key] + ms;
      // (`again` means this is the running callback's own run.)
      if (runRearmed === null) runRearmed = [];
      runRearmed[runRearmed.length] = key;
    }
    return id;
  };
  // (`arguments` of these sloppy-mode functions is mapped to their
  // parameters: the callback is copied before its slot is replaced.)
  const { setTimeout } = { setTimeout(callback, delay) {
    const args = arguments;
    const handler = callback;
    if (typeof handler !== "function") return apply(origSetTimeout, w, args);
    return schedule(origSetTimeout, args, handler, +delay > 0 ? +delay : 0, "t");
  } };
  const { clearTimeout } = { clearTimeout(id) {
    delete due["t" + id];
    delete born["t" + id];
    forgetRearmed("t" + id);
    return apply(origClearTimeout, w, arguments);
  } };
  const { setInterval } = { setInterval(callback) {
    const args = arguments;
    const handler = callback;
    if (typeof handler === "function") {
      // What an interval's callback sets is a ticker's doing (a carousel's
      // slide animation): past the end of any chain.
      args[0] = function () {
        return run("timer", handler, this, arguments, MAX_CHAIN);
      };
    }
    return apply(origSetInterval, w, args);
  } };
  defineProperty(w, "setTimeout", { value: native(setTimeout), writable: true, configurable: true, enumerable: true });
  defineProperty(w, "clearTimeout", { value: native(clearTimeout), writable: true, configurable: true, enumerable: true });
  defineProperty(w, "setInterval", { value: native(setInterval), writable: true, configurable: true, enumerable: true });

  // Idle callbacks: work the page put off until the browser is idle (a
  // list rendered "when there is time"), which on a page at rest is the
  // next few milliseconds. Each counts as a timer due in IDLE_MS.
  const origIdle = w.requestIdleCallback;
  const origCancelIdle = w.cancelIdleCallback;
  const IDLE_MS = 50;
  if (typeof origIdle === "function") {
    const { requestIdleCallback } = { requestIdleCallback(callback) {
      const args = arguments;
      const handler = callback;
      if (typeof handler !== "function") return apply(origIdle, w, args);
      return schedule(origIdle, args, handler, IDLE_MS, "i");
    } };
    const { cancelIdleCallback } = { cancelIdleCallback(id) {
      delete due["i" + id];
      delete born["i" + id];
      forgetRearmed("i" + id);
      return apply(origCancelIdle, w, arguments);
    } };
    defineProperty(w, "requestIdleCallback", { value: native(requestIdleCallback), writable: true, configurable: true, enumerable: true });
    defineProperty(w, "cancelIdleCallback", { value: native(cancelIdleCallback), writable: true, configurable: true, enumerable: true });
  }

  // Animation frames asked for outside a frame callback: a reaction that
  // renders in the next frame (a frame callback that asks again is an
  // animation loop, not content on its way). Ids → when asked.
  const origFrame = w.requestAnimationFrame;
  const origCancelFrame = w.cancelAnimationFrame;
  const FRAME_MS = 100;
  let frames = {};
  // A hidden document draws no frames: what it asks for is not tracked (it
  // would never be drawn, nor leave the list, until the next probe).
  const visibility = getDescriptor(w.Document.prototype, "visibilityState").get;
  if (typeof origFrame === "function") {
    const { requestAnimationFrame } = { requestAnimationFrame(callback) {
      const args = arguments;
      const handler = callback;
      if (typeof handler !== "function") return apply(origFrame, w, args);
      // Every callback runs wrapped, so that each frame of a loop knows it
      // is in a frame callback; only frames asked for outside one count.
      const tracked = depth.frame === 0 && apply(visibility, doc, []) !== "hidden";
      let id = 0;
      args[0] = function () {
        if (tracked) delete frames[id];
        return run("frame", handler, this, arguments, chain);
      };
      id = apply(origFrame, w, args);
      if (tracked) frames[id] = now();
      return id;
    } };
    const { cancelAnimationFrame } = { cancelAnimationFrame(id) {
      delete frames[id];
      return apply(origCancelFrame, w, arguments);
    } };
    defineProperty(w, "requestAnimationFrame", { value: native(requestAnimationFrame), writable: true, configurable: true, enumerable: true });
    defineProperty(w, "cancelAnimationFrame", { value: native(cancelAnimationFrame), writable: true, configurable: true, enumerable: true });
  }

  const CustomEventCtor = w.CustomEvent;
  const consentState = () => {
    const tcf = w.__tcfapi;
    if (typeof tcf !== "function") return "";
    let state = "unknown";
    try {
      tcf("ping", 2, (p) => {
        state = !p || !p.cmpLoaded ? "loading" : p.displayStatus === "visible" ? "visible" : "loaded";
      });
    } catch (_) {
      state = "unknown";
    }
    return state;
  };
  // When the user's input acted (a press, a key, text input, the wheel),
  // the last few times: a step that acted counts from its first such input,
  // on the page's own clock. The driver's age of the step reaches the page
  // a moment late (it asks a little further back), and would take in what
  // the mouse's way to a button set off (a tooltip's timer).
  const ACTING = ["pointerdown", "mousedown", "keydown", "beforeinput", "wheel", "dragstart", "touchstart"];
  const acted = [];
  let actedAt = 0;
  for (let i = 0; i < ACTING.length; i++) {
    apply(origAdd, w, [ACTING[i], (e) => {
      if (e.isTrusted !== true) return;
      acted[actedAt % 16] = now();
      actedAt += 1;
    }, true]);
  }
  const firstActedSince = (since) => {
    let first = -1;
    for (let i = 0; i < 16 && i < actedAt; i++) {
      const a = acted[i];
      if (a >= since && (first < 0 || a < first)) first = a;
    }
    return first;
  };
  // Animations the step's input started (CSS transitions and animations,
  // the Web Animations API) whose end the page awaits, ending within
  // SOON_MS, in or near the viewport: a dialog whose body renders when its
  // entrance ends (Bootstrap's `shown` event, Vue's after-enter), a row
  // removed when its exit ends. A CSS one counts when its element or that
  // element's parent listens for its end (a listener higher up, a
  // framework's at the root, hears every animation of the page). Not one
  // inside the element pressed (a ripple), nor a change of colour or
  // shadow, which reveals nothing. Each is due a little after its end: its
  // end events and `finished` promise come with the frame after.
  const END_EVENTS_MS = 40;
  const getAnimations = w.Document.prototype.getAnimations;
  const AnimationProto = AnimationCtor && AnimationCtor.prototype;
  const getter = (proto, name) => {
    const d = proto && getDescriptor(proto, name);
    return d && d.get;
  };
  const playStateOf = getter(AnimationProto, "playState");
  const startTimeOf = getter(AnimationProto, "startTime");
  const effectOf = getter(AnimationProto, "effect");
  const rateOf = getter(AnimationProto, "playbackRate");
  const targetOf = getter(w.KeyframeEffect && w.KeyframeEffect.prototype, "target");
  const computedTiming = w.AnimationEffect && w.AnimationEffect.prototype.getComputedTiming;
  const TransitionCtor = w.CSSTransition;
  const CssAnimationCtor = w.CSSAnimation;
  const transitionPropertyOf = getter(TransitionCtor && TransitionCtor.prototype, "transitionProperty");
  const REVEALS_NOTHING = /color|shadow|outline|filter|decoration|fill|stroke|caret/;
  const regexpExec = w.RegExp.prototype.exec;
  const matches = (re, text) => apply(regexpExec, re, [String(text)]);
  const rectOf = ElementProto.getBoundingClientRect;
  const innerWidthOf = getter(w, "innerWidth");
  const innerHeightOf = getter(w, "innerHeight");
  const composedPath = w.Event.prototype.composedPath;
  const parentOf = getter(w.Node.prototype, "parentNode");
  // The element the step's press went to, and when.
  let pressed = null;
  let pressedAt = -1;
  apply(origAdd, w, ["pointerdown", (e) => {
    if (e.isTrusted !== true) return;
    pressed = apply(composedPath, e, [])[0];
    pressedAt = now();
  }, true]);
  // Whether `node` is `other` or inside it (across shadow roots).
  const inside = (node, other) => {
    for (let n = node, hops = 0; n && hops < 256; n = n.parentNode || n.host, hops++) {
      if (n === other) return true;
    }
    return false;
  };
  const isAwaited = (a, target) => {
    if (apply(setHas, awaitsEnd, [a])) return true;
    const css = (TransitionCtor && a instanceof TransitionCtor) || (CssAnimationCtor && a instanceof CssAnimationCtor);
    if (!css) return false;
    const parent = apply(parentOf, target, []);
    return apply(setHas, awaitsEnd, [target]) || (!!parent && apply(setHas, awaitsEnd, [parent]));
  };
  let animationsEnd = -1;
  // Ms until the last of them is over (with its end events), -1 for none.
  const animationsDue = (since, t) => {
    if (typeof getAnimations !== "function" || !playStateOf || !targetOf || !computedTiming) return -1;
    let list;
    try {
      list = apply(getAnimations, doc, []);
    } catch (_) {
      return -1;
    }
    const width = innerWidthOf ? apply(innerWidthOf, w, []) : w.innerWidth;
    const height = innerHeightOf ? apply(innerHeightOf, w, []) : w.innerHeight;
    const ripple = pressedAt >= since ? pressed : null;
    let liveEnd = -1;
    for (let i = 0; i < list.length && i < 256; i++) {
      const a = list[i];
      if (apply(playStateOf, a, []) !== "running") continue;
      // (No start time yet: it starts with the next frame.)
      const start = apply(startTimeOf, a, []);
      if (start !== null && start < since) continue;
      const rate = apply(rateOf, a, []);
      const effect = apply(effectOf, a, []);
      if (!(rate > 0) || !effect) continue;
      const timing = apply(computedTiming, effect, []);
      const left = (timing.endTime - (timing.localTime || 0)) / rate;
      if (!(left >= 0 && left <= SOON_MS)) continue;
      if (TransitionCtor && a instanceof TransitionCtor && matches(REVEALS_NOTHING, apply(transitionPropertyOf, a, [])) !== null) continue;
      const target = apply(targetOf, effect, []);
      if (!target || !apply(isConnected, target, []) || !isAwaited(a, target)) continue;
      if (ripple && inside(target, ripple)) continue;
      const b = apply(rectOf, target, []);
      const near = (b.width > 0 || b.height > 0) && b.bottom >= -height / 2 && b.top <= height * 1.5
        && b.right >= -width / 2 && b.left <= width * 1.5;
      if (near && t + left > liveEnd) liveEnd = t + left;
    }
    // The latest end among the animations running now. One that is over
    // keeps its end for END_EVENTS_MS (its events come with the next
    // frame); one cancelled or removed before its end is forgotten.
    if (liveEnd >= 0) animationsEnd = liveEnd;
    else if (t < animationsEnd) animationsEnd = -1;
    return animationsEnd < 0 || t > animationsEnd + END_EVENTS_MS ? -1 : animationsEnd + END_EVENTS_MS - t;
  };
  // A `<meta http-equiv="refresh">` that moves on within SOON_MS: an
  // interstitial ("Redirecting…") on its way to the page. Its clock
  // starts at the load event. Ms until it is due, -1 for none.
  const querySelector = w.Document.prototype.querySelector;
  const getAttribute = ElementProto.getAttribute;
  const performanceOf = w.performance;
  const entriesByType = w.Performance.prototype.getEntriesByType;
  // A refresh to the page itself (no URL, or its own) is a page reloading
  // itself, not one on its way elsewhere: never waited for.
  const URLCtor = w.URL;
  const urlOf = getter(w.Document.prototype, "URL");
  const withoutHash = (url) => url.split("#")[0];
  const refreshDue = (t) => {
    const meta = apply(querySelector, doc, ['meta[http-equiv="refresh" i]']);
    if (!meta) return -1;
    const content = apply(getAttribute, meta, ["content"]) || "";
    const seconds = matches(/^\s*(\d+)/, content);
    if (!seconds || +seconds[1] * 1000 > SOON_MS) return -1;
    const to = matches(/url\s*=\s*['"]?([^'"]*)/i, content);
    if (!to || to[1].trim() === "") return -1;
    try {
      const here = apply(urlOf, doc, []);
      if (withoutHash(new URLCtor(to[1].trim(), here).href) === withoutHash(here)) return -1;
    } catch (_) {
      return -1;
    }
    const navigation = apply(entriesByType, performanceOf, ["navigation"])[0];
    const loaded = navigation && navigation.loadEventEnd > 0 ? navigation.loadEventEnd : t;
    const left = loaded + +seconds[1] * 1000 - t;
    // (Well past due and still here: it was cancelled, or the frame is
    // sandboxed; a navigation it started holds the step by itself.)
    return left < -250 ? -1 : Math.max(0, left);
  };
  // `count,msToNextDue,consent,framesDue,msSinceOneRan,msToAnimationsEnd,
  // msToRefresh,msToNextRearmed` of the timers and frames asked for in the
  // last `stepMs` ms (since the step began), the engine's detail being
  // `stepMs,growthAt` (when it last saw a container grow, -1: never): the
  // engine dispatches `__sightline_timers` and reads the answer event's
  // detail.
  // Of the callbacks in `dueAt` (key → when due; `bornAt`: when set),
  // those set since `since`: how many, and ms to the nearest (-1: none).
  // One overdue by SOON_MS (a background tab's, which the browser holds
  // back) is dropped: it must not count for ever.
  // `counts`: which keys count (all when absent).
  const pendingSince = (dueAt, bornAt, since, t, counts) => {
    let n = 0;
    let next = -1;
    for (const key in dueAt) {
      const left = dueAt[key] - t;
      if (left < -SOON_MS) {
        delete dueAt[key];
        delete bornAt[key];
        continue;
      }
      if (bornAt[key] < since || (counts && !counts(key))) continue;
      n += 1;
      if (next < 0 || left < next) next = left < 0 ? 0 : left;
    }
    return [n, next];
  };
  apply(origAdd, doc, ["__sightline_timers", (e) => {
    const t = now();
    // (`stepMs,growthAt`, read without the page's prototypes.)
    const asking = "" + e.detail;
    const comma = apply(indexOf, asking, [","]);
    const stepMs = comma < 0 ? asking : apply(slice, asking, [0, comma]);
    const growthAt = comma < 0 ? -1 : +apply(slice, asking, [comma + 1]);
    const asked = t - (+stepMs >= 0 ? +stepMs : 0);
    const first = firstActedSince(asked);
    const since = first >= 0 ? first - 1 : asked;
    const soonest = pendingSince(due, born, since, t);
    const count = soonest[0];
    const next = soonest[1];
    // Frames asked for since the step began and not drawn yet (a hidden
    // page draws none: they stop counting after FRAME_MS).
    let framesDue = 0;
    for (const id in frames) {
      if (t - frames[id] > FRAME_MS) {
        delete frames[id];
        continue;
      }
      if (frames[id] >= since) framesDue += 1;
    }
    // The nearest self-set callback of the step whose run grew the
    // container the engine saw grow last (the next chunk of a list being
    // filled; a ticker's beside a step that added one row is not).
    const grewFrom = (key) => {
      const r = rearmedRun[key];
      return !!r && growthAt >= r[0] && growthAt <= r[1] + RUN_TIE_MS;
    };
    const rearmedNext = pendingSince(rearmed, rearmedBorn, since, t, grewFrom)[1];
    const ranAgo = ranBorn >= since ? Math.round(t - ranAt) : -1;
    // (Only the step's input sets animations off that count.)
    const animating = first >= 0 ? Math.round(animationsDue(since, t)) : -1;
    const detail = count + "," + Math.round(next) + "," + consentState() + "," + framesDue + "," + ranAgo
      + "," + animating + "," + Math.round(refreshDue(t)) + "," + Math.round(rearmedNext);
    apply(dispatch, doc, [new CustomEventCtor("__sightline_timers_state", { detail })]);
  }, true]);

  // The engine dispatches `__sightline_collect` on the document; we answer
  // with one `__sightline_clickable` event per newly registered element.
  apply(origAdd, doc, ["__sightline_collect", () => {
    const batch = pending;
    const n = count;
    pending = [];
    count = 0;
    for (let i = 0; i < n; i++) {
      const el = apply(deref, batch[i], []);
      if (!el) continue;
      if (!apply(isConnected, el, [])) {
        // Not in the document yet: announce it next time.
        if (count < MAX_PENDING) {
          pending[count] = batch[i];
          count += 1;
        }
        continue;
      }
      apply(dispatch, el, [new EventCtor("__sightline_clickable", { bubbles: false, composed: false })]);
    }
  }, true]);
})();
// (Frames of this script in a page's stack traces are named as ours.)
//# sourceURL=sightline-hook.js
