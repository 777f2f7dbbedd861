import { ReportError, type Report } from "./report.js";

export interface SchemaOptions {
  /** A schema name (e.g. header, entry-compaction); none: the list of names. */
  name?: string;
}

export type SchemaData = { names: string[] } | { names?: undefined; name: string; text: string };

/** `pisess schema`: the JSON Schemas validate uses, or their names. */
export async function schemaReport(opts: SchemaOptions = {}): Promise<Report<SchemaData>> {
  const { schemaNames, schemaText } = await import("../check/schemas.js");
  if (opts.name === undefined) return { data: { names: schemaNames() }, diagnostics: [], exitCode: 0 };
  const text = schemaText(opts.name);
  if (text === undefined) throw new ReportError(`no schema named "${opts.name}"; run pisess schema to list them`);
  return { data: { name: opts.name, text }, diagnostics: [], exitCode: 0 };
}
