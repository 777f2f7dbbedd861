import stringWidth from "string-width";

/** Cuts plain (uncoloured) text to `max` terminal columns, ending in "…" when cut. Wide characters count twice. */
export function fitWidth(text: string, max: number): string {
  if (max <= 0) return "";
  if (stringWidth(text) <= max) return text;
  const segmenter = new Intl.Segmenter();
  let out = "";
  let used = 0;
  for (const { segment } of segmenter.segment(text)) {
    const w = stringWidth(segment);
    if (used + w > max - 1) break;
    out += segment;
    used += w;
  }
  return out + "…";
}

export { stringWidth };
