import { readFileSync } from "node:fs";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { loadSession } from "../../src/model/load.js";
import type { Session } from "../../src/model/session.js";
import { pathTo } from "../../src/ops/path.js";

// pathTo keeps its walk marks per session (stamped per walk) so that many short walks stay linear; a walk must
// never see an earlier walk's marks.

async function load(file: string): Promise<Session> {
  return loadSession({ kind: "stream", name: file, stream: Readable.from([readFileSync(file)]) });
}

/** The path as parent links followed by hand: ids root first, or "cycle" when an id comes back. */
function byHand(session: Session, leafId: string): string[] | "cycle" {
  const parentOf = new Map(session.entries.map((e) => [e.id, e.parentId]));
  const ids: string[] = [];
  let cur: string | null | undefined = leafId;
  while (cur) {
    if (ids.includes(cur)) return "cycle";
    ids.push(cur);
    cur = parentOf.get(cur);
  }
  return ids.reverse();
}

describe("pathTo, walk after walk on one session", () => {
  for (const file of ["fixtures/validate/parent-cycle.jsonl", "fixtures/tree/branched.jsonl"]) {
    it(`${file}: every entry's path, three rounds, each as the parent links give it`, async () => {
      const s = await load(file);
      try {
        for (let round = 0; round < 3; round++) {
          for (const e of s.entries) {
            if (e.id === undefined) continue;
            const p = pathTo(s, e);
            const want = byHand(s, e.id);
            if (want === "cycle") expect(p.ok, `${e.id} round ${round}`).toBe(false);
            else expect(p.ok ? p.path.map((x) => x.id) : "cycle", `${e.id} round ${round}`).toEqual(want);
          }
        }
      } finally {
        s.store.close();
      }
    });
  }
});
