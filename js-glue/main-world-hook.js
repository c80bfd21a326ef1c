// Sightline main-world hook. Injected before any page script, in the page's
// own world, in every frame. It is deliberately tiny and has one job: let the
// engine (which lives in an isolated world) see what the page hides from it.
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

  if (origAttach) {
    const attachShadow = function attachShadow(init) {
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
    };
    defineProperty(ElementProto, "attachShadow", { value: attachShadow, writable: true, configurable: true });
  }

  const CLICK_TYPES = { click: 1, mousedown: 1, mouseup: 1, pointerdown: 1, pointerup: 1, dblclick: 1 };
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
  const addEventListener = function addEventListener(type, listener, options) {
    if (CLICK_TYPES[type] === 1) remember(this);
    return apply(origAdd, this, [type, listener, options]);
  };
  defineProperty(w.EventTarget.prototype, "addEventListener", { value: addEventListener, writable: true, configurable: true });

  // The same for handler properties: each setter is wrapped, the getter kept.
  for (const Ctor of [w.HTMLElement, w.SVGElement]) {
    if (!Ctor) continue;
    for (const type in CLICK_TYPES) {
      const key = "on" + type;
      const d = getDescriptor(Ctor.prototype, key);
      if (!d || !d.set) continue;
      const set = d.set;
      defineProperty(Ctor.prototype, key, {
        get: d.get,
        set: function (handler) {
          if (typeof handler === "function") remember(this);
          return apply(set, this, [handler]);
        },
        enumerable: d.enumerable,
        configurable: true,
      });
    }
  }

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
