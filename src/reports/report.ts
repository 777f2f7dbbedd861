import type { Diagnostic } from "../model/types.js";
import { sanitize } from "../model/sanitize.js";

/**
 * What every report returns: the data a renderer shows, the diagnostics found on the way (rendered by the one
 * formatter, src/render/diagnostics.ts), and the exit status the CLI ends with (0 ok, 1 findings, 2 errors).
 */
export interface Report<T> {
  data: T;
  diagnostics: Diagnostic[];
  exitCode: number;
}

/**
 * A failure meant for the user (bad reference, unreadable input): one line, exit code 2 unless said otherwise.
 * Its message goes to a terminal and quotes what the user or a session gave (paths, references, option values,
 * yargs' usage errors): it is made safe here, once, with the one sanitizer (line breaks kept).
 */
export class ReportError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(sanitize(message));
  }
}
