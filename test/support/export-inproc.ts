import { statSync } from "node:fs";
import { openSession } from "../../src/reports/open.js";
import { factRows } from "../../src/render/export-facts.js";
import { exportHtml } from "../../src/render/export-html.js";
import { branchMarkdown } from "../../src/render/export-markdown.js";
import { branchEntries, exportFacts, exportJsonl, exportPath, fileModified, htmlPayload, readBundle } from "../../src/reports/export.js";

/**
 * `pisess export FILE --format F [--leaf REF] [--no-images]` in-process: the reports and renderers the export command
 * wires, without a process (a spawn costs more than most exports). What only the command does (picking the format,
 * -o and its refusals, stderr lines, the fresh header's id) is tested by spawning it.
 */
export async function exportOut(
  file: string,
  a: { format: "html" | "markdown" | "jsonl"; leaf?: string; images?: boolean },
): Promise<{ stdout: string; code: number }> {
  const session = await openSession(file);
  try {
    const leafRef = a.leaf ?? "leaf";
    if (a.format === "jsonl") {
      const r = await exportJsonl(session, leafRef, {
        id: "0196f000-0000-7000-8000-000000000002",
        timestamp: "2026-01-01T00:00:00.000Z",
        parentSession: file,
      });
      return { stdout: r.data ? r.data.lines.map((l) => `${l}\n`).join("") : "", code: r.exitCode };
    }
    const { leaf, path } = exportPath(session, leafRef);
    if (path === null) return { stdout: "", code: 1 };
    const facts = await exportFacts(session, statSync(file).isFile() ? fileModified(file) : null);
    const rows = factRows(facts);
    const chunks =
      a.format === "markdown"
        ? branchMarkdown({ facts: rows, leaf, entries: branchEntries(session, path), count: path.length })
        : exportHtml(htmlPayload(session, leaf, facts, rows, a.images !== false), readBundle());
    return { stdout: [...chunks].join(""), code: 0 };
  } finally {
    session.store.close();
  }
}
