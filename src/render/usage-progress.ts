import { createRequire } from "node:module";
import type cliProgress from "cli-progress";

// Loaded only when a bar is drawn (a TTY): a piped or JSON run never needs it.
const load = createRequire(import.meta.url);

/** A progress bar (cli-progress) on stderr, only on a TTY and only once the run is long enough to need one. */
export function fleetProgress(
  label: string,
  stream: NodeJS.WriteStream,
): { update: (done: number, total: number) => void; stop: () => void } | undefined {
  if (stream.isTTY !== true) return undefined;
  const cp = load("cli-progress") as typeof cliProgress;
  const bar = new cp.SingleBar(
    { stream, format: `${label} [{bar}] {value}/{total} sessions`, clearOnComplete: true, hideCursor: true },
    cp.Presets.shades_classic,
  );
  const started = Date.now();
  let shown = false;
  return {
    update(done, total) {
      if (!shown && Date.now() - started > 500 && done < total) {
        shown = true;
        bar.start(total, done);
      } else if (shown) bar.update(done);
    },
    stop() {
      if (shown) bar.stop();
    },
  };
}
