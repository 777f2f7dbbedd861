/**
 * Typed load details (#27): loadSession's session knows the detail it was loaded with, and its records have only the
 * fields that detail fills (model/detail.ts, derived from model/fields.ts). The `@ts-expect-error` lines are the
 * test: `tsc -p tsconfig.test.json` fails if one of them compiles (a field a detail does not load being readable,
 * or a lighter session being taken where a fuller one is needed). A line the byte scanner left to the whole parse
 * may hold more than its detail's fields; the type promises only what every such record has.
 */
import { describe, expect, it } from "vitest";
import { checkSession } from "../../src/check/validate.js";
import type { Detail, DetailField, Rec } from "../../src/model/detail.js";
import { checkFieldsOf, ENTRY_FIELDS, MESSAGE_FIELDS, previewFieldsOf, skeletonFieldsOf, spendFieldsOf } from "../../src/model/fields.js";
import type { EntryFields } from "../../src/model/types.js";
import { loadSession } from "../../src/model/load.js";
import type { Session } from "../../src/model/session.js";
import { pathTo } from "../../src/ops/path.js";
import { sessionTotals } from "../../src/ops/totals.js";
import { buildTree } from "../../src/ops/tree.js";
import { infoReport } from "../../src/reports/info.js";
import { treeJsonReport, treeReport } from "../../src/reports/tree.js";
import { fixture } from "../support/helpers.js";

const FILE = fixture("fleet", "sessions", "--home-dev-proj-a--", "a-parent.jsonl");

/** Reads fields of each detail's record; never called with a value, only compiled. */
function fieldsByDetail(
  full: Rec<"full">,
  skeleton: Rec<"skeleton">,
  spend: Rec<"spend">,
  preview: Rec<"preview">,
  check: Rec<"check">,
  tables: Rec<"tables">,
): unknown[] {
  return [
    // What every load fills.
    full.id,
    skeleton.id,
    skeleton.parentId,
    skeleton.role,
    skeleton.labelText,
    skeleton.firstKeptEntryId,
    spend.timestamp,
    // A full load fills every field but the tables detail's body facts.
    full.text,
    full.usage,
    full.toolNames,
    // @ts-expect-error the full load reads no body facts (only the tables detail does)
    full.body,
    // @ts-expect-error the skeleton reads no previews
    skeleton.text,
    // @ts-expect-error the skeleton reads no usage
    skeleton.usage,
    // @ts-expect-error the skeleton reads no tool names
    skeleton.toolNames,
    spend.usage,
    spend.usageKind,
    // @ts-expect-error the spend load reads no previews
    spend.text,
    preview.text,
    preview.stopReason,
    preview.toolNames,
    // @ts-expect-error the preview load reads no usage (only spend counting does)
    preview.usage,
    check.toolCallIds,
    check.toolName,
    // @ts-expect-error the check load reads no previews
    check.text,
    tables.body,
    tables.usage,
    // @ts-expect-error the tables load reads no previews
    tables.text,
  ];
}

/** Hands sessions of one detail to code that needs another; never called, only compiled. */
function sessionsByDetail(
  full: Session<"full">,
  skeleton: Session<"skeleton">,
  spend: Session<"spend">,
  preview: Session<"preview">,
  check: Session<"check">,
): unknown[] {
  return [
    // Code that reads only what every load fills takes any session.
    treeJsonReport(skeleton),
    treeJsonReport(full),
    buildTree(check),
    // Spend counting needs usage: the spend, tables and full loads.
    sessionTotals(spend),
    sessionTotals(full),
    infoReport(spend),
    // @ts-expect-error a skeleton session has no usage to count
    sessionTotals(skeleton),
    // @ts-expect-error a preview session has no usage to count
    infoReport(preview),
    // The text views need previews: the preview and full loads.
    treeReport(preview),
    treeReport(full),
    // @ts-expect-error a skeleton session has no previews to show
    treeReport(skeleton),
    // @ts-expect-error a spend session has no previews to show
    treeReport(spend),
    // validate's checks read tool call ids: the check, preview and full loads.
    checkSession(check),
    checkSession(full),
    // @ts-expect-error a spend session has no tool call ids
    checkSession(spend),
    // A generic op hands back the records of the session's detail.
    (() => {
      const r = pathTo(preview, preview.entries[0] as Rec<"preview">);
      return r.ok ? r.path.map((rec) => rec.text) : [];
    })(),
    (() => {
      const r = pathTo(skeleton, skeleton.entries[0] as Rec<"skeleton">);
      // @ts-expect-error a skeleton path's records have no previews
      return r.ok ? r.path.map((rec) => rec.text) : [];
    })(),
  ];
}

describe("typed load details", () => {
  it("loadSession's session has its detail's type, and the default is the full load", async () => {
    const full = await loadSession({ kind: "file", path: FILE });
    const skeleton = await loadSession({ kind: "file", path: FILE }, { detail: "skeleton" });
    const spend = await loadSession({ kind: "file", path: FILE }, { detail: "spend" });
    full.store.close();
    skeleton.store.close();
    spend.store.close();
    const asFull: Session<"full"> = full;
    const asSkeleton: Session<"skeleton"> = skeleton;
    // @ts-expect-error a skeleton load is not a full one
    const notFull: Session<"full"> = skeleton;
    expect([asFull, asSkeleton, notFull].map((s) => s.entries.length)).toEqual([
      full.entries.length,
      full.entries.length,
      full.entries.length,
    ]);
    expect(typeof fieldsByDetail).toBe("function");
    expect(typeof sessionsByDetail).toBe("function");
  });
});

/** A detail's fields as the type has them: a Record over DetailField<D> must name each, and nothing else. */
const fieldList = <D extends Detail>(fields: Record<DetailField<D>, true>): string[] => Object.keys(fields).sort();
const BASE = {
  index: true,
  line: true,
  offset: true,
  length: true,
  id: true,
  parentId: true,
  type: true,
  timestamp: true,
  time: true,
  firstKeptEntryIndex: true,
} as const;
const SKELETON = {
  ...BASE,
  role: true,
  hasMessage: true,
  tokensBefore: true,
  firstKeptEntryId: true,
  fromId: true,
  summaryEmpty: true,
  targetId: true,
  labelText: true,
  name: true,
  provider: true,
  model: true,
  thinkingLevel: true,
  customType: true,
} as const;
const SPEND = { ...SKELETON, usage: true, usageKind: true } as const;
const CHECK = { ...SKELETON, toolNames: true, toolCallIds: true, toolCallId: true, toolName: true } as const;
const PREVIEW = { ...CHECK, text: true, editRemoves: true, hasText: true, stopReason: true, errorMessage: true, isError: true } as const;

/** What the loads fill by the table at run time (fields.ts's *FieldsOf), over every entry type and message role. */
function runtimeFields(of: (type: string, role?: string) => (keyof EntryFields)[]): string[] {
  const out = new Set<string>();
  for (const type of ENTRY_FIELDS.keys()) {
    for (const f of of(type)) out.add(f);
    if (type === "message") for (const role of [...MESSAGE_FIELDS.keys(), "other"]) for (const f of of(type, role)) out.add(f);
  }
  return [...out].sort();
}

describe("each detail's record type is the field table's", () => {
  it("skeleton, spend, check and preview name the fields fields.ts says those loads fill", () => {
    expect(fieldList<"skeleton">(SKELETON)).toEqual(runtimeFields(skeletonFieldsOf));
    expect(fieldList<"spend">(SPEND)).toEqual(runtimeFields(spendFieldsOf));
    expect(fieldList<"check">(CHECK)).toEqual(runtimeFields(checkFieldsOf));
    expect(fieldList<"preview">(PREVIEW)).toEqual(runtimeFields(previewFieldsOf));
    // The full load: every field but the tables detail's body facts; the tables load: the spend load's and body.
    expect(fieldList<"full">({ ...PREVIEW, usage: true, usageKind: true })).toEqual(
      runtimeFields((type, role) => [...spendFieldsOf(type, role), ...previewFieldsOf(type, role)]),
    );
    expect(fieldList<"tables">({ ...SPEND, body: true })).toEqual([...runtimeFields(spendFieldsOf), "body"].sort());
  });
});
