import fc from "fast-check";
import { int, oddString, pick, rng, type Rng } from "./rng.js";

/**
 * One edit of a session file. Every number is a free parameter reduced modulo what it indexes when applied, so
 * fast-check can shrink it toward 0 (the start of the file, the first line) and the edit stays valid.
 */
export type Mutation =
  | { k: "flip"; at: number; bit: number }
  | { k: "byte"; at: number; value: number }
  | { k: "truncate"; at: number }
  | { k: "dupLine"; line: number; to: number }
  | { k: "delLine"; line: number }
  | { k: "swapLines"; a: number; b: number }
  | { k: "rewire"; line: number; target: number; how: number }
  | { k: "field"; line: number; key: number; value: number; seed: number }
  | { k: "huge"; line: number; size: number; seed: number }
  | { k: "deep"; line: number; depth: number; seed: number }
  | { k: "unicode"; line: number; seed: number }
  | { k: "rawBytes"; at: number; seed: number }
  | { k: "hostile"; line: number; marker: number; all: boolean };

export interface MutationLimits {
  maxMutations: number;
  maxHuge: number;
  maxDepth: number;
}

export function mutationArb(lim: MutationLimits): fc.Arbitrary<Mutation[]> {
  const n = fc.nat();
  const seed = fc.nat();
  const one: fc.Arbitrary<Mutation> = fc.oneof(
    fc.record({ k: fc.constant("flip" as const), at: n, bit: fc.integer({ min: 0, max: 7 }) }),
    fc.record({ k: fc.constant("byte" as const), at: n, value: fc.integer({ min: 0, max: 255 }) }),
    fc.record({ k: fc.constant("truncate" as const), at: n }),
    fc.record({ k: fc.constant("dupLine" as const), line: n, to: n }),
    fc.record({ k: fc.constant("delLine" as const), line: n }),
    fc.record({ k: fc.constant("swapLines" as const), a: n, b: n }),
    fc.record({ k: fc.constant("rewire" as const), line: n, target: n, how: fc.integer({ min: 0, max: 9 }) }),
    fc.record({ k: fc.constant("field" as const), line: n, key: n, value: n, seed }),
    fc.record({ k: fc.constant("huge" as const), line: n, size: fc.integer({ min: 1, max: lim.maxHuge }), seed }),
    fc.record({ k: fc.constant("deep" as const), line: n, depth: fc.integer({ min: 1, max: lim.maxDepth }), seed }),
    fc.record({ k: fc.constant("unicode" as const), line: n, seed }),
    fc.record({ k: fc.constant("rawBytes" as const), at: n, seed }),
    fc.record({ k: fc.constant("hostile" as const), line: n, marker: n, all: fc.boolean() }),
  );
  return fc.array(one, { minLength: 1, maxLength: lim.maxMutations });
}

/** Lines as byte buffers without their "\n" (a "\r" stays: CRLF files stay CRLF). */
export function splitLines(buf: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let start = 0;
  for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, start)) {
    out.push(buf.subarray(start, i));
    start = i + 1;
  }
  out.push(buf.subarray(start));
  return out;
}

export function joinLines(lines: Buffer[]): Buffer {
  const parts: Buffer[] = [];
  lines.forEach((l, i) => {
    if (i > 0) parts.push(Buffer.from("\n"));
    parts.push(l);
  });
  return Buffer.concat(parts);
}

/** The base a case starts from: the header line plus a window of the corpus file's lines (small files run fast). */
export function baseSlice(buf: Buffer, start: number, keep: number | null): Buffer {
  if (keep === null) return buf;
  const lines = splitLines(buf);
  const body = lines.slice(1);
  const s = body.length ? start % body.length : 0;
  return joinLines([...lines.slice(0, 1), ...body.slice(s, s + keep)]);
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

function parseLine(line: Buffer): { obj: Obj; cr: boolean; bom: boolean } | null {
  let text = line.toString("utf8");
  const bom = text.startsWith("\ufeff");
  if (bom) text = text.slice(1);
  const cr = text.endsWith("\r");
  if (cr) text = text.slice(0, -1);
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === "object" && !Array.isArray(v) ? { obj: v as Obj, cr, bom } : null;
  } catch {
    return null;
  }
}

class Tok {
  constructor(readonly s: string) {}
}

/** JSON.stringify without recursion: a value thousands of levels deep would overflow the real one. */
export function stringify(value: Json): string {
  const out: string[] = [];
  const stack: Array<Json | Tok> = [value];
  while (stack.length) {
    const x = stack.pop() as Json | Tok;
    if (x instanceof Tok) out.push(x.s);
    else if (x === null || typeof x !== "object") out.push(JSON.stringify(x));
    else if (Array.isArray(x)) {
      stack.push(new Tok("]"));
      for (let i = x.length - 1; i >= 0; i--) stack.push(x[i] as Json, new Tok(i ? "," : ""));
      stack.push(new Tok("["));
    } else {
      const keys = Object.keys(x);
      stack.push(new Tok("}"));
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i] as string;
        stack.push(x[k] as Json, new Tok(`${i ? "," : ""}${JSON.stringify(k)}:`));
      }
      stack.push(new Tok("{"));
    }
  }
  return out.join("");
}

function writeLine(p: { obj: Obj; cr: boolean; bom: boolean }): Buffer {
  return Buffer.from(`${p.bom ? "\ufeff" : ""}${stringify(p.obj)}${p.cr ? "\r" : ""}`, "utf8");
}

function idsOf(lines: Buffer[]): string[] {
  const ids: string[] = [];
  for (const l of lines) {
    const m = /"id":"([^"\\]*)"/.exec(l.toString("utf8"));
    if (m?.[1] !== undefined) ids.push(m[1]);
  }
  return ids;
}

/** Where in an entry a value goes: the place the commands read most (message content, summaries, arguments). */
function targetObject(obj: Obj): Obj {
  const msg = obj.message;
  if (msg && typeof msg === "object" && !Array.isArray(msg)) return msg;
  return obj;
}

const FIELD_KEYS = [
  "type",
  "id",
  "parentId",
  "timestamp",
  "role",
  "content",
  "firstKeptEntryId",
  "firstKeptEntryIndex",
  "targetId",
  "label",
  "fromId",
  "summary",
  "version",
  "cwd",
  "parentSession",
  "branchedFrom",
  "usage",
  "stopReason",
  "toolCallId",
  "name",
  "customType",
  "display",
  "tokensBefore",
  "provider",
  "modelId",
  "thinkingLevel",
  "details",
  "command",
];
const TYPES = [
  "session",
  "message",
  "compaction",
  "branch_summary",
  "label",
  "custom",
  "custom_message",
  "model_change",
  "thinking_level_change",
  "session_info",
  "context_edit",
  "bogus",
  "",
];
const ROLES = [
  "user",
  "assistant",
  "toolResult",
  "bashExecution",
  "custom",
  "system",
  "compactionSummary",
  "branchSummary",
  "hookMessage",
  "x",
];

function oddValue(r: Rng, key: string, ids: string[]): Json {
  switch (int(r, 16)) {
    case 0:
      return null;
    case 1:
      return int(r, 3) - 1;
    case 2:
      return pick(r, [1e308, -0, 1.5, 2 ** 53 + 2, -1e-300]);
    case 3:
      return "";
    case 4:
      return [];
    case 5:
      return {};
    case 6:
      return ids.length ? pick(r, ids) : "x";
    case 7:
      return oddString(r, 12);
    case 8:
      return pick(r, TYPES);
    case 9:
      return pick(r, ROLES);
    case 10:
      return pick(r, ["2025-13-45T99:99:99Z", "not a date", "1970-01-01T00:00:00.000Z", "+275760-09-13T00:00:00.000Z", 0]);
    case 11:
      return [
        { type: "text", text: oddString(r, 8) },
        { type: "toolCall", id: pick(r, [...ids, "c"]), name: oddString(r, 4), arguments: null },
      ];
    case 12:
      return { cost: { total: "NaN" }, input: -1, output: Number.MAX_SAFE_INTEGER };
    case 13:
      return key === "version" ? pick(r, [0, 1, 2, 3, 4, 99, "3"]) : true;
    case 14:
      return ids.length ? pick(r, ids).slice(0, 1 + int(r, 3)) : "";
    default:
      return [pick(r, ids.length ? ids : ["x"])];
  }
}

function deepValue(r: Rng, depth: number): Json {
  // Built bottom-up: no recursion, so any depth is fine here.
  let v: Json = r() < 0.5 ? "leaf" : 1;
  const arrays = r() < 0.5;
  for (let i = 0; i < depth; i++) v = arrays ? [v] : { a: v };
  return v;
}

/**
 * What an attacker puts in a session's strings: an OSC 52 clipboard write, a screen clear, bidi marks, a bare CR,
 * raw HTML for the Markdown and HTML outputs, a lone surrogate.
 */
export const HOSTILE = [
  "\u001b]52;c;UFdORUQ=\u0007",
  "\u001b[2J\u001b[H",
  "\u200f\u202e",
  "\r",
  "x\ry",
  '<img src=x onerror="alert(1)">',
  "\ud800",
  "\u009b31m",
] as const;

/** Keys whose values decide how an entry is read: spared half of the time, so the marked content is still shown. */
const STRUCTURAL = new Set(["type", "role", "version"]);

/** Appends `marker` to every string of a JSON value (keys stay; `spare`: not under STRUCTURAL keys), without recursion. */
function markStrings(value: Json, marker: string, spare: boolean): Json {
  const root: { v: Json } = { v: value };
  const stack: Array<[Record<string, Json> | Json[], string | number]> = [[root as unknown as Record<string, Json>, "v"]];
  while (stack.length) {
    const [holder, key] = stack.pop() as [Record<string, Json> | Json[], string | number];
    const v = (holder as Record<string | number, Json>)[key] as Json;
    if (typeof v === "string") (holder as Record<string | number, Json>)[key] = v + marker;
    else if (Array.isArray(v)) for (let i = 0; i < v.length; i++) stack.push([v, i]);
    else if (v && typeof v === "object") for (const k of Object.keys(v)) if (!(spare && STRUCTURAL.has(k))) stack.push([v, k]);
  }
  return root.v;
}

function applyOne(buf: Buffer, m: Mutation): Buffer {
  if (m.k === "flip" || m.k === "byte") {
    if (buf.length === 0) return buf;
    const out = Buffer.from(buf);
    const at = m.at % out.length;
    out[at] = m.k === "flip" ? (out[at] ?? 0) ^ (1 << m.bit) : m.value;
    return out;
  }
  if (m.k === "truncate") return buf.subarray(0, buf.length ? m.at % (buf.length + 1) : 0);
  if (m.k === "rawBytes") {
    const r = rng(m.seed);
    const bytes = Buffer.from(
      Array.from({ length: 1 + int(r, 6) }, () =>
        pick(r, [0, 1, 0x1b, 0x0d, 0x0a, 0x7f, 0x80, 0xc0, 0xed, 0xa0, 0xff, 0xfe, 0xef, 0xbb, 0xbf, 0x22, 0x5c, 0x7b, 0x7d]),
      ),
    );
    const at = m.at % (buf.length + 1);
    return Buffer.concat([buf.subarray(0, at), bytes, buf.subarray(at)]);
  }
  const lines = splitLines(buf);
  const n = lines.length;
  const at = (x: number): number => x % n;
  if (m.k === "hostile") {
    // The same marker on every string of every line keeps ids and parent links intact, so every field reaches output.
    const marker = HOSTILE[m.marker % HOSTILE.length] as string;
    const spare = Math.floor(m.marker / HOSTILE.length) % 2 === 0;
    for (const i of m.all ? lines.keys() : [at(m.line)]) {
      const p = parseLine(lines[i] ?? Buffer.alloc(0));
      if (!p) continue;
      p.obj = markStrings(p.obj, marker, spare) as Obj;
      lines[i] = writeLine(p);
    }
    return joinLines(lines);
  }
  if (m.k === "dupLine") {
    const l = lines[at(m.line)] ?? Buffer.alloc(0);
    lines.splice(m.to % (n + 1), 0, l);
    return joinLines(lines);
  }
  if (m.k === "delLine") {
    lines.splice(at(m.line), 1);
    return joinLines(lines);
  }
  if (m.k === "swapLines") {
    const a = at(m.a);
    const b = at(m.b);
    const la = lines[a] ?? Buffer.alloc(0);
    lines[a] = lines[b] ?? Buffer.alloc(0);
    lines[b] = la;
    return joinLines(lines);
  }
  const i = at(m.line);
  const line = lines[i];
  const p = line ? parseLine(line) : null;
  if (!p) return buf;
  const ids = idsOf(lines);
  const o = p.obj;
  switch (m.k) {
    case "rewire": {
      const other = ids.length ? (ids[m.target % ids.length] ?? null) : null;
      const self = typeof o.id === "string" ? o.id : null;
      switch (m.how) {
        case 0:
          o.parentId = other;
          break; // any other entry, often a descendant: cycles
        case 1:
          o.parentId = self;
          break; // self-parent
        case 2:
          o.parentId = null;
          break; // a second root
        case 3:
          delete o.parentId;
          break;
        case 4:
          o.parentId = `${other ?? "x"}-missing`;
          break; // dangling
        case 5:
          o.id = other;
          break; // duplicate id
        case 6:
          delete o.id;
          break;
        case 7:
          o.parentId = (other ?? "").slice(0, 2);
          break; // a prefix of an id, not an id
        case 8:
          o.parentId = m.target;
          break; // a number
        default:
          o.id = "";
          break;
      }
      break;
    }
    case "field": {
      const r = rng(m.seed);
      const key = FIELD_KEYS[m.key % FIELD_KEYS.length] ?? "type";
      const into =
        key === "role" || key === "content" || key === "usage" || key === "stopReason" || key === "toolCallId" ? targetObject(o) : o;
      into[key] = oddValue(rng(m.value ^ m.seed), key, ids);
      if (r() < 0.2) delete into[key];
      break;
    }
    case "huge": {
      const r = rng(m.seed);
      const into = targetObject(o);
      if (r() < 0.7) {
        const s = r() < 0.5 ? "x".repeat(m.size) : `${"line\n".repeat(Math.ceil(m.size / 5))}`.slice(0, m.size);
        if (typeof into.content === "string" || r() < 0.5) into.content = s;
        else into.content = [{ type: "text", text: s }];
      } else {
        into.content = Array.from({ length: Math.ceil(m.size / 40) }, (_, k) => ({ type: "text", text: `t${k}` }));
      }
      break;
    }
    case "deep": {
      const r = rng(m.seed);
      const into = targetObject(o);
      const key = pick(r, ["content", "details", "arguments", "usage", "extra"]);
      into[key] = deepValue(r, m.depth);
      break;
    }
    case "unicode": {
      const r = rng(m.seed);
      const into = targetObject(o);
      const s = oddString(r, 24);
      const keys = Object.keys(into).filter((k) => typeof into[k] === "string");
      const key = keys.length && r() < 0.8 ? pick(r, keys) : pick(r, ["content", "label", "summary", "name", "customType"]);
      const old = into[key];
      into[key] = typeof old === "string" && r() < 0.5 ? old.slice(0, int(r, old.length + 1)) + s : s;
      break;
    }
  }
  lines[i] = writeLine(p);
  return joinLines(lines);
}

/** Applies the mutations in order; deterministic: the same base and list give the same bytes. */
export function applyMutations(buf: Buffer, muts: readonly Mutation[]): Buffer {
  let out = buf;
  for (const m of muts) out = applyOne(out, m);
  return out;
}
