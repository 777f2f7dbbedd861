import { chmodSync, closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, utimesSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import type { DuckDBConnection } from "@duckdb/node-api";
import { afterAll, describe, expect, it } from "vitest";
import { indexReport } from "../../src/reports/fleet-index.js";
import { RESUME_WINDOW_MS } from "../../src/reports/index-state.js";
import { age, appendTo, dumpIndex, entryLine, headerLine, writeSession } from "../support/index-fleet.js";

/**
 * A session that grew is read only from where the last update stopped (its last line end): the update's bytesRead
 * counts only the appended bytes, and a change made in place to the part read before is not seen (the format only
 * appends). Whatever makes going on unsure reads the file whole.
 */

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});
const env = { HOME: "/nonexistent", PI_CODING_AGENT_DIR: "/nonexistent" };
const HEADER = headerLine("00000000-0000-4000-8000-000000000001", "/p");

function setup() {
  const root = mkdtempSync(join(tmpdir(), "pisess-index-append-"));
  made.push(root);
  const dir = join(root, "sessions");
  const file = join(dir, "--p--", "s.jsonl");
  writeSession(file, HEADER + entryLine("s", 0, null) + entryLine("s", 1, "s-0") + entryLine("s", 2, "s-1"));
  return { root, dir, file, db: join(root, "index.duckdb") };
}

const index = (dir: string, db: string) => indexReport({ db, targets: [dir], env, cwd: "/" });

async function rebuilt(root: string, dir: string) {
  const db = join(root, `fresh-${made.length}-${Date.now()}.duckdb`);
  await index(dir, db);
  return dumpIndex(db);
}

/** Opens the index file itself (as another program would), for `use` to change it, and closes it. */
async function withDb(db: string, use: (conn: DuckDBConnection) => Promise<unknown>): Promise<void> {
  const { DuckDBInstance } = await import("@duckdb/node-api");
  const inst = await DuckDBInstance.create(db);
  const conn = await inst.connect();
  try {
    await use(conn);
  } finally {
    conn.closeSync();
    inst.closeSync();
  }
}

/** Overwrites bytes at `offset` in place (same size), keeping the file's mtime old. */
function overwrite(file: string, offset: number, text: string): void {
  const fd = openSync(file, "r+");
  try {
    writeSync(fd, text, offset);
  } finally {
    closeSync(fd);
  }
  age(file);
}

describe("index: a grown session", () => {
  it("is read from its last line end on: bytesRead is the appended bytes, and the rows equal a rebuild", async () => {
    const { root, dir, file, db } = setup();
    const first = await index(dir, db);
    expect(first.data).toMatchObject({ added: 1, appended: 0, bytesRead: statSync(file).size });
    // A branch from s-1: s-2 stops being the default leaf, s-1 gets a second child.
    const more = entryLine("s", 3, "s-1") + entryLine("s", 4, "s-3");
    appendTo(file, more);
    const grown = await index(dir, db);
    expect(grown.data).toMatchObject({ unchanged: 0, added: 0, changed: 0, appended: 1, bytesRead: Buffer.byteLength(more) });
    expect(grown.data.rows).toMatchObject({ entries: 2, messages: 2, leaves: 2, sessions: 1 });
    expect(await dumpIndex(db)).toEqual(await rebuilt(root, dir));
    expect((await index(dir, db)).data).toMatchObject({ unchanged: 1, appended: 0, bytesRead: 0 });
  });

  it("does not see a change made in place to the part read before (it is not read again)", async () => {
    const { root, dir, file, db } = setup();
    await index(dir, db);
    // The assistant turn's model m1 becomes m9 in place (same size), then a turn is appended.
    const text = readFileSync(file, "utf8");
    overwrite(file, Buffer.byteLength(text.slice(0, text.indexOf('"model":"m1"'))), '"model":"m9"');
    appendTo(file, entryLine("s", 3, "s-2"));
    expect((await index(dir, db)).data).toMatchObject({ appended: 1, changed: 0 });
    const models = (d: Record<string, unknown[][]>) => d.messages?.map((r) => r[5]);
    expect(models(await dumpIndex(db))).toEqual([null, "m1", null, "m1"]);
    // A whole read sees it: the rows above were not made from the bytes read again.
    expect(models(await rebuilt(root, dir))).toEqual([null, "m9", null, "m1"]);
  });

  it("is read whole when the byte before the old end is no longer a newline, or the header changed", async () => {
    const { root, dir, file, db } = setup();
    await index(dir, db);
    const size = statSync(file).size;
    overwrite(file, size - 1, " ");
    appendTo(file, `\n${entryLine("s", 3, "s-2")}`);
    expect((await index(dir, db)).data).toMatchObject({ appended: 0, changed: 1 });
    expect(await dumpIndex(db)).toEqual(await rebuilt(root, dir));
    overwrite(file, HEADER.indexOf("/p"), "/q");
    appendTo(file, entryLine("s", 4, "s-3"));
    expect((await index(dir, db)).data).toMatchObject({ appended: 0, changed: 1 });
    expect(await dumpIndex(db)).toEqual(await rebuilt(root, dir));
  });

  it("leaves a half-written last line of a live file for the next run, which reads only that line", async () => {
    const { root, dir, file, db } = setup();
    await index(dir, db);
    const line = entryLine("s", 3, "s-2");
    // Written just now: the snapshot rule holds the unfinished line back.
    appendTo(file, line.slice(0, 30));
    const now = Date.now() / 1000;
    utimesSync(file, now, now);
    const held = await index(dir, db);
    expect(held.data).toMatchObject({ appended: 1, bytesRead: 0 });
    expect(held.data.rows.entries).toBe(0);
    appendTo(file, line.slice(30));
    const done = await index(dir, db);
    expect(done.data).toMatchObject({ appended: 1, bytesRead: Buffer.byteLength(line) });
    expect(done.data.rows.entries).toBe(1);
    expect(await dumpIndex(db)).toEqual(await rebuilt(root, dir));
  });

  it("is read whole when the kept state is not one this pisess made", async () => {
    const { root, dir, file, db } = setup();
    await index(dir, db);
    await withDb(db, (conn) => conn.run("UPDATE resume SET state = '\\x00\\x01'::BLOB"));
    appendTo(file, entryLine("s", 3, "s-2"));
    expect((await index(dir, db)).data).toMatchObject({ appended: 0, changed: 1 });
    expect(await dumpIndex(db)).toEqual(await rebuilt(root, dir));
  });

  it("is read whole when its kept state decodes but the read cannot go on from it: its earlier rows go too", async () => {
    const { root, dir, file, db } = setup();
    await index(dir, db);
    await withDb(db, async (conn) => {
      const b64 = String((await conn.runAndReadAll("SELECT to_base64(state) FROM resume")).getRowsJS()[0]?.[0]);
      const packed = JSON.parse(inflateRawSync(Buffer.from(b64, "base64")).toString("utf8"));
      // A state pisess would take, saying the read stopped past the file's end: going on from it fails at the read.
      packed.s.start.offset = statSync(file).size + 1000;
      const bad = deflateRawSync(JSON.stringify(packed)).toString("base64");
      await conn.run(`UPDATE resume SET state = from_base64('${bad}')`);
    });
    appendTo(file, entryLine("s", 3, "s-2"));
    expect((await index(dir, db)).data).toMatchObject({ appended: 0, changed: 1 });
    expect(await dumpIndex(db)).toEqual(await rebuilt(root, dir));
  });

  it("keeps no state for a file untouched for longer than the window: it is read whole once, then goes on", async () => {
    const { root, dir, file, db } = setup();
    const old = (Date.now() - RESUME_WINDOW_MS - 3_600_000) / 1000;
    utimesSync(file, old, old);
    await index(dir, db);
    appendTo(file, entryLine("s", 3, "s-2"));
    expect((await index(dir, db)).data).toMatchObject({ appended: 0, changed: 1 });
    appendTo(file, entryLine("s", 4, "s-3"));
    expect((await index(dir, db)).data).toMatchObject({ appended: 1, changed: 0 });
    expect(await dumpIndex(db)).toEqual(await rebuilt(root, dir));
  });

  it("is read whole when it is not a current-version file (pi rewrites those whole)", async () => {
    const { root, dir, file, db } = setup();
    writeSession(file, HEADER.replace('"version":3', '"version":2') + entryLine("s", 0, null));
    await index(dir, db);
    appendTo(file, entryLine("s", 1, "s-0"));
    expect((await index(dir, db)).data).toMatchObject({ appended: 0, changed: 1 });
    expect(await dumpIndex(db)).toEqual(await rebuilt(root, dir));
  });
});

describe("index: an unchanged file is told by one stat", () => {
  it("a header rewritten in place, the same size and mtime put back, is seen (ctime) and read whole", async () => {
    const { root, dir, file, db } = setup();
    await index(dir, db);
    const before = statSync(file);
    // Another session id of the same length: the header's fingerprint changes, size and mtime do not.
    overwrite(file, HEADER.indexOf("000000000001"), "000000000002");
    utimesSync(file, before.atime, before.mtime);
    expect(statSync(file)).toMatchObject({ size: before.size, mtimeMs: before.mtimeMs });
    expect((await index(dir, db)).data).toMatchObject({ unchanged: 0, changed: 1 });
    expect(await dumpIndex(db)).toEqual(await rebuilt(root, dir));
  });

  it("a file left alone is not opened again (its rows stay, nothing is read)", async () => {
    const { dir, db } = setup();
    await index(dir, db);
    expect((await index(dir, db)).data).toMatchObject({ unchanged: 1, changed: 0, appended: 0, bytesRead: 0 });
  });
});

describe("index: a file whose stat moved but not its bytes", () => {
  it("is found unchanged, and its new stat kept: the index equals a rebuild, and the next run tells it by one stat", async () => {
    const { root, dir, file, db } = setup();
    await index(dir, db);
    const before = statSync(file);
    // A chmod moves ctime only; the mtime put back as it was.
    chmodSync(file, 0o600);
    utimesSync(file, before.atime, before.mtime);
    expect((await index(dir, db)).data).toMatchObject({ unchanged: 1, changed: 0 });
    expect(await dumpIndex(db)).toEqual(await rebuilt(root, dir));
  });
});
