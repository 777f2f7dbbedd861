import type { EntryFields } from "./types.js";

/**
 * A whole-file load's id index (Session.byId) without a hash map. Inserting a million ids into a Map while the
 * records are made was a third of a skeleton load (the map's table, old, taking a million young keys and records
 * through the write barrier); most commands then look up few ids, or none (a chain's parent is the entry before).
 *
 * The entries with an id are sorted once by a hash of the id (a radix sort of 32-bit numbers), after the load: a
 * lookup is a binary search and a comparison of strings. It is a Map (every method and its order as Map's: first
 * occurrence order, the last entry with an id as its value); anything that changes it first copies it into the
 * Map's own storage and works on that from then on.
 */

/** FNV-1a over the string's UTF-16 code units. */
export function idHash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** An entry that repeats an earlier entry's id: the last earlier one with it. */
export interface RepeatedId {
  rec: EntryFields;
  earlier: EntryFields;
}

/** Entry indexes sorted by hash (stable: by index within one hash), by two 16-bit counting passes. */
function sortByHash(idx: Uint32Array, hash: Uint32Array): Uint32Array {
  const n = idx.length;
  const tmp = new Uint32Array(n);
  const count = new Uint32Array(65537);
  for (const [from, to, shift] of [
    [idx, tmp, 0],
    [tmp, idx, 16],
  ] as const) {
    count.fill(0);
    for (let k = 0; k < n; k++) {
      const b = (((hash[from[k] as number] as number) >>> shift) & 0xffff) + 1;
      count[b] = (count[b] as number) + 1;
    }
    for (let b = 1; b <= 65536; b++) count[b] = (count[b] as number) + (count[b - 1] as number);
    for (let k = 0; k < n; k++) {
      const i = from[k] as number;
      const b = ((hash[i] as number) >>> shift) & 0xffff;
      to[count[b] as number] = i;
      count[b] = (count[b] as number) + 1;
    }
  }
  return idx;
}

export class IdIndex extends Map<string, EntryFields> {
  readonly #entries: readonly EntryFields[];
  /** Hash of each entry's id (by entry index; 0 for none). */
  readonly #hash: Uint32Array;
  /** The indexes of the entries with an id, by hash, then index. */
  readonly #order: Uint32Array;
  /** For the first entry with each id: the index of the last (the value); -1 for every other entry. */
  readonly #last: Int32Array;
  readonly #size: number;
  /** Set once the map was changed: from then on the Map's own storage holds everything. */
  #own = false;

  /**
   * The index of `entries` (ids as the loader set them), and the entries that repeat an earlier id, in file order.
   */
  static build(entries: readonly EntryFields[]): { index: IdIndex; repeated: RepeatedId[] } {
    const n = entries.length;
    const hash = new Uint32Array(n);
    let withId = 0;
    for (let i = 0; i < n; i++) {
      const id = (entries[i] as EntryFields).id;
      if (id !== undefined) {
        hash[i] = idHash(id);
        withId++;
      }
    }
    const idx = new Uint32Array(withId);
    for (let i = 0, k = 0; i < n; i++) if ((entries[i] as EntryFields).id !== undefined) idx[k++] = i;
    const order = sortByHash(idx, hash);
    const last = new Int32Array(n).fill(-1);
    const repeated: RepeatedId[] = [];
    let size = 0;
    for (let k = 0; k < order.length; ) {
      // One hash: nearly always one entry; ids that collide are told apart by comparing them.
      const h = hash[order[k] as number];
      let end = k + 1;
      while (end < order.length && hash[order[end] as number] === h) end++;
      if (end === k + 1) {
        last[order[k] as number] = order[k] as number;
        size++;
        k = end;
        continue;
      }
      const done = new Uint8Array(end - k);
      for (let a = k; a < end; a++) {
        if (done[a - k] === 1) continue;
        const id = (entries[order[a] as number] as EntryFields).id;
        // The entries with this id, in file order: each after the first repeats the one before it.
        let prev = order[a] as number;
        for (let b = a + 1; b < end; b++) {
          const i = order[b] as number;
          if ((entries[i] as EntryFields).id !== id) continue;
          done[b - k] = 1;
          repeated.push({ rec: entries[i] as EntryFields, earlier: entries[prev] as EntryFields });
          prev = i;
        }
        last[order[a] as number] = prev;
        size++;
      }
      k = end;
    }
    repeated.sort((x, y) => x.rec.index - y.rec.index);
    return { index: new IdIndex(entries, hash, order, last, size), repeated };
  }

  private constructor(entries: readonly EntryFields[], hash: Uint32Array, order: Uint32Array, last: Int32Array, size: number) {
    super();
    this.#entries = entries;
    this.#hash = hash;
    this.#order = order;
    this.#last = last;
    this.#size = size;
  }

  override get(id: string): EntryFields | undefined {
    if (this.#own) return super.get(id);
    if (typeof id !== "string") return undefined;
    const h = idHash(id);
    const order = this.#order;
    const hash = this.#hash;
    let lo = 0;
    let hi = order.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((hash[order[mid] as number] as number) < h) lo = mid + 1;
      else hi = mid;
    }
    let found: EntryFields | undefined;
    for (let k = lo; k < order.length && hash[order[k] as number] === h; k++) {
      const rec = this.#entries[order[k] as number] as EntryFields;
      if (rec.id === id) found = rec;
    }
    return found;
  }

  override has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  override get size(): number {
    return this.#own ? super.size : this.#size;
  }

  /** [id, value] in the order the ids first occur. */
  *#pairs(): Generator<[string, EntryFields]> {
    const last = this.#last;
    for (let i = 0; i < last.length; i++) {
      const l = last[i] as number;
      if (l >= 0) yield [(this.#entries[i] as EntryFields).id as string, this.#entries[l] as EntryFields];
    }
  }

  /** Moves everything into the Map's own storage (before a change). */
  #takeOver(): void {
    if (this.#own) return;
    for (const [k, v] of this.#pairs()) super.set(k, v);
    this.#own = true;
  }

  override set(id: string, rec: EntryFields): this {
    this.#takeOver();
    return super.set(id, rec);
  }

  override delete(id: string): boolean {
    this.#takeOver();
    return super.delete(id);
  }

  override clear(): void {
    this.#own = true;
    super.clear();
  }

  override entries(): MapIterator<[string, EntryFields]> {
    return this.#own ? super.entries() : (this.#pairs() as unknown as MapIterator<[string, EntryFields]>);
  }

  override keys(): MapIterator<string> {
    if (this.#own) return super.keys();
    const pairs = this.#pairs();
    return (function* () {
      for (const [k] of pairs) yield k;
    })() as unknown as MapIterator<string>;
  }

  override values(): MapIterator<EntryFields> {
    if (this.#own) return super.values();
    const pairs = this.#pairs();
    return (function* () {
      for (const [, v] of pairs) yield v;
    })() as unknown as MapIterator<EntryFields>;
  }

  override [Symbol.iterator](): MapIterator<[string, EntryFields]> {
    return this.entries();
  }

  override forEach(fn: (value: EntryFields, key: string, map: Map<string, EntryFields>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this);
  }
}
