import type { EntryRec } from "../model/detail.js";
import { ByteRun } from "../io/byte-run.js";
import { toJson, openArrayMember } from "./json.js";
import { CHUNK_CHARS } from "./chunks.js";

/** `entries[i]` of `context --json`: the entry behind messages[i] and, for an edited message, the context_edit. */
interface ContextEntryRef {
  id: string | null;
  line: number;
  type: string;
  edit?: { id: string | null; line: number };
}

/** `context --json`. */
export interface ContextJson {
  file: string;
  /** null for a session without entries. */
  leaf: { id: string | null; line: number } | null;
  thinkingLevel?: string;
  model: unknown;
  messages: unknown[];
  entries: ContextEntryRef[];
}

/**
 * JSON.stringify's text of the ContextEntryRef of `rec` (and `edit`), written out: a million refs made a million
 * objects only to be serialized (on the chain of 1,000,000 entries 0.3 of 0.4 s).
 */
function entryRefJson(rec: EntryRec, edit: EntryRec | undefined): string {
  const id = (r: EntryRec): string => (r.id === undefined ? "null" : JSON.stringify(r.id));
  const own = `{"id":${id(rec)},"line":${rec.line},"type":${JSON.stringify(rec.type)}`;
  return edit ? `${own},"edit":{"id":${id(edit)},"line":${edit.line}}}` : `${own}}`;
}

/**
 * `context --json` and `--ndjson`: the document {"file","leaf","thinkingLevel","model","messages","entries"}, or
 * one message per line. Streamed in chunks: a context can be large. With `bytes`, the messages the caller has as bytes
 * the output writes as they are (contextReport's messageBytes) go out in chunks of bytes (with the separators between
 * them), copied as they come; the others, and the rest of the document, as text.
 */
export function* contextJsonChunks(
  file: string,
  leaf: EntryRec | null,
  ctx: { thinkingLevel: string; model: unknown },
  messages: readonly unknown[],
  sources: readonly EntryRec[],
  /** editedBy[i]: the context_edit that shaped messages[i], if any. */
  editedBy: readonly (EntryRec | undefined)[],
  asDocument: boolean,
  /** JSON.stringify's text of messages[i], where the caller has it at hand (contextReport's messageJson). */
  json: (i: number) => string | undefined = (i) => toJson(messages[i]),
  bytes?: (i: number) => Uint8Array | undefined,
): Generator<string | Uint8Array> {
  const run = bytes === undefined ? null : new ByteRun();
  if (!asDocument) {
    let buf = "";
    for (let i = 0; i < messages.length; i++) {
      const b = bytes?.(i);
      if (b !== undefined && run !== null) {
        if (buf !== "") yield buf;
        buf = "";
        const full = run.add("", b, "\n");
        if (full !== null) yield full;
        continue;
      }
      const ran = run?.take();
      if (ran) yield ran;
      buf += `${json(i)}\n`;
      if (buf.length > CHUNK_CHARS) {
        yield buf;
        buf = "";
      }
    }
    const ran = run?.take();
    if (ran) yield ran;
    yield buf;
    return;
  }
  const head = toJson({
    file,
    leaf: leaf && { id: leaf.id ?? null, line: leaf.line },
    thinkingLevel: ctx.thinkingLevel,
    model: ctx.model,
  });
  yield openArrayMember(head as string, "messages");
  let buf = "";
  for (let i = 0; i < messages.length; i++) {
    const b = bytes?.(i);
    if (b !== undefined && run !== null) {
      if (buf !== "") yield buf;
      buf = "";
      const full = run.add(i === 0 ? "" : ",", b);
      if (full !== null) yield full;
      continue;
    }
    const ran = run?.take();
    if (ran) yield ran;
    buf += (i === 0 ? "" : ",") + (json(i) ?? "null");
    if (buf.length > CHUNK_CHARS) {
      yield buf;
      buf = "";
    }
  }
  const ran = run?.take();
  if (ran) yield ran;
  yield buf;
  // JSON.stringify's text of the array, an item at a time (a million refs made one string and a million objects).
  buf = '],"entries":[';
  for (let i = 0; i < sources.length; i++) {
    buf += (i === 0 ? "" : ",") + entryRefJson(sources[i] as EntryRec, editedBy[i]);
    if (buf.length > CHUNK_CHARS) {
      yield buf;
      buf = "";
    }
  }
  yield `${buf}]}\n`;
}
