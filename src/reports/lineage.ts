import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { readHeader, sessionsDir, type PiEnv } from "../io/discover.js";
import { ioReason, NotRegularFile } from "../io/errors.js";
import { ancestorsOf, forksOf } from "../ops/lineage.js";
import type { LineageReport } from "../render/lineage.js";
import { ReportError, type Report } from "./report.js";

export interface LineageOptions {
  file: string;
  /** Folders to search for forks; default: the whole sessions dir (found through `env`). */
  forksIn?: string[];
  env: PiEnv;
}

/** `pisess lineage`: a session's fork ancestry and its forks. Exit 1 when the chain is broken or loops. */
export async function lineageReport(opts: LineageOptions): Promise<Report<LineageReport>> {
  const file = resolve(opts.file);
  try {
    const st = await stat(file);
    if (!st.isFile()) throw new ReportError(`${opts.file}: ${new NotRegularFile(opts.file, st).message}`);
  } catch (err) {
    if (err instanceof ReportError) throw err;
    throw new ReportError(`${opts.file}: ${ioReason(err)}`);
  }
  const self = await readHeader(file);
  const { ancestors, missing, cycle } = await ancestorsOf(file, self);
  const searched = opts.forksIn && opts.forksIn.length > 0 ? opts.forksIn.map((d) => resolve(d)) : [await sessionsDir(opts.env)];
  const unsearched: { path: string; reason: string }[] = [];
  // A folder the user named that cannot be searched is worth a warning (a typo finds no forks); pi's own sessions
  // folder missing only means there are none yet.
  const onError =
    opts.forksIn && opts.forksIn.length > 0 ? (path: string, err: unknown) => unsearched.push({ path, reason: ioReason(err) }) : undefined;
  const forks = await forksOf(file, searched, onError);
  const data: LineageReport = { file, id: self?.id ?? null, ancestors, forks, missing, cycle, searched, unsearched };
  return { data, diagnostics: [], exitCode: missing.length > 0 || cycle ? 1 : 0 };
}
