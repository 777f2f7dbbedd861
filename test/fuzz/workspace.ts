import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ArgContext } from "./args.js";

/**
 * A throwaway pi home for one case: the mutated file and a second session in the sessions folder of the working
 * directory (so commands without a FILE find them), agent dir and sessions dir pointed there by the environment.
 * Commands only ever see these copies, never a corpus file.
 */
export interface Workspace {
  root: string;
  cwd: string;
  dir: string;
  file: string;
  other: string;
  env: NodeJS.ProcessEnv;
  dispose(): void;
}

export function makeWorkspace(file: Buffer, other: Buffer): Workspace {
  const root = mkdtempSync(join(tmpdir(), "pisess-fuzz-"));
  const cwd = join(root, "work");
  mkdirSync(cwd);
  const dir = join(root, "sessions", `--${cwd.slice(1).replace(/[/\\:]/g, "-")}--`);
  mkdirSync(dir, { recursive: true });
  mkdirSync(join(root, "agent"));
  const f = join(dir, "fuzz.jsonl");
  const o = join(dir, "other.jsonl");
  writeFileSync(f, file);
  writeFileSync(o, other);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: root,
    NO_COLOR: "1",
    PI_CODING_AGENT_DIR: join(root, "agent"),
    PI_CODING_AGENT_SESSION_DIR: join(root, "sessions"),
  };
  return { root, cwd, dir, file: f, other: o, env, dispose: () => rmSync(root, { recursive: true, force: true }) };
}

function uniq(xs: Iterable<string>, max: number): string[] {
  return [...new Set(xs)].slice(0, max);
}

/** Ids, labels and words of the mutated file, found without pisess, for entry references and patterns. */
export function argContext(ws: Workspace, bytes: Buffer): ArgContext {
  const text = bytes.toString("utf8");
  return {
    file: ws.file,
    other: ws.other,
    dir: ws.dir,
    ids: uniq(
      [...text.matchAll(/"id":"([^"\\]*)"/g)].map((m) => m[1] ?? ""),
      64,
    ),
    labels: uniq(
      [...text.matchAll(/"label":"([^"\\]*)"/g)].map((m) => m[1] ?? ""),
      16,
    ),
    words: uniq(
      [...text.matchAll(/[A-Za-z]{5,12}/g)].map((m) => m[0]),
      64,
    ),
    lines: text.split("\n").length,
  };
}

/** Placeholders for the workspace paths, so a kept failure replays anywhere. */
export function toPlaceholders(argv: readonly string[], ws: Workspace): string[] {
  return argv.map((a) => (a === ws.file ? "{file}" : a === ws.other ? "{other}" : a === ws.dir ? "{dir}" : a));
}

export function fromPlaceholders(argv: readonly string[], ws: Workspace): string[] {
  return argv.map((a) => (a === "{file}" ? ws.file : a === "{other}" ? ws.other : a === "{dir}" ? ws.dir : a));
}
