import { createHash } from "node:crypto";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { packageVersion } from "../io/package.js";
import { ENTRY_FIELDS, MESSAGE_COMMON, MESSAGE_FIELDS } from "../model/fields.js";
import type { IndexerState } from "../model/load.js";
import type { EntryFields, MessageBody } from "../model/types.js";

/**
 * The index's copy of what the loader needs to go on reading a session from its last line end (model/load.ts
 * IndexerState), as compact bytes: the records column by column (a key's values in one array, integer columns as
 * differences), deflated. Message bodies keep only what a later line can change rows by (a tool result's call id,
 * isError and size; an assistant's call ids, and their number): the rows of the lines already read are in the
 * index, and only their tree-dependent values are made again.
 */

/**
 * The state's format: a pisess whose loader may fill records otherwise (another version, other field rules) reads the
 * file whole instead of going on from a state it did not make.
 */
/** This file's coding of a state: a change to it is a new number. */
const FORMAT = 2;
let version: string | undefined;
function stateVersion(): string {
  version ??= createHash("sha256")
    .update(JSON.stringify([FORMAT, packageVersion(), [...ENTRY_FIELDS], [...MESSAGE_FIELDS], MESSAGE_COMMON]))
    .digest("hex")
    .slice(0, 16);
  return version;
}

/**
 * Only a file modified in this window (before the update's clock) keeps a state: pi appends to the sessions in use, a
 * state costs its making at every read and its bytes in the index (on the bench fleet a third more index and a
 * quarter more CPU for a first build), and an older file that grows is read whole once, its state kept from then.
 */
export const RESUME_WINDOW_MS = 7 * 24 * 3600 * 1000;

/** Whether a file modified at `mtimeMs` keeps a state (see RESUME_WINDOW_MS). */
export function keepsState(mtimeMs: number, now = Date.now()): boolean {
  return now - mtimeMs < RESUME_WINDOW_MS;
}

/** A message's body as the state keeps it: result, and call ids (each call's name and arguments are in its row). */
type SlimBody = [MessageBody["result"], (string | null)[]];

/**
 * A column's values, coded: as they are, integers as differences, objects by key. (Timestamps stay text: coding ISO
 * times as numbers saved 15% of the bytes but checking that each one comes back the same was a third of the CPU.)
 */
type Coded = { k: "v"; v: unknown[] } | { k: "i"; v: number[] } | { k: "o"; keys: string[]; v: Coded[] };

interface Column {
  /** Gaps between the indexes of the records that have the key (runs of 1 for a key every record has). */
  at: number[];
  c: Coded;
}

function deltas(xs: readonly number[]): number[] {
  return xs.map((x, k) => x - (k > 0 ? (xs[k - 1] as number) : 0));
}

function sums(xs: readonly number[]): number[] {
  let n = 0;
  return xs.map((d) => {
    n += d;
    return n;
  });
}

/** Plain objects that all have the same keys in the same order. */
function sameKeys(v: readonly unknown[]): string[] | undefined {
  const first = v[0];
  if (first === null || typeof first !== "object" || Array.isArray(first)) return undefined;
  const keys = Object.keys(first);
  const sig = keys.join("\u0000");
  for (const x of v) if (x === null || typeof x !== "object" || Array.isArray(x) || Object.keys(x).join("\u0000") !== sig) return undefined;
  return keys;
}

function code(v: readonly unknown[]): Coded {
  // Differences of integers within 2^52 stay exact.
  if (v.every((x) => Number.isSafeInteger(x) && Math.abs(x as number) <= 2 ** 52)) return { k: "i", v: deltas(v as number[]) };
  const keys = sameKeys(v);
  if (keys !== undefined) return { k: "o", keys, v: keys.map((key) => code(v.map((x) => (x as Record<string, unknown>)[key]))) };
  return { k: "v", v: [...v] };
}

function decode(c: Coded, n: number): unknown[] {
  if (c.k === "i") return sums(c.v);
  if (c.k === "v") return c.v;
  const objs = Array.from({ length: n }, () => ({}) as Record<string, unknown>);
  for (const [j, key] of c.keys.entries()) {
    const vals = decode(c.v[j] as Coded, n);
    for (let k = 0; k < n; k++) (objs[k] as Record<string, unknown>)[key] = vals[k];
  }
  return objs;
}

/** A parentId that names the entry just before (most do) is kept as this. */
const PREVIOUS = 0;

interface Packed {
  v: string;
  s: Omit<IndexerState, "entries">;
  n: number;
  /** Leading entries copied from the fork parent (a fork's copies are a leading run), when the mask was known. */
  c: number | null;
  cols: Record<string, Column>;
}

/** What the index keeps to go on with a session: the loader's state, and its copied-entry count. */
export interface KeptState {
  state: IndexerState;
  copied: number | undefined;
}

const slim = (b: MessageBody): SlimBody => [b.result, b.toolCalls.map((c) => c.id)];
const unslim = ([result, ids]: SlimBody): MessageBody => ({
  stopReason: null,
  textLength: 0,
  result,
  toolCalls: ids.map((id) => ({ id, name: null, arguments: null })),
});

/** Made again on resuming (load.ts restore); body: below. */
const DERIVED = new Set(["index", "time", "body"]);

/** The state as bytes; `body` gives each message record's body facts (the ones the rows were made from). */
export function encodeState(kept: KeptState, body: (rec: EntryFields) => MessageBody | undefined): Uint8Array {
  const { entries, ...rest } = kept.state;
  const cols = new Map<string, { at: number[]; v: unknown[]; last: number }>();
  const put = (key: string, i: number, value: unknown): void => {
    let col = cols.get(key);
    if (col === undefined) {
      col = { at: [], v: [], last: -1 };
      cols.set(key, col);
    }
    col.at.push(i - col.last);
    col.last = i;
    col.v.push(value);
  };
  // An index loop and for-in (the records are plain objects): no array per record.
  for (let i = 0; i < entries.length; i++) {
    const rec = entries[i] as EntryFields;
    const fields = rec as unknown as Record<string, unknown>;
    for (const key in fields) {
      let value = fields[key];
      if (value === undefined || DERIVED.has(key)) continue;
      if (key === "parentId" && i > 0 && value === entries[i - 1]?.id) value = PREVIOUS;
      put(key, i, value);
    }
    // Every message's body facts, also where the rows read them back (the record has none).
    const b = rec.type === "message" ? body(rec) : undefined;
    if (b !== undefined) put("body", i, slim(b));
  }
  const packed: Packed = { v: stateVersion(), s: rest, n: entries.length, c: kept.copied ?? null, cols: {} };
  for (const key of [...cols.keys()].sort()) {
    const { at, v } = cols.get(key) as { at: number[]; v: unknown[] };
    packed.cols[key] = { at, c: code(v) };
  }
  // Level 1: the state is made again at every growth; on 20 grown 5 MB sessions zlib took 48 ms instead of level 6's
  // 117, for 2% more index.
  return deflateRawSync(JSON.stringify(packed), { level: 1 });
}

/** The state again, or undefined when it is not one this pisess made (the file is then read whole). */
export function decodeState(bytes: Uint8Array): KeptState | undefined {
  try {
    const packed = JSON.parse(inflateRawSync(bytes).toString("utf8")) as Packed;
    return packed.v === stateVersion() ? unpack(packed) : undefined;
  } catch {
    return undefined;
  }
}

function unpack(packed: Packed): KeptState {
  const entries = Array.from({ length: packed.n }, () => ({}) as Record<string, unknown>);
  // The ids first: a parentId may name the entry before by PREVIOUS.
  const keys = Object.keys(packed.cols).sort((a, b) => (a === "id" ? -1 : b === "id" ? 1 : 0));
  for (const key of keys) {
    const col = packed.cols[key] as Column;
    const values = decode(col.c, col.at.length);
    let i = -1;
    for (let k = 0; k < col.at.length; k++) {
      i += col.at[k] as number;
      let value = values[k];
      if (key === "body") value = unslim(value as SlimBody);
      else if (key === "parentId" && value === PREVIOUS) value = entries[i - 1]?.id;
      (entries[i] as Record<string, unknown>)[key] = value;
    }
  }
  const state: IndexerState = { ...packed.s, entries: entries as unknown as EntryFields[] };
  return { state, copied: packed.c ?? undefined };
}
