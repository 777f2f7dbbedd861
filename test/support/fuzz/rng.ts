/** mulberry32: a tiny seeded PRNG, so every payload a mutation builds depends only on its own parameters. */
export type Rng = () => number;

export function rng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function int(r: Rng, n: number): number {
  return n <= 0 ? 0 : Math.floor(r() * n);
}

export function pick<T>(r: Rng, xs: readonly T[]): T {
  const x = xs[int(r, xs.length)];
  if (x === undefined) throw new Error("pick from an empty list");
  return x;
}

/** Odd text: lone surrogates, C0/C1 controls, bidi overrides, NUL, astral characters, combining marks. */
const ODD_CHARS = [
  "\ud800",
  "\udfff",
  "\udc00x",
  "\u0000",
  "\u0001",
  "\u0007",
  "\u001b[31m",
  "\u001b]0;title\u0007",
  "\r",
  "\u0085",
  "\u009b",
  "\u202e",
  "\u2066",
  "\u200b",
  "\ufeff",
  "\uffff",
  "😀",
  "\u{10ffff}",
  "e\u0301",
  "\t",
  "\n",
  "\\",
  '"',
  "%",
  "::",
  ",",
  "`",
  "@",
  "label:",
  "a",
];

export function oddString(r: Rng, maxLen: number): string {
  let s = "";
  const n = 1 + int(r, maxLen);
  for (let i = 0; i < n; i++) s += r() < 0.3 ? String.fromCharCode(int(r, 0x10000)) : pick(r, ODD_CHARS);
  return s;
}
