/**
 * Output bytes gathered into pieces of their own: bytes a report gives to be written as they are (views of a buffer
 * the next read of the file reuses, so copied at once), with the ASCII separators between them. A piece is handed on
 * whole (`take`), and the next one is a new buffer: a stream may still hold the last.
 */
export class ByteRun {
  private piece: Buffer;
  private at = 0;

  constructor(private readonly size = 1 << 16) {
    this.piece = Buffer.allocUnsafe(size);
  }

  get empty(): boolean {
    return this.at === 0;
  }

  /**
   * Adds `before`, `bytes` and `after` (the separators: ASCII only) when they fit or the piece is empty; a first
   * addition longer than a piece gets one its size. False (nothing added) when they do not fit: take the piece first.
   */
  add(before: string, bytes: Uint8Array, after = ""): boolean {
    const need = before.length + bytes.length + after.length;
    if (this.at + need > this.piece.length) {
      if (this.at > 0) return false;
      this.piece = Buffer.allocUnsafe(need);
    }
    this.ascii(before);
    this.piece.set(bytes, this.at);
    this.at += bytes.length;
    this.ascii(after);
    return true;
  }

  private ascii(s: string): void {
    for (let i = 0; i < s.length; i++) this.piece[this.at++] = s.charCodeAt(i);
  }

  /** The bytes added since the last take. */
  take(): Buffer {
    const out = this.piece.subarray(0, this.at);
    this.piece = Buffer.allocUnsafe(this.size);
    this.at = 0;
    return out;
  }
}
