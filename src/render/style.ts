import { createRequire } from "node:module";
import type { ChalkInstance } from "chalk";

const load = createRequire(import.meta.url);

/** The few colours pisess uses, by meaning; `plain` when colour is off. */
export interface Style {
  enabled: boolean;
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
  return {
    enabled,
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
}
