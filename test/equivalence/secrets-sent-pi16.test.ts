import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { openFile } from "../../src/reports/open.js";
import { secretsReport } from "../../src/reports/secrets.js";
import { fixture, ROOT } from "../support/helpers.js";
import { secretSession, VALUES } from "../support/secret-session.js";

/**
 * "Sent to the model" against pi 1.6.0's own code: for every assistant entry of a session, pi's context of its
 * parent (buildSessionContext) as the agent hands it on (convertToLlm, tool results' details left out as pi-ai's
 * providers leave them out); a value was sent in that request when that text holds it. pisess's answer per place (requests, first, last) must agree. pi opens copies only.
 */
const PI = join(ROOT, "parity", "node_modules", "@earendil-works", "pi-coding-agent", "dist", "core");
const hasPi = existsSync(join(PI, "session-manager.js"));
if (!hasPi) console.log("secrets-sent-pi16: parity/node_modules is absent (npm --prefix parity ci); skipped");

type Entry = { type: string; id: string; parentId: string | null; message?: { role?: string } };
interface Pi {
  SessionManager: { open(path: string, dir: string): { getEntries(): Entry[]; byId: Map<string, Entry> } };
  buildSessionContext(entries: Entry[], leafId: string | null, byId: Map<string, Entry>): { messages: unknown[] };
  convertToLlm(messages: unknown[]): unknown[];
}

async function loadPi(): Promise<Pi> {
  const sm = (await import(pathToFileURL(join(PI, "session-manager.js")).href)) as Pi;
  const msg = (await import(pathToFileURL(join(PI, "messages.js")).href)) as Pick<Pi, "convertToLlm">;
  return { SessionManager: sm.SessionManager, buildSessionContext: sm.buildSessionContext, convertToLlm: msg.convertToLlm };
}

/** Per value, the lines of the assistant entries whose request (pi's context of the parent, converted) holds it. */
async function piRequests(file: string, values: readonly string[]): Promise<Map<string, number[]>> {
  const pi = await loadPi();
  const dir = mkdtempSync(join(tmpdir(), "pisess-secrets-pi-"));
  const copy = join(dir, "session.jsonl");
  copyFileSync(file, copy);
  const sm = pi.SessionManager.open(copy, dir);
  const entries = sm.getEntries();
  // No blank or bad line in these files: entry i is on line i + 2.
  const out = new Map<string, number[]>(values.map((v) => [v, []]));
  entries.forEach((e, i) => {
    if (e.type !== "message" || e.message?.role !== "assistant") return;
    const llm = pi.convertToLlm(pi.buildSessionContext(entries, e.parentId, sm.byId).messages) as Record<string, unknown>[];
    // A tool result's details stay in pi's message list (its UI reads them), but pi-ai's providers serialise only
    // its content: they are not part of the request.
    const sent = JSON.stringify(llm.map((m) => (m.role === "toolResult" ? { ...m, details: undefined } : m)));
    for (const v of values) if (sent.includes(JSON.stringify(v).slice(1, -1))) out.get(v)?.push(i + 2);
  });
  return out;
}

describe.skipIf(!hasPi)("secrets: sent to the model, as pi 1.6.0 builds each request", () => {
  it("the planted session: every place's requests are pi's requests holding the value", async () => {
    const { text, planted } = secretSession();
    const dir = mkdtempSync(join(tmpdir(), "pisess-secrets-"));
    const file = join(dir, "planted.jsonl");
    writeFileSync(file, text);
    // Each rule's value, and a value found inside another (the service account's key).
    const plantedValue = (p: (typeof planted)[number]): string => p.value ?? VALUES[p.rule];
    const values = [...new Set(planted.map(plantedValue))];
    expect(values).toEqual(expect.arrayContaining(Object.values(VALUES)));
    const pi = await piRequests(file, values);
    // Per value: the requests of all its places together are pi's (the hand-written table is pi's answer).
    for (const v of values) {
      const rule = planted.find((p) => plantedValue(p) === v)?.rule;
      const lines = new Set(planted.filter((p) => plantedValue(p) === v).flatMap((p) => p.sentIn));
      expect(
        [...lines].sort((a, b) => a - b),
        rule,
      ).toEqual(pi.get(v));
    }
    // And pisess per place: within pi's set, with its own count, first and last.
    const r = await secretsReport({ inputs: [file], open: openFile, showSecret: true });
    for (const f of r.data.findings) {
      const want = planted.find((p) => p.line === f.line && p.pointer === f.pointer && p.rule === f.rule);
      expect(want, `${f.rule} line ${f.line}`).toBeDefined();
      expect([f.requests, f.first?.line ?? null, f.last?.line ?? null], `${f.rule} line ${f.line}`).toEqual([
        want?.sentIn.length,
        want?.sentIn[0] ?? null,
        want?.sentIn.at(-1) ?? null,
      ]);
      for (const line of want?.sentIn ?? []) expect(pi.get(f.value as string), f.rule).toContain(line);
    }
  });

  it("the docs' leak fixture: one place per value, pisess's requests are pi's", async () => {
    const file = fixture("secrets", "leak.jsonl");
    const r = await secretsReport({
      inputs: [file],
      open: openFile,
      showSecret: true,
      patterns: [{ name: "acme", regex: /acme_live_[0-9a-f]{24}/ }],
    });
    const pi = await piRequests(
      file,
      r.data.findings.map((f) => f.value as string),
    );
    for (const f of r.data.findings) {
      const lines = pi.get(f.value as string) ?? [];
      const places = r.data.findings.filter((g) => g.value === f.value);
      if (places.length > 1) {
        expect(lines).toEqual(expect.arrayContaining(f.requests > 0 ? [f.first?.line, f.last?.line] : []));
        continue;
      }
      expect([f.requests, f.first?.line ?? null, f.last?.line ?? null]).toEqual([lines.length, lines[0] ?? null, lines.at(-1) ?? null]);
    }
    expect(readFileSync(file, "utf8")).toContain("acme_live_");
  });
});

/**
 * The incremental count (one context per compaction or edit key) against the plain one: pisess's own buildContext
 * for the parent of every assistant entry, entry by entry. On the corpus's branchy, edited, faulty and v1 files.
 */
describe("secrets: requestsHolding = one context per assistant turn", () => {
  const files = [
    "gen-v1.jsonl",
    "gen-v2.jsonl",
    "gen-v3-branchy.jsonl",
    "gen-v3-faults.jsonl",
    "gen16-branchy.jsonl",
    "gen16-edits.jsonl",
    "gen16-faults.jsonl",
    "pi16-written.jsonl",
    "real-v1-before-compaction.jsonl",
  ];
  for (const name of files) {
    it(name, async () => {
      const [{ loadSession }, { readEntry }, { buildTree }, { pathTo }, { buildContext }, { requestsHolding }] = await Promise.all([
        import("../../src/model/load.js"),
        import("../../src/model/session.js"),
        import("../../src/ops/tree.js"),
        import("../../src/ops/path.js"),
        import("../../src/ops/context.js"),
        import("../../src/ops/secrets-sent.js"),
      ]);
      const path = fixture("corpus", name);
      const session = await loadSession({ kind: "file", path }, { detail: "skeleton" });
      try {
        const read = (rec: (typeof session.entries)[number]) => readEntry(session, rec);
        const tree = buildTree(session);
        const want = new Map<number, number[]>();
        for (const a of session.entries) {
          if (a.type !== "message" || a.role !== "assistant" || tree.inCycle[a.index] === 1) continue;
          const parent = tree.parent[a.index];
          if (!parent) continue;
          const p = pathTo(session, parent);
          if (!p.ok) continue;
          const ctx = buildContext(session, p.path, read);
          const held = new Set<number>();
          ctx.sources.forEach((s, i) => {
            held.add(ctx.editedBy[i] === undefined ? s.index : (ctx.editedBy[i] as { index: number }).index);
          });
          for (const i of held) want.set(i, [...(want.get(i) ?? []), a.line]);
        }
        const got = requestsHolding(session, tree, session.entries, read);
        let compared = 0;
        for (const e of session.entries) {
          const lines = (want.get(e.index) ?? []).sort((x, y) => x - y);
          const s = got.get(e);
          expect([s?.requests, s?.first?.line ?? null, s?.last?.line ?? null], `${name} line ${e.line}`).toEqual([
            lines.length,
            lines[0] ?? null,
            lines.at(-1) ?? null,
          ]);
          compared += lines.length;
        }
        expect(compared).toBeGreaterThan(0);
      } finally {
        session.store.close();
      }
    });
  }
});
