// A real MCP client (the npm @modelcontextprotocol/sdk) for Sightline's
// tests and `sightline bench mcp`, driven over JSON lines on stdin:
//
//   node client.mjs stdio <command> [args…]
//   node client.mjs http <url> [token]
//
// With MCP_CLIENT_ROOTS set (a JSON list of file:// URIs) the client
// declares roots and answers roots/list with them.
//
// Requests, one JSON object per line:
//   {"op":"list"}                          → {"tools":[{name,description,inputSchema}]}
//   {"op":"call","name":…,"args":{…}}      → {"isError","text","images","ms"}
//   {"op":"transcript"}                    → {"messages":[…every JSON-RPC message both ways…]}
//   {"op":"roots","roots":[uri…]}          → {"changed":true} (new roots, and roots/list_changed sent)
//   {"op":"close"}                         → {"closed":true}, then exit
// A failure of the client itself is answered {"error": "…"}.
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';
import path from 'node:path';
import url from 'node:url';

const here = path.dirname(url.fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../../.tools/package.json'));
const sdk = (p) => require.resolve(`@modelcontextprotocol/sdk/${p}`);
const { Client } = await import(sdk('client/index.js'));
const { StdioClientTransport } = await import(sdk('client/stdio.js'));
const { StreamableHTTPClientTransport } = await import(sdk('client/streamableHttp.js'));

const [mode, target, ...rest] = process.argv.slice(2);
let transport;
if (mode === 'stdio') {
  transport = new StdioClientTransport({ command: target, args: rest, stderr: 'inherit', env: process.env });
} else if (mode === 'http') {
  const headers = rest[0] ? { Authorization: `Bearer ${rest[0]}` } : {};
  transport = new StreamableHTTPClientTransport(new URL(target), { requestInit: { headers } });
} else {
  console.error('usage: client.mjs stdio <command> [args…] | http <url> [token]');
  process.exit(2);
}

// Every message, both ways, for transcript checks.
const messages = [];
const send = transport.send.bind(transport);
transport.send = (m, o) => {
  messages.push({ dir: 'out', m });
  return send(m, o);
};
let roots = process.env.MCP_CLIENT_ROOTS ? JSON.parse(process.env.MCP_CLIENT_ROOTS) : null;
const client = new Client(
  { name: 'sightline-tests', version: '1.0.0' },
  roots ? { capabilities: { roots: { listChanged: true } } } : {},
);
if (roots) {
  const { ListRootsRequestSchema } = await import(sdk('types.js'));
  client.setRequestHandler(ListRootsRequestSchema, async () => ({
    roots: roots.map((uri) => ({ uri, name: uri })),
  }));
}
const origOn = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(transport), 'onmessage');
let handler;
Object.defineProperty(transport, 'onmessage', {
  configurable: true,
  get: () => handler,
  set: (f) => {
    handler = (m, extra) => {
      messages.push({ dir: 'in', m });
      return f(m, extra);
    };
  },
});
void origOn;

const out = (v) => process.stdout.write(JSON.stringify(v) + '\n');
try {
  await client.connect(transport);
} catch (e) {
  out({ error: `connect: ${e.message}` });
  process.exit(1);
}
out({ ready: true, protocolVersion: transport.protocolVersion ?? null, server: client.getServerVersion() });

const rl = createInterface({ input: process.stdin });
for await (const line of rl) {
  if (!line.trim()) continue;
  let req;
  try {
    req = JSON.parse(line);
  } catch (e) {
    out({ error: `bad request line: ${e.message}` });
    continue;
  }
  try {
    if (req.op === 'list') {
      const r = await client.listTools();
      out({ tools: r.tools });
    } else if (req.op === 'call') {
      const t0 = performance.now();
      const r = await client.callTool({ name: req.name, arguments: req.args ?? {} }, undefined, { timeout: 300000 });
      const ms = performance.now() - t0;
      const text = (r.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
      const images = (r.content ?? []).filter((c) => c.type === 'image').length;
      out({ isError: !!r.isError, text, images, ms });
    } else if (req.op === 'roots') {
      roots = req.roots;
      await client.sendRootsListChanged();
      out({ changed: true });
    } else if (req.op === 'transcript') {
      out({ messages });
    } else if (req.op === 'close') {
      await client.close();
      out({ closed: true });
      process.exit(0);
    } else {
      out({ error: `unknown op ${req.op}` });
    }
  } catch (e) {
    out({ error: `${req.op}: ${e.message}` });
  }
}
await client.close();
