// Shortens the names under which the engine's WebAssembly module imports
// its JS functions, in the module and in the wasm-bindgen glue alike.
//
// Why: wasm-bindgen names each import `__wbg_<method>_<16 hex digits>` in a
// module called "./sightline_engine_bg.js", and the engine has ~175 of them:
// ~10.7 KB of the .wasm (which has a 250,000-byte budget) went to import
// names alone. One- and two-letter names in a module called "m" take ~1.2 KB.
// Nothing changes at run time: the glue hands the same functions over under
// the short names.

const SECTION_IMPORT = 2;
const MODULE = "m";

function readLeb(bytes, at) {
  let value = 0;
  let shift = 0;
  for (;;) {
    const b = bytes[at++];
    value += (b & 0x7f) * 2 ** shift;
    shift += 7;
    if (b < 0x80) return [value, at];
  }
}

function leb(value) {
  const out = [];
  do {
    let b = value % 128;
    value = Math.floor(value / 128);
    if (value > 0) b |= 0x80;
    out.push(b);
  } while (value > 0);
  return out;
}

function name(text) {
  const utf8 = Buffer.from(text, "utf8");
  return [...leb(utf8.length), ...utf8];
}

function readName(bytes, at) {
  const [len, start] = readLeb(bytes, at);
  return [bytes.subarray(start, start + len).toString("utf8"), start + len];
}

// The bytes of one import's description (after its kind byte) end here.
function skipDescription(bytes, kind, at) {
  const limits = (p) => {
    const flags = bytes[p++];
    [, p] = readLeb(bytes, p);
    if (flags & 1) [, p] = readLeb(bytes, p);
    return p;
  };
  switch (kind) {
    case 0: return readLeb(bytes, at)[1]; // function: type index
    case 1: return limits(at + 1); // table: element type, limits
    case 2: return limits(at); // memory: limits
    case 3: return at + 2; // global: value type, mutability
    case 4: return readLeb(bytes, at + 1)[1]; // tag: attribute, type index
    default: throw new Error(`unknown import kind ${kind}`);
  }
}

// a…z, A…Z, then two letters: short names in import order.
function shortName(i) {
  const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  let s = "";
  do {
    s = letters[i % letters.length] + s;
    i = Math.floor(i / letters.length) - 1;
  } while (i >= 0);
  return s;
}

/**
 * @param {Buffer} wasm the module wasm-bindgen wrote
 * @param {string} glue its no-modules glue
 * @returns {{wasm: Buffer, glue: string}} both with short import names
 */
export function shortenImports(wasm, glue) {
  const out = [wasm.subarray(0, 8)];
  const renames = new Map();
  let at = 8;
  while (at < wasm.length) {
    const id = wasm[at];
    const [size, body] = readLeb(wasm, at + 1);
    const end = body + size;
    if (id !== SECTION_IMPORT) {
      out.push(wasm.subarray(at, end));
      at = end;
      continue;
    }
    let [count, p] = readLeb(wasm, body);
    const section = [...leb(count)];
    for (let i = 0; i < count; i++) {
      let module, field;
      [module, p] = readName(wasm, p);
      [field, p] = readName(wasm, p);
      const kind = wasm[p];
      const next = skipDescription(wasm, kind, p + 1);
      let short = renames.get(`${module}\0${field}`);
      if (short === undefined) {
        short = shortName(renames.size);
        renames.set(`${module}\0${field}`, short);
      }
      section.push(...name(MODULE), ...name(short), ...wasm.subarray(p, next));
      p = next;
    }
    out.push(Buffer.from([SECTION_IMPORT, ...leb(section.length), ...section]));
    at = end;
  }
  const modules = new Set([...renames.keys()].map((k) => k.split("\0")[0]));
  for (const module of modules) {
    glue = replaceOnce(glue, `${JSON.stringify(module)}: import0,`, `${JSON.stringify(MODULE)}: import0,`);
  }
  if (modules.size !== 1) throw new Error(`expected one import module, found ${[...modules].join(", ")}`);
  for (const [key, short] of renames) {
    const field = key.split("\0")[1];
    glue = replaceOnce(glue, `\n            ${field}: function(`, `\n            ${short}: function(`);
  }
  return { wasm: Buffer.concat(out), glue };
}

// The glue is generated: each name must appear exactly once where expected,
// or the bundle would silently break.
function replaceOnce(text, from, to) {
  const first = text.indexOf(from);
  if (first < 0 || text.indexOf(from, first + 1) >= 0) {
    throw new Error(`the wasm-bindgen glue does not have exactly one ${JSON.stringify(from.trim())}`);
  }
  return text.slice(0, first) + to + text.slice(first + from.length);
}
