/**
 * The string scanner the skeleton scanner shipped in JS before its scan moved into WebAssembly (scan.wat), kept as
 * the reference the wasm scanner is checked against (test/equivalence/skeleton.test.ts): four bytes at a time, the
 * same checks JSON.parse makes of a string's content.
 */
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

// hex digit lookup: 1 for 0-9, a-f, A-F
const HEX = new Uint8Array(256);
for (let c = 0x30; c <= 0x39; c++) HEX[c] = 1;
for (let c = 0x41; c <= 0x46; c++) HEX[c] = 1;
for (let c = 0x61; c <= 0x66; c++) HEX[c] = 1;
// valid single-character escapes: " \ / b f n r t
const ESC = new Uint8Array(256);
for (const c of [0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]) ESC[c] = 1;

/**
 * Scans a string's content from `q` (just after the opening quote) to `end`; returns the index of the closing
 * quote (-1 when the string is invalid or never closes) and whether it held an escape.
 */
export function scanStringReference(b: Uint8Array, q: number, end: number): { q: number; esc: boolean } {
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let esc = false;
  for (;;) {
    // Four bytes at a time while none of them is a quote, a backslash or a control character.
    let hit = 0;
    while (q + 4 <= end) {
      const x = dv.getInt32(q, true);
      const xq = x ^ 0x22222222;
      const xb = x ^ 0x5c5c5c5c;
      hit = ((((x - 0x20202020) | 0) & ~x) | (((xq - 0x01010101) | 0) & ~xq) | (((xb - 0x01010101) | 0) & ~xb)) & 0x80808080;
      if (hit !== 0) {
        // The lowest flagged byte is always a real quote, backslash or control byte (false flags only appear
        // above a real one, from the borrow), so the bytes before it are plain: skip them.
        q += (31 - Math.clz32(hit & -hit)) >> 3;
        break;
      }
      q += 4;
    }
    if (q >= end) return { q: -1, esc: false };
    const d = b[q] as number;
    if (d === QUOTE) {
      return { q, esc };
    }
    if (d === BACKSLASH) {
      esc = true;
      if (q + 1 >= end) return { q: -1, esc: false };
      const e = b[q + 1] as number;
      if (e === 0x75 /* u */) {
        if (q + 5 >= end) return { q: -1, esc: false };
        if (
          ((HEX[b[q + 2] as number] as number) &
            (HEX[b[q + 3] as number] as number) &
            (HEX[b[q + 4] as number] as number) &
            (HEX[b[q + 5] as number] as number)) ===
          0
        )
          return { q: -1, esc: false };
        q += 6;
        continue;
      }
      if (ESC[e] === 0) return { q: -1, esc: false };
      q += 2;
      continue;
    }
    if (d < 0x20) return { q: -1, esc: false };
    q++;
  }
}
