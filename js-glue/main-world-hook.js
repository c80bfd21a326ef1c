// Sightline main-world hook. Injected before any page script, in the page's
// own world, in every frame. It is deliberately tiny and has one job: let the
// engine (which lives in an isolated world) see what the page hides from it.
//
// 1. Closed shadow roots. Worlds share DOM nodes but not JS objects, so a
//    closed root can't be handed over. We attach it in `open` mode (so the
//    isolated world's native `shadowRoot` getter returns it) and give the page
//    a closed-looking view: `host.shadowRoot` is null and `root.mode` is
//    "closed" for page scripts. Expando properties are per world, so the
//    engine still sees the real values.
// 2. Click listeners registered with addEventListener: remembered here and
//    announced to the engine on request with a DOM event whose target is the
//    element (targets cross worlds; event details do not).
//
// Everything is captured at install time, so later tampering by the page
// (overriding prototypes, JSON, Array methods) does not reach this code.
(() => {
  const w = window;
  if (w.__sightlineHook) return;
  const defineProperty = Object.defineProperty;
  defineProperty(w, "__sightlineHook", { value: true, enumerable: false });
  const ElementProto = w.Element.prototype;
  const origAttach = ElementProto.attachShadow;
  const origAdd = w.EventTarget.prototype.addEventListener;
  const dispatch = w.EventTarget.prototype.dispatchEvent;
  const EventCtor = w.Event;
  const isElement = (x) => x instanceof w.Element;
  const WeakRefCtor = w.WeakRef;
  const doc = w.document;

  if (origAttach) {
    const attachShadow = function attachShadow(init) {
      if (init && init.mode === "closed") {
        const open = {};
        for (const k in init) open[k] = init[k];
        open.mode = "open";
        const root = origAttach.call(this, open);
        defineProperty(this, "shadowRoot", { get: () => null, configurable: true });
        defineProperty(root, "mode", { get: () => "closed", configurable: true });
        return root;
      }
      return origAttach.call(this, init);
    };
    defineProperty(ElementProto, "attachShadow", { value: attachShadow, writable: true, configurable: true });
  }

  const CLICK_TYPES = { click: 1, mousedown: 1, mouseup: 1, pointerdown: 1, pointerup: 1, dblclick: 1 };
  const pending = [];
  const MAX_PENDING = 100000;
  const addEventListener = function addEventListener(type, listener, options) {
    if (CLICK_TYPES[type] === 1 && isElement(this) && pending.length < MAX_PENDING) {
      pending.push(new WeakRefCtor(this));
    }
    return origAdd.call(this, type, listener, options);
  };
  defineProperty(w.EventTarget.prototype, "addEventListener", { value: addEventListener, writable: true, configurable: true });

  // The engine dispatches `__sightline_collect` on the document; we answer
  // with one `__sightline_clickable` event per newly registered element.
  origAdd.call(doc, "__sightline_collect", () => {
    const batch = pending.splice(0, pending.length);
    for (const ref of batch) {
      const el = ref.deref();
      if (!el) continue;
      if (!el.isConnected) {
        pending.push(ref); // not in the document yet: announce it next time
        continue;
      }
      dispatch.call(el, new EventCtor("__sightline_clickable", { bubbles: false, composed: false }));
    }
  }, true);
})();
