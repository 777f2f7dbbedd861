import { createRequire } from "node:module";

export type DuckApi = typeof import("@duckdb/node-api");

/**
 * The DuckDB API (@duckdb/node-api, an optional dependency), loaded on first use. Required, not imported: the package
 * is CommonJS, which the ES module loader reads more slowly (about 0.1 s, scanning each of its files for their
 * exports). The CLI's bundle replaces this module (scripts/build-cli.mjs) with a require of its own one-file copy of
 * the package (dist/bundle/duckdb-api.cjs): its 186 files took 53–68 ms of every sql, usage and index run, one file
 * 24–31 ms. Both throw when the package (or its native part, @duckdb/node-bindings) is not installed.
 */
export function duckApi(): DuckApi {
  return createRequire(import.meta.url)("@duckdb/node-api") as DuckApi;
}
