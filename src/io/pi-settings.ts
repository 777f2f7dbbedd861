import { join } from "node:path";
import { agentDir, type PiEnv } from "./discover.js";
import { fsp, READ_FLAGS } from "./fsp.js";
import { assertRegular } from "./errors.js";

/** The `compaction` object of one of pi's settings files. */
export interface CompactionSettingsFile {
  file: string;
  compaction: Record<string, unknown>;
}

/** Thrown for a settings file pi would not read (not JSON, not an object). */
export class SettingsError extends Error {}

/**
 * The `compaction` settings of pi's settings files, in the order pi 1.6.0's SettingsManager merges them (later
 * ones win): `<agent dir>/settings.json`, then `<cwd>/.pi/settings.json` (the project's, read as pi reads it for a
 * trusted project). Files that are missing or have no `compaction` object are left out.
 */
export async function compactionSettings(env: PiEnv, cwd: string | null): Promise<CompactionSettingsFile[]> {
  const files = [join(agentDir(env), "settings.json")];
  if (cwd !== null && cwd !== "") files.push(join(cwd, ".pi", "settings.json"));
  const out: CompactionSettingsFile[] = [];
  for (const file of files) {
    const text = await readIfThere(file);
    if (text === null) continue;
    let value: unknown;
    try {
      // pi strips a BOM before parsing.
      value = JSON.parse(text.replace(/^\uFEFF/, ""));
    } catch (err) {
      throw new SettingsError(`${file}: not valid JSON (${(err as Error).message})`);
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) throw new SettingsError(`${file}: not a JSON object`);
    const c = (value as Record<string, unknown>).compaction;
    if (typeof c === "object" && c !== null && !Array.isArray(c)) out.push({ file, compaction: c as Record<string, unknown> });
  }
  return out;
}

async function readIfThere(path: string): Promise<string | null> {
  let fh: Awaited<ReturnType<Awaited<ReturnType<typeof fsp>>["open"]>>;
  try {
    fh = await (await fsp()).open(path, READ_FLAGS);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT" || (err as NodeJS.ErrnoException).code === "ENOTDIR") return null;
    throw err;
  }
  try {
    assertRegular(path, await fh.stat());
    return await fh.readFile("utf8");
  } finally {
    await fh.close();
  }
}
