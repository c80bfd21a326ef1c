// The extension's content script, in every frame, in the extension's
// isolated world, after the engine bundle: answers the side panel's
// requests about this frame. The engine itself (`__sightline`) came from
// engine/sightline-engine.bundle.js just before; on a page whose CSP
// refuses WebAssembly it defined only `__sightlineRefused`, and the service
// worker injects the JS build of the engine into this world on first use.
(() => {
  if (globalThis.__sightlineContent) return;
  globalThis.__sightlineContent = true;

  async function engine() {
    if (!globalThis.__sightline && globalThis.__sightlineRefused) {
      await chrome.runtime.sendMessage({ op: "loadJsBuild" });
    }
    if (!globalThis.__sightline) throw new Error(globalThis.__sightlineRefused || "the engine is not loaded in this frame");
    return globalThis.__sightline;
  }

  // Every iframe of this document, shadow roots included (closed ones
  // through chrome.dom, as the engine reads them).
  function iframes(root, out) {
    for (const el of root.querySelectorAll("*")) {
      if (el.localName === "iframe" || el.localName === "frame") out.push(el);
      const shadow = chrome.dom.openOrClosedShadowRoot(el);
      if (shadow) iframes(shadow, out);
    }
    return out;
  }

  // Which iframe element holds which child frame. A content script can't
  // name its own iframe, and frame ids are not on elements; so the panel has
  // the child post a nonce to its parent window, and the parent matches the
  // message's source against its iframes' windows.
  const ANNOUNCE_WAIT_MS = 2000;
  const announced = new Map();
  const waiting = new Map();
  window.addEventListener("message", (e) => {
    const nonce = e.data && e.data.__sightlineFrame;
    if (typeof nonce !== "string" || !globalThis.__sightline) return;
    const el = iframes(document, []).find((f) => f.contentWindow === e.source);
    const key = el ? globalThis.__sightline.frameKeyOf(el) : null;
    announced.set(nonce, key);
    const resolve = waiting.get(nonce);
    if (resolve) {
      waiting.delete(nonce);
      resolve(key);
    }
  });

  // The outline drawn while the panel's pointer is on a line.
  let outline = null;
  function highlight(el) {
    unhighlight();
    const r = el.getBoundingClientRect();
    outline = document.createElement("div");
    outline.setAttribute("aria-hidden", "true");
    outline.style.cssText =
      "position:fixed;pointer-events:none;z-index:2147483647;box-sizing:border-box;" +
      "border:2px solid #e8590c;background:rgba(232,89,12,.12);" +
      `left:${r.left}px;top:${r.top}px;width:${r.width}px;height:${r.height}px`;
    document.documentElement.appendChild(outline);
  }
  function unhighlight() {
    if (outline) outline.remove();
    outline = null;
  }

  async function element(target) {
    const el = (await engine()).resolve(target);
    if (!el) throw new Error(`${target} is not on the page any more: take a new snapshot`);
    return el;
  }

  const handlers = {
    /** globalThis.__sightline[fn](arg): snapshot, blockers, frameKeyOf… */
    async engine({ fn, arg }) {
      return (await engine())[fn](arg);
    },
    /** In a child frame: tell the parent which iframe is ours (see `frameKeyFor`). */
    async announce({ nonce }) {
      window.parent.postMessage({ __sightlineFrame: nonce }, "*");
      return true;
    },
    /** In the parent: the FrameSlot.key of the iframe whose frame announced `nonce`. */
    frameKeyFor({ nonce }) {
      return new Promise((resolve) => {
        if (announced.has(nonce)) return resolve(announced.get(nonce));
        waiting.set(nonce, resolve);
        // A frame that never announces (no content script yet) is left out.
        setTimeout(() => waiting.delete(nonce) && resolve(null), ANNOUNCE_WAIT_MS);
      });
    },
    /** The FrameSlot.key of the <iframe> `target` finds (see `frameKeyFor`). */
    async frameKeyOfTarget({ target }) {
      return (await engine()).frameKeyOf(await element(target));
    },
    async highlight({ target }) {
      highlight(await element(target));
      return true;
    },
    async unhighlight() {
      unhighlight();
      return true;
    },
    async scrollIntoView({ target }) {
      (await element(target)).scrollIntoView({ block: "center", inline: "nearest" });
      return true;
    },
    /** A click from the panel's Remove-blocker button (a DOM click: no debugger here). */
    async click({ target }) {
      const el = await element(target);
      el.scrollIntoView({ block: "center", inline: "nearest" });
      el.click();
      return true;
    },
    async pressEscape() {
      const target = document.activeElement || document.body || document.documentElement;
      for (const type of ["keydown", "keyup"]) {
        target.dispatchEvent(
          new KeyboardEvent(type, { key: "Escape", code: "Escape", keyCode: 27, bubbles: true, composed: true, cancelable: true }),
        );
      }
      return true;
    },
    async invalidSelector({ css }) {
      try {
        document.createDocumentFragment().querySelector(css);
        return null;
      } catch (e) {
        return String((e && e.message) || e);
      }
    },
    async allowListed({ target, css }) {
      const el = (await engine()).resolve(target);
      try {
        return !!el && (el.matches(css) || !!el.closest(css) || !!el.querySelector(css));
      } catch {
        return false;
      }
    },
  };

  chrome.runtime.onMessage.addListener((message, _sender, reply) => {
    const handler = message && message.sightline && handlers[message.sightline];
    if (!handler) return false;
    handler(message).then(
      (value) => reply({ value }),
      (e) => reply({ error: String((e && e.message) || e) }),
    );
    return true;
  });
})();
