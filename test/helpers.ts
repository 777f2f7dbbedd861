import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Session } from "../src/model/session.js";
import type { EntryRec } from "../src/model/types.js";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
export const BIN = join(ROOT, "bin", "pisess.js");

export function fixture(...parts: string[]): string {
  return join(ROOT, "fixtures", ...parts);
}

export function corpus(name: string): string {
  return join(ROOT, "fixtures", "corpus", name);
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Spawns the built binary (dist/ must be built: `npm test` runs tsc first). Colour off unless env says so. */
export function runCli(
  args: string[],
  opts: { input?: string | Buffer; env?: Record<string, string | undefined>; cwd?: string } = {},
): CliResult {
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: "1", FORCE_COLOR: undefined, ...opts.env };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  const r = spawnSync(process.execPath, [BIN, ...args], {
    input: opts.input ?? "",
    env: env as NodeJS.ProcessEnv,
    cwd: opts.cwd ?? ROOT,
    maxBuffer: 512 * 1024 * 1024,
    encoding: "utf8",
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

export interface FileFingerprint {
  path: string;
  sha256: string;
  mtimeMs: number;
  size: number;
}

export function fingerprint(path: string): FileFingerprint {
  const st = statSync(path);
  return { path, sha256: createHash("sha256").update(readFileSync(path)).digest("hex"), mtimeMs: st.mtimeMs, size: st.size };
}

/**
 * Lines pi 1.6 keeps as bogus entries (no type, no id: a line holding `42`, `"x"`, `true` or an array) while
 * pisess reports them as `non-object-line` and skips them: a documented difference. Read here without pisess.
 */
export function piBogusLines(path: string): Set<number> {
  const out = new Set<number>();
  readFileSync(path, "utf8")
    .split("\n")
    .forEach((text, i) => {
      try {
        const v: unknown = JSON.parse(text);
        if (v && (typeof v !== "object" || Array.isArray(v))) out.add(i + 1);
      } catch {
        // not JSON: pi drops it too
      }
    });
  return out;
}

/** A run made once and shared by the tests that read it (the same command, spawned once). */
export function once<T>(run: () => T): () => T {
  let done: { value: T } | undefined;
  return () => {
    done ??= { value: run() };
    return done.value;
  };
}

/** What a load made of a session, comparable across load details: each entry through `entryView`, the rest as is. */
export function sessionView(s: Session, entryView: (rec: EntryRec) => unknown): unknown {
  return {
    entries: s.entries.map(entryView),
    byId: [...s.byId].map(([id, r]) => [id, r.line]),
    labels: [...s.labels],
    sessionName: s.sessionName,
    defaultLeaf: s.defaultLeaf?.line ?? null,
    diagnostics: s.diagnostics,
    skipped: s.skipped,
    facts: s.facts,
    header: s.header,
    headerLine: s.headerLine,
    version: s.version,
  };
}
