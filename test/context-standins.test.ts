import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import type { Session } from "../src/model/session.js";
import type { EntryRec } from "../src/model/types.js";
import { contextJsonChunks } from "../src/render/context-json.js";
import { contextMarkdown } from "../src/render/context-markdown.js";
import { contextText } from "../src/render/context-text.js";
import { makeStyle } from "../src/render/style.js";
import { contextReport } from "../src/reports/context.js";
import { openSession } from "../src/reports/open.js";
import { ROOT, sessionFiles } from "./helpers.js";

/**
 * `context --json` holds stand-ins for messages it writes from their lines (contextReport's `jsonOnly`). They must
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
  const r = contextReport(session, jsonOnly ? { leaf, json: true, jsonOnly: true } : { leaf });
  const c = r.data.context;
  const out = (doc: boolean): string =>
    c === null
      ? ""
      : [
          ...(jsonOnly
            ? contextJsonChunks(session.file, r.data.leaf, c.context, c.messages, c.sources, c.editedBy, doc, c.messageJson)
            : contextJsonChunks(session.file, r.data.leaf, c.context, c.messages, c.sources, c.editedBy, doc)),
        ].join("");
  return {
    messages: c?.messages ?? [],
    doc: out(true),
    nd: out(false),
    problems: r.data.problems,
    diagnostics: r.diagnostics,
    code: r.exitCode,
  };
}

describe("context --json: stand-in messages write the same bytes as the messages of a full load", () => {
  let standInsSeen = 0;

  it.each(files)("%s", async (f) => {
    const lean = await tryOpen(f, "skeleton");
    const full = await tryOpen(f, "full");
    expect(lean === null).toBe(full === null);
    if (lean === null || full === null) return;
    try {
      for (const leaf of leavesOf(full)) {
        let want: Written;
        try {
          want = written(full, leaf, false);
        } catch (err) {
          // A leaf the report refuses (an ambiguous or missing one) must be refused alike.
          expect(() => written(lean, leaf, true), `${f} ${leaf}`).toThrow((err as Error).message);
          continue;
        }
        const got = written(lean, leaf, true);
        expect(got.doc, `${f} ${leaf} --json`).toBe(want.doc);
        expect(got.nd, `${f} ${leaf} --ndjson`).toBe(want.nd);
        expect(got.problems, `${f} ${leaf} problems`).toEqual(want.problems);
        expect(got.diagnostics, `${f} ${leaf} diagnostics`).toEqual(want.diagnostics);
        expect(got.code, `${f} ${leaf} exit`).toBe(want.code);
        // Counts the leaves whose messages really were stand-ins (the last test checks there were some).
        if (got.messages.some((m, i) => JSON.stringify(m) !== JSON.stringify(want.messages[i]))) standInsSeen++;
      }
    } finally {
      lean.store.close();
      full.store.close();
    }
  });

  it("compared stand-ins, not only whole messages", () => {
    expect(standInsSeen).toBeGreaterThan(100);
  });
});

/**
 * The text and Markdown output hold stand-ins too (contextReport's `displayOnly`), each read again from its line
 * when shown: the same bytes as the display of a full load's messages, with every display option.
 */
function shown(session: Session, leaf: string, displayOnly: boolean, opts: { thinking: boolean; showEdits: boolean }) {
  const r = contextReport(session, {
    leaf,
    display: { thinking: opts.thinking, maxOutput: 3, showEdits: opts.showEdits, stream: true },
    ...(displayOnly ? { displayOnly: true } : {}),
  });
  const d = r.data.context?.display;
  // The stream is taken once: both renderings come from their own report.
  const again = contextReport(session, {
    leaf,
    display: { thinking: opts.thinking, maxOutput: 3, showEdits: opts.showEdits, stream: true },
    ...(displayOnly ? { displayOnly: true } : {}),
  }).data.context?.display;
  return {
    messages: r.data.context?.messages ?? [],
    text: d ? [...contextText(d, { style: makeStyle(false) })].join("") : "",
    md: again ? [...contextMarkdown(again)].join("") : "",
    problems: r.data.problems,
    diagnostics: r.diagnostics,
    code: r.exitCode,
  };
}

describe("context text and Markdown: stand-in messages show the same bytes as the messages of a full load", () => {
  let standInsSeen = 0;

  it.each(files)("%s", async (f) => {
    const lean = await tryOpen(f, "skeleton");
    const full = await tryOpen(f, "full");
    if (lean === null || full === null) return;
    try {
      for (const leaf of leavesOf(full)) {
        for (const opts of [
          { thinking: true, showEdits: false },
          { thinking: false, showEdits: true },
        ]) {
          let want: ReturnType<typeof shown>;
          try {
            want = shown(full, leaf, false, opts);
          } catch (err) {
            expect(() => shown(lean, leaf, true, opts), `${f} ${leaf}`).toThrow((err as Error).message);
            continue;
          }
          const got = shown(lean, leaf, true, opts);
          expect(got.text, `${f} ${leaf} text`).toBe(want.text);
          expect(got.md, `${f} ${leaf} markdown`).toBe(want.md);
          expect(got.problems, `${f} ${leaf} problems`).toEqual(want.problems);
          expect(got.diagnostics, `${f} ${leaf} diagnostics`).toEqual(want.diagnostics);
          expect(got.code, `${f} ${leaf} exit`).toBe(want.code);
          if (got.messages.some((m, i) => JSON.stringify(m) !== JSON.stringify(want.messages[i]))) standInsSeen++;
        }
      }
    } finally {
      lean.store.close();
      full.store.close();
    }
  });

  it("compared stand-ins, not only whole messages", () => {
    expect(standInsSeen).toBeGreaterThan(100);
  });
});
