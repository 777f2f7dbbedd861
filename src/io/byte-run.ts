/**
 * Output bytes gathered into pieces of their own: bytes a report gives to be written as they are (views of a buffer
 * the next read of the file reuses, so copied at once), with the ASCII separators between them. A piece is handed on
 * whole, and the next one is a new buffer: a stream may still hold the last.
 */
export class ByteRun {
  private piece: Buffer;
  private at = 0;

  constructor(private readonly size = 1 << 16) {
    this.piece = Buffer.allocUnsafe(size);
  }

  /**
   * Adds `before`, `bytes` and `after` (the separators: ASCII only). Returns the piece they did not fit into, to be
   * written before them, else null; an addition longer than a piece gets a piece its size.
   */
  add(before: string, bytes: Uint8Array, after = ""): Buffer | null {
    const need = before.length + bytes.length + after.length;
    const full = this.at + need > this.piece.length ? this.take() : null;
    if (need > this.piece.length) this.piece = Buffer.allocUnsafe(need);
    this.ascii(before);
    this.piece.set(bytes, this.at);
    this.at += bytes.length;
    this.ascii(after);
    return full;
  }

  private ascii(s: string): void {
    for (let i = 0; i < s.length; i++) this.piece[this.at++] = s.charCodeAt(i);
  }

  /** The bytes added since the last take, or null when there are none. */
  take(): Buffer | null {
    if (this.at === 0) return null;
    const out = this.piece.subarray(0, this.at);
    this.piece = Buffer.allocUnsafe(this.size);
    this.at = 0;
    return out;
  }
}
