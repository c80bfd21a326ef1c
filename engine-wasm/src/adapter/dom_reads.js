// The walk's per-node reads, batched on the JS side of the boundary.
//
// An expression: the bundle binds it to `__sl_reads` (js-glue/build-bundle.mjs),
// the DOM-layer tests to `globalThis.__sl_reads`. It reads and encodes (and
// keeps the ref registry); what to read, and what it means, is decided in
// Rust (adapter/reads.rs).
// Each call from WebAssembly into JS is a transition, and each string or
// object handed back a conversion or a table slot: an element's box, style
// keywords and attributes took ~25 calls through web-sys, here three.
(() => {
  let memory = null;
  let at = 0;
  let box = new Float64Array(0);
  let last = null;
  let relevant = null;
  let classOrData = null;
  // Elements with click listeners or handler properties, as the main-world
  // hook announces them (`addClickable`); asked about only once there is one.
  const clickables = new WeakSet();
  let anyClickables = false;
  const nonSpace = /\S/;
  // Parent in the composed (flat) tree: the assigned slot, else the parent,
  // a shadow root stepping out to its host (as probe.rs's composed_parent).
  const composedParent = (e) => e.assignedSlot || e.parentElement || e.getRootNode().host;
  // Element names as small numbers (Rust keeps the strings: `tagName`).
  const tagIds = new Map();
  const tagNames = [];
  // The last `kids` enumeration's nodes; their facts go straight into the
  // caller's buffer in wasm memory, through a view kept across calls (a
  // grown memory detaches it: its length drops to 0).
  let kidNodes = [];
  // Their text data, at the same index (for text children).
  const kidData = [];
  let info = new Uint32Array(0);
  let infoAt = -1;
  // Same-name sibling counts by tag id (reset after each enumeration).
  const counts = [];
  const counted = [];
  // An element's shadow root, closed ones included. The main-world hook
  // attaches closed roots in open mode and hides them from page scripts
  // behind a per-element `shadowRoot` that reads null; the prototype's
  // native getter still returns them, in any world, the page's own
  // included (where the npm module runs the engine). An extension's content
  // script also reaches roots attached without the hook (declarative
  // `shadowrootmode="closed"`, or before the hook ran) through
  // `chrome.dom.openOrClosedShadowRoot`.
  // (No DOM where a host only stitches, in Node: nothing is read there.)
  const nativeShadowRoot =
    typeof Element === "function" ? Object.getOwnPropertyDescriptor(Element.prototype, "shadowRoot").get : null;
  const extensionShadowRoot = globalThis.chrome?.dom?.openOrClosedShadowRoot;
  const shadowRootOf = extensionShadowRoot
    ? (el) => extensionShadowRoot(el) ?? null
    : (el) => nativeShadowRoot.call(el);
  // Elements that can host a shadow root (`attachShadow` and declarative
  // shadow DOM refuse others): `shadowRoot` is asked of these only.
  const shadowHosts = new Set([
    "article", "aside", "blockquote", "body", "div", "footer", "h1", "h2", "h3", "h4", "h5", "h6",
    "header", "main", "nav", "p", "section", "span",
  ]);
  // Per tag id: may host a shadow root (custom elements and the list above).
  const hostable = [];
  // The ref registry: element → ref number (weak, so a ref lives exactly as
  // long as its element) and ref number → element (for the refs the driver
  // sends back). Kept here so that giving an element its number is one call
  // from WebAssembly instead of five (two map calls, two number boxings and
  // an unboxing), once per ref in every snapshot.
  const refOf = new WeakMap();
  const byRef = new Map();
  let lastRef = 0;
  const tagId = (name) => {
    let id = tagIds.get(name);
    if (id === undefined) {
      id = tagNames.length;
      tagNames.push(name);
      tagIds.set(name, id);
      counts.push(0);
      hostable.push(shadowHosts.has(name) || name.includes("-"));
    }
    return id;
  };
  // A declaration's position as a number (1 static, 2 relative, 3
  // absolute, 4 fixed, 5 sticky; see `reads::position_from_code`).
  const positionCode = (cs) => {
    const p = cs.position;
    return p === "static" ? 1 : p === "relative" ? 2 : p === "absolute" ? 3 : p === "fixed" ? 4 : p === "sticky" ? 5 : 1;
  };
  // A declaration's overflow as bits: 512 auto or scroll on either axis
  // (the shorthand: one keyword, or the two axes' as "hidden auto"), 1024
  // clipped otherwise, 0 visible.
  const overflowBits = (cs) => {
    const o = cs.overflow;
    return o === "visible" ? 0 : o.includes("auto") || o.includes("scroll") ? 512 : 1024;
  };
  const overflowScrolls = (cs) => overflowBits(cs) === 512;
  // Whether to read `onclick` properties: not in the driver's isolated
  // world (it marks it so before the bundle runs), where they read null (a
  // handler property belongs to the world that set it; the main-world hook
  // announces the page's). Injected into the page's own world, the engine
  // reads them.
  let readHandlers = true;
  // An element's facts word (layout in reads.rs): kind 1, flags, tag id.
  const elementWord = (el) => {
    const id = tagId(el.localName);
    return (
      1 |
      (hostable[id] && shadowRootOf(el) !== null ? 4 : 0) |
      ((readHandlers && el.onclick != null) || (anyClickables && clickables.has(el)) ? 8 : 0) |
      (el.firstChild !== null ? 16 : 0) |
      (id << 8)
    );
  };
  // Inside <svg> most elements are drawing (paths, shapes, gradients):
  // walking them would cost a style and a box read each for nothing. Kept:
  // <title> (it names its parent), anything an author gave a role, a
  // label or a tabindex (`<g role="slider">`, `<g role="radio"
  // aria-label="two stars">`), links, text, and the containers that may
  // hold such things (groups and nested svgs with element children).
  const SVG_NS = "http://www.w3.org/2000/svg";
  const svgTextParents = new Set(["text", "tspan", "textPath", "a", "title"]);
  const svgKept = new Set(["title", "a", "text", "foreignObject"]);
  const svgContainers = new Set(["g", "svg", "switch"]);
  const svgKid = (c) => {
    const name = c.localName;
    return (
      svgKept.has(name) ||
      (svgContainers.has(name) && c.firstElementChild !== null) ||
      c.hasAttribute("role") ||
      c.hasAttribute("tabindex") ||
      c.hasAttribute("aria-label") ||
      c.hasAttribute("aria-labelledby")
    );
  };
  // Writes a box where `bind` said (x, y, width, height).
  const put = (r) => {
    // A grown memory detaches the old view (its length drops to 0).
    if (box.length === 0) box = new Float64Array(memory.buffer, at, 4);
    box[0] = r.x;
    box[1] = r.y;
    box[2] = r.width;
    box[3] = r.height;
  };
  return {
    shadowRoot: shadowRootOf,
    // `ptr`: where `rect` writes four f64s in the module's memory.
    // `relevantAttr`, `classOrDataAttr`: attribute names `attrs` keeps.
    bind(mem, ptr, relevantAttr, classOrDataAttr) {
      memory = mem;
      at = ptr;
      box = new Float64Array(mem.buffer, ptr, 4);
      relevant = relevantAttr;
      classOrData = classOrDataAttr;
      readHandlers = globalThis.__sightlineIsolated !== true;
    },
    // The element and text children of `parent`, in order (inside <svg>
    // only what `svgKid` keeps). Writes two words of
    // facts per child at `ptr` (room for `cap` words) and returns the
    // count; when that needs more room, the caller calls again with more.
    // `kid` and `kidText` give the nodes. One call per parent instead of
    // four per child.
    kids(parent, ptr, cap) {
      const inSvg = parent.namespaceURI === SVG_NS && parent.localName !== "foreignObject";
      const svgText = inSvg && svgTextParents.has(parent.localName);
      if (info.length !== cap || infoAt !== ptr) {
        info = new Uint32Array(memory.buffer, ptr, cap);
        infoAt = ptr;
      }
      let n = 0;
      for (let c = parent.firstChild; c !== null; c = c.nextSibling) {
        const type = c.nodeType;
        let word;
        let nth = 0;
        if (type === 1) {
          if (inSvg && !svgKid(c)) continue;
          word = elementWord(c);
          const id = word >>> 8;
          if (counts[id] === 0) counted.push(id);
          nth = ++counts[id];
        } else if (type === 3) {
          if (inSvg && !svgText) continue;
          // (Read once: kept for `kidText`.)
          const data = c.data;
          word = nonSpace.test(data) ? 2 : 3;
          kidData[n] = data;
        } else {
          continue;
        }
        if (2 * n + 2 <= cap) {
          info[2 * n] = word;
          info[2 * n + 1] = nth;
        }
        kidNodes[n++] = c;
      }
      for (const id of counted) counts[id] = 0;
      counted.length = 0;
      kidNodes.length = n;
      kidData.length = n;
      return n;
    },
    kid(i) {
      return kidNodes[i];
    },
    kidText(i) {
      return kidData[i];
    },
    // An element the main-world hook announced as clickable.
    addClickable(el) {
      clickables.add(el);
      anyClickables = true;
    },
    // The facts word of one element (as `kids` gives for each child).
    element(el) {
      return elementWord(el);
    },
    tagName(id) {
      return tagNames[id];
    },
    // x, y, width, height of getBoundingClientRect().
    rect(el) {
      put(el.getBoundingClientRect());
    },
    // The box a pointer aims at, written as `rect` writes: for an inline
    // box broken over lines, the first of its line boxes with an area in
    // the viewport (the centre of their union may fall between them, on
    // other text); else its bounding box.
    aim(el) {
      const lines = [...el.getClientRects()];
      const inView = (q) => q.width * q.height > 0.99 && q.right > 0 && q.bottom > 0 && q.left < innerWidth && q.top < innerHeight;
      let box = (lines.length > 1 && lines.find(inView)) || el.getBoundingClientRect();
      if (box.width * box.height === 0 && getComputedStyle(el).display === "contents") {
        // No box of its own: where its content shows.
        const r = document.createRange();
        r.selectNodeContents(el);
        box = r.getBoundingClientRect();
      }
      put(box);
    },
    // getComputedStyle(el) keywords as bits (layout in reads.rs); the
    // declaration stays available through `last()` for rarer reads.
    // `want`: 1 = also read pointer-events, 2 = also read cursor (a pointer
    // cursor reads pointer-events too), 4 = a plain container: also read
    // position and overflow, unless laid out inline or the cursor is a
    // pointer (its box is read then anyway), 8 = inside an offscreen
    // boundary: also read the position of a block-level box (an inline-level
    // one can't be absolute or fixed: those are blockified), with 16 (it
    // has children) the overflow of a box that may scroll or clip, and with
    // 1 whether the font size is 0.
    style(el, want) {
      const cs = getComputedStyle(el);
      last = cs;
      const d = cs.display;
      const display =
        d === "none" ? 1 : d === "block" ? 2 : d === "inline" ? 3 : d === "contents" ? 4 : d === "inline-block" ? 5 : 6;
      if (display === 1) return 1;
      let bits = display;
      if (want & 2 && cs.cursor === "pointer") {
        bits |= 8;
        want |= 1;
      }
      if (cs.visibility !== "visible") bits |= 16;
      if (want & 1 && cs.pointerEvents === "none") bits |= 32;
      // A possible target inside an offscreen boundary: font-size 0 may
      // squeeze it to nothing whatever its text (see box_guess.rs).
      if (want & 8 && want & 1 && cs.fontSize === "0px") bits |= 2048;
      if (want & 4 && display !== 3 && !(bits & 8)) {
        bits |= (positionCode(cs) << 6) | (overflowBits(cs) & 512);
      } else if (want & 8 && (display === 2 || display === 5 || display === 6)) {
        if (display !== 5) bits |= positionCode(cs) << 6;
        if (want & 16) bits |= overflowBits(cs);
      }
      return bits;
    },
    last() {
      return last;
    },
    // The computed `content` of `el`'s `which` pseudo-element ("::before",
    // "::after"), or null when it has none. Prefixed with "1" when the
    // pseudo-element is laid out as a box of its own (block, flex…, and
    // anything absolutely positioned or floated, which CSS blockifies), so
    // its text is a word apart from the element's own ("Current" + "Rows"
    // must not become "CurrentRows"), else with "0".
    pseudo(el, which) {
      const cs = getComputedStyle(el, which);
      const c = cs.content;
      if (c === "none" || c === "normal") return null;
      return (cs.display === "inline" ? "0" : "1") + c;
    },
    // The last `style` call's position and overflow, for the boxes that
    // need them after their size is known.
    lastPosition() {
      return positionCode(last);
    },
    lastScrolls() {
      return overflowScrolls(last);
    },
    // What takes clicks for `el`, or null: its box is where a click goes,
    // and a hit inside it reaches `el`. A link or control with no box of
    // its own (its content floated or absolutely placed, or
    // `display:contents`): its first content that has one. A control the
    // pointer can't reach itself (`pointer-events:none`: custom checkboxes
    // and selects keep the real input there, invisible): its label.
    clickStandIn(el) {
      const boxed = (e) => {
        const r = e.getBoundingClientRect();
        return r.width > 0 && r.height > 0;
      };
      if (!boxed(el)) {
        let n = 0;
        for (const d of el.querySelectorAll("*")) {
          if (boxed(d) && d.checkVisibility({ visibilityProperty: true })) return d;
          if (++n === 200) break;
        }
      }
      if (!el.labels || getComputedStyle(el).pointerEvents !== "none") return null;
      for (const l of el.labels) {
        if (boxed(l)) return l;
      }
      return null;
    },
    // The element's ref number, allocated on first sight (and registered
    // again: the reverse map may have been pruned while it lived).
    refNumber(el) {
      let n = refOf.get(el);
      if (n === undefined) {
        n = ++lastRef;
        refOf.set(el, n);
      }
      byRef.set(n, el);
      return n;
    },
    // The element's ref number, or 0 when it has none.
    existingRef(el) {
      return refOf.get(el) ?? 0;
    },
    // The element a ref number was given to, while it is registered.
    refElement(n) {
      return byRef.get(n) ?? null;
    },
    // Drops reverse entries of elements that left the document, once the
    // map has grown well past the live ref count.
    pruneRefs(live) {
      if (byRef.size < 2 * live + 1024) return;
      for (const [n, el] of byRef) if (!el.isConnected) byRef.delete(n);
    },
    // A text node's data, or null when it is only whitespace.
    text(node) {
      const d = node.data;
      return nonSpace.test(d) ? d : null;
    },
    // Whether `el` is painted fully transparent: opacity 0 on it or on a
    // (composed) ancestor that is not animating it. A modal fading in
    // starts at 0, and a snapshot may come at its first frame.
    transparent(el) {
      for (let e = el; e; e = composedParent(e)) {
        if (getComputedStyle(e).opacity === "0" && e.getAnimations().every((a) => a.playState === "finished")) return true;
      }
      return false;
    },
    // Whether an image is still on its way (lazy ones not yet asked for
    // included): until it comes it may have no size, and then neither has
    // a link that holds only it. One that is not rendered (in a closed menu,
    // a hidden slide: it has no box at all) comes at no time: a lazy one
    // is never asked for.
    loading(img) {
      return img.complete === false && img.getClientRects().length > 0;
    },
    // An <audio> or <video> player's state: "playing", "ended", "paused",
    // and where, once it has moved (the time of one playing would change
    // with every snapshot).
    media(el) {
      const time = (s) => `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, "0")}`;
      if (el.ended) return "ended";
      if (!el.paused) return "playing";
      const at = el.currentTime;
      return at > 0 && isFinite(el.duration) ? `paused at ${time(at)} of ${time(el.duration)}` : "paused";
    },
    files(el) {
      return Array.from(el.files || [], (f) => f.name).join(", ");
    },
    // Whether the point (x, y), where `el` missed the hit, lies outside the
    // box of an ancestor that clips its overflow: `el` is clipped out of
    // sight there (a collapsed menu's items), not covered.
    clipped(el, x, y) {
      for (let e = composedParent(el); e && e !== document.body && e !== document.documentElement; e = composedParent(e)) {
        const cs = getComputedStyle(e);
        if (cs.overflowX === "visible" && cs.overflowY === "visible") continue;
        const r = e.getBoundingClientRect();
        if (x < r.left || x >= r.right || y < r.top || y >= r.bottom) return true;
      }
      return false;
    },
    // The kept attributes as "name\0value\0name\0value…" (NUL in a value
    // becomes U+FFFD, as the HTML parser does), or null when none is kept.
    attrs(el, withClasses) {
      if (!el.hasAttributes()) return null;
      let out = null;
      for (const name of el.getAttributeNames()) {
        if (!relevant.test(name) && !(withClasses && classOrData.test(name))) continue;
        let v = el.getAttribute(name);
        if (v.indexOf("\0") !== -1) v = v.replaceAll("\0", "\uFFFD");
        out = out === null ? name + "\0" + v : out + "\0" + name + "\0" + v;
      }
      return out;
    },
  };
})()
