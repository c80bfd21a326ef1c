#!/usr/bin/env node
// Playwright's AI snapshot as a baseline for `sightline bench snapshot --playwright`.
//
//   node scripts/pw-aria.mjs [--runs N] [--warmup N] [--viewport WxH] [--allow-network] URL...
//
// For each URL: load it (until the load event), take the warm-up snapshots
// (default 1), then N timed `page.locator('body').ariaSnapshot({ mode: 'ai' })` calls.
// Prints one JSON object per line: {url, chars, ms, mode} (ms = median of the
// N wall-clock times, chars = length of the last snapshot), or {url, error}.
//
// playwright-core comes from .tools/node_modules (installed by
// scripts/setup.sh) unless PLAYWRIGHT_CORE names another copy. Chromium is
// /usr/bin/chromium unless SIGHTLINE_CHROME says otherwise. Unless
// --allow-network is given, every request to anything but 127.0.0.1 fails at
// once (the same switches the Sightline bench uses).
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const corePath = process.env.PLAYWRIGHT_CORE || join(here, "..", ".tools", "node_modules", "playwright-core");
if (!existsSync(corePath)) {
  console.error(`playwright-core not found at ${corePath}: run 'bash scripts/setup.sh' or set PLAYWRIGHT_CORE`);
  process.exit(2);
}
const { chromium } = await import(pathToFileURL(join(corePath, "index.mjs")).href);

let runs = 5;
let warmup = 1;
let viewport = { width: 1280, height: 720 };
let offline = true;
const urls = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === "--runs") runs = Math.max(1, parseInt(argv[++i], 10) || 5);
  else if (a === "--warmup") warmup = Math.max(1, parseInt(argv[++i], 10) || 1);
  else if (a === "--viewport") {
    const [w, h] = argv[++i].split(/x/i).map((v) => parseInt(v, 10));
    viewport = { width: w, height: h };
  } else if (a === "--allow-network") offline = false;
  else urls.push(a);
}
if (urls.length === 0) {
  console.error("usage: node scripts/pw-aria.mjs [--runs N] [--warmup N] [--viewport WxH] [--allow-network] URL...");
  process.exit(2);
}

const args = ["--no-sandbox", "--disable-gpu"];
if (offline) {
  args.push(
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    "--proxy-server=http://127.0.0.1:9",
    "--proxy-bypass-list=127.0.0.1",
  );
}
const browser = await chromium.launch({
  executablePath: process.env.SIGHTLINE_CHROME || "/usr/bin/chromium",
  args,
});
const context = await browser.newContext({ viewport });
const page = await context.newPage();
page.setDefaultTimeout(120_000);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

// playwright-core 1.65 supports { mode: 'ai' }; older versions reject the
// option, in which case the default mode is used and reported as such.
let mode = "ai";
async function snap() {
  if (mode === "ai") {
    try {
      return await page.locator("body").ariaSnapshot({ mode: "ai" });
    } catch (e) {
      if (!/mode/i.test(String(e && e.message))) throw e;
      mode = "default";
      console.error("pw-aria: ariaSnapshot({mode:'ai'}) is not supported here; using the default mode");
    }
  }
  return await page.locator("body").ariaSnapshot();
}

for (const url of urls) {
  try {
    await page.goto(url, { waitUntil: "load", timeout: 60_000 });
    for (let i = 0; i < warmup; i++) await snap();
    const times = [];
    let text = "";
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      text = await snap();
      times.push(performance.now() - t0);
    }
    console.log(JSON.stringify({ url, chars: [...text].length, ms: median(times), mode }));
  } catch (e) {
    console.log(JSON.stringify({ url, error: String((e && e.message) || e).split("\n")[0] }));
  }
}
await browser.close();
