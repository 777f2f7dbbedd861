import type { EntryRec } from "./types.js";

/**
 * Makes the index's records: a constructor rather than an object literal, because V8 gives a constructor's objects
 * room for the fields set after it (a message's role, previews, usage) in the object itself, where a literal's
 * spill into a second object (a million-entry load: a million of them, tens of megabytes). Its objects are plain
 * ones: their prototype is Object.prototype, their own fields the same, in the same order, as the literal's.
 */
type RecConstructor = new (
  index: number,
  line: number,
  offset: number,
  length: number,
  id: string | undefined,
  parentId: string | null | undefined,
  type: string,
  timestamp: unknown,
  time: number,
) => EntryRec;

const Rec = function (
  this: EntryRec,
  index: number,
  line: number,
  offset: number,
  length: number,
  id: string | undefined,
  parentId: string | null | undefined,
  type: string,
  timestamp: unknown,
  time: number,
) {
  this.index = index;
  this.line = line;
  this.offset = offset;
  this.length = length;
  this.id = id;
  this.parentId = parentId;
  this.type = type;
  this.timestamp = timestamp;
  this.time = time;
} as unknown as RecConstructor;
(Rec as unknown as { prototype: object }).prototype = Object.prototype;

/** A record with EntryRec's base fields (index … time); the load sets the others. */
export function newRec(
  index: number,
  line: number,
  offset: number,
  length: number,
  id: string | undefined,
  parentId: string | null | undefined,
  type: string,
  timestamp: unknown,
  time: number,
): EntryRec {
  return new Rec(index, line, offset, length, id, parentId, type, timestamp, time);
}
