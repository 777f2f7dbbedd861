/** A parsed JSON object (not null, not an array). */
export type Obj = Record<string, unknown>;

/** The one test for "a JSON object": not null and not an array. */
export function isObject(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
