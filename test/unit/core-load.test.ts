import { mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { loadSession } from "../../src/model/load.js";
import { readEntry } from "../../src/model/session.js";
import { fixture } from "../support/helpers.js";

const load = (name: string) => loadSession({ kind: "file", path: fixture("tree", name) });
const fromText = (text: string) => loadSession({ kind: "stream", name: "-", stream: Readable.from([Buffer.from(text)]) });
const tempDir = mkdtempSync(join(tmpdir(), "pisess-load-"));
afterAll(() => rmSync(tempDir, { recursive: true, force: true }));
let temps = 0;
const tempFile = async (text: string) => {
  const p = join(tempDir, `${temps++}.jsonl`);
  writeFileSync(p, text);
  return p;
};
const codes = (s: { diagnostics: { code: string; line: number | null }[] }) => s.diagnostics.map((d) => `${d.code}@${d.line}`);

describe("loader", () => {
  it("reports bad lines with line numbers and still reads the rest", async () => {
    const s = await load("bad-lines.jsonl");
    expect(s.entries.map((e) => e.line)).toEqual([2, 9]);
    expect(codes(s)).toEqual([
      "blank-line@3",
      "malformed-json@4",
      "non-object-line@5",
      "non-object-line@6",
      "non-object-line@7",
      "extra-header@8",
      "truncated-line@10",
    ]);
    const malformed = s.diagnostics.find((d) => d.code === "malformed-json");
    expect(malformed?.column).toBe(35); // the "o" of oops
    expect(s.skipped.map((k) => `${k.reason}@${k.line}`)).toEqual([
      "blank@3",
      "malformed@4",
      "non-object@5",
      "non-object@6",
      "non-object@7",
      "header@8",
      "malformed@10",
    ]);
    expect(s.defaultLeaf?.id).toBe("g0000003");
  });

  it("migrates v1 in memory: ids from line numbers, parent chain, firstKeptEntryIndex counted with the header as 0", async () => {
    const s = await load("v1-compaction.jsonl");
    expect(s.version).toBe(1);
    expect(s.entries.map((e) => [e.id, e.parentId])).toEqual([
      ["L2", null],
      ["L3", "L2"],
      ["L4", "L3"],
      ["L5", "L4"],
      ["L6", "L5"],
    ]);
    // index 3: header 0, L2 1, L3 2, L4 3
    const compaction = s.entries[3];
    expect(compaction?.firstKeptEntryId).toBe("L4");
    const whole = readEntry(s, compaction!);
    expect(whole.firstKeptEntryId).toBe("L4");
    expect(whole.firstKeptEntryIndex).toBeUndefined();
    expect(whole.id).toBe("L5");
  });

  it("a malformed line before the target shifts pi's v1 index", async () => {
    const lines = [
      '{"type":"session","id":"s","timestamp":"2025-01-01T00:00:00Z","cwd":"/"}',
      "{broken",
      '{"type":"message","timestamp":"2025-01-01T00:00:01Z","message":{"role":"user","content":"a","timestamp":1}}',
      '{"type":"message","timestamp":"2025-01-01T00:00:02Z","message":{"role":"user","content":"b","timestamp":2}}',
      '{"type":"compaction","timestamp":"2025-01-01T00:00:03Z","summary":"s","firstKeptEntryIndex":2,"tokensBefore":1}',
      '{"type":"compaction","timestamp":"2025-01-01T00:00:04Z","summary":"s","firstKeptEntryIndex":0,"tokensBefore":1}',
      '{"type":"compaction","timestamp":"2025-01-01T00:00:05Z","summary":"s","firstKeptEntryIndex":99,"tokensBefore":1}',
    ];
    const s = await fromText(`${lines.join("\n")}\n`);
    // parsed: header 0, line 3 → 1, line 4 → 2
    expect(s.entries.map((e) => e.firstKeptEntryId)).toEqual([undefined, undefined, "L4", undefined, undefined]);
  });

  it("v2 hookMessage becomes custom", async () => {
    const s = await load("v2-hook.jsonl");
    const hook = s.entries[1]!;
    expect(hook.role).toBe("custom");
    expect((readEntry(s, hook).message as { role: string }).role).toBe("custom");
  });

  it("a future version is still loaded (best-effort), with a version-future finding the commands refuse on", async () => {
    const s = await load("future-version.jsonl");
    expect(s.version).toBe(4);
    expect(s.entries).toHaveLength(1);
    expect(s.diagnostics.map((d) => [d.code, d.severity])).toEqual([["version-future", "error"]]);
  });

  it("a file without header keeps its ids and says pi would overwrite it", async () => {
    const s = await load("no-header.jsonl");
    expect(s.header).toBeNull();
    expect(s.entries.map((e) => e.id)).toEqual(["h0000001", "h0000002"]);
    expect(codes(s)).toEqual(["header-missing@1"]);
  });

  it("BOM and CRLF are tolerated and reported; U+2028 stays inside its entry", async () => {
    const s = await load("crlf-bom.jsonl");
    expect(s.entries).toHaveLength(2);
    expect(s.entries[0]?.text).toBe("line\u2028separator and \u2029 paragraph");
    expect(s.facts.bom).toBe(true);
    expect(s.facts.crlfLines).toBe(3);
    expect(codes(s)).toEqual(["bom@1", "crlf@null"]);
    expect(readEntry(s, s.entries[1]!).id).toBe("i0000002");
  });

  it("a file's size and mtime as the load opened it, in every load detail; none for a stream", async () => {
    const p = await tempFile('{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/"}\n');
    utimesSync(p, new Date("2026-02-03T04:05:06Z"), new Date("2026-02-03T04:05:06Z"));
    for (const detail of ["skeleton", "tables", "check", "full"] as const) {
      const s = await loadSession({ kind: "file", path: p }, { detail });
      s.store.close();
      expect(s.facts.stat, detail).toEqual({ size: statSync(p).size, mtimeMs: Date.parse("2026-02-03T04:05:06Z") });
    }
    expect((await fromText("{}\n")).facts.stat).toBeUndefined();
  });

  it("duplicate ids: every physical entry kept, the last wins the lookup", async () => {
    const s = await load("broken-links.jsonl");
    const dups = s.entries.filter((e) => e.id === "d0000007");
    expect(dups.map((d) => d.line)).toEqual([8, 9]);
    expect(s.byId.get("d0000007")?.line).toBe(9);
    expect(codes(s)).toContain("duplicate-id@9");
  });

  it("duplicate ids: each repeat names the line of the id's previous entry, however often ids repeat", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom("a0000001", "b0000002", "c0000003", "d0000004", "e0000005"), { maxLength: 30 }),
        async (ids) => {
          const header = '{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}';
          const lines = ids.map((id, i) =>
            JSON.stringify({ type: "label", id, parentId: null, timestamp: "2025-01-01T00:00:00.000Z", targetId: "x", label: `l${i}` }),
          );
          const text = `${[header, ...lines].join("\n")}\n`;
          // Entry i is on line i + 2; a repeat names where its id was last seen.
          const expected: string[] = [];
          const last = new Map<string, number>();
          ids.forEach((id, i) => {
            const seen = last.get(id);
            if (seen !== undefined) expected.push(`${i + 2}:${id}:${seen}`);
            last.set(id, i + 2);
          });
          for (const s of [await fromText(text), await loadSession({ kind: "file", path: await tempFile(text) })]) {
            const found = s.diagnostics.filter((d) => d.code === "duplicate-id").map((d) => `${d.line}:${d.args.id}:${d.args.firstLine}`);
            expect(found).toEqual(expected);
            expect(s.byId.size).toBe(last.size);
            for (const [id, line] of last) expect(s.byId.get(id)?.line).toBe(line);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it("stdin: entries are read back from memory", async () => {
    const s = await fromText(
      '{"type":"session","version":3,"id":"x","timestamp":"t","cwd":"/"}\n{"type":"custom","id":"a1","parentId":null,"timestamp":"2025-01-01T00:00:00Z","customType":"k","data":{"x":1}}\n',
    );
    expect(readEntry(s, s.entries[0]!)).toMatchObject({ customType: "k", data: { x: 1 } });
  });

  it("an empty file has no header and no entries", async () => {
    const s = await fromText("");
    expect(s.entries).toEqual([]);
    expect(s.defaultLeaf).toBeNull();
    expect(codes(s)).toEqual(["header-missing@null", "not-a-session@null"]);
  });
});
