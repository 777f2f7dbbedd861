import type { EntryRec } from "../model/types.js";

/**
 * `context --json` and `--ndjson`: the document {"file","leaf","thinkingLevel","model","messages","entries"}, or
 * one message per line. Streamed in chunks: a context can be large.
 */
export function* contextJsonChunks(
  file: string,
  leaf: EntryRec,
  ctx: { thinkingLevel: string; model: unknown },
  messages: readonly unknown[],
  sources: readonly EntryRec[],
  asDocument: boolean,
): Generator<string> {
  if (!asDocument) {
    for (const m of messages) yield JSON.stringify(m) + "\n";
    return;
  }
  const head = JSON.stringify({ file, leaf: { id: leaf.id ?? null, line: leaf.line }, thinkingLevel: ctx.thinkingLevel, model: ctx.model });
  yield head.slice(0, -1) + ',"messages":[';
  let buf = "";
  for (let i = 0; i < messages.length; i++) {
    buf += (i === 0 ? "" : ",") + (JSON.stringify(messages[i]) ?? "null");
    if (buf.length > 1 << 16) {
      yield buf;
      buf = "";
    }
  }
  yield buf;
  yield '],"entries":';
  yield JSON.stringify(sources.map((r) => ({ id: r.id ?? null, line: r.line, type: r.type })));
  yield "}\n";
}
