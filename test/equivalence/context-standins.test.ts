import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import type { Session } from "../../src/model/session.js";
import type { EntryRec } from "../../src/model/detail.js";
import { describeContextStream } from "../../src/render/context-display.js";
import { contextJsonChunks } from "../../src/render/context-json.js";
import { contextMarkdown } from "../../src/render/context-markdown.js";
import { contextText } from "../../src/render/context-text.js";
import { makeStyle } from "../../src/render/style.js";
import { contextReport } from "../../src/reports/context.js";
import { openSession } from "../../src/reports/open.js";
import { ROOT, sessionFiles } from "../support/helpers.js";
import { expectEqual, expectSame } from "../support/expect-fast.js";

/**
 * `context --json` holds stand-ins for messages it writes from their lines (contextReport's `output: "json"`). They must
 * not change a byte: here each fixture's context JSON, document and NDJSON, at many leaves, is compared with the
 * one written from a full load's messages, serialized whole (contextJsonChunks' own default, no line slicing), and
 * the problems reported with them.
 */

const files = sessionFiles(join(ROOT, "fixtures")).map((f) => relative(ROOT, f));

async function tryOpen(file: string, detail: "skeleton" | "full"): Promise<Session | null> {
  try {
    return await openSession(file, { detail });
  } catch {
    return null;
  }
}

/** Every entry of a small file; of a larger one, 12 tips and 12 entries spread over it (a path per leaf is quadratic). */
function leavesOf(session: Session): string[] {
  const all = session.entries as readonly EntryRec[];
  if (all.length <= 24) return ["leaf", ...all.map((r) => `@${r.line}`)];
  const parents = new Set(all.map((r) => r.parentId));
  const tips = all.filter((r) => r.id !== undefined && !parents.has(r.id)).slice(0, 12);
  const spread = Array.from({ length: 12 }, (_, k) => all[Math.floor(((k + 1) * all.length) / 13)] as EntryRec);
  return ["leaf", ...[...tips, ...spread].map((r) => `@${r.line}`)];
}

interface Written {
  messages: readonly unknown[];
  doc: string;
  nd: string;
  problems: unknown;
  diagnostics: unknown;
  code: number;
}

function written(session: Session, leaf: string, jsonOnly: boolean): Written {
  const r = jsonOnly ? contextReport(session, { leaf, output: "json" }) : contextReport(session, { leaf });
  const c = r.data.context;
  const json = c !== null && "messageJson" in c ? c.messageJson : undefined;
  // The messages it has as plain bytes too, as the command writes them (chunks of bytes among the text).
  const bytes = c !== null && "messageBytes" in c ? c.messageBytes : undefined;
  const out = (doc: boolean): string =>
    c === null
      ? ""
      : Buffer.concat(
          [...contextJsonChunks(session.file, r.data.leaf, c.context, c.messages, c.sources, c.editedBy, doc, json, bytes)].map((chunk) =>
            typeof chunk === "string" ? Buffer.from(chunk) : chunk,
          ),
        ).toString("utf8");
  return {
    messages: c?.messages ?? [],
    doc: out(true),
    nd: out(false),
    problems: r.data.problems,
    diagnostics: r.diagnostics,
    code: r.exitCode,
  };
}

/**
 * The text and Markdown output hold stand-ins too (contextReport's `output: "text"`), each read again from its line
 * when shown: the same bytes as the display of a full load's messages, with every display option. The stream is
 * taken once (as the command takes it) and both renderings are made from the items it gave.
 */
function shown(session: Session, leaf: string, displayOnly: boolean, opts: { thinking: boolean; showEdits: boolean }) {
  const display = { thinking: opts.thinking, maxOutput: 3, showEdits: opts.showEdits };
  const r = displayOnly ? contextReport(session, { leaf, output: "text" }) : contextReport(session, { leaf });
  const c = r.data.context;
  const d = c && r.data.leaf ? describeContextStream(session.file, r.data.leaf, c, display) : undefined;
  const taken = d ? { ...d, items: [...d.items] } : undefined;
  return {
    messages: r.data.context?.messages ?? [],
    text: taken ? [...contextText(taken, { style: makeStyle(false) })].join("") : "",
    md: taken ? [...contextMarkdown(taken)].join("") : "",
    problems: r.data.problems,
    diagnostics: r.diagnostics,
    code: r.exitCode,
  };
}

/**
 * The full load is the reference: its lines are decoded once, not at every leaf and option (the reports re-read a
 * path's messages from the file each time; the stand-ins under test, in the lean load, still do).
 */
function decodeOnce(session: Session): void {
  const raw = session.store.rawLine.bind(session.store);
  const lines = new Map<EntryRec, string>();
  session.store.rawLine = (rec) => {
    let text = lines.get(rec);
    if (text === undefined) {
      text = raw(rec);
      lines.set(rec, text);
    }
    return text;
  };
}

/** Whether any message differs from the full load's (a stand-in); a message too deep to serialize counts as equal. */
function anyDiffers(got: readonly unknown[], want: readonly unknown[]): boolean {
  return got.some((m, i) => {
    try {
      return JSON.stringify(m) !== JSON.stringify(want[i]);
    } catch {
      return false;
    }
  });
}

const DISPLAY_OPTIONS = [
  { thinking: true, showEdits: false },
  { thinking: false, showEdits: true },
];

describe("context: stand-in messages write and show the same bytes as the messages of a full load", () => {
  const standInsSeen = { json: 0, display: 0 };
  /**
   * The last test asks for more than STAND_INS_WANTED leaves of each kind: past that, another leaf counted changes
   * nothing, and serializing every message of every leaf to tell was a tenth of this file's time.
   */
  const STAND_INS_WANTED = 100;

  it.each(files)("%s", async (f) => {
    const lean = await tryOpen(f, "skeleton");
    const full = await tryOpen(f, "full");
    expect(lean === null).toBe(full === null);
    if (lean === null || full === null) return;
    decodeOnce(full);
    try {
      for (const leaf of leavesOf(full)) {
        let want: Written;
        try {
          want = written(full, leaf, false);
        } catch (err) {
          // A leaf the report refuses (an ambiguous or missing one) must be refused alike, in every output.
          expect(() => written(lean, leaf, true), `${f} ${leaf}`).toThrow((err as Error).message);
          continue;
        }
        const got = written(lean, leaf, true);
        expectSame(got.doc, want.doc, `${f} ${leaf} --json`);
        expectSame(got.nd, want.nd, `${f} ${leaf} --ndjson`);
        expectEqual(got.problems, want.problems, `${f} ${leaf} problems`);
        expectEqual(got.diagnostics, want.diagnostics, `${f} ${leaf} diagnostics`);
        expectSame(got.code, want.code, `${f} ${leaf} exit`);
        // Counts the leaves whose messages really were stand-ins (the last test checks there were some).
        if (standInsSeen.json <= STAND_INS_WANTED && anyDiffers(got.messages, want.messages)) standInsSeen.json++;
        for (const opts of DISPLAY_OPTIONS) {
          let wantShown: ReturnType<typeof shown>;
          try {
            wantShown = shown(full, leaf, false, opts);
          } catch (err) {
            // The display can refuse where the JSON did not (a value too deep to show): refused alike.
            expect(() => shown(lean, leaf, true, opts), `${f} ${leaf}`).toThrow((err as Error).message);
            continue;
          }
          const gotShown = shown(lean, leaf, true, opts);
          expectSame(gotShown.text, wantShown.text, `${f} ${leaf} text`);
          expectSame(gotShown.md, wantShown.md, `${f} ${leaf} markdown`);
          expectEqual(gotShown.problems, wantShown.problems, `${f} ${leaf} problems`);
          expectEqual(gotShown.diagnostics, wantShown.diagnostics, `${f} ${leaf} diagnostics`);
          expectSame(gotShown.code, wantShown.code, `${f} ${leaf} exit`);
          if (standInsSeen.display <= STAND_INS_WANTED && anyDiffers(gotShown.messages, wantShown.messages)) standInsSeen.display++;
        }
      }
    } finally {
      lean.store.close();
      full.store.close();
    }
  });

  it("compared stand-ins, not only whole messages", () => {
    expect(standInsSeen.json).toBeGreaterThan(STAND_INS_WANTED);
    expect(standInsSeen.display).toBeGreaterThan(STAND_INS_WANTED);
  });
});
