// removeBlocker for hosts that are not the driver (the npm module, the
// extension's panel): the engine scans the page and ranks close buttons;
// this applies the driver's policy and acts through the host's own input.
//
// The policy and the result and audit record mirror the driver's
// (driver/src/page/unblock.rs, whose module docs explain them):
// conservative by default, click → verify → Escape → verify → removal only
// when aggressive or allow-listed, empty overlays removed at once. The npm
// and extension tests compare results with `sightline unblock --json`.
//
// A host provides:
//   blockers(requestJson)     globalThis.__sightline.blockers(...) in the main frame
//   allowListed(target, css)  whether the candidate matches an allow-listed selector
//   invalidSelector(css)      why `css` is no valid selector (null: it is one)
//   click(selector)           a trusted click on an engine selector (throws on failure)
//   pressEscape()
//   sleep(ms)
// and, for a layer whose only content is an iframe (a consent manager's
// dialog served from its own site), optionally:
//   frameOf(iframeSelector)   the frame of the <iframe> an engine selector finds in the main frame (null: none)
//   frameBlockers(frame, requestJson)   blockers(...) in that frame
//   clickIn(frame, selector)  a trusted click in that frame

const VERIFY_WINDOW_MS = 1500;
const VERIFY_POLL_MS = 100;
const PROTECTED = new Set(["consent", "login", "age_gate", "paywall"]);
// The evidence of a framed layer whose frame could not be read.
const FRAME_UNREAD = "its frame could not be read";
// Kinds a frame's document gets from its shape alone, not its words.
const STRUCTURAL = new Set(["generic_modal", "banner", "tooltip", "empty_overlay"]);

async function call(host, request) {
  const reply = JSON.parse(await host.blockers(JSON.stringify(request)));
  if (request.op !== "scan" && reply.ok !== true) throw new Error(reply.error || "blocker operation failed");
  if (request.op === "scan" && !reply.candidates) throw new Error(reply.error || "scan failed");
  return request.op === "scan" ? reply : reply.value || "";
}

/** Polls until the blocker is hidden, detached or no longer covering. */
async function gone(host, target) {
  const started = Date.now();
  for (;;) {
    const state = await call(host, { op: "state", target });
    if (state.startsWith("gone: ")) return state.slice("gone: ".length);
    if (Date.now() - started >= VERIFY_WINDOW_MS) return null;
    await host.sleep(VERIFY_POLL_MS);
  }
}

/**
 * A layer whose only content is an iframe: the frame's document, scanned as
 * the one candidate, names the kind (the layer only had the iframe's title)
 * and gives the buttons, clicked in that frame (as the driver's read_framed).
 */
async function readFramed(host, cand) {
  if (!cand.frame) return;
  cand.evidence.push(`its content is the frame ${cand.frame}`);
  let inner;
  try {
    const frame = host.frameOf ? await host.frameOf(cand.frame) : null;
    if (!frame) throw new Error(`no frame for ${cand.frame}`);
    const scan = JSON.parse(await host.frameBlockers(frame, JSON.stringify({ op: "scan_document" })));
    if (!scan.candidates) throw new Error(scan.error || "scan failed");
    inner = scan.candidates[0] && { ...scan.candidates[0], frameHandle: frame };
  } catch {
    cand.evidence.push(FRAME_UNREAD);
    return;
  }
  if (!inner) return;
  if (!STRUCTURAL.has(inner.kind)) {
    cand.kind = inner.kind;
    cand.evidence.push(...inner.evidence);
  }
  const inFrame = (b) => b && { ...b, frame: cand.frame, frameHandle: inner.frameHandle };
  cand.close = inner.close.map(inFrame);
  cand.reject = inFrame(inner.reject);
  cand.accept = inFrame(inner.accept);
}

async function clicked(host, button) {
  try {
    if (button.frameHandle) await host.clickIn(button.frameHandle, button.selector);
    else await host.click(button.selector);
    return true;
  } catch {
    return false;
  }
}

async function closeCandidate(host, cand, consentClick, opts, allowed) {
  const done = (method, note) => ({ removed: true, method, selector: cand.selector, kind: cand.kind, note });
  const left = (note) => ({ removed: false, method: "none", selector: cand.selector, kind: cand.kind, note });
  const buttons = consentClick ? [consentClick] : cand.close.slice(0, 2);
  for (const b of buttons) {
    if (await clicked(host, b)) {
      const why = await gone(host, cand.target);
      const place = b.frame ? ` in the frame ${b.frame}` : "";
      if (why !== null) return done("click", `clicked ${b.selector} "${b.text}" (${b.reason})${place}; ${why}`);
    }
  }
  if (cand.kind === "consent" && opts.consent !== "leave" && !opts.aggressive && !allowed) {
    return left("the consent button did not close the dialog");
  }
  if (cand.kind === "empty_overlay") {
    const undone = await call(host, { op: "remove_layer", target: cand.target });
    const why = (await gone(host, cand.target)) ?? "removed";
    return done("remove", `empty layer over the page: ${undone}; ${why}`);
  }
  await host.pressEscape();
  const why = await gone(host, cand.target);
  if (why !== null) return done("esc", `Escape closed it; ${why}`);
  if (opts.aggressive || allowed) {
    const undone = await call(host, { op: "remove", target: cand.target });
    const after = (await gone(host, cand.target)) ?? "removed";
    return done("remove", `${undone.replaceAll("\n", ", ")}; ${after}`);
  }
  return left(
    `${cand.kind} could not be closed by a button or Escape; DOM removal needs aggressive mode or an allow-listed selector`,
  );
}

function auditRecord(url, result, reason) {
  return {
    timestamp: new Date().toISOString(),
    url,
    selector: result.selector ?? null,
    kind: result.kind ?? null,
    method: result.method,
    result: result.removed ? "removed" : "left",
    reason,
  };
}

/** Drops the optional fields the driver leaves out when empty. */
function compact(result) {
  const out = { removed: result.removed, method: result.method };
  for (const k of ["selector", "kind", "note"]) if (result[k] != null) out[k] = result[k];
  return out;
}

/**
 * Closes the most obstructive blocker the policy allows.
 * @param {object} host see the top of this file
 * @param {{aggressive?: boolean, consent?: "leave"|"reject"|"accept", allowedSelectors?: string[]}} [options]
 * @returns {Promise<{result: object, audit: object}>} the driver's result and its audit record
 */
export async function removeBlocker(host, options = {}) {
  const opts = {
    aggressive: !!options.aggressive,
    consent: options.consent || "leave",
    allowedSelectors: options.allowedSelectors ?? [],
  };
  if (!["leave", "reject", "accept"].includes(opts.consent)) throw new Error(`unknown consent policy "${opts.consent}"`);
  // A string would be read a character at a time ("p" matches nearly any
  // dialog), allow-listing what conservative mode keeps; a selector that is
  // no CSS would never match. Both fail before the page is touched.
  if (!Array.isArray(opts.allowedSelectors) || opts.allowedSelectors.some((s) => typeof s !== "string")) {
    throw new TypeError("allowedSelectors must be an array of CSS selectors (strings)");
  }
  for (const css of opts.allowedSelectors) {
    const invalid = await host.invalidSelector(css);
    if (invalid) throw new Error(`allowedSelectors: ${JSON.stringify(css)} is not a valid CSS selector (${invalid})`);
  }
  const scan = await call(host, { op: "scan" });
  const skipped = [];
  for (const cand of scan.candidates) await readFramed(host, cand);
  for (const cand of scan.candidates) {
    if (cand.kind === "tooltip") continue;
    // A layer no one sees (opacity 0, say) may still be in the scan;
    // "closing" it would change nothing and read as a success (as the
    // driver's remove_blocker: driver/src/page/unblock.rs).
    const state = await call(host, { op: "state", target: cand.target }).catch(() => "");
    if (state === "gone: hidden") {
      skipped.push(`${cand.kind} ${cand.selector} is not visible`);
      continue;
    }
    // A layer showing only a frame, off the centre, that is no consent,
    // login, age or paywall dialog is most likely an ad slot (whose words
    // may well read as a promo), a chat or a player.
    if (cand.frame && !PROTECTED.has(cand.kind) && !cand.covers_center) {
      skipped.push(`${cand.kind} ${cand.selector} only shows a frame, off the centre, and asks nothing`);
      continue;
    }
    let allowed = false;
    for (const css of opts.allowedSelectors) allowed = allowed || (await host.allowListed(cand.target, css));
    if (!allowed && !(cand.size_evidence && cand.modal_evidence)) {
      skipped.push(`${cand.kind} ${cand.selector} lacks size or modal evidence`);
      continue;
    }
    const consentClick =
      cand.kind === "consent" && opts.consent === "reject"
        ? cand.reject
        : cand.kind === "consent" && opts.consent === "accept"
          ? cand.accept
          : null;
    if (PROTECTED.has(cand.kind) && !opts.aggressive && !allowed && !consentClick) {
      const why = cand.evidence.includes(FRAME_UNREAD)
        ? `${cand.kind.replaceAll("_", "-")} dialog in a frame that could not be read left alone (a screenshot shows it: a click at its button answers it; aggressive mode removes it)`
        : cand.kind === "consent" && opts.consent !== "leave"
          ? `consent dialog without a ${opts.consent} button left alone`
          : `${cand.kind.replaceAll("_", "-")} dialog left alone (conservative mode)`;
      const result = { removed: false, method: "none", selector: cand.selector, kind: cand.kind, note: why };
      return { result: compact(result), audit: auditRecord(scan.url, result, why) };
    }
    const result = await closeCandidate(host, cand, consentClick, opts, allowed);
    return { result: compact(result), audit: auditRecord(scan.url, result, result.note || "") };
  }
  const note = skipped.length === 0 ? "no blocker found" : `nothing to do: ${skipped.join("; ")}`;
  const result = { removed: false, method: "none", note };
  return { result: compact(result), audit: auditRecord(scan.url, result, note) };
}
