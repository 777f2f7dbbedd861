import { int, oddString, pick, rng, type Rng } from "./rng.js";

export const COMMANDS = [
  "tree",
  "path",
  "context",
  "diff",
  "ls",
  "info",
  "leaves",
  "show",
  "labels",
  "lineage",
  "grep",
  "validate",
  "bloat",
  "compactions",
  "export",
  "follow",
  "usage",
  "tables",
  "sql",
  "schema",
] as const;
export type CommandName = (typeof COMMANDS)[number];

/** What a command line may name: the mutated file, a second (unmutated) session, their folder, and what is in them. */
export interface ArgContext {
  file: string;
  other: string;
  dir: string;
  ids: string[];
  labels: string[];
  words: string[];
  lines: number;
  /** A folder for outputs: new files and folders go here, beside the traps below. */
  out: string;
  /** Output paths that must be refused: a symlink to the second session, a hard link to the file, a FIFO. */
  traps: string[];
}

export interface Invocation {
  argv: string[];
  /** The mutated file's bytes go to stdin (the file argument is `-`). */
  stdin: boolean;
}

const ODD_DATES = ["2025-13-45", "20261121", "2026-02-30", "", "yesterday", "2026-1-5", "0000-00-00", "2026-12-01T00:00"];
const SQL = [
  "SELECT count(*) AS n FROM sessions",
  "SELECT * FROM entries ORDER BY file, line LIMIT 20",
  "SELECT role, count(*) FROM messages GROUP BY 1 ORDER BY 1",
  "SELECT tool, count(*) FROM tool_calls GROUP BY 1 ORDER BY 1",
  "SELECT * FROM usage ORDER BY 1 LIMIT 5",
  "SELECT name, cwd, id FROM sessions ORDER BY 1",
  "SELEC nonsense",
  "SELECT * FROM no_such_table",
  "",
];

/** Where an output goes: a new name in the output folder, one of the paths that must be refused, or stdout. */
function outPath(r: Rng, c: ArgContext, odd: boolean, ext: string): string[] {
  const roll = r();
  if (roll < 0.3) return [];
  if (roll < (odd ? 0.75 : 0.55) && c.traps.length) return ["-o", pick(r, c.traps)];
  return ["-o", `${c.out}/out-${int(r, 1000)}${ext}`];
}

const ODD_NUMBERS = ["-1", "0", "NaN", "abc", "1e309", "9007199254740993", "-0", "", "0x10", "3.5", "-", "--", " 2"];

function ref(r: Rng, c: ArgContext, odd: boolean): string {
  if (odd && r() < 0.5) {
    return pick(r, [
      "@0",
      "@-1",
      "@99999999999999999999",
      "@",
      "label:",
      "",
      "-",
      "--x",
      "@1e3",
      " leaf",
      "L1",
      "leaf ",
      "@1.5",
      `label:${oddString(r, 6)}`,
      oddString(r, 8),
      "label:label:x",
      "@+2",
      "@0x2",
    ]);
  }
  const id = c.ids.length ? pick(r, c.ids) : "leaf";
  switch (int(r, 6)) {
    case 0:
      return id;
    case 1:
      return id.slice(0, 1 + int(r, 4));
    case 2:
      return `@${1 + int(r, Math.max(1, c.lines))}`;
    case 3:
      return c.labels.length ? `label:${pick(r, c.labels)}` : "leaf";
    case 4:
      return "leaf";
    default:
      return `@${1 + int(r, 3)}`;
  }
}

function num(r: Rng, odd: boolean, max: number): string {
  return odd && r() < 0.5 ? pick(r, ODD_NUMBERS) : String(int(r, max));
}

function outMode(r: Rng, odd: boolean, flags: string[]): string[] {
  if (odd && r() < 0.15) return [...flags];
  const f = pick(r, ["", ...flags]);
  return f ? [f] : [];
}

function sometimes(r: Rng, p: number, xs: string[]): string[] {
  return r() < p ? xs : [];
}

/** The commands whose help says `- for stdin`. */
const STDIN_COMMANDS = new Set<CommandName>([
  "tree",
  "path",
  "context",
  "diff",
  "info",
  "leaves",
  "show",
  "labels",
  "validate",
  "compactions",
  "export",
]);

/**
 * A command line for one command. `odd` adds option values a user should get a clean usage error for (or a sane
 * answer): negative, NaN, empty and non-numeric numbers, unknown references, `-` where a file goes, odd Unicode.
 */
export function buildInvocation(cmd: CommandName, c: ArgContext, argSeed: number, odd: boolean): Invocation {
  const r = rng(argSeed);
  const stdin = odd && r() < 0.25 && STDIN_COMMANDS.has(cmd);
  const F = stdin ? "-" : c.file;
  const p = (x: number): number => (odd ? Math.min(1, x * 2) : x);
  let argv: string[];
  switch (cmd) {
    case "tree":
      argv = [
        F,
        ...outMode(r, odd, ["--json", "--ndjson"]),
        ...sometimes(r, p(0.3), ["--leaf", ref(r, c, odd)]),
        ...sometimes(r, p(0.3), [
          "--filter",
          odd && r() < 0.3 ? oddString(r, 4) : pick(r, ["default", "no-tools", "user-only", "labeled-only", "all"]),
        ]),
        ...sometimes(r, p(0.2), [
          "--search",
          c.words.length ? pick(r, c.words) : "a",
          ...(r() < 0.5 ? [odd ? oddString(r, 3) : "the"] : []),
        ]),
        ...sometimes(r, p(0.2), ["--depth", num(r, odd, 4)]),
        ...sometimes(r, p(0.2), ["--from", ref(r, c, odd)]),
        ...sometimes(r, p(0.2), ["--width", num(r, odd, 120)]),
      ];
      break;
    case "path":
      argv = [
        F,
        ...outMode(r, odd, ["--json", "--ndjson"]),
        ...sometimes(r, p(0.6), ["--leaf", ref(r, c, odd)]),
        ...sometimes(r, p(0.2), ["--width", num(r, odd, 120)]),
      ];
      break;
    case "context": {
      const which =
        odd && r() < 0.2 ? (r() < 0.5 ? [] : ["--session", pick(r, [...c.ids.map((i) => i.slice(0, 2)), "0", oddString(r, 3)])]) : [F];
      argv = [
        ...which,
        ...outMode(r, odd, ["--json", "--ndjson"]),
        ...sometimes(r, p(0.5), ["--leaf", ref(r, c, odd)]),
        ...sometimes(r, 0.3, ["--llm"]),
        ...sometimes(r, 0.2, ["--format", odd && r() < 0.3 ? "html" : "markdown"]),
        ...sometimes(r, 0.2, ["--no-thinking"]),
        ...sometimes(r, p(0.2), ["--max-output", num(r, odd, 5)]),
        ...sometimes(r, 0.2, ["--show-edits"]),
      ];
      break;
    }
    case "diff": {
      const form = int(r, 5);
      const refs =
        form === 0
          ? [ref(r, c, odd), ref(r, c, odd)]
          : form === 1
            ? [ref(r, c, odd)]
            : form === 2
              ? ["--leaves"]
              : form === 3
                ? [c.other]
                : [ref(r, c, odd), ref(r, c, odd), "--context"];
      argv = [
        F,
        ...refs,
        ...sometimes(r, 0.5, ["--json"]),
        ...sometimes(r, 0.2, ["--context"]),
        ...sometimes(r, 0.2, ["--side-by-side"]),
        ...sometimes(r, p(0.2), ["--width", num(r, odd, 200)]),
      ];
      argv = [...new Set(argv)];
      break;
    }
    case "ls":
      argv = [
        ...(r() < 0.7 ? [r() < 0.5 ? c.dir : c.file] : []),
        ...outMode(r, odd, ["--json", "--ndjson"]),
        ...sometimes(r, 0.2, ["-a"]),
        ...sometimes(r, 0.3, ["--sort", odd && r() < 0.3 ? "size,name" : pick(r, ["modified", "created", "size", "name"])]),
        ...sometimes(r, p(0.2), ["--limit", num(r, odd, 3)]),
      ];
      break;
    case "info":
      argv = [F, ...sometimes(r, 0.6, ["--json"]), ...sometimes(r, 0.3, ["--include-copied"])];
      break;
    case "leaves":
      argv = [F, ...outMode(r, odd, ["--json", "--ndjson"]), ...sometimes(r, 0.3, ["--include-copied"])];
      break;
    case "show":
      argv = [F, ref(r, c, odd), ...(r() < 0.5 ? ["--json"] : r() < 0.3 ? ["--raw"] : [])];
      break;
    case "labels":
      argv = [F, ...outMode(r, odd, ["--json", "--ndjson"]), ...sometimes(r, 0.4, ["--history"])];
      break;
    case "lineage":
      argv = [
        c.file,
        ...outMode(r, odd, ["--json", "--ndjson"]),
        ...sometimes(r, 0.5, ["--forks-in", odd && r() < 0.3 ? oddString(r, 4) : c.dir]),
      ];
      break;
    case "grep": {
      const pattern =
        odd && r() < 0.5
          ? pick(r, ["(", "[", "", "\\", "\\p{L}", "(?<n>a)\\k<n>", "^", "$", ".", "a{2,1}", oddString(r, 3), "-", "--json"])
          : c.words.length
            ? pick(r, c.words)
            : "e";
      const pos = [pattern, ...(r() < 0.8 ? [r() < 0.6 ? F : c.dir] : [])];
      const opts = [
        ...outMode(r, odd, ["--json", "--ndjson"]),
        ...sometimes(r, 0.3, ["-i"]),
        ...sometimes(r, 0.2, ["--role", pick(r, ["user", "assistant,toolResult", "", "x"])]),
        ...sometimes(r, 0.2, ["--type", pick(r, ["message", "compaction,branch_summary", "label", ""])]),
        ...sometimes(r, p(0.2), ["--context", num(r, odd, 80)]),
      ];
      // A pattern that looks like an option needs `--` before it, as in grep(1).
      argv = pattern.startsWith("-") ? [...opts, "--", ...pos] : [...pos, ...opts];
      break;
    }
    case "validate":
      argv = [
        r() < 0.15 ? c.dir : F,
        ...sometimes(r, 0.7, ["-f", odd && r() < 0.2 ? "xml" : pick(r, ["text", "json", "ndjson", "github", "sarif"])]),
        ...sometimes(r, 0.2, ["--strict"]),
        ...sometimes(r, 0.2, ["-q"]),
        ...sometimes(r, 0.2, ["--fail-on", pick(r, ["error", "warning", "info"])]),
        ...sometimes(r, p(0.1), ["--max-warnings", num(r, odd, 5)]),
      ];
      break;
    case "bloat":
      argv = [
        c.file,
        ...sometimes(r, 0.5, ["--json"]),
        ...sometimes(r, p(0.3), ["--leaf", ref(r, c, odd)]),
        ...sometimes(r, p(0.3), ["--top", num(r, odd, 20)]),
      ];
      break;
    case "compactions":
      argv = [F, ...sometimes(r, 0.5, ["--json"]), ...sometimes(r, p(0.3), ["--leaf", ref(r, c, odd)]), ...sometimes(r, 0.3, ["--all"])];
      break;
    case "export": {
      const format = pick(r, ["html", "markdown", "jsonl", ...(odd ? ["xml", ""] : [])]);
      const ext = pick(r, [".html", ".md", ".jsonl", ""]);
      argv = [
        F,
        ...sometimes(r, 0.7, ["--format", format]),
        ...outPath(r, c, odd, ext),
        ...sometimes(r, 0.4, ["--force"]),
        ...sometimes(r, p(0.3), ["--leaf", ref(r, c, odd)]),
        ...sometimes(r, 0.2, ["--no-images"]),
      ];
      // Without -o the page goes to stdout; keep it small enough to collect.
      break;
    }
    case "follow":
      argv = [
        c.file,
        ...sometimes(r, 0.6, ["--from-start"]),
        ...sometimes(r, 0.4, ["--ndjson"]),
        // Always bounded: a follow that never ends would be the harness's fault, not pisess's.
        "--until-idle",
        odd && r() < 0.3 ? pick(r, ["0", "-1", "abc", ""]) : "1",
        ...sometimes(r, p(0.2), ["--width", num(r, odd, 120)]),
      ];
      break;
    case "usage":
      argv = [
        ...(r() < 0.7 ? [r() < 0.5 ? c.dir : c.file] : []),
        ...outMode(r, odd, ["--json", "--ndjson"]),
        ...sometimes(r, 0.5, [
          "--by",
          odd && r() < 0.3 ? oddString(r, 4) : pick(r, ["day", "week", "month", "model", "project", "session", "leaf", "day,model"]),
        ]),
        ...sometimes(r, p(0.2), ["--since", odd ? pick(r, ODD_DATES) : "2024-01-01"]),
        ...sometimes(r, p(0.2), ["--until", odd ? pick(r, ODD_DATES) : "2030-12-31"]),
        ...sometimes(r, 0.2, ["--breakdown"]),
        ...sometimes(r, 0.2, ["--include-copied"]),
        ...sometimes(r, 0.1, ["--timezone", odd ? oddString(r, 5) : "UTC"]),
      ];
      break;
    case "tables":
      argv = [
        r() < 0.5 ? c.dir : c.file,
        "--out",
        odd && r() < 0.4 && c.traps.length ? pick(r, [...c.traps, c.dir]) : `${c.out}/tables-${int(r, 1000)}`,
        ...sometimes(r, 0.8, ["--format", "ndjson"]),
      ];
      break;
    case "sql":
      argv = [
        odd && r() < 0.2 ? oddString(r, 8) : pick(r, SQL),
        ...(r() < 0.8 ? [r() < 0.5 ? c.dir : c.file] : []),
        ...outMode(r, odd, ["--json", "--ndjson", "--csv"]),
      ];
      break;
    case "schema":
      argv = [
        ...(r() < 0.7 ? [odd && r() < 0.5 ? oddString(r, 6) : pick(r, ["header", "entry", "message-assistant", "entry-compaction"])] : []),
      ];
      break;
  }
  if (odd && r() < 0.1) argv.push("--color", "never");
  return { argv: [cmd, ...argv], stdin: stdin || argv.includes("-") };
}
