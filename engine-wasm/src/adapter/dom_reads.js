// The walk's per-node reads, batched on the JS side of the boundary.
//
// An expression: the bundle binds it to `__sl_reads` (js-glue/build-bundle.mjs),
// the DOM-layer tests to `globalThis.__sl_reads`. It only reads and encodes;
// what to read, and what it means, is decided in Rust (adapter/reads.rs).
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
  const nonSpace = /\S/;
  return {
    // `ptr`: where `rect` writes four f64s in the module's memory.
    // `relevantAttr`, `classOrDataAttr`: attribute names `attrs` keeps.
    bind(mem, ptr, relevantAttr, classOrDataAttr) {
      memory = mem;
      at = ptr;
      box = new Float64Array(mem.buffer, ptr, 4);
      relevant = relevantAttr;
      classOrData = classOrDataAttr;
    },
    // x, y, width, height of getBoundingClientRect().
    rect(el) {
      const r = el.getBoundingClientRect();
      // A grown memory detaches the old view (its length drops to 0).
      if (box.length === 0) box = new Float64Array(memory.buffer, at, 4);
      box[0] = r.x;
      box[1] = r.y;
      box[2] = r.width;
      box[3] = r.height;
    },
    // getComputedStyle(el) keywords as bits (layout in reads.rs); the
    // declaration stays available through `last()` for rarer reads.
    // `want`: 1 = also read pointer-events, 2 = also read cursor (a pointer
    // cursor reads pointer-events too).
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
      return bits;
    },
    last() {
      return last;
    },
    // A text node's data, or null when it is only whitespace.
    text(node) {
      const d = node.data;
      return nonSpace.test(d) ? d : null;
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
