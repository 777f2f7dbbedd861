import { createHash } from "node:crypto";

/**
 * A snapshot scenario as a Markdown file (are-the-types-wrong's CLI snapshots are the model): the command line as
 * typed, what it wrote on stdout and stderr, and its exit status. Written by `npm run test:update`, read back by
 * test/snapshots/snapshots.test.ts, reviewed as a diff.
 *
 *     # pisess tree session.jsonl --json | jq …
 *
 *     From: README.md
 *
 *     ```sh
 *     $ pisess tree session.jsonl --json | jq …
 *     ```
 *
 *     stdout:
 *
 *     ```
 *     …
 *     ```
 *
 *     stderr:
 *
 *     ```
 *     ```
 *
 *     Exit code: 0
 *
 * A block whose text does not end with a newline is followed by the line `(no newline at end)`. A fence is longer
 * than any run of backticks in its text, so output holding Markdown stays one block.
 */
export interface Scenario {
  command: string;
  from: string[];
  stdout: string;
  stderr: string;
  exitCode: number | null;
}

const NO_EOL = "(no newline at end)";

function fence(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return "`".repeat(Math.max(3, longest + 1));
}

function block(text: string): string {
  const f = fence(text);
  if (text === "") return `${f}\n${f}\n`;
  const eol = text.endsWith("\n");
  return `${f}\n${text}${eol ? "" : "\n"}${f}\n${eol ? "" : `${NO_EOL}\n`}`;
}

export function formatScenario(s: Scenario): string {
  const title = s.command.split("\n")[0] ?? "";
  return [
    `# ${title}${s.command.includes("\n") ? " …" : ""}\n`,
    `From: ${s.from.join(", ")}\n`,
    block(`$ ${s.command}\n`).replace(/^`+/, (f) => `${f}sh`),
    "stdout:\n",
    block(s.stdout),
    "stderr:\n",
    block(s.stderr),
    `Exit code: ${s.exitCode === null ? "none (killed)" : s.exitCode}\n`,
  ].join("\n");
}

/** The blocks of a scenario file, in order: [command, stdout, stderr]. Throws on a file not written by formatScenario. */
export function parseScenario(text: string): Scenario {
  const blocks: string[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})(\w*)$/.exec(lines[i] ?? "");
    if (!open) continue;
    const close = open[1] as string;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== close; i++) body.push(lines[i] as string);
    let t = body.length === 0 ? "" : `${body.join("\n")}\n`;
    if (lines[i + 1] === NO_EOL) t = t.slice(0, -1);
    blocks.push(t);
  }
  const from = /^From: (.*)$/m.exec(text)?.[1] ?? "";
  const exit = /^Exit code: (.*)$/m.exec(text)?.[1];
  if (blocks.length !== 3 || exit === undefined) throw new Error("not a snapshot scenario (three blocks and an exit code)");
  return {
    command: (blocks[0] as string).replace(/^\$ /, "").replace(/\n$/, ""),
    from: from === "" ? [] : from.split(", "),
    stdout: blocks[1] as string,
    stderr: blocks[2] as string,
    exitCode: exit === "none (killed)" ? null : Number(exit),
  };
}

/** The scenario's file name: the command's first words, then a hash of the whole line (two lines alike stay apart). */
export function scenarioName(command: string): string {
  const words = command
    .replace(/^pisess\s+/, "")
    .replace(/\s+#.*$/m, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, 48)
    .replace(/-$/, "");
  const hash = createHash("sha256").update(command).digest("hex").slice(0, 6);
  return `${words || "pisess"}-${hash}.md`;
}
