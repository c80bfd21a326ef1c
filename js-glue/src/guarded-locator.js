// A Playwright Locator for a ref that acts only on the element the engine
// numbered. A Locator is a selector, found again at each action: after a
// reload or a navigation the same selector may find another element (the
// second button of a list that now comes in another order), and the click
// would land there silently. So each action first asks the engine whether
// the ref's element is still in the page and still the one the selector
// finds, and fails as elementHandle(ref) does when it is not.

/** Locator methods that return a Locator (or the Page): no page work of their own. */
const BUILDERS = new Set([
  "locator", "first", "last", "nth", "filter", "and", "or", "describe", "page", "frameLocator", "contentFrame",
  "getByRole", "getByText", "getByLabel", "getByPlaceholder", "getByAltText", "getByTitle", "getByTestId",
  "toString",
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
      // Builders, and the library's own internals (`_expect`…), as they are.
      if (typeof prop !== "string" || BUILDERS.has(prop) || prop.startsWith("_")) return value.bind(target);
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
