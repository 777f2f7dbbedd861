import { resolve } from "node:path";
import { collectFiles, forkParentRef, isFile, readHeader, realPathOf, resolveForkRef, type HeaderInfo } from "../io/discover.js";

export interface LineageAncestor {
  /** 1 = the parent, 2 = its parent, … */
  generation: number;
  /** As resolved (relative references against the child's folder). */
  path: string;
  /** The reference as written in the child's header. */
  ref: string;
  legacyBranchedFrom: boolean;
  exists: boolean;
  /** Header id, or null when the file is missing or has no valid header. */
  id: string | null;
}

export interface LineageFork {
  generation: number;
  path: string;
  id: string;
  /** The file it names as parent. */
  parent: string;
  legacyBranchedFrom: boolean;
}

/** A parent reference as an absolute, normalised path (the key ancestors and forks are matched by). */
function parentPath(ref: string, child: string): string {
  return resolve(resolveForkRef(ref, child) ?? ref);
}

/**
 * The chain of parents from a file's header up to the original (or to a missing file, or to a file already on
 * the chain: a cycle). `file` must be absolute.
 */
export async function ancestorsOf(
  file: string,
  header: HeaderInfo | undefined,
): Promise<{ ancestors: LineageAncestor[]; missing: string[]; cycle: boolean; loopsToSelf: boolean }> {
  const ancestors: LineageAncestor[] = [];
  const missing: string[] = [];
  let cycle = false;
  let loopsToSelf = false;
  // Files on the chain by real path: a link or another spelling of a file already on it closes the loop too.
  const self = (await realPathOf(file)) ?? file;
  const onChain = new Set<string>([self]);
  let cur: { path: string; header: HeaderInfo | undefined } = { path: file, header };
  for (let generation = 1; cur.header; generation++) {
    const p = forkParentRef(cur.header);
    if (!p) break;
    const path = parentPath(p.ref, cur.path);
    const real = (await realPathOf(path)) ?? path;
    if (onChain.has(real)) {
      cycle = true;
      loopsToSelf = real === self;
      break;
    }
    onChain.add(real);
    const exists = await isFile(path);
    const h = exists ? await readHeader(path) : undefined;
    ancestors.push({ generation, path, ref: p.ref, legacyBranchedFrom: p.legacy, exists, id: h?.id ?? null });
    if (!exists) {
      missing.push(path);
      break;
    }
    cur = { path, header: h };
  }
  return { ancestors, missing, cycle, loopsToSelf };
}

/**
 * Every session below `searched` that descends from `file` (forks, their forks, …), generation by generation.
 * A folder that cannot be searched (missing, unreadable) goes to `onError`.
 */
export async function forksOf(
  file: string,
  searched: string[],
  onError: (path: string, err: unknown) => void = () => undefined,
): Promise<LineageFork[]> {
  const files = await collectFiles(searched, onError);
  // parent path → its forks, from every header found.
  const children = new Map<string, { path: string; id: string; legacy: boolean }[]>();
  for (const f of files) {
    const h = await readHeader(f);
    const p = forkParentRef(h);
    if (!h || !p) continue;
    const key = parentPath(p.ref, f);
    const list = children.get(key) ?? [];
    list.push({ path: resolve(f), id: h.id, legacy: p.legacy });
    children.set(key, list);
  }
  const forks: LineageFork[] = [];
  const seen = new Set<string>([file]);
  let frontier = [file];
  for (let generation = 1; frontier.length > 0; generation++) {
    const next: string[] = [];
    for (const parent of frontier) {
      for (const c of (children.get(parent) ?? []).sort((a, b) => (a.path < b.path ? -1 : 1))) {
        if (seen.has(c.path)) continue;
        seen.add(c.path);
        forks.push({ generation, path: c.path, id: c.id, parent, legacyBranchedFrom: c.legacy });
        next.push(c.path);
      }
    }
    frontier = next;
  }
  return forks;
}
