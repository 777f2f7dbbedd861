import { Readable } from "node:stream";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readLines } from "../../src/io/scan/index.js";
import { idHash, IdIndex } from "../../src/model/ids.js";
import { createIndexer, IDS_AT_END_FROM, loadSession } from "../../src/model/load.js";
import type { Session } from "../../src/model/session.js";
import type { EntryRec } from "../../src/model/detail.js";
import type { EntryStore } from "../../src/model/types.js";
import { ROOT, sessionFiles, sessionView } from "../support/helpers.js";
import { expectEqual, expectSame, expectStrictEqual } from "../support/expect-fast.js";

/**
 * loadSession indexes the ids of the entries past IDS_AT_END_FROM once every line is in (IdIndex, no hash map);
 * follow's indexer indexes them line by line in a Map. Both must give the same byId (every Map method, order
 * included) and the same findings in the same order (duplicate ids among the others), on every fixture and on
 * generated sessions full of repeated and colliding ids, wherever the indexing at the end starts.
 */

const noStore: EntryStore = { rawLine: () => "", close: () => {} };

/** The session as indexed line by line (a Map filled as the lines come). */
async function lineByLine(text: string): Promise<Session> {
  const ix = createIndexer("x", undefined, noStore, null, { detail: "skeleton" });
  const facts = await readLines({ kind: "stream", name: "x", stream: Readable.from([Buffer.from(text)]) }, (raw) => {
    ix.line(raw);
  });
  return ix.finish(facts);
}

/** The session with the ids of the entries from position `from` on indexed at the end. */
async function atEnd(text: string, from = 0): Promise<Session> {
  const ix = createIndexer("x", undefined, noStore, null, { detail: "skeleton" }, from);
  const facts = await readLines({ kind: "stream", name: "x", stream: Readable.from([Buffer.from(text)]) }, (raw) => {
    ix.line(raw);
  });
  return ix.finish(facts);
}

function sameIds(a: Session, b: Session): void {
  const line = (r: EntryRec | undefined) => r?.line;
  expectStrictEqual(sessionView(a, line), sessionView(b, line));
  expectSame(a.byId.size, b.byId.size, "size");
  expectStrictEqual([...a.byId.keys()], [...b.byId.keys()]);
  expectStrictEqual([...a.byId.values()].map(line), [...b.byId.values()].map(line));
  expectStrictEqual(
    [...a.byId.entries()].map(([k, v]) => [k, line(v)]),
    [...b.byId.entries()].map(([k, v]) => [k, line(v)]),
  );
  const each: [string, number][] = [];
  a.byId.forEach((v, k) => {
    each.push([k, v.line]);
  });
  expectStrictEqual(
    each,
    [...b.byId].map(([k, v]) => [k, v.line]),
  );
  // get and has of every entry's id, compared as two lists (one expect per entry was most of the 65k-entry test).
  const ids = b.entries.flatMap((rec) => (rec.id === undefined ? [] : [rec.id]));
  expectStrictEqual(
    ids.map((id) => [id, line(a.byId.get(id))]),
    ids.map((id) => [id, line(b.byId.get(id))]),
  );
  expectEqual(
    ids.filter((id) => !a.byId.has(id)),
    [],
    "ids not had",
  );
  for (const other of ["", "nope", "e999", "é"]) expectSame(line(a.byId.get(other)), line(b.byId.get(other)), other);
}

describe("ids indexed at the end equal ids indexed line by line", () => {
  it.each(sessionFiles().map((f) => [f.slice(ROOT.length + 1), f]))("%s", async (_name, f) => {
    const { readFileSync } = await import("node:fs");
    const text = readFileSync(f).toString("latin1");
    sameIds(await atEnd(text), await lineByLine(text));
  });

  it("generated sessions: repeated ids, ids that collide in the hash, damaged lines between", async () => {
    // Two ids whose hashes are equal (found by a search): they must still be told apart.
    const pair = ["c693596", "c1170850"];
    expect(idHash(pair[0] as string)).toBe(idHash(pair[1] as string));
    const ids = ["a", "b", "é", "a b", ...pair];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom(...ids, null), fc.constantFrom("message", "label", "x"), fc.nat(5)), {
          minLength: 0,
          maxLength: 30,
        }),
        fc.nat(32),
        async (es, from) => {
          const lines = ['{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}'];
          for (const [id, type, k] of es) {
            if (k === 0) lines.push("{broken");
            const o: Record<string, unknown> = { type, parentId: null, timestamp: "2026-01-01T00:00:00.000Z" };
            if (id !== null) o.id = id;
            if (type === "message") o.message = { role: "user", content: "x" };
            lines.push(JSON.stringify(o));
          }
          const text = `${lines.join("\n")}\n`;
          sameIds(await atEnd(text, from), await lineByLine(text));
        },
      ),
      { numRuns: 400 },
    );
  });

  it("loadSession: a Map up to IDS_AT_END_FROM entries, an IdIndex past it, the same ids and findings", async () => {
    const head = '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}';
    const entry = (id: string, parentId: string | null) =>
      JSON.stringify({ type: "x", id, parentId, timestamp: "2026-01-01T00:00:00.000Z" });
    const text = (n: number) => {
      const lines = [head];
      // Entry i on line i + 2; a repeat inside the first part, past it one of an id past it, then one from the first part.
      for (let i = 0; i < n; i++)
        lines.push(entry(i === 5 || i === n - 1 ? "e3" : i === n - 2 ? `e${n - 4}` : `e${i}`, i === 0 ? null : `e${i - 1}`));
      return `${lines.join("\n")}\n`;
    };
    const load = (t: string) =>
      loadSession({ kind: "stream", name: "x", stream: Readable.from([Buffer.from(t)]) }, { name: "x", detail: "skeleton" });
    const small = text(IDS_AT_END_FROM);
    const smallSession = await load(small);
    expect(smallSession.byId).not.toBeInstanceOf(IdIndex);
    sameIds(smallSession, await lineByLine(small));
    const large = text(IDS_AT_END_FROM + 8);
    const largeSession = await load(large);
    expect(largeSession.byId).toBeInstanceOf(IdIndex);
    sameIds(largeSession, await lineByLine(large));
    expectStrictEqual(
      largeSession.diagnostics.filter((d) => d.code === "duplicate-id").map((d) => d.line),
      [7, IDS_AT_END_FROM + 8, IDS_AT_END_FROM + 9],
    );
  });

  it("a changed index works as a Map from then on", () => {
    const mk = (id: string, index: number) => ({ index, line: index + 2, id }) as EntryRec;
    const entries = [mk("a", 0), mk("b", 1), mk("a", 2)];
    const { index, repeated } = IdIndex.build(entries);
    expectStrictEqual(
      repeated.map((r) => [r.rec.index, r.earlier.index]),
      [[2, 0]],
    );
    expect(index).toBeInstanceOf(Map);
    expectStrictEqual(
      [...index].map(([k, v]) => [k, v.index]),
      [
        ["a", 2],
        ["b", 1],
      ],
    );
    index.set("c", mk("c", 3));
    index.set("a", mk("a", 4));
    expect(index.delete("b")).toBe(true);
    expectStrictEqual(
      [...index].map(([k, v]) => [k, v.index]),
      [
        ["a", 4],
        ["c", 3],
      ],
    );
    expect(index.size).toBe(2);
    expect(new Map(index).get("a")?.index).toBe(4);
    index.clear();
    expect(index.size).toBe(0);
    expect(index.get("a")).toBe(undefined);
  });
});
