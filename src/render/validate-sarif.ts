import { isAbsolute } from "node:path";
import { pathToFileURL } from "node:url";
import type { FileResult } from "../check/summary.js";
import type { Severity } from "../model/types.js";
import { codeTitle, formatMessage } from "./diagnostics.js";

const LEVEL: Record<Severity, string> = { error: "error", warning: "warning", info: "note" };

interface SarifTool {
  version: string;
  /** Every code with its severity, in registry order: the SARIF rules. */
  codes: readonly (readonly [string, Severity])[];
  informationUri?: string;
}

/** A relative path stays relative (code scanning resolves it against the checkout); an absolute one becomes file://. */
function artifactUri(file: string): string {
  if (file === "-") return "stdin";
  if (isAbsolute(file)) return pathToFileURL(file).href;
  return file.split("\\").join("/").split("/").map(encodeURIComponent).join("/");
}

/** `--format sarif`: one SARIF 2.1.0 log, one run, rules = diagnostic codes. Deterministic (no times). */
export function validateSarif(results: readonly FileResult[], tool: SarifTool): string {
  const ruleIndex = new Map(tool.codes.map(([code], i) => [code, i]));
  const rules = tool.codes.map(([code, severity]) => ({
    id: code,
    name: code,
    shortDescription: { text: codeTitle(code) },
    helpUri: `${tool.informationUri ?? "https://pisess.dev"}/docs/diagnostics.md#${code}`,
    defaultConfiguration: { level: LEVEL[severity] },
  }));
  const sarifResults: unknown[] = [];
  const notifications: unknown[] = [];
  for (const r of results) {
    const uri = artifactUri(r.file);
    if (r.ioError !== undefined) {
      notifications.push({
        level: "error",
        message: { text: `${r.file}: ${r.ioError}` },
        locations: [{ physicalLocation: { artifactLocation: { uri } } }],
      });
    }
    for (const d of r.diagnostics) {
      const physicalLocation: Record<string, unknown> = { artifactLocation: { uri } };
      if (d.line !== null) {
        const region: Record<string, number> = { startLine: d.line };
        if (d.column !== undefined) region.startColumn = d.column;
        physicalLocation.region = region;
      }
      const result: Record<string, unknown> = {
        ruleId: d.code,
        ruleIndex: ruleIndex.get(d.code) ?? -1,
        level: LEVEL[d.severity],
        message: { text: formatMessage(d) },
        locations: [{ physicalLocation }],
      };
      if (d.entryId !== undefined || Object.keys(d.args).length > 0) {
        result.properties = { ...(d.entryId !== undefined ? { entryId: d.entryId } : {}), args: d.args };
      }
      sarifResults.push(result);
    }
  }
  const log = {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "pisess",
            version: tool.version,
            semanticVersion: tool.version,
            informationUri: tool.informationUri ?? "https://pisess.dev",
            rules,
          },
        },
        invocations: [{ executionSuccessful: notifications.length === 0, toolExecutionNotifications: notifications }],
        columnKind: "utf16CodeUnits",
        results: sarifResults,
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}
