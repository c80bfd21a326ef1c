// Runs one task with Stagehand v3's own computer-use agent, for `sightline
// bench cua`: `node stagehand-cua.mjs '<json>'` with {cdpUrl, url,
// modelName, baseURL, apiKey, instruction, maxSteps, viewport:{width,height},
// check}. Stagehand (npm @browserbasehq/stagehand, pinned by
// scripts/setup.sh in .tools/stagehand) attaches to the running Chromium,
// opens the page, and its CUA client talks to `baseURL` (the scripted
// server). Prints one line: `STAGEHAND_RESULT {"ok","completed","message",
// "ms","check"}`, where ms is the agent's execute() and check the value of
// the `check` expression on the page afterwards.
import { createRequire } from 'node:module';
import path from 'node:path';
import url from 'node:url';

const here = path.dirname(url.fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../../.tools/stagehand/package.json'));
const { Stagehand } = await import(require.resolve('@browserbasehq/stagehand'));

const args = JSON.parse(process.argv[2]);
const out = (v) => process.stdout.write(`STAGEHAND_RESULT ${JSON.stringify(v)}\n`);
let stagehand;
try {
  stagehand = new Stagehand({
    env: 'LOCAL',
    verbose: 0,
    disablePino: true,
    localBrowserLaunchOptions: { cdpUrl: args.cdpUrl, viewport: args.viewport },
  });
  await stagehand.init();
  const page = stagehand.context.pages()[0] ?? (await stagehand.context.newPage());
  await page.goto(args.url);
  const agent = stagehand.agent({
    mode: 'cua',
    model: { modelName: args.modelName, apiKey: args.apiKey, baseURL: args.baseURL },
  });
  const t0 = performance.now();
  const r = await agent.execute({ instruction: args.instruction, maxSteps: args.maxSteps });
  const ms = performance.now() - t0;
  const check = args.check ? await page.evaluate(args.check) : null;
  out({ ok: !!r.success, completed: !!r.completed, message: String(r.message ?? ''), ms, check });
} catch (e) {
  out({ ok: false, completed: false, message: `stagehand failed: ${e && e.stack ? e.stack : e}`, ms: 0, check: null });
} finally {
  try { await stagehand?.close(); } catch {}
  process.exit(0);
}
