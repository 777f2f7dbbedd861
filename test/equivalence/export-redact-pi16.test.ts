import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { loadSession } from "../../src/model/load.js";
import { exportJsonl } from "../../src/reports/export.js";
import { redactSession } from "../../src/reports/redact.js";
import { fixture, ROOT } from "../support/helpers.js";
import { secretSession, VALUES } from "../support/secret-session.js";

/**
 * A redacted JSONL export is still a session pi opens and resumes: pi 1.6.0's SessionManager opens it (a copy),
 * and its context at the last entry has the shape of the plain export's (the same entries, messages, roles and
 * keys; only strings differ), with no secret left in it.
 */
const PI = join(ROOT, "parity", "node_modules", "@earendil-works", "pi-coding-agent", "dist", "core");
const hasPi = existsSync(join(PI, "session-manager.js"));
if (!hasPi) console.log("export-redact-pi16: parity/node_modules is absent (npm --prefix parity ci); skipped");

type Entry = { type: string; id: string; parentId: string | null };
interface Sm {
  getEntries(): Entry[];
  byId: Map<string, Entry>;
  getLeafId(): string | null;
}

/** Every string replaced by "" (and keys sorted): what is left is the shape. */
function shape(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v, (_k, x: unknown) => (typeof x === "string" ? "" : x)));
}

async function piContext(lines: string[]): Promise<{ entries: Entry[]; messages: unknown[] }> {
  const sm = (await import(pathToFileURL(join(PI, "session-manager.js")).href)) as {
    SessionManager: { open(p: string, d: string): Sm };
    buildSessionContext(e: Entry[], leaf: string | null, byId: Map<string, Entry>): { messages: unknown[] };
  };
  const dir = mkdtempSync(join(tmpdir(), "pisess-redact-pi-"));
  const copy = join(dir, "session.jsonl");
  writeFileSync(copy, `${lines.join("\n")}\n`);
  const m = sm.SessionManager.open(copy, dir);
  return { entries: m.getEntries(), messages: sm.buildSessionContext(m.getEntries(), m.getLeafId(), m.byId).messages };
}

const HEADER = { id: "0198a7c0-0000-7000-8000-00000000a032", timestamp: "2026-12-01T00:00:00.000Z", parentSession: undefined };

describe.skipIf(!hasPi)("export --redact --format jsonl round-trips through pi 1.6.0", () => {
  const dir = mkdtempSync(join(tmpdir(), "pisess-redact-"));
  const planted = join(dir, "planted.jsonl");
  writeFileSync(planted, secretSession().text);
  const cases: [string, string, string][] = [
    ["planted", planted, "@20"],
    ["planted", planted, "@15"],
    ["planted", planted, "@13"],
    ["leak", fixture("secrets", "leak.jsonl"), "@11"],
    ["leak", fixture("secrets", "leak.jsonl"), "@6"],
  ];
  for (const [name, file, leaf] of cases) {
    it(`${name} at ${leaf}`, async () => {
      const session = await loadSession({ kind: "file", path: file });
      const { session: red, facts } = await redactSession(session, { redactPatterns: [/acme_live_[0-9a-f]{24}/u] });
      try {
        const plain = await exportJsonl(session, leaf, HEADER);
        const masked = await exportJsonl(red, leaf, HEADER);
        expect(facts.masked).toBeGreaterThan(0);
        const a = await piContext(plain.data?.lines ?? []);
        const b = await piContext(masked.data?.lines ?? []);
        expect(b.entries.map((e) => [e.type, e.id, e.parentId])).toEqual(a.entries.map((e) => [e.type, e.id, e.parentId]));
        expect(b.messages.length).toBeGreaterThan(0);
        expect(shape(b.messages)).toEqual(shape(a.messages));
        const text = JSON.stringify(b.messages);
        for (const v of [...Object.values(VALUES), "acme_live_"])
          expect(text.includes(JSON.stringify(v).slice(1, -1)), v.slice(0, 4)).toBe(false);
        if (JSON.stringify(a.messages) !== text) expect(text).toContain("[REDACTED:");
      } finally {
        red.store.close();
        session.store.close();
      }
    });
  }
});
