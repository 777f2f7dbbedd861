import { Chalk, type ChalkInstance } from "chalk";

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

export function makeStyle(enabled: boolean): Style {
  const c: ChalkInstance = new Chalk({ level: enabled ? 1 : 0 });
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
