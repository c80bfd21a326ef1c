// The extension's end of the bridge that lets a Sightline agent (`sightline
// agent --extension`, `sightline mcp --extension`) drive the tabs the user
// shares. The bridge (driver/src/bridge/) listens on 127.0.0.1; this
// connects to it while at least one tab is shared, and relays DevTools
// commands and events for those tabs, and only those, through
// chrome.debugger.
//
// Approval: a bridge given a token says so in its hello, with a nonce; the
// token itself never crosses the socket then. Each side proves it knows the
// extension's own token (made once, kept in chrome.storage.local):
// HMAC-SHA256 over the port and both nonces, the extension first, so a
// process posing as the extension learns nothing from a bridge, and one
// posing as a bridge on another port cannot pass on a real one's nonce. A bridge with the right token is approved at once, a wrong one
// refused at once; one without a token waits for the user to press Allow
// or Deny in the panel. Allowing hands the bridge the token, so its next
// connections need no asking.
//
// Wire format (JSON text frames), bridge → extension:
//   {type:"hello", client, token: bool, nonce, version}
//   {type:"proven", proof}          {type:"refused", reason}
//   {type:"attach", id, tabId}      {type:"detach", id, tabId}
//   {type:"cdp", id, tabId, sessionId?, method, params}
// extension → bridge:
//   {type:"prove", nonce, proof}
//   {type:"ready", token?, tabs:[{tabId, url, title, openerTabId?}]}    {type:"tabs", tabs}
//   (the token only to a bridge the user allowed: a proven one has it)
//   {type:"result", id, result} | {type:"result", id, error}
//   {type:"event", tabId, sessionId?, method, params}    {type:"detached", tabId, reason}
// Refusals close the socket with code 4001 (wrong token), 4002 (another
// protocol version) or 4003 (the user said no) and the reason as text. A
// refused bridge is not asked again until the user shares anew.

export const PROTOCOL_VERSION = 2;
export const DEFAULT_PORT = 9224;
const RETRY_MS = 1000;

/** `bytes` random bytes as hex. */
function randomHex(bytes) {
  return [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Whether two strings are equal, in time that does not depend on where they differ. */
function sameText(a, b) {
  if (typeof a !== "string" || a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** HMAC-SHA256 of `message` keyed by `key`, as hex (driver/src/bridge/proof.rs). */
export async function hmacHex(key, message) {
  const enc = new TextEncoder();
  const k = await crypto.subtle.importKey("raw", enc.encode(key), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", k, enc.encode(message));
  return [...new Uint8Array(mac)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** A connecting program's name as shown: printable, one line, at most 60 characters. */
function clientName(given) {
  const name = String(given || "").replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g, " ").replace(/\s+/g, " ").trim();
  if (!name) return "a Sightline agent";
  return name.length > 60 ? `${name.slice(0, 59)}…` : name;
}

export class BridgeClient {
  constructor(onChange) {
    this.onChange = onChange;
    this.shared = new Set();
    this.attached = new Set();
    this.port = DEFAULT_PORT;
    this.socket = null;
    this.status = "idle";
    this.pending = null;
    this.client = null;
    this.error = null;
    this.retry = null;
    // Why the extension turned the bridge away (it is not asked again until
    // the user shares anew), and the nonces of a proof under way.
    this.refusal = null;
    this.proving = null;
    chrome.debugger.onEvent.addListener((source, method, params) => this.onDebuggerEvent(source, method, params));
    chrome.debugger.onDetach.addListener((source, reason) => this.onDebuggerDetach(source, reason));
    chrome.tabs.onRemoved.addListener((tabId) => this.unshare(tabId));
    // A tab a shared one's page opens (window.open, a link to a new tab: a
    // sign-in or payment window) is the agent's to follow, as in a browser
    // of its own: shared with its opener. (Not tabs.onCreated: its
    // openerTabId also marks tabs the user opens while one is active.)
    this.openers = new Map();
    chrome.webNavigation.onCreatedNavigationTarget.addListener(({ sourceTabId, tabId }) => {
      if (!this.shared.has(sourceTabId) || this.shared.has(tabId)) return;
      this.shared.add(tabId);
      this.openers.set(tabId, sourceTabId);
      this.sendTabs();
      this.changed();
    });
    chrome.tabs.onUpdated.addListener((tabId, change) => {
      if (this.shared.has(tabId) && (change.url || change.title)) this.sendTabs();
    });
  }

  /** The token that approves a bridge without asking (made on first use). */
  async token() {
    const { bridgeToken } = await chrome.storage.local.get("bridgeToken");
    if (bridgeToken) return bridgeToken;
    // Hex: nothing a shell or a flag parser could misread (a leading "-").
    const made = randomHex(24);
    await chrome.storage.local.set({ bridgeToken: made });
    return made;
  }

  async state() {
    return {
      status: this.status,
      port: this.port,
      shared: [...this.shared],
      pending: this.pending,
      client: this.client,
      error: this.error,
      token: await this.token(),
    };
  }

  changed() {
    this.onChange();
  }

  share(tabId, port) {
    // One agent at a time: the tabs shared already are the one on this.port's.
    // Moving them to another port's agent would hand it tabs the user gave
    // the first; the user unshares them first.
    const others = [...this.shared].filter((t) => t !== tabId);
    if (port && port !== this.port && others.length) {
      this.error = `your ${others.length} other shared tab(s) go to the agent on port ${this.port}: unshare them first to share with port ${port}, or share with ${this.port}`;
      this.changed();
      return;
    }
    this.shared.add(tabId);
    // Sharing again asks a refused bridge anew.
    this.refusal = null;
    if (port && port !== this.port) {
      this.port = port;
      this.disconnect("the user shares with another port");
    }
    if (this.socket && this.status === "connected") this.sendTabs();
    else this.connect();
    this.changed();
  }

  async unshare(tabId) {
    this.openers.delete(tabId);
    if (!this.shared.delete(tabId)) return;
    if (this.attached.delete(tabId)) await chrome.debugger.detach({ tabId }).catch(() => {});
    // The tabs it opened were shared for its sake: they go with it.
    for (const [popup, opener] of [...this.openers]) {
      if (opener === tabId) await this.unshare(popup);
    }
    this.sendTabs();
    if (this.shared.size === 0) this.disconnect("no tab is shared");
    this.changed();
  }

  connect() {
    clearTimeout(this.retry);
    if (this.socket || this.shared.size === 0 || this.refusal) return;
    this.status = "connecting";
    this.error = null;
    const socket = new WebSocket(`ws://127.0.0.1:${this.port}/extension`);
    this.socket = socket;
    socket.onmessage = (e) => this.onMessage(JSON.parse(e.data));
    socket.onclose = (e) => this.onClose(socket, e);
    this.changed();
  }

  disconnect(reason, code = 1000) {
    const socket = this.socket;
    this.socket = null;
    this.proving = null;
    this.pending = null;
    this.client = null;
    this.status = this.shared.size ? "waiting for a Sightline agent" : "idle";
    if (socket) {
      // (Its close event may not come for a socket no longer ours.)
      this.detachAll();
      socket.close(code, reason);
    }
  }

  /** Turns the bridge away; it is not asked again until the user shares anew. */
  refuse(reason, code) {
    this.disconnect(reason, code);
    this.refusal = reason;
    this.status = "refused";
    this.error = reason;
    this.changed();
  }

  detachAll() {
    for (const tabId of this.attached) chrome.debugger.detach({ tabId }).catch(() => {});
    this.attached.clear();
  }

  onClose(socket, event) {
    if (this.socket !== socket) return;
    this.socket = null;
    this.proving = null;
    this.detachAll();
    this.pending = null;
    this.client = null;
    // (The close code the browser reports is no guide: a bridge that does
    // not echo the close frame shows 1006. The refusal is remembered.)
    if (this.refusal) {
      this.status = "refused";
      this.error = this.refusal;
    } else {
      this.status = this.shared.size ? "waiting for a Sightline agent" : "idle";
      this.error = event.code === 1000 || event.code === 1005 || event.code === 1006 ? null : event.reason;
      // Keep looking for a bridge while tabs are shared (agents come and go).
      if (this.shared.size) this.retry = setTimeout(() => this.connect(), RETRY_MS);
    }
    this.changed();
  }

  send(message) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }

  async tabs() {
    const out = [];
    for (const tabId of this.shared) {
      const tab = await chrome.tabs.get(tabId).catch(() => null);
      if (!tab) continue;
      const opener = this.openers.get(tabId);
      out.push({
        tabId,
        url: tab.url || tab.pendingUrl || "",
        title: tab.title || "",
        ...(opener !== undefined && this.shared.has(opener) ? { openerTabId: opener } : {}),
      });
    }
    return out;
  }

  async sendTabs() {
    if (this.status === "connected") this.send({ type: "tabs", tabs: await this.tabs() });
  }

  async onMessage(m) {
    if (m.type === "hello") return this.onHello(m);
    if (m.type === "proven") return this.onProven(m);
    if (m.type === "refused") return this.refuse(String(m.reason || "the agent refused the connection"), 4001);
    if (this.status !== "connected") return;
    const reply = (result) => this.send({ type: "result", id: m.id, result: result ?? {} });
    const fail = (e) => this.send({ type: "result", id: m.id, error: String((e && e.message) || e) });
    if (!this.shared.has(m.tabId)) return fail(`tab ${m.tabId} is not shared with Sightline`);
    try {
      if (m.type === "attach") {
        if (!this.attached.has(m.tabId)) await chrome.debugger.attach({ tabId: m.tabId }, "1.3");
        this.attached.add(m.tabId);
        reply({});
      } else if (m.type === "detach") {
        if (this.attached.delete(m.tabId)) await chrome.debugger.detach({ tabId: m.tabId });
        reply({});
      } else if (m.type === "cdp") {
        const target = m.sessionId ? { tabId: m.tabId, sessionId: m.sessionId } : { tabId: m.tabId };
        reply(await chrome.debugger.sendCommand(target, m.method, m.params || {}));
      } else {
        fail(`unknown request ${m.type}`);
      }
    } catch (e) {
      fail(e);
    }
  }

  async onHello(hello) {
    // The name is the program's own word (any local program can dial the
    // port): one short line, and the prompt says it is unchecked.
    this.client = clientName(hello.client);
    if (hello.version !== PROTOCOL_VERSION) {
      return this.refuse(
        `the agent speaks bridge protocol ${hello.version}, the extension ${PROTOCOL_VERSION}: update the one that is older`,
        4002,
      );
    }
    if (hello.token === true && typeof hello.nonce === "string") {
      // The extension proves first: a process posing as the extension
      // cannot get a bridge's proof, nor anything that stands for the token.
      // (Sent on this socket: another may have replaced it meanwhile.)
      const socket = this.socket;
      const nonce = randomHex(16);
      const proving = { bridge: hello.nonce, nonce, port: this.port };
      this.proving = proving;
      const proof = await hmacHex(await this.token(), `extension\n${proving.port}\n${hello.nonce}\n${nonce}`);
      if (this.socket !== socket || this.proving !== proving) return;
      return this.send({ type: "prove", nonce, proof });
    }
    this.status = "waiting for your approval";
    this.pending = { client: this.client };
    this.changed();
  }

  /** The bridge's half of the proof: the token it was given is ours. */
  async onProven(m) {
    const proving = this.proving;
    this.proving = null;
    if (!proving) return;
    const want = await hmacHex(await this.token(), `bridge\n${proving.port}\n${proving.bridge}\n${proving.nonce}`);
    if (sameText(m.proof, want)) return this.approve(true);
    this.refuse("wrong token: the extension refused the connection", 4001);
  }

  /** The user pressed Allow (or the bridge proved it has the token, which
   * then is not sent: it has it). */
  async approve(proven = false) {
    this.pending = null;
    this.status = "connected";
    const token = proven ? {} : { token: await this.token() };
    this.send({ type: "ready", ...token, tabs: await this.tabs() });
    this.changed();
  }

  /** The user pressed Deny. */
  deny() {
    this.refuse("the user refused the connection in the Sightline extension", 4003);
  }

  onDebuggerEvent(source, method, params) {
    if (!this.shared.has(source.tabId)) return;
    this.send({ type: "event", tabId: source.tabId, sessionId: source.sessionId, method, params });
  }

  onDebuggerDetach(source, reason) {
    if (!this.attached.delete(source.tabId)) return;
    this.send({ type: "detached", tabId: source.tabId, reason });
  }
}
