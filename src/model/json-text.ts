/**
 * JSON text for values read from sessions. JSON.parse reads a value nested tens of thousands deep, but
 * JSON.stringify recurses and overflows the stack a few thousand levels down: a thrown error halfway through a
 * streamed document would leave it cut off on stdout. `toJson` gives JSON.stringify's bytes for every value; only
 * when the native call runs out of stack does it redo the work with an explicit stack.
 */

function isStackOverflow(err: unknown): boolean {
  return err instanceof RangeError && /call stack/i.test(err.message);
}

/** JSON.stringify(v) (no replacer, no indent), safe for any depth. */
export function toJson(v: unknown): string | undefined {
  try {
    return JSON.stringify(v);
  } catch (err) {
    if (!isStackOverflow(err)) throw err;
    return stringifyDeep(v);
  }
}

/** An array or object being written: the next item or key to write. */
type Frame =
  | { kind: "array"; items: unknown[]; next: number }
  | { kind: "object"; obj: Record<string, unknown>; keys: string[]; next: number; wrote: boolean };

function prepared(v: unknown, key: string): unknown {
  if (v !== null && typeof v === "object" && typeof (v as { toJSON?: unknown }).toJSON === "function")
    return (v as { toJSON: (k: string) => unknown }).toJSON(key);
  return v;
}

/** JSON.stringify's text for a leaf value; null for a container; undefined for a value it leaves out. */
function leafText(v: unknown): string | null | undefined {
  if (v === null) return "null";
  if (typeof v === "object") {
    // Boxed primitives print as their value, as JSON.stringify does.
    if (v instanceof Number || v instanceof String || v instanceof Boolean) return JSON.stringify(v);
    return null;
  }
  return JSON.stringify(v);
}

/** JSON.stringify without recursion: one explicit stack of open arrays and objects (exported for its tests, through render/json.ts). */
export function stringifyDeep(root: unknown): string | undefined {
  const out: string[] = [];
  const stack: Frame[] = [];
  const open = (v: unknown): void => {
    if (Array.isArray(v)) {
      out.push("[");
      stack.push({ kind: "array", items: v, next: 0 });
    } else {
      out.push("{");
      const obj = v as Record<string, unknown>;
      stack.push({ kind: "object", obj, keys: Object.keys(obj), next: 0, wrote: false });
    }
  };
  const first = prepared(root, "");
  const t = leafText(first);
  if (t !== null) return t;
  open(first);
  while (stack.length > 0) {
    const f = stack[stack.length - 1] as Frame;
    if (f.kind === "array") {
      if (f.next >= f.items.length) {
        out.push("]");
        stack.pop();
        continue;
      }
      const i = f.next++;
      if (i > 0) out.push(",");
      const v = prepared(f.items[i], String(i));
      const text = leafText(v);
      if (text === null) open(v);
      else out.push(text ?? "null");
    } else {
      if (f.next >= f.keys.length) {
        out.push("}");
        stack.pop();
        continue;
      }
      const k = f.keys[f.next++] as string;
      const v = prepared(f.obj[k], k);
      const text = leafText(v);
      if (text === undefined) continue;
      out.push(`${f.wrote ? "," : ""}${JSON.stringify(k)}:`);
      f.wrote = true;
      if (text === null) open(v);
      else out.push(text);
    }
  }
  return out.join("");
}
