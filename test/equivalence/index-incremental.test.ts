import { rmSync, truncateSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { indexReport } from "../../src/reports/fleet-index.js";
import { usageReport } from "../../src/reports/usage.js";
import { age, appendTo, dumpIndex, entryLine, headerLine, labelLine, resultLine, writeSession } from "../support/index-fleet.js";
import { tempDirs } from "../support/temp-dirs.js";

/**
 * The incremental index equals a full rebuild, row for row, after any sequence of what happens to session files
 * (appends, half lines and their rest, new files, forks, truncations, replacements, deletions), and usage through it
 * equals usage --no-index. The reference is a fresh index of the same files, and the files read directly.
 */

const tempDir = tempDirs("pisess-index-prop-");
const env = { HOME: "/nonexistent", PI_CODING_AGENT_DIR: "/nonexistent" };

/**
 * append: a turn at the end; branch: an entry under an earlier one; result: a tool result answering an earlier call
 * (an error or not, a second answer or the first); label: a label set or cleared; dup: an entry with an id already
 * used; orphan: an entry whose parent is the next entry to come (a cycle once it does).
 */
const KINDS = [
  "append",
  "branch",
  "result",
  "label",
  "dup",
  "orphan",
  "half",
  "rest",
  "new",
  "fork",
  "truncate",
  "replace",
  "delete",
] as const;
type Step = { kind: (typeof KINDS)[number]; pick: number; n: number };

interface File {
  path: string;
  tag: string;
  /** Complete lines after the header, their ids, and the id of the last one. */
  lines: string[];
  ids: string[];
  last: string | null;
  next: number;
  /** The part written of a half-written line, and the whole line. */
  half?: { written: string; whole: string };
  header: string;
}

function textOf(f: File): string {
  return f.header + f.lines.join("") + (f.half?.written ?? "");
}

/** Applies one step to the fleet on disk and in the model. */
function apply(dir: string, files: File[], s: Step, serial: { n: number }): void {
  const f = files.length > 0 ? files[s.pick % files.length] : undefined;
  const fresh = (parent?: File): File => {
    const tag = `t${serial.n++}`;
    const header = headerLine(`00000000-0000-4000-8000-${String(serial.n).padStart(12, "0")}`, `/p/${tag}`, parent?.path);
    return {
      path: join(dir, `--p--`, `${tag}.jsonl`),
      tag,
      lines: [...(parent?.lines ?? [])],
      ids: [...(parent?.ids ?? [])],
      last: parent?.last ?? null,
      next: parent?.next ?? 0,
      header,
    };
  };
  const grow = (g: File, parent = g.last) => {
    const line = entryLine(g.tag, g.next, parent);
    g.last = `${g.tag}-${g.next}`;
    g.ids.push(g.last);
    g.next++;
    return line;
  };
  /** One line of another kind than a turn at the end (see KINDS), made for `g`. */
  const other = (g: File, kind: Step["kind"]): string => {
    const earlier = g.ids[(s.pick * 7 + s.n) % Math.max(1, g.ids.length)] ?? null;
    const id = `${g.tag}-${g.next}`;
    let line: string;
    if (kind === "branch") return grow(g, earlier);
    if (kind === "orphan") return grow(g, `${g.tag}-${g.next + 1}`);
    if (kind === "result") {
      // The call of an assistant turn (odd entry numbers) at or before the earlier entry.
      const turn = earlier?.replace(/-(\d+)$/, (_, k: string) => `-${Number(k) % 2 === 1 ? Number(k) : Math.max(1, Number(k) - 1)}`);
      line = resultLine(id, g.last, `call-${turn ?? "none"}`, g.next, s.n === 2);
    } else if (kind === "label") line = labelLine(id, g.last, earlier ?? "none", s.n === 3 ? "" : `L${s.pick}`, g.next);
    else {
      const o = JSON.parse(entryLine(g.tag, g.next, g.last)) as { id: string };
      o.id = earlier ?? id;
      line = `${JSON.stringify(o)}\n`;
    }
    g.last = JSON.parse(line).id as string;
    g.ids.push(g.last);
    g.next++;
    return line;
  };
  if (s.kind === "new" || f === undefined) {
    const g = fresh();
    for (let i = 0; i < s.n; i++) g.lines.push(grow(g));
    files.push(g);
    writeSession(g.path, textOf(g));
  } else if (s.kind === "append" && f.half === undefined) {
    const add: string[] = [];
    for (let i = 0; i < s.n; i++) add.push(grow(f));
    f.lines.push(...add);
    appendTo(f.path, add.join(""));
  } else if (
    (s.kind === "branch" || s.kind === "result" || s.kind === "label" || s.kind === "dup" || s.kind === "orphan") &&
    f.half === undefined
  ) {
    const add: string[] = [];
    for (let i = 0; i < s.n; i++) add.push(i === 0 ? other(f, s.kind) : grow(f));
    f.lines.push(...add);
    appendTo(f.path, add.join(""));
  } else if (s.kind === "half" && f.half === undefined) {
    const whole = grow(f);
    // Its id counts once the line is whole.
    f.ids.pop();
    f.half = { written: whole.slice(0, 10 + s.n * 7), whole };
    appendTo(f.path, f.half.written);
  } else if (s.kind === "rest" && f.half !== undefined) {
    appendTo(f.path, f.half.whole.slice(f.half.written.length));
    f.lines.push(f.half.whole);
    f.ids.push(JSON.parse(f.half.whole).id as string);
    delete f.half;
  } else if (s.kind === "fork" && f.half === undefined) {
    const g = fresh(f);
    g.lines.push(grow(g));
    files.push(g);
    writeSession(g.path, textOf(g));
  } else if (s.kind === "truncate") {
    f.lines = f.lines.slice(0, Math.max(0, f.lines.length - s.n));
    f.ids = f.ids.slice(0, f.lines.length);
    delete f.half;
    const keep = textOf(f);
    truncateSync(f.path, Buffer.byteLength(keep));
    age(f.path);
    // Later lines continue from the last one kept.
    f.last = f.lines.length > 0 ? (JSON.parse(f.lines[f.lines.length - 1] as string).id as string) : null;
  } else if (s.kind === "replace") {
    const g = fresh();
    g.path = f.path;
    for (let i = 0; i < s.n; i++) g.lines.push(grow(g));
    files[files.indexOf(f)] = g;
    writeFileSync(g.path, textOf(g));
    age(g.path);
  } else if (s.kind === "delete") {
    unlinkSync(f.path);
    files.splice(files.indexOf(f), 1);
  }
}

const step = fc.record({ kind: fc.constantFrom(...KINDS), pick: fc.nat({ max: 20 }), n: fc.integer({ min: 1, max: 3 }) });

describe("the incremental index", () => {
  it("equals a full rebuild after any sequence of changes, and usage through it equals usage --no-index", async () => {
    let appended = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 9 }), async (steps) => {
        const root = tempDir();
        const dir = join(root, "sessions");
        const db = join(root, "index.duckdb");
        const files: File[] = [];
        const serial = { n: 0 };
        apply(dir, files, { kind: "new", pick: 0, n: 2 }, serial);
        await indexReport({ db, targets: [dir], env, cwd: "/" });
        for (const s of steps) {
          apply(dir, files, s, serial);
          appended += (await indexReport({ db, targets: [dir], env, cwd: "/" })).data.appended;
        }
        const fresh = join(root, "fresh.duckdb");
        await indexReport({ db: fresh, targets: [dir], env, cwd: "/" });
        expect(await dumpIndex(db)).toEqual(await dumpIndex(fresh));
        for (const by of [[], ["session", "leaf"], ["day", "model"]] as const) {
          const direct = await usageReport({ targets: [dir], by: [...by], env, cwd: "/", threads: 1 });
          expect(await usageReport({ targets: [dir], by: [...by], env, cwd: "/", db })).toEqual(direct);
        }
        rmSync(root, { recursive: true, force: true });
      }),
      { numRuns: 24, seed: 29 },
    );
    // The sequences grew files that were read from their last line end (not only whole).
    expect(appended).toBeGreaterThan(30);
  }, 300_000);
});
