import { execFileSync } from "node:child_process";
import { mkdirSync, readdir, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { discoverHook, listSessionFiles } from "../../src/io/discover.js";
import { tempDirs } from "../support/temp-dirs.js";

/**
 * listSessionFiles lists a folder with one recursive readdir; the reference is its walk, folder by folder (what runs
 * when discoverHook replaces the listing). Both must give the same paths, spelled the same, and the same errors.
 */

const tmp = tempDirs("pisess-listing-");
afterEach(() => {
  discoverHook.readdir = null;
});

function tree(): string {
  const root = tmp();
  const d = join(root, "sessions");
  mkdirSync(join(d, "--p--", "sub", "subagents"), { recursive: true });
  mkdirSync(join(root, "elsewhere"));
  writeFileSync(join(d, "--p--", "a.jsonl"), "{}\n");
  // At the top: the one place Node's recursive listing keeps the folder as it was written.
  writeFileSync(join(d, "top.jsonl"), "{}\n");
  writeFileSync(join(d, "--p--", "b.txt"), "");
  writeFileSync(join(d, "--p--", "sub", "subagents", "c.jsonl"), "{}\n");
  writeFileSync(join(root, "elsewhere", "e.jsonl"), "{}\n");
  // A symlinked folder is not followed; a symlinked file counts; a dangling symlink and a FIFO are errors.
  symlinkSync(join(root, "elsewhere"), join(d, "linked-folder"));
  symlinkSync(join(root, "elsewhere", "e.jsonl"), join(d, "--p--", "linked.jsonl"));
  symlinkSync(join(root, "nowhere.jsonl"), join(d, "--p--", "dangling.jsonl"));
  execFileSync("mkfifo", [join(d, "--p--", "pipe.jsonl")]);
  return d;
}

async function both(dir: string): Promise<[unknown, unknown]> {
  const errors = (list: string[]) => (p: string) => list.push(relative(dir, p));
  discoverHook.readdir = null;
  const fastErrors: string[] = [];
  const fast = await listSessionFiles(dir, errors(fastErrors));
  discoverHook.readdir = (d) =>
    new Promise((resolve, reject) => readdir(d, { withFileTypes: true }, (err, items) => (err ? reject(err) : resolve(items))));
  const walkErrors: string[] = [];
  const walk = await listSessionFiles(dir, errors(walkErrors));
  return [
    { files: fast, errors: fastErrors.sort() },
    { files: walk, errors: walkErrors.sort() },
  ];
}

describe("listing a folder of sessions at once = folder by folder", () => {
  it("the same files, names and errors, whichever way the folder is written", async () => {
    const d = tree();
    for (const spelled of [d, `${d}/`, join(d, "..", "sessions"), `${d}/./--p--/..`]) {
      const [fast, walk] = await both(spelled);
      expect(fast).toEqual(walk);
    }
    const [fast] = (await both(d)) as { files: string[]; errors: string[] }[];
    expect(fast?.files.map((f) => relative(d, f))).toEqual([
      "--p--/a.jsonl",
      "--p--/linked.jsonl",
      "--p--/sub/subagents/c.jsonl",
      "top.jsonl",
    ]);
    expect(fast?.errors).toEqual(["--p--/dangling.jsonl", "--p--/pipe.jsonl"]);
  });
});
