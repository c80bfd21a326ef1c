// A Playwright Locator for a ref that acts only on the element the engine
// numbered. A Locator is a selector, found again at each action: after a
// reload or a navigation the same selector may find another element (the
// second button of a list that now comes in another order), and the click
// would land there silently. So each action first asks the engine whether
// the ref's element is still in the page and still the one the selector
// finds, and fails as elementHandle(ref) does when it is not; so do the
// actions of Locators made from it (first(), filter()…). Questions
// (isVisible, count, waitFor, textContent…) and expect() are left as they
// are: they answer about whatever the selector finds, and "gone" is often
// the answer sought.

/** The Locator methods that act on the element. */
const ACTIONS = new Set([
  "click", "dblclick", "tap", "hover", "focus", "blur", "fill", "clear", "type", "pressSequentially", "press",
  "check", "uncheck", "setChecked", "selectOption", "selectText", "setInputFiles", "dragTo", "dispatchEvent",
  "scrollIntoViewIfNeeded",
]);

/**
 * @param {object} locator the Locator of the ref's engine selector
 * @param {() => Promise<void>} check throws when the ref's element is gone or no longer the selector's
 * @param {(() => Promise<object>) | null} handle when set, actions go to the ref's ElementHandle (a
 *   selector stepping into a shadow root: Playwright's CSS pierces shadow roots, so the same steps
 *   may also match the host's light children)
 */
export function guardedLocator(locator, check, handle) {
  return new Proxy(locator, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop === "constructor") return value;
      if (!ACTIONS.has(prop)) {
        // A Locator made from this one (first(), nth(), filter(), locator()…)
        // acts from the ref's element, so its actions need the same check.
        // (Other than the ref's own element, it acts through Playwright's
        // own selector: for a ref in a shadow root, that CSS may also find
        // the host's light children, and Playwright's strict mode says so.)
        // first(), last() and nth(0) of a ref are the ref's element (a ref
        // is one element; users reach for first() after a strict-mode
        // error): their actions keep going to its handle.
        return (...args) => {
          const made = value.apply(target, args);
          const sameElement = prop === "first" || prop === "last" || (prop === "nth" && args[0] === 0);
          return made && made.constructor === target.constructor
            ? guardedLocator(made, check, sameElement ? handle : null)
            : made;
        };
      }
      return async (...args) => {
        await check();
        if (handle) {
          const el = await handle();
          if (typeof el[prop] === "function") {
            try {
              return await el[prop](...args);
            } finally {
              await el.dispose();
            }
          }
          await el.dispose();
        }
        return value.apply(target, args);
      };
    },
  });
}
