// The extension's end of the bridge that lets a Sightline agent (`sightline
// agent --extension`, `sightline mcp --extension`) drive the tabs the user
// shares. The bridge (driver/src/bridge/) listens on 127.0.0.1; this
// connects to it while at least one tab is shared, and relays DevTools
// commands and events for those tabs, and only those, through
// chrome.debugger.
//
// Approval: the bridge says hello with the token it was given, if any. The
// extension's own token (made once, kept in chrome.storage.local) is
// approved at once; a wrong one is refused at once; none waits for the
// user to press Allow or Deny in the panel. Allowing hands the bridge the
// token, so its next connections need no asking.
//
// Wire format (JSON text frames), bridge → extension:
//   {type:"hello", client, token|null, version}
//   {type:"attach", id, tabId}      {type:"detach", id, tabId}
//   {type:"cdp", id, tabId, sessionId?, method, params}
// extension → bridge:
//   {type:"ready", token, tabs:[{tabId, url, title}]}    {type:"tabs", tabs}
//   {type:"result", id, result} | {type:"result", id, error}
//   {type:"event", tabId, sessionId?, method, params}    {type:"detached", tabId, reason}
// Refusals close the socket with code 4001 (wrong token) or 4003 (the user
// said no) and the reason as text.

export const PROTOCOL_VERSION = 1;
export const DEFAULT_PORT = 9224;
const RETRY_MS = 1000;

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
    chrome.debugger.onEvent.addListener((source, method, params) => this.onDebuggerEvent(source, method, params));
    chrome.debugger.onDetach.addListener((source, reason) => this.onDebuggerDetach(source, reason));
    chrome.tabs.onRemoved.addListener((tabId) => this.unshare(tabId));
    chrome.tabs.onUpdated.addListener((tabId, change) => {
      if (this.shared.has(tabId) && (change.url || change.title)) this.sendTabs();
    });
  }

  /** The token that approves a bridge without asking (made on first use). */
  async token() {
    const { bridgeToken } = await chrome.storage.local.get("bridgeToken");
    if (bridgeToken) return bridgeToken;
    // Hex: nothing a shell or a flag parser could misread (a leading "-").
    const bytes = crypto.getRandomValues(new Uint8Array(24));
    const made = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
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
    this.shared.add(tabId);
    if (port) this.port = port;
    if (this.socket && this.status === "connected") this.sendTabs();
    else this.connect();
    this.changed();
  }

  async unshare(tabId) {
    if (!this.shared.delete(tabId)) return;
    if (this.attached.delete(tabId)) await chrome.debugger.detach({ tabId }).catch(() => {});
    this.sendTabs();
    if (this.shared.size === 0) this.disconnect("no tab is shared");
    this.changed();
  }

  connect() {
    clearTimeout(this.retry);
    if (this.socket || this.shared.size === 0) return;
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
    if (socket) socket.close(code, reason);
  }

  onClose(socket, event) {
    if (this.socket === socket) this.socket = null;
    for (const tabId of this.attached) chrome.debugger.detach({ tabId }).catch(() => {});
    this.attached.clear();
    this.pending = null;
    this.client = null;
    if (event.code === 4001 || event.code === 4003) {
      this.status = "refused";
      this.error = event.reason;
    } else {
      this.status = this.shared.size ? "waiting for a Sightline agent" : "idle";
    }
    // Keep looking for a bridge while tabs are shared (agents come and go).
    if (this.shared.size) this.retry = setTimeout(() => this.connect(), RETRY_MS);
    this.changed();
  }

  send(message) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }

  async tabs() {
    const out = [];
    for (const tabId of this.shared) {
      const tab = await chrome.tabs.get(tabId).catch(() => null);
      if (tab) out.push({ tabId, url: tab.url || "", title: tab.title || "" });
    }
    return out;
  }

  async sendTabs() {
    if (this.status === "connected") this.send({ type: "tabs", tabs: await this.tabs() });
  }

  async onMessage(m) {
    if (m.type === "hello") return this.onHello(m);
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
    this.client = String(hello.client || "a Sightline agent");
    if (hello.version !== PROTOCOL_VERSION) {
      return this.disconnect(`the bridge speaks version ${hello.version}, the extension ${PROTOCOL_VERSION}`, 4002);
    }
    const token = await this.token();
    if (hello.token === token) return this.approve();
    if (hello.token) return this.disconnect("wrong token: the extension refused the connection", 4001);
    this.status = "waiting for your approval";
    this.pending = { client: this.client };
    this.changed();
  }

  /** The user pressed Allow (or the bridge had the token). */
  async approve() {
    this.pending = null;
    this.status = "connected";
    this.send({ type: "ready", token: await this.token(), tabs: await this.tabs() });
    this.changed();
  }

  /** The user pressed Deny. */
  deny() {
    this.pending = null;
    this.disconnect("the user refused the connection in the Sightline extension", 4003);
    this.changed();
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
