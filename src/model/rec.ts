import type { EntryFields } from "./types.js";

/**
 * Makes the index's records: a constructor rather than an object literal, because V8 gives a constructor's objects
 * room for the fields set after it (a message's role, previews, usage) in the object itself, where a literal's
 * spill into a second object (a million-entry load: a million of them, tens of megabytes). Its objects are plain
 * ones: their prototype is Object.prototype, their own fields the same, in the same order, as the literal's.
 */
function Rec(
  this: EntryFields,
  index: number,
  line: number,
  offset: number,
  length: number,
  id: string | undefined,
  parentId: string | null | undefined,
  type: string,
  timestamp: unknown,
  time: number,
): void {
  this.index = index;
  this.line = line;
  this.offset = offset;
  this.length = length;
  this.id = id;
  this.parentId = parentId;
  this.type = type;
  this.timestamp = timestamp;
  this.time = time;
}
Rec.prototype = Object.prototype;

/** A record with EntryFields's base fields (index … time), in that order; the load sets the others. */
export const NewRec = Rec as unknown as new (...args: Parameters<typeof Rec>) => EntryFields;
