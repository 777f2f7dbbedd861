import { createRequire } from "node:module";
import type { ChalkInstance } from "chalk";

const load = createRequire(import.meta.url);

/** The few colours pisess uses, by meaning; `plain` when colour is off. */
export interface Style {
  enabled: boolean;
  /**
   * Every escape sequence this style writes (the SGR that opens and closes each colour): the output filter
   * (TerminalFilter) lets exactly these through on a stream whose colour is on, and escapes every other one.
   */
  palette: ReadonlySet<string>;
  dim(s: string): string;
  bold(s: string): string;
  accent(s: string): string;
  user(s: string): string;
  assistant(s: string): string;
  tool(s: string): string;
  error(s: string): string;
  warning(s: string): string;
  info(s: string): string;
  label(s: string): string;
  special(s: string): string;
}

/** Text as chalk returns it with colour off: unchanged. */
const same = (s: string): string => `${s}`;

const PLAIN: Style = {
  enabled: false,
  palette: new Set(),
  dim: same,
  bold: same,
  accent: same,
  user: same,
  assistant: same,
  tool: same,
  error: same,
  warning: same,
  info: same,
  label: same,
  special: same,
};

export function makeStyle(enabled: boolean): Style {
  // chalk loads only when there is colour to write: plain and JSON output never need it.
  if (!enabled) return PLAIN;
  const { Chalk } = load("chalk") as typeof import("chalk");
  const c: ChalkInstance = new Chalk({ level: 1 });
  const colours: Omit<Style, "enabled" | "palette"> = {
    dim: (s) => c.dim(s),
    bold: (s) => c.bold(s),
    accent: (s) => c.cyan(s),
    user: (s) => c.cyan(s),
    assistant: (s) => c.green(s),
    tool: (s) => c.gray(s),
    error: (s) => c.red(s),
    warning: (s) => c.yellow(s),
    info: (s) => c.blue(s),
    label: (s) => c.yellow(s),
    special: (s) => c.magenta(s),
  };
  return { enabled, palette: paletteOf(colours), ...colours };
}

/** The sequences each colour writes around its text: what it writes around a marker, split at the marker. */
function paletteOf(colours: Omit<Style, "enabled" | "palette">): Set<string> {
  const out = new Set<string>();
  for (const colour of Object.values(colours))
    for (const seq of colour("\u0000").split("\u0000")) for (const one of seq.split("\u001b")) if (one !== "") out.add(`\u001b${one}`);
  return out;
}
