// The extension's service worker: opens the side panel from the toolbar
// button, loads the engine's JS build into frames whose CSP refused
// WebAssembly, and runs the bridge client (bridge-client.js) for the panel.
import { BridgeClient } from "./bridge-client.js";

chrome.sidePanel.setPanelBehavior({ openPanelOnActionClick: true }).catch(() => {});

// State changes go to every open panel (which may be none: that's fine).
const bridge = new BridgeClient(async () => {
  chrome.runtime.sendMessage({ op: "bridgeState", state: await bridge.state() }).catch(() => {});
});

const handlers = {
  // A content script's engine found WebAssembly refused by the page's CSP:
  // the same engine's JS build, into that frame's isolated world.
  async loadJsBuild(_message, sender) {
    await chrome.scripting.executeScript({
      target: { tabId: sender.tab.id, frameIds: [sender.frameId] },
      files: ["engine/sightline-engine-js.bundle.js"],
    });
    return true;
  },
  bridgeState: () => bridge.state(),
  async share({ tabId, port }) {
    bridge.share(tabId, port);
    return bridge.state();
  },
  async unshare({ tabId }) {
    await bridge.unshare(tabId);
    return bridge.state();
  },
  async approve() {
    if (bridge.pending) await bridge.approve();
    return bridge.state();
  },
  async deny() {
    if (bridge.pending) bridge.deny();
    return bridge.state();
  },
};

chrome.runtime.onMessage.addListener((message, sender, reply) => {
  const handler = message && handlers[message.op];
  // bridgeState messages from this worker to the panels land here too.
  if (!handler || sender.id !== chrome.runtime.id || (message.op === "bridgeState" && message.state)) return false;
  handler(message, sender).then(
    (value) => reply({ value }),
    (e) => reply({ error: String((e && e.message) || e) }),
  );
  return true;
});
