import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { BIN, once, ROOT } from "../support/helpers.js";

// `pisess --version` and `pisess --help` as a user runs them: what the bundle's yargs prints in the same conditions
// (width, language), byte for byte, and exit 0. (bin/pisess.js once answered them from a text written at build
// time; that trick was measured and deleted: bench/RESULTS.md, "Start-up tricks".)
const FAKE_TTY = join(ROOT, "test", "support", "fake-tty.mjs");
const CLI = pathToFileURL(join(ROOT, "dist", "bundle", "cli.cjs")).href;
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** A clean English environment unless `env` says otherwise; `columns`: stdout is a terminal that wide. */
function environment(env: Record<string, string>, columns?: number): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", LANG: "en_US.UTF-8", ...env };
  for (const k of ["LC_ALL", "LC_MESSAGES", "LANGUAGE"]) if (!(k in env)) delete out[k];
  if (columns !== undefined) out.PISESS_TEST_COLUMNS = String(columns);
  return out;
}

function preload(columns?: number): string[] {
  return columns === undefined ? [] : ["--import", FAKE_TTY];
}

/** The shim, as a user runs it. */
function bin(args: string[], env: Record<string, string> = {}, columns?: number): Run {
  const r = spawnSync(process.execPath, [...preload(columns), BIN, ...args], {
    encoding: "utf8",
    env: environment(env, columns),
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** What yargs is asked for below: the arguments, the environment's changes and the terminal's width. */
type Case = readonly [args: readonly string[], env: Readonly<Record<string, string>>, columns: number | undefined];

const key = ([args, env, columns]: Case): string => JSON.stringify([args, env, columns ?? null]);

/**
 * The bundle's main() with yargs, in process, for every case in `cases`, in one process: before each
 * run the process's environment becomes the case's (as a process of its own would get it) and stdout claims to be a
 * terminal that wide, or is not one (as fake-tty.mjs makes it). Each run goes through the CLI's I/O seam with the
 * process's own streams, so yargs, which ends the process after help, leaves it for the next case; yargs reads the
 * locale from the environment and main() the width from stdout on every run. What each run wrote on stdout and its
 * exit status, by case (`key`).
 */
function yargsRuns(cases: readonly Case[]): Map<string, Run> {
  const script = `const { main, withRunIo } = await import(${JSON.stringify(CLI)});
const { Readable } = await import("node:stream");
const tty = { isTTY: process.stdout.isTTY, columns: process.stdout.columns };
for (const { args, env, columns } of JSON.parse(process.argv[1])) {
  for (const k of Object.keys(process.env)) delete process.env[k];
  Object.assign(process.env, env);
  const isTTY = columns === null ? tty.isTTY : true;
  Object.defineProperty(process.stdout, "isTTY", { value: isTTY, configurable: true });
  Object.defineProperty(process.stdout, "columns", { value: columns ?? tty.columns, configurable: true });
  const io = { stdin: Readable.from([]), stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: () => process.cwd() };
  const code = await withRunIo(io, () => main(args));
  process.stdout.write("\\0" + code + "\\0\\n");
}`;
  const unique = [...new Map(cases.map((c) => [key(c), c])).values()];
  const input = unique.map((c) => ({ args: c[0], env: environment(c[1], c[2]), columns: c[2] ?? null }));
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script, JSON.stringify(input)], { encoding: "utf8" });
  const parts = r.stdout.split(/\0(\d+)\0\n/);
  if (r.status !== 0 || parts.length !== 2 * unique.length + 1) throw new Error(`yargs runs failed (${r.status}): ${r.stderr}`);
  return new Map(unique.map((c, i) => [key(c), { code: Number(parts[2 * i + 1]), stdout: parts[2 * i] as string, stderr: "" }]));
}

const HELP_CASES = [
  ["not a terminal", [["--help"], {}, undefined]],
  ["a terminal 110 columns wide", [["--help"], {}, 110]],
  ["a terminal 200 columns wide", [["--help"], {}, 200]],
  ["LANG=C", [["--help"], { LANG: "C" }, undefined]],
  ["LC_ALL=en_GB.UTF-8 over LANG=de_DE", [["--help"], { LC_ALL: "en_GB.UTF-8", LANG: "de_DE.UTF-8" }, undefined]],
  ["a terminal 80 columns wide", [["--help"], {}, 80]],
  ["LANG=fr_FR.UTF-8", [["--help"], { LANG: "fr_FR.UTF-8" }, undefined]],
  ["LANGUAGE=de with no LANG", [["--help"], { LANG: "", LANGUAGE: "de" }, undefined]],
] as const satisfies readonly (readonly [string, Case])[];
const VERSION_CASE: Case = [["--version"], {}, undefined];

const references = once(() => yargsRuns([VERSION_CASE, ...HELP_CASES.map(([, c]) => c)]));

/** What the bundle's yargs printed for a case (one of those above). */
function yargs(args: readonly string[], env: Readonly<Record<string, string>> = {}, columns?: number): Run {
  const r = references().get(key([args, env, columns]));
  if (r === undefined) throw new Error(`no yargs run for ${key([args, env, columns])}`);
  return r;
}

describe("--version and --help print what yargs prints", () => {
  it("--version and -v: the package's version as yargs prints it", () => {
    expect(yargs(["--version"]).stdout).toBe(`${VERSION}\n`);
    for (const flag of ["--version", "-v"]) {
      const r = bin([flag]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`${VERSION}\n`);
    }
  });

  for (const [what, [, env, columns]] of HELP_CASES) {
    it(`--help, ${what}: yargs's text byte for byte`, () => {
      const r = bin(["--help"], env, columns);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("pisess tree <file>");
      const y = yargs(["--help"], env, columns);
      expect(y.code).toBe(0);
      expect(r.stdout).toBe(y.stdout);
    });
  }

  it("-h: the same text as --help", () => {
    const r = bin(["-h"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(yargs(["--help"]).stdout);
  });

  it("help in another language is yargs's translation (its locales/ folder is found from the bundle)", () => {
    expect(bin(["--help"], { LANG: "fr_FR.UTF-8" }).stdout).toContain("Commandes :");
  });
});
