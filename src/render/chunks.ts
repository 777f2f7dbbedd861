/**
 * Characters an output chunk gathers before it is handed on (renderers build their text in chunks this size, and
 * the CLI joins smaller pieces up to it). A string holding any character past U+00FF (box drawing, an accent, a CJK
 * prompt) takes two bytes a character in V8, and one of 128 KiB or more is put in the large-object space, which
 * allocates and maps each on its own: joining or flattening 64 Ki such characters cost ten times the copy.
 */
export const CHUNK_CHARS = 1 << 15;
