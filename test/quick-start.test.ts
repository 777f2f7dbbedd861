import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { BIN, ROOT } from "./helpers.js";

// bin/pisess.js answers `--version` and `--help` alone from dist/bundle/start.json, written at build time, without
// loading the bundle. Its answers must be what the bundle's yargs prints in the same conditions, byte for byte.
const TRACE = join(ROOT, "test", "load-trace.mjs");
const FAKE_TTY = join(ROOT, "test", "fake-tty.mjs");
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
  const r = spawnSync(process.execPath, [...preload(columns), "--import", TRACE, BIN, ...args], {
    encoding: "utf8",
    env: environment(env, columns),
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** The bundle's main() with yargs, never the shim's shortcut. */
function yargs(args: string[], env: Record<string, string> = {}, columns?: number): Run {
  const script = `const { main } = await import(${JSON.stringify(CLI)}); process.exitCode = await main(${JSON.stringify(args)});`;
  const r = spawnSync(process.execPath, [...preload(columns), "--input-type=module", "-e", script], {
    encoding: "utf8",
    env: environment(env, columns),
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

const loadsBundle = (r: Run): boolean => /^LOADED .*dist\/bundle\/cli\.cjs$/m.test(r.stderr);

describe("--version and --help answered before the bundle loads", () => {
  it("--version and -v: the package's version as yargs prints it, without loading the bundle", () => {
    expect(yargs(["--version"]).stdout).toBe(`${VERSION}\n`);
    for (const flag of ["--version", "-v"]) {
      const r = bin([flag]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`${VERSION}\n`);
      expect(loadsBundle(r)).toBe(false);
    }
  });

  for (const [what, env, columns] of [
    ["not a terminal", {}, undefined],
    ["a terminal 110 columns wide", {}, 110],
    ["a terminal 200 columns wide", {}, 200],
    ["LANG=C", { LANG: "C" }, undefined],
    ["LC_ALL=en_GB.UTF-8 over LANG=de_DE", { LC_ALL: "en_GB.UTF-8", LANG: "de_DE.UTF-8" }, undefined],
  ] as const) {
    it(`--help, ${what}: yargs's text byte for byte, without loading the bundle`, () => {
      const r = bin(["--help"], env, columns);
      expect(r.code).toBe(0);
      expect(loadsBundle(r)).toBe(false);
      expect(r.stdout).toContain("Commands:");
      const y = yargs(["--help"], env, columns);
      expect(y.code).toBe(0);
      expect(r.stdout).toBe(y.stdout);
    });
  }

  it("-h: the same text as --help, without loading the bundle", () => {
    const r = bin(["-h"]);
    expect(loadsBundle(r)).toBe(false);
    expect(r.stdout).toBe(yargs(["--help"]).stdout);
  });

  for (const [what, env, columns] of [
    ["a terminal 80 columns wide", {}, 80],
    ["LANG=fr_FR.UTF-8", { LANG: "fr_FR.UTF-8" }, undefined],
    ["LANGUAGE=de with no LANG", { LANG: "", LANGUAGE: "de" }, undefined],
  ] as const) {
    it(`--help, ${what}: left to yargs (the bundle loads), same text`, () => {
      const r = bin(["--help"], env, columns);
      expect(r.code).toBe(0);
      expect(loadsBundle(r)).toBe(true);
      expect(r.stdout).toBe(yargs(["--help"], env, columns).stdout);
    });
  }

  it("anything more than the flag alone goes to yargs", () => {
    for (const args of [
      ["--version", "--debug"],
      ["tree", "--help"],
      ["--help", "tree"],
    ]) {
      expect(loadsBundle(bin(args)), args.join(" ")).toBe(true);
    }
  });
});
