// The side panel: the current tab as a model sees it (Sightline's snapshot
// text, full page or viewport, with the page position and modal note),
// each ref'd line outlining its element on hover and scrolling it into view
// on click; a Remove-blocker button showing the result and its audit line;
// a copy button; and the bridge controls (share this tab, approve an agent).
//
// The tab is `?tab=<id>` when given (the panel opened as a page, as the
// tests do), else the active tab of this window, followed as it changes.
import { TabHost } from "./tab-host.js";
import { DEFAULT_PORT } from "./bridge-client.js";

const $ = (id) => document.getElementById(id);
const fixedTab = Number(new URLSearchParams(location.search).get("tab")) || null;
let host = null;
let snapshot = null;
// Counted on the page, so that a test (or a curious user) can tell a new snapshot arrived.
let rendered = 0;

async function currentTab() {
  if (fixedTab) return chrome.tabs.get(fixedTab);
  const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
  return tab;
}

const mode = () => document.querySelector('input[name="mode"]:checked').value;

function status(text) {
  $("status").textContent = text;
}

/** Header lines (`# …`) become the position, modal and notes; the rest the list. */
function render(result) {
  const lines = result.tree.split("\n");
  const header = lines.filter((l) => l.startsWith("# "));
  const body = lines.filter((l) => !l.startsWith("# ") && l !== "");
  const modal = header.filter((l) => l.startsWith("# A modal is open") || l.startsWith("# A large overlay"));
  const position = header.filter((l) => l.startsWith("# Page position"));
  const notes = header.filter((l) => !modal.includes(l) && !position.includes(l));
  $("position").textContent = position.map((l) => l.slice(2)).join(" ");
  $("modal-note").hidden = modal.length === 0;
  $("modal-note").textContent = modal.map((l) => l.slice(2)).join(" ");
  $("notes").hidden = notes.length === 0;
  $("notes").textContent = notes.map((l) => l.slice(2)).join(" ");
  const list = $("tree");
  list.replaceChildren(
    ...body.map((line) => {
      const li = document.createElement("li");
      li.textContent = line;
      const ref = /\[ref=([^\]]+)\]/.exec(line);
      if (ref) li.dataset.ref = ref[1];
      return li;
    }),
  );
  status(`${Object.keys(result.refs).length} refs · ${result.stats.elements} elements · ${Math.round(result.stats.total_ms)} ms`);
}

async function refresh() {
  const tab = await currentTab();
  if (!tab) return status("No tab.");
  if (!host || host.tabId !== tab.id) host = new TabHost(tab.id);
  $("tab-title").textContent = `${tab.title || ""} — ${tab.url || ""}`;
  try {
    snapshot = await host.snapshot({ mode: mode() });
    render(snapshot);
    document.body.dataset.ready = "true";
    document.body.dataset.snapshots = String(++rendered);
  } catch (e) {
    snapshot = null;
    $("tree").replaceChildren();
    status(`No snapshot of this tab: ${e.message}`);
  }
}

async function removeBlocker() {
  if (!host) return;
  $("remove-blocker").disabled = true;
  try {
    const { result, audit } = await host.removeBlocker();
    $("blocker").hidden = false;
    $("blocker-result").textContent = result.removed
      ? `Removed ${result.kind || "blocker"} ${result.selector} (${result.method}).`
      : `Nothing removed: ${result.note}`;
    $("audit-line").textContent = JSON.stringify(audit);
    document.body.dataset.blockerDone = String(result.removed);
    await refresh();
  } catch (e) {
    $("blocker").hidden = false;
    $("blocker-result").textContent = `removeBlocker failed: ${e.message}`;
  } finally {
    $("remove-blocker").disabled = false;
  }
}

async function copy() {
  if (!snapshot) return;
  try {
    await navigator.clipboard.writeText(snapshot.tree);
  } catch {
    // A panel without focus may not use the async clipboard: the old way.
    const area = document.createElement("textarea");
    area.value = snapshot.tree;
    document.body.appendChild(area);
    area.select();
    document.execCommand("copy");
    area.remove();
  }
  status("Snapshot copied.");
}

const refOf = (e) => e.target.closest && e.target.closest("li[data-ref]")?.dataset.ref;
$("tree").addEventListener("mouseover", (e) => {
  const ref = refOf(e);
  if (ref && host) host.highlight(ref).catch((err) => status(err.message));
});
$("tree").addEventListener("mouseout", (e) => {
  const ref = refOf(e);
  if (ref && host) host.unhighlight(ref).catch(() => {});
});
$("tree").addEventListener("click", (e) => {
  const ref = refOf(e);
  if (ref && host) host.scrollIntoView(ref).catch((err) => status(err.message));
});
$("refresh").addEventListener("click", refresh);
$("copy").addEventListener("click", copy);
$("remove-blocker").addEventListener("click", removeBlocker);
for (const radio of document.querySelectorAll('input[name="mode"]')) radio.addEventListener("change", refresh);

// Bridge controls: the service worker holds the connection.
async function worker(op, extra = {}) {
  const reply = await chrome.runtime.sendMessage({ op, ...extra });
  if (reply && reply.error) throw new Error(reply.error);
  return reply && reply.value;
}

function renderBridge(state) {
  if (!state) return;
  if (!$("bridge-port").value) $("bridge-port").value = state.port || DEFAULT_PORT;
  const shared = state.shared.length ? `${state.shared.length} tab(s) shared` : "no tab shared";
  const agent = state.status === "connected" && state.client ? ` to ${state.client}` : "";
  $("bridge-status").textContent =
    `${state.status}${agent} (port ${state.port})${state.error ? `: ${state.error}` : ""} · ${shared}`;
  $("approval").hidden = !state.pending;
  $("approval-text").textContent = state.pending
    ? `A program on this computer that calls itself “${state.pending.client}” (a name it chose, which Sightline cannot check) asks to drive your shared tabs. Allow it only if you just started it.`
    : "";
  $("token").textContent = state.token;
  document.body.dataset.bridge = state.status;
}

$("share").addEventListener("click", async () => {
  const tab = await currentTab();
  renderBridge(await worker("share", { tabId: tab.id, port: Number($("bridge-port").value) || DEFAULT_PORT }));
});
$("unshare").addEventListener("click", async () => renderBridge(await worker("unshare", { tabId: (await currentTab()).id })));
$("approve").addEventListener("click", async () => renderBridge(await worker("approve")));
$("deny").addEventListener("click", async () => renderBridge(await worker("deny")));
chrome.runtime.onMessage.addListener((message) => {
  if (message && message.op === "bridgeState" && message.state) renderBridge(message.state);
});

if (!fixedTab) {
  chrome.tabs.onActivated.addListener(() => refresh());
  chrome.tabs.onUpdated.addListener((_id, change, tab) => {
    if (tab.active && change.status === "complete") refresh();
  });
}
worker("bridgeState").then(renderBridge, () => {});
refresh();
