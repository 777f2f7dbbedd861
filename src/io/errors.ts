/** An I/O failure as the one-line reason users see ("no such file", "permission denied", …). */
export function ioReason(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  switch (e?.code) {
    case "ENOENT":
      return "no such file";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "EISDIR":
      return "is a directory";
    case "ENOSPC":
      return "no space left on device";
    default:
      return e instanceof Error ? e.message : String(err);
  }
}
