import { sanitizeLine } from "./sanitize.js";

/**
 * One-line notes on stderr. What they quote (paths from a folder listing, reasons from the system) may hold
 * control characters: every note passes through sanitizeLine.
 */

/** `pisess: TEXT`. */
export function noteLine(text: string): string {
  return `pisess: ${sanitizeLine(text)}\n`;
}

/** `pisess: PATH: REASON`, for an input that could not be read. */
export function failureLine(f: { path: string; reason: string }): string {
  return `pisess: ${sanitizeLine(f.path)}: ${sanitizeLine(f.reason)}\n`;
}
