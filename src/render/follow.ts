import type { Session } from "../model/session.js";
import type { Rec } from "../model/detail.js";
import type { Announcement, EntryAt, FollowSpend, FollowStep, FollowTotals } from "../ops/follow.js";
import type { Row, SessionView, ViewRec } from "../ops/view.js";
import { formatTokens, shortId } from "./entry.js";
import { fmtCost } from "./info-format.js";
import { sanitizeLine } from "./sanitize.js";
import type { Style } from "./style.js";
import { treeNdjson } from "./tree-json.js";
import { treeLines } from "./tree.js";
import { toJson } from "./json.js";

/** One entry as a one-row view, so that follow's lines are the tree renderers' lines. */
function oneRow(rec: ViewRec, depth: number): { view: SessionView; rows: Row[] } {
  const node = { rec, children: [], depth, cycleCut: false };
  return { view: { roots: [node], onPath: new Set([rec]), shown: 1 }, rows: [{ node, indent: 0, connector: "none", gutters: [] }] };
}

function ref(a: EntryAt | null): string {
  if (a === null) return "?";
  const id = sanitizeLine(a.id.length > 8 ? a.id.slice(0, 8) : a.id);
  return a.line === null ? `${id} (not in the file)` : `line ${a.line} (${id})`;
}

/** The words of an announcement: the key facts of a compaction, branch summary, context edit or usage entry. */
function announcementText(a: Announcement): string {
  switch (a.kind) {
    case "compaction":
      return `compaction: ${a.tokensBefore === null ? "?" : formatTokens(a.tokensBefore)} tokens before; ${a.keptFrom === null ? "nothing kept" : `kept from ${ref(a.keptFrom)}`}`;
    case "branch_summary":
      return `branch summary of the branch left at ${ref(a.from)}`;
    case "context_edit":
      return `context edit: ${a.removes ? "removes" : "replaces"} the message at ${ref(a.target)}`;
    case "usage":
      return `usage${a.usageKind !== null ? ` (${sanitizeLine(a.usageKind)})` : ""}: ${formatTokens(a.tokens)} tokens, ${fmtCost(a.cost)}`;
  }
}

/** An assistant turn's (or a tool result's) spend: the tokens by kind (cache ones where there are some), the cost. */
function spendText(sp: FollowSpend): string {
  const parts = [`${formatTokens(sp.input)} in`, `${formatTokens(sp.output)} out`];
  if (sp.cacheRead > 0) parts.push(`${formatTokens(sp.cacheRead)} cache read`);
  if (sp.cacheWrite > 0) parts.push(`${formatTokens(sp.cacheWrite)} cache write`);
  return `turn: ${formatTokens(sp.tokens)} tokens (${parts.join(", ")}), ${fmtCost(sp.cost)}`;
}

/**
 * The text lines `follow` prints for a new entry: where a new branch starts (when the entry does not continue the
 * previous one), the entry as `tree` shows it, the spend of a message that records one (an assistant turn), and the
 * key facts of the entries it announces (a usage entry's or summary's spend among them).
 */
export function followLines(
  session: Session,
  rec: Rec<"full">,
  step: FollowStep,
  opts: { style: Style; width: number | undefined },
): string[] {
  const out: string[] = [];
  const { style } = opts;
  if (step.jump) {
    const where = step.parent === null ? "a new root" : `line ${step.parent.line} (${shortId(step.parent)})`;
    out.push(style.accent(`↳ /tree jump: branch from ${where}`));
  }
  const { view, rows } = oneRow(rec, step.depth);
  for (const v of treeLines(session, view, rows, { style, width: opts.width, leaf: null })) out.push(v);
  if (step.spend !== null && rec.type === "message") out.push(style.dim(`  ⤷ ${spendText(step.spend)}`));
  if (step.announce) out.push(style.special(`  ⤷ ${announcementText(step.announce)}`));
  return out;
}

/**
 * One `follow --ndjson` object: the fields of `tree --ndjson` (as of when the entry was appended), plus `spend`
 * (the entry's tokens and cost where it counts in the totals, else null) and `entry`.
 */
export function followNdjson(session: Session, rec: Rec<"full">, step: FollowStep, entry: Record<string, unknown>): string {
  const { view, rows } = oneRow(rec, step.depth);
  const line = [...treeNdjson(session, view, rows, rec)].join("");
  return `${line.slice(0, -2)},"spend":${JSON.stringify(step.spend)},"entry":${toJson(entry)}}\n`;
}

/** The status line (TTY only): running totals and the context size now. */
export function followStatus(file: string, totals: FollowTotals, contextTokens: number | null): string {
  const ctx = contextTokens === null ? "" : ` · context ≈ ${formatTokens(contextTokens)} tokens`;
  return `${sanitizeLine(file)} · ${totals.entries} entries · ${formatTokens(totals.tokens)} tokens · ${fmtCost(totals.cost)}${ctx}`;
}
