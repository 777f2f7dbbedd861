import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { turnUsage } from "./small-session.js";

/**
 * Hostile session files for the terminal tests (term-*.test.ts): a marker escape in every string field of every
 * entry type, header fields, ids, timestamps, keys and the file name too. Written at test time into a temporary
 * folder: a file name holding ESC and BEL is no file to keep in git.
 */

/** An OSC 52 clipboard write and a right-to-left mark: what no terminal output may carry raw. */
export const MARK = "\u001b]52;c;PWNED\u0007\u200f";

const USAGE = turnUsage({ input: 0.1, output: 0.1, total: 0.2 }, { input: 1, output: 1 });

/** Every entry type pi writes (and an unknown one), every string field MARK; one root, two leaves. */
function entries(M: string): Record<string, unknown>[] {
  const id = (n: number): string => `e${n}${M}`;
  const out: Record<string, unknown>[] = [];
  let prev: string | null = null;
  const add = (o: Record<string, unknown>, parent: string | null = prev): void => {
    const n = out.length + 1;
    // Every fifth entry has MARK for its timestamp; the others a valid one.
    const timestamp = n % 5 === 2 ? M : `2025-01-01T10:${String(n).padStart(2, "0")}:00.000Z`;
    const e = { id: id(n), parentId: parent, timestamp, ...o };
    prev = e.id;
    out.push(e);
  };
  add({ type: "model_change", provider: M, modelId: M });
  add({ type: "thinking_level_change", thinkingLevel: M });
  add({ type: "message", message: { role: "user", content: `hi ${M}`, timestamp: 1 } });
  add({
    type: "message",
    message: {
      role: "user",
      content: [
        { type: "text", text: M },
        { type: "image", data: "aGk=", mimeType: M },
      ],
      timestamp: 1,
    },
  });
  add({
    type: "message",
    message: {
      role: "assistant",
      content: [
        { type: "thinking", thinking: M, thinkingSignature: M },
        { type: "text", text: M },
        { type: "toolCall", id: `c1${M}`, name: M, arguments: { [M]: M, path: M } },
        { type: "toolCall", id: `c2${M}`, name: "edit", arguments: { path: M, oldText: M, newText: M } },
      ],
      api: M,
      provider: M,
      model: M,
      usage: USAGE,
      stopReason: M,
      errorMessage: M,
      responseModel: M,
      timestamp: 2,
    },
  });
  add({
    type: "message",
    message: {
      role: "toolResult",
      toolCallId: `c1${M}`,
      toolName: M,
      content: [{ type: "text", text: M }],
      details: { [M]: M },
      isError: false,
      timestamp: 3,
    },
  });
  add({
    type: "message",
    message: {
      role: "bashExecution",
      command: M,
      output: M,
      exitCode: 0,
      cancelled: false,
      truncated: false,
      fullOutputPath: M,
      timestamp: 4,
    },
  });
  add({ type: "message", message: { role: "custom", customType: M, content: M, display: true, details: { [M]: M }, timestamp: 5 } });
  add({
    type: "message",
    message: { role: "system", content: M, sections: { [M]: M }, toolsAdded: [{ name: M, description: M, parameters: {} }], timestamp: 5 },
  });
  add({ type: "message", message: { role: "branchSummary", summary: M, fromId: id(3), timestamp: 5 } });
  add({ type: "message", message: { role: "compactionSummary", summary: M, tokensBefore: 3, timestamp: 5 } });
  add({ type: "message", message: { role: M, content: M, timestamp: 5 } });
  add({ type: "custom", customType: M, data: { [M]: M } });
  add({ type: "custom_message", customType: M, content: [{ type: "text", text: M }], display: true, details: { [M]: M } });
  add({ type: "compaction", summary: M, firstKeptEntryId: id(4), tokensBefore: 10, details: { [M]: M } });
  add({ type: "branch_summary", fromId: id(3), summary: M, details: { [M]: M } });
  add({ type: "label", targetId: id(4), label: M });
  add({ type: "label", targetId: M, label: M });
  add({ type: "session_info", name: M });
  add({ type: "usage", kind: M, provider: M, model: M, usage: USAGE, note: M });
  add({ type: "context_edit", targetId: id(5), replacement: { content: M } });
  add({ type: M, [M]: M });
  add({ type: "message", message: { role: "user", content: `second ${M}`, timestamp: 9 } });
  const fork = prev;
  const answer = (text: string) => ({
    type: "message",
    message: {
      role: "assistant",
      content: [{ type: "text", text }],
      api: M,
      provider: M,
      model: M,
      usage: USAGE,
      stopReason: "stop",
      timestamp: 9,
    },
  });
  add(answer(M));
  // A second branch from the same user message: two leaves (diff --leaves, leaves), its leaf's timestamp MARK.
  add(answer(`other ${M}`), fork);
  (out[out.length - 1] as Record<string, unknown>).timestamp = M;
  return out;
}

/** Writes the hostile session, `mark` in every string (and a copy, for two-file commands), under `dir`: their paths. */
export function hostileFiles(dir: string, mark = MARK): { file: string; other: string; folder: string } {
  const folder = join(dir, `proj${mark}`);
  mkdirSync(folder, { recursive: true });
  const header = {
    type: "session",
    version: 3,
    id: `0194aaaa${mark}`,
    timestamp: mark,
    cwd: `/home/${mark}`,
    parentSession: `/tmp/${mark}.jsonl`,
  };
  const text = `${[header, ...entries(mark)].map((l) => JSON.stringify(l)).join("\n")}\n`;
  const file = join(folder, `s${mark}.jsonl`);
  const other = join(folder, `t${mark}.jsonl`);
  writeFileSync(file, text);
  writeFileSync(other, text.replace(/second /g, "changed "));
  return { file, other, folder };
}
