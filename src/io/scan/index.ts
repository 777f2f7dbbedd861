/**
 * The byte scanners, behind one entry point: the two line splitters (a stream of RawLine objects, or byte ranges of
 * one reused buffer), the skeleton scanner with its SIMD string scanner (wasm), and the fleet tables' CSV byte writer
 * (table-bytes.ts). They know bytes and JSON, not sessions: the keys they look for are given by the caller
 * (src/model/fields.ts), and the columns a row holds by the tables (src/ops/fleet-tables.ts).
 */
export {
  LazyLine,
  LINE_CRLF,
  LINE_INVALID_UTF8,
  LINE_UNTERMINATED,
  LIVE_WINDOW_MS,
  LineSplitter,
  readLineBytes,
  type FileStat,
  type HeldTail,
  type LineStart,
  snapshotHook,
  type SnapshotOptions,
  readLines,
  type LineSourceFacts,
  type RawLine,
  type Source,
} from "./lines.js";
export { isStringifyFormBytes, NOT_FORM, PLAIN_FORM, stringifyFormBytes } from "./form.js";
export { messageStandIn, messageStandInFromBytes } from "./standin.js";
export { base64Decoded, JsonBytes, Keys } from "./json-bytes.js";
export {
  elementStartsWith,
  elementValue,
  giveReadRegion,
  READ_REGION_SIZE,
  readRegionAgain,
  takeReadRegion,
  itemsOf,
  type Names,
  names,
  nextItem,
  scanElement,
  scanLine,
  scanSlot,
  skeletonKeys,
  slotFrom,
  slotTo,
  slotBlank,
  slotElements,
  slotFalsy,
  slotIs,
  slotNamed,
  slotNumber,
  slotPresent,
  slotStartsWith,
  slotStr,
  slotString,
  slotStringSize,
  slotStringPrefix,
  slotValue,
  type SkeletonKeys,
} from "./skeleton.js";
export { giveBack, TableBytes, wellFormedJson } from "./table-bytes.js";
