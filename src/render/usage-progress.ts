import cliProgress from "cli-progress";

/** A progress bar (cli-progress) on stderr, only on a TTY and only once the run is long enough to need one. */
export function fleetProgress(
  label: string,
  stream: NodeJS.WriteStream,
): { update: (done: number, total: number) => void; stop: () => void } | undefined {
  if (stream.isTTY !== true) return undefined;
  const bar = new cliProgress.SingleBar(
    { stream, format: `${label} [{bar}] {value}/{total} sessions`, clearOnComplete: true, hideCursor: true },
    cliProgress.Presets.shades_classic,
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
