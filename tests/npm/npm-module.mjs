// Drives the packed `sightline` npm module with Playwright or Puppeteer
// against Debian's Chromium on fixture pages, the way a user's script
// would, and prints what it saw as one JSON object for
// tests/e2e/npm_module.rs to compare with the driver's own output.
//
// Run from a directory whose node_modules holds `sightline` (the tarball),
// `playwright-core` and `puppeteer-core`:
//   node npm-module.mjs '{"library":"playwright","base":"http://127.0.0.1:P/","xport":Q,"chromeArgs":[…],
//     "snapshots":{"shop":{"path":"shop/index.html","waitFor":"#promo"},…},"viewportPage":…,"promoPage":…}'
import { attach, CspError, HostilePageError } from "sightline";

const config = JSON.parse(process.argv[2]);
const chromium = process.env.SIGHTLINE_CHROME || "/usr/bin/chromium";
const args = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", ...config.chromeArgs];
const viewport = { width: 1280, height: 720 };

// One browser per run; a fresh page per scenario, as a script would do.
async function launch() {
  if (config.library === "playwright") {
    const { chromium: pw } = await import("playwright-core");
    const browser = await pw.launch({ executablePath: chromium, args });
    return {
      newPage: async () => (await browser.newContext({ viewport })).newPage(),
      goto: (page, url) => page.goto(url, { waitUntil: "load" }),
      close: () => browser.close(),
    };
  }
  const { default: puppeteer } = await import("puppeteer-core");
  const browser = await puppeteer.launch({ executablePath: chromium, args, defaultViewport: viewport, headless: true });
  return {
    newPage: () => browser.newPage(),
    goto: (page, url) => page.goto(url, { waitUntil: "load" }),
    close: () => browser.close(),
  };
}

const url = (path) => new URL(path.replace("{xport}", String(config.xport)), config.base).href;

// The element a ref names, to act on with the user's own library.
async function element(sl, ref) {
  return config.library === "playwright" ? sl.locator(ref) : sl.elementHandle(ref);
}

function refNamed(snap, role, name) {
  const found = Object.entries(snap.refs).find(([, r]) => r.role === role && r.name === name);
  if (!found) throw new Error(`no ${role} "${name}" in:\n${snap.tree}`);
  return found[0];
}

const browser = await launch();
const out = { snapshots: {}, viewportSnapshot: null };
try {
  for (const [name, spec] of Object.entries(config.snapshots)) {
    const page = await browser.newPage();
    const sl = await attach(page);
    await browser.goto(page, url(spec.path));
    // Pages that change after load (a promo on a timer) are compared once
    // they show what the driver's settle waits for.
    if (spec.waitFor) await page.waitForSelector(spec.waitFor);
    out.snapshots[name] = await sl.snapshot({ mode: "full" });
    await page.close();
  }
  {
    const page = await browser.newPage();
    const sl = await attach(page);
    await browser.goto(page, url(config.viewportPage));
    out.viewportSnapshot = await sl.snapshot({ mode: "viewport" });
    await page.close();
  }
  {
    // A ref of a full snapshot still acts after a viewport snapshot that
    // does not list it (a ref lasts as long as its element); one no
    // snapshot gave is refused.
    const page = await browser.newPage();
    const sl = await attach(page);
    // A frame of another site (its own process: the browser isolates it)
    // whose main thread is busy: left out with a note, while the page
    // answers, rather than holding the snapshot until it is done.
    await browser.goto(page, url(`busy-frame-host.html?xport=${config.xport}`));
    await new Promise((r) => setTimeout(r, 600));
    const started = Date.now();
    const busy = await sl.snapshot();
    out.busyFrame = { ms: Date.now() - started, tree: busy.tree };
    await browser.goto(page, url("long.html"));
    await page.evaluate(() => {
      document.addEventListener("click", (e) => { window.clickedText = e.target.textContent; }, true);
    });
    const far = refNamed(await sl.snapshot({ mode: "full" }), "button", "Button 10");
    out.farInViewport = (await sl.snapshot({ mode: "viewport" })).tree.includes("Button 10");
    await (await element(sl, far)).click();
    out.farClicked = await page.evaluate(() => window.clickedText || null);
    try {
      await sl.elementHandle("e999");
      out.neverGiven = "found";
    } catch (e) {
      out.neverGiven = e.message;
    }
    // Allow lists: a string (read a character at a time, it would match
    // nearly any dialog) and a selector that is no CSS both fail, and the
    // consent dialog conservative mode keeps is still there.
    await browser.goto(page, url("blockers/consent-reject.html"));
    out.allowErrors = [];
    for (const allowedSelectors of ["#my-newsletter-popup", ["<<<"]]) {
      try {
        await sl.removeBlocker({ allowedSelectors });
        out.allowErrors.push("removed");
      } catch (e) {
        out.allowErrors.push(`${e.name}: ${e.message}`);
      }
    }
    out.consentKept = (await sl.snapshot()).tree.includes("We use cookies");
    await page.close();
  }
  {
    // removeBlocker on the promo, then whether it is gone.
    const page = await browser.newPage();
    const sl = await attach(page);
    await browser.goto(page, url(config.promoPage));
    // A record that cannot be written fails before anything is closed.
    out.unwritableAudit = await sl
      .removeBlocker({ auditFile: "/nonexistent-dir/audit.jsonl" })
      .then(() => "closed", (e) => e.message);
    out.promoAfterUnwritableAudit = await page.evaluate(() => document.getElementById("blocker") !== null);
    out.removeBlocker = await sl.removeBlocker();
    out.promoGone = await page.evaluate(() => document.getElementById("blocker") === null);
    out.afterRemoveBlocker = (await sl.snapshot()).tree;
    // A layer no one sees: nothing to close, as the driver says.
    await browser.goto(page, url("blockers/invisible-layer.html"));
    out.invisibleLayer = (await sl.removeBlocker()).result;
    // A consent manager's dialog in a cross-origin iframe: answered in its frame.
    await browser.goto(page, url(`blockers/framed-dialog.html?xport=${config.xport}`));
    out.framedConsent = (await sl.removeBlocker({ consent: "reject" })).result;
    out.framedConsentChoice = await page.evaluate(() => window.consent || null);
    await page.close();
  }
  {
    // Acting on refs with the user's library: a field and a button inside a
    // shadow root, then a button inside an iframe.
    const page = await browser.newPage();
    const sl = await attach(page);
    await browser.goto(page, url("actions/shadow.html"));
    let snap = await sl.snapshot();
    const email = await element(sl, refNamed(snap, "textbox", "Your email"));
    await (config.library === "playwright" ? email.fill("ada@example.com") : email.type("ada@example.com"));
    await (await element(sl, refNamed(snap, "button", "Subscribe"))).click();
    out.subscribed = await page.evaluate(() => document.getElementById("subscribed").textContent);
    await browser.goto(page, url("actions/frame-host.html"));
    snap = await sl.snapshot();
    const pay = refNamed(snap, "button", "Pay 12 €");
    out.payRef = pay;
    await (await element(sl, pay)).click();
    const frame = page.frames().find((f) => f.url().includes("frame-inner.html"));
    out.paid = await frame.evaluate(() => document.getElementById("paid").textContent);
    // A snapshot that fails (a mode misspelt) leaves the last one's refs.
    out.badSnapshot = await sl.snapshot({ mode: "viewpoint" }).then(() => "taken", (e) => e.message);
    await (await element(sl, pay)).click();
    out.paidAfterBadSnapshot = await frame.evaluate(() => document.getElementById("paid").textContent);
    out.topClicks = await page.evaluate(() => window.topClicks);
    await page.close();
  }
  {
    // A ref after a reload that reordered its list: an error, not a click
    // on whatever button now sits where it was.
    const page = await browser.newPage();
    const sl = await attach(page);
    await browser.goto(page, url("actions/shuffled.html"));
    const archive = refNamed(await sl.snapshot(), "button", "Archive order");
    await page.reload();
    try {
      await (await element(sl, archive)).click();
      out.staleRef = "clicked";
    } catch (e) {
      out.staleRef = e.message;
    }
    out.clickedAfterReload = await page.evaluate(() => window.clicked || null);
    if (config.library === "playwright") {
      // Questions still answer (and expect() still takes it as a Locator).
      const loc = sl.locator(archive);
      out.locatorType = loc.constructor === page.locator("body").constructor ? "Locator" : loc.constructor.name;
      out.countAfterReload = await loc.count();
      // A Locator made from it keeps the check.
      try {
        await loc.first().click({ timeout: 2000 });
        out.chainedAfterReload = "clicked";
      } catch (e) {
        out.chainedAfterReload = e.message;
      }
      out.clickedAfterChained = await page.evaluate(() => window.clicked || null);
      // A light-DOM button in a component with a button of its own: that one.
      await browser.goto(page, url("web-component-card.html"));
      await sl.locator(refNamed(await sl.snapshot(), "button", "Light button")).click();
      out.lightClicked = await page.evaluate(() => window.clicked || null);
    }
    // A ref of a page left behind, on the next page, whose own numbering
    // (a blocker scan's) gave e1 to another element: an error, no click.
    await browser.goto(page, url("short.html"));
    const only = refNamed(await sl.snapshot(), "button", "Only button");
    await browser.goto(page, url("blockers/consent-reject.html"));
    await sl.removeBlocker();
    try {
      await (await element(sl, only)).click();
      out.refOfPageLeft = "clicked";
    } catch (e) {
      out.refOfPageLeft = e.message;
    }
    out.consentAfterStaleRef = await page.evaluate(() => window.consent || location.hash || null);
    // removeBlocker before any snapshot of the page: the refs are still
    // numbered in document order, as the first snapshot would number them.
    out.treeAfterFirstScan = (await sl.snapshot()).tree;
    // A shadow-root button beside slotted light content: that very button.
    await browser.goto(page, url("shadow.html"));
    await page.evaluate(() => {
      document.addEventListener("click", (e) => { window.clickedText = e.composedPath()[0].textContent; }, true);
    });
    await (await element(sl, refNamed(await sl.snapshot(), "button", "Before slot"))).click();
    out.shadowClicked = await page.evaluate(() => window.clickedText || null);
    if (config.library === "playwright") {
      // first() of a ref is the ref's element too, not the slotted button
      // Playwright's piercing CSS finds first.
      await page.evaluate(() => { window.clickedText = null; });
      await sl.locator(refNamed(await sl.snapshot(), "button", "Before slot")).first().click();
      out.shadowFirstClicked = await page.evaluate(() => window.clickedText || null);
    }
    // A pop-up in a shadow root, its call to action slotted in: closed by its
    // own Close button, and "Subscribe" never clicked.
    await browser.goto(page, url("blockers/shadow-slotted-promo.html"));
    out.shadowPromo = await sl.removeBlocker();
    out.shadowPromoTitle = await page.title();
    await page.close();
  }
  {
    // A page that reloads itself again and again: a snapshot that meets a
    // navigation is taken again; one that keeps meeting them says so.
    const page = await browser.newPage();
    const sl = await attach(page);
    await browser.goto(page, url("reloads.html?n=20"));
    out.duringReloads = { taken: 0, errors: [] };
    for (let i = 0; i < 20; i++) {
      await sl.snapshot().then(
        () => out.duringReloads.taken++,
        (e) => out.duringReloads.errors.push(e.message),
      );
    }
    while ((await page.title().catch(() => "")) !== "Settled") await new Promise((r) => setTimeout(r, 50));
    out.afterReloads = (await sl.snapshot()).tree;
    await page.close();
  }
  {
    // Bad options: clear errors, before anything is read.
    const page = await browser.newPage();
    const sl = await attach(page);
    await browser.goto(page, url("short.html"));
    out.badOptions = [];
    for (const o of [{ obscured: "x" }, "full", { viewport: { width: 0, height: 0 } }, { scrollY: NaN }]) {
      try {
        await sl.snapshot(o);
        out.badOptions.push("taken");
      } catch (e) {
        out.badOptions.push(`${e.name}: ${e.message}`);
      }
    }
    out.nullOptions = (await sl.snapshot(null)).title;
    await page.close();
  }
  {
    // A strict CSP (no 'wasm-unsafe-eval'): the JS build by default, the
    // documented error with `jsBuild: false`.
    const page = await browser.newPage();
    const sl = await attach(page);
    await browser.goto(page, url("csp.html"));
    out.csp = await sl.snapshot();
    out.cspBuild = await page.evaluate(() => globalThis.__sightline.build);
    await page.close();
    const strict = await browser.newPage();
    // (Attached twice: the second call's options take effect.)
    const [first, again] = await Promise.all([attach(strict), attach(strict)]);
    const off = await attach(strict, { jsBuild: false });
    out.sameObject = first === off && first === again;
    await browser.goto(strict, url("csp.html"));
    try {
      await off.snapshot();
      out.cspError = null;
    } catch (e) {
      out.cspError = { name: e.name, isCspError: e instanceof CspError, message: e.message };
    }
    // A strict-CSP frame in a page without one: left out, said in a line
    // for the model (the developer's advice is the error's, above).
    await browser.goto(strict, url("csp-frame-host.html"));
    out.cspFrameTree = (await off.snapshot()).tree;
    await strict.close();
  }
  {
    // A page that replaced the built-ins code in its world relies on: said
    // as such (the library's own evaluate breaks there first).
    const page = await browser.newPage();
    const sl = await attach(page);
    await browser.goto(page, url("hostile.html"));
    try {
      await sl.snapshot();
      out.hostileError = null;
    } catch (e) {
      out.hostileError = { name: e.name, isHostile: e instanceof HostilePageError, replaced: e.replaced, message: e.message };
    }
    // One that replaced a layout read only: no error, but its tree says it
    // may be wrong (it would show no refs, silently).
    await browser.goto(page, url("hostile-layout.html"));
    out.layoutReplaced = (await sl.snapshot()).tree;
    await page.close();
  }
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(out));
