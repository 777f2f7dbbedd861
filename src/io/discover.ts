import { closeSync, type Dirent, readdirSync, readSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { assertRegular, NotRegularFile } from "./errors.js";
import { fsp, openRegularSync, READ_FLAGS, statOf } from "./fsp.js";

/** The environment keys pi reads; passed in explicitly so callers (and tests) control them. */
export interface PiEnv {
  PI_CODING_AGENT_DIR?: string | undefined;
  PI_CODING_AGENT_SESSION_DIR?: string | undefined;
  HOME?: string | undefined;
  /** Where `pisess index` keeps its database (src/io/index-file.ts). */
  XDG_CACHE_HOME?: string | undefined;
}

function expandHome(p: string, home: string): string {
  if (p === "~") return home;
  if (p.startsWith("~/") || p.startsWith("~\\")) return join(home, p.slice(2));
  return p;
}

/** `$PI_CODING_AGENT_DIR`, else `~/.pi/agent`. */
export function agentDir(env: PiEnv = process.env): string {
  const home = env.HOME || homedir();
  const dir = env.PI_CODING_AGENT_DIR;
  return dir ? resolve(expandHome(dir, home)) : join(home, ".pi", "agent");
}

/**
 * Where pi keeps sessions: `$PI_CODING_AGENT_SESSION_DIR`, else `sessionDir` from `<agent dir>/settings.json`
 * (relative to the agent dir, `~` allowed), else `<agent dir>/sessions`. `env` defaults to the process environment.
 */
export async function sessionsDir(env: PiEnv = process.env): Promise<string> {
  const home = env.HOME || homedir();
  if (env.PI_CODING_AGENT_SESSION_DIR) return resolve(expandHome(env.PI_CODING_AGENT_SESSION_DIR, home));
  const agent = agentDir(env);
  try {
    const settings = JSON.parse(await readRegular(join(agent, "settings.json"))) as { sessionDir?: unknown };
    if (typeof settings.sessionDir === "string" && settings.sessionDir !== "") {
      const p = expandHome(settings.sessionDir, home);
      return isAbsolute(p) ? p : resolve(agent, p);
    }
  } catch {
    // No or unreadable settings: pi falls back to the default as well.
  }
  return join(agent, "sessions");
}

/** A regular file's text; NotRegularFile (before any read) for a FIFO and the like, whose read would never end. */
async function readRegular(path: string): Promise<string> {
  const fh = await (await fsp()).open(path, READ_FLAGS);
  try {
    assertRegular(path, await fh.stat());
    return await fh.readFile("utf8");
  } finally {
    await fh.close();
  }
}

/** pi's folder name for a working directory: one leading separator dropped, `/ \ :` become `-`, wrapped in `--`. */
export function cwdFolderName(cwd: string): string {
  return `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}

/**
 * Every `*.jsonl` below `dir` (recursive: subagent extensions nest files deeper; symlinked files count, symlinked
 * folders are not followed), sorted by path. An unreadable `dir` throws; an unreadable folder below it, and a
 * `*.jsonl` that is not a regular file (a FIFO, a socket, a symlink to one or to a folder: NotRegularFile; a dangling
 * symlink), go to `onError` and are left out (left out silently only when no `onError` is given).
 */
export async function listSessionFiles(dir: string, onError?: (path: string, err: unknown) => void): Promise<string[]> {
  const out: string[] = [];
  const all = listedAtOnce(dir);
  if (all !== undefined) {
    // join(folder, name) as the walk makes it, the folder's part worked out once per folder (join per entry was a
    // third of the listing).
    const prefixes = new Map<string, string>();
    for (const it of all) {
      if (it.isDirectory() || !it.name.endsWith(".jsonl")) continue;
      let prefix = prefixes.get(it.parentPath);
      if (prefix === undefined) {
        prefix = join(it.parentPath, "x").slice(0, -1);
        prefixes.set(it.parentPath, prefix);
      }
      const p = prefix + it.name;
      if (it.isFile()) out.push(p);
      else if (await isRegular(p, onError)) out.push(p);
    }
    return out.sort();
  }
  const stack = [dir];
  while (stack.length > 0) {
    const d = stack.pop() as string;
    let items: Dirent[];
    try {
      items = await readFolder(d);
    } catch (err) {
      if (d === dir && !onError) throw err;
      onError?.(d, err);
      continue;
    }
    for (const it of items) {
      const p = join(d, it.name);
      if (it.isDirectory()) stack.push(p);
      else if (!it.name.endsWith(".jsonl")) continue;
      else if (it.isFile()) out.push(p);
      else if (await isRegular(p, onError)) out.push(p);
    }
  }
  return out.sort();
}

/**
 * Every entry below `dir` in one call (Node's recursive readdir, which follows no symlinked folder either): a third
 * of the time of listing folder by folder (10,000 sessions in 630 folders: 35 -> 12 ms). undefined when any folder
 * cannot be read (the walk then says which) or when a test replaces the listing (discoverHook).
 */
function listedAtOnce(dir: string): Dirent[] | undefined {
  if (discoverHook.readdir !== null) return undefined;
  try {
    return readdirSync(dir, { withFileTypes: true, recursive: true });
  } catch {
    return undefined;
  }
}

/** Whether `p` (a symlink, FIFO, socket, device) names a regular file; the reason why not goes to `onError`. */
async function isRegular(p: string, onError?: (path: string, err: unknown) => void): Promise<boolean> {
  try {
    const st = await statOf(p);
    if (st.isFile()) return true;
    onError?.(p, new NotRegularFile(p, st));
  } catch (err) {
    onError?.(p, err);
  }
  return false;
}

/**
 * readdir with file types: the one place discovery lists a folder. For tests only, `discoverHook.readdir` replaces it:
 * root ignores modes, so no folder can be made unreadable for a test run as root; its listing is made to fail here.
 */
export const discoverHook: { readdir: ((dir: string) => Promise<Dirent[]>) | null } = { readdir: null };

async function readFolder(d: string): Promise<Dirent[]> {
  if (discoverHook.readdir !== null) return discoverHook.readdir(d);
  // Synchronous: nothing else runs while a fleet is listed, and the thread pool's round trip per folder was most of
  // the listing (10,000 sessions in 630 folders: 85 -> 15 ms).
  return readdirSync(d, { withFileTypes: true });
}

/**
 * The first line of a file, read in bounded pieces (a header is small; a huge first line is not a header).
 * Synchronous, as the fork checks of a fleet read ancestors' headers: on two busy cores each trip through the thread
 * pool (open, fstat, read, close, and isFile's stat) waited for a thread to be scheduled, and the table workers of a
 * first build of 10,000 sessions (a tenth of them forks) sat idle for 15% of their time.
 */
async function readFirstLine(path: string, limit = 1 << 20): Promise<string | undefined> {
  const { fd } = openRegularSync(path);
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    const buf = Buffer.alloc(64 * 1024);
    while (total < limit) {
      const bytesRead = readSync(fd, buf, 0, buf.length, total);
      if (bytesRead === 0) break;
      const piece = buf.subarray(0, bytesRead);
      const nl = piece.indexOf(0x0a);
      if (nl !== -1) {
        chunks.push(Buffer.from(piece.subarray(0, nl)));
        total += nl;
        return decodeFirst(Buffer.concat(chunks));
      }
      chunks.push(Buffer.from(piece));
      total += bytesRead;
    }
    return total === 0 ? undefined : decodeFirst(Buffer.concat(chunks));
  } finally {
    closeSync(fd);
  }
}

function decodeFirst(b: Buffer): string {
  let s = b.toString("utf8");
  if (s.charCodeAt(0) === 0xfeff) s = s.slice(1);
  return s.endsWith("\r") ? s.slice(0, -1) : s;
}

export interface HeaderInfo {
  id: string;
  version?: number;
  timestamp?: string;
  cwd?: string;
  parentSession?: string;
  branchedFrom?: string;
}

/** The header on a file's first line, when it is one pi accepts (`type: "session"`, string id). */
export async function readHeader(path: string): Promise<HeaderInfo | undefined> {
  let line: string | undefined;
  try {
    line = await readFirstLine(path);
  } catch {
    return undefined;
  }
  if (line === undefined) return undefined;
  try {
    const o = JSON.parse(line) as Record<string, unknown>;
    if (o && typeof o === "object" && o.type === "session" && typeof o.id === "string") return o as unknown as HeaderInfo;
  } catch {
    // not a header
  }
  return undefined;
}

/** pi's "most recent session" of a folder: the newest `.jsonl` by mtime whose first line is a valid header. */
export async function mostRecentSession(folder: string): Promise<string | undefined> {
  let files: string[];
  try {
    files = (await (await fsp()).readdir(folder)).filter((f) => f.endsWith(".jsonl")).map((f) => join(folder, f));
  } catch {
    return undefined;
  }
  const withTime = await Promise.all(
    files.map(async (f) => {
      try {
        return { f, t: (await (await fsp()).stat(f)).mtimeMs };
      } catch {
        return { f, t: -1 };
      }
    }),
  );
  withTime.sort((a, b) => b.t - a.t || (a.f < b.f ? -1 : 1));
  for (const { f, t } of withTime) {
    if (t >= 0 && (await readHeader(f))) return f;
  }
  return undefined;
}

/**
 * Finds a session by id prefix in one folder, or in every project folder: the header id must start with the
 * prefix. Returns every match so the caller can report ambiguity.
 */
export async function findSessionsById(dirs: string[], idPrefix: string): Promise<{ path: string; id: string }[]> {
  const matches: { path: string; id: string }[] = [];
  for (const dir of dirs) {
    let files: string[];
    try {
      files = await listSessionFiles(dir);
    } catch {
      continue;
    }
    for (const f of files) {
      const h = await readHeader(f);
      if (h?.id.startsWith(idPrefix)) matches.push({ path: f, id: h.id });
    }
  }
  return matches;
}

/**
 * The fork-parent rule, the one place it is written: the parent a header names is the first non-empty string of
 * `parentSession`, then the legacy `branchedFrom`. An empty `parentSession` does not hide a `branchedFrom`.
 */
export function forkParentRef(
  h: { parentSession?: unknown; branchedFrom?: unknown } | null | undefined,
): { ref: string; legacy: boolean } | null {
  if (!h) return null;
  if (typeof h.parentSession === "string" && h.parentSession !== "") return { ref: h.parentSession, legacy: false };
  if (typeof h.branchedFrom === "string" && h.branchedFrom !== "") return { ref: h.branchedFrom, legacy: true };
  return null;
}

/** A parent reference resolved against the folder of the file that names it (undefined: no folder, e.g. stdin). */
export function resolveForkRef(ref: string, child: string | undefined): string | undefined {
  if (isAbsolute(ref)) return ref;
  return child === undefined ? undefined : resolve(dirname(child), ref);
}

/** Whether a path names a regular file (false for anything unreadable). */
export async function isFile(p: string): Promise<boolean> {
  // Synchronous: see readFirstLine.
  try {
    return statSync(p, { throwIfNoEntry: false })?.isFile() === true;
  } catch {
    return false;
  }
}

/** Where the glance commands look when given no paths: the cwd's folder, or the whole sessions dir. */
export async function defaultSessionRoot(all: boolean, env: PiEnv, cwd: string): Promise<string> {
  const dir = await sessionsDir(env);
  return all ? dir : join(dir, cwdFolderName(cwd));
}

/** Session files under the given files/directories (recursive), each once, in the order found. */
export async function collectFiles(targets: string[], onError: (path: string, err: unknown) => void): Promise<string[]> {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const t of targets) {
    let files: string[];
    try {
      const st = await (await fsp()).stat(t);
      // Unreadable folders and non-regular files below a folder are reported, never skipped silently.
      files = st.isDirectory() ? await listSessionFiles(t, onError) : [t];
    } catch (err) {
      onError(t, err);
      continue;
    }
    for (const f of files) {
      if (!seen.has(f)) {
        seen.add(f);
        out.push(f);
      }
    }
  }
  return out;
}

/** The real absolute path of a file (resolved when it cannot be followed); undefined for stdin ("-"). */
export async function realPathOf(file: string): Promise<string | undefined> {
  if (file === "-") return undefined;
  try {
    // Synchronous (see readFirstLine), by the same call as fs.promises.realpath.
    return realpathSync.native(file);
  } catch {
    return resolve(file);
  }
}
