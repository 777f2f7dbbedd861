// Deep comparison that reports the JSON path of the first difference.
// Iterative, with no spread of arrays into calls: pi's getTree nests one level per entry of a chain, and the oracle
// of a long linear session (a v1 file of thousands of entries) overflowed the main thread's stack when walked by
// recursion (`node parity/run.mjs --concurrency 1`; workers have a larger stack, which hid it).

/** Returns null when equal, else {path, expected, actual}. Key order is ignored; undefined keys count as absent. */
export function firstDiff(expected, actual, path = "$") {
  // Depth first, in the order a recursive walk takes: array items by index, then the length; object keys sorted.
  const stack = [{ e: expected, a: actual, path }];
  while (stack.length > 0) {
    const job = stack.pop();
    if (job.length !== undefined) {
      const { e, a } = job;
      const n = job.length;
      return { path: `${job.path}.length`, expected: e.length, actual: a.length, extra: preview(e.length > a.length ? e[n] : a[n]) };
    }
    const { e, a } = job;
    if (Object.is(e, a)) continue;
    const te = kind(e);
    const ta = kind(a);
    if (te !== ta) return { path: job.path, expected: preview(e), actual: preview(a) };
    if (te === "array") {
      const n = Math.min(e.length, a.length);
      if (e.length !== a.length) stack.push({ e, a, path: job.path, length: n });
      for (let i = n - 1; i >= 0; i--) stack.push({ e: e[i], a: a[i], path: `${job.path}[${i}]` });
      continue;
    }
    if (te === "object") {
      const keys = new Set(Object.keys(e));
      for (const k of Object.keys(a)) keys.add(k);
      const sorted = Array.from(keys).sort();
      for (let i = sorted.length - 1; i >= 0; i--) {
        const k = sorted[i];
        if (e[k] === undefined && a[k] === undefined) continue;
        stack.push({ e: e[k], a: a[k], path: `${job.path}${/^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`}` });
      }
      continue;
    }
    // numbers: NaN handled by Object.is; everything else differs
    return { path: job.path, expected: preview(e), actual: preview(a) };
  }
  return null;
}

/**
 * A deep copy of JSON-like data (plain objects, arrays, primitives), without recursion (see above); `mapString`, if
 * given, is applied to every string value (not to keys).
 */
export function cloneDeep(value, mapString) {
  const copyOf = (v) =>
    Array.isArray(v)
      ? new Array(v.length)
      : v !== null && typeof v === "object"
        ? {}
        : typeof v === "string" && mapString
          ? mapString(v)
          : v;
  const root = copyOf(value);
  const stack = root === value ? [] : [[value, root]];
  while (stack.length > 0) {
    const [from, to] = stack.pop();
    for (const k of Object.keys(from)) {
      const v = from[k];
      const c = copyOf(v);
      to[k] = c;
      if (c !== v && typeof c === "object" && c !== null) stack.push([v, c]);
    }
  }
  return root;
}

function kind(v) {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

export function preview(v, max = 200) {
  if (v === undefined) return "<absent>";
  let s;
  try {
    s = JSON.stringify(v);
  } catch (err) {
    // JSON.stringify recurses too: a value nested thousands deep (pi's tree of a long chain) cannot be shown whole
    if (err instanceof RangeError) return `<${kind(v)} nested too deep to show>`;
    throw err;
  }
  return s.length > max ? `${s.slice(0, max)}…` : s;
}
