import { toJson } from "../model/json-text.js";

// JSON.stringify's bytes on any stack live in the model layer (model, ops and reports write content too).
export { stringifyDeep, toJson } from "../model/json-text.js";

/**
 * The opening of a JSON object whose last member is an array written item by item after it (`{"file":…,"key":[`):
 * `head` is the JSON text of the members before it, as an object. The streamed documents start this way.
 */
export function openArrayMember(head: string, key: string): string {
  return `${head === "{}" ? "{" : `${head.slice(0, -1)},`}${JSON.stringify(key)}:[`;
}

/** Values nested deeper than this are printed on one line by toPrettyJson. */
export const PRETTY_MAX_DEPTH = 256;

/**
 * Pretty JSON for reading (2-space indent, as JSON.stringify(v, null, 2)). A value nested deeper than
 * PRETTY_MAX_DEPTH is printed on one line instead (the same value, still valid JSON): its indentation alone grows
 * with the square of the depth, and where the native call runs out of stack depends on the thread's stack size, so a
 * limit on the stack would print the same value differently in a worker thread or under another `--stack-size`.
 */
export function toPrettyJson(v: unknown): string | undefined {
  return deeperThan(v, PRETTY_MAX_DEPTH) ? toJson(v) : JSON.stringify(v, null, 2);
}

/** Whether arrays and objects nest more than `limit` deep in `root` (iterative; stops at the first one too deep). */
function deeperThan(root: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[root, 0]];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [v, depth] = top;
    if (v === null || typeof v !== "object") continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v))
      if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
  }
  return false;
}
