// Generator of pi session fleets for the fleet benchmark (fleet.mjs) and the ccusage comparison (ccusage-compare.mjs).
// Deterministic for a given seed. Sessions alternate user / assistant messages, each assistant message with usage
// (tokens and a recorded cost that vary by turn); a share of them are forks (`parentSession`) that start with a
// copy of part of an earlier session, as pi's /fork writes them; every 17th session sits in a nested subagent folder.
import fs from "node:fs";
import path from "node:path";

/** Deterministic pseudo-random numbers (mulberry32). */
function random(seed) {
  let s = seed | 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Writes `sessions` files of about `size` bytes in all under `dir` (emptied first). `forks`: share of sessions that
 * are forks. `stepMs`: mean time between entries (entries spread over more days when larger). `filler`: characters
 * of text per message (sets the file size per entry).
 * Returns, when `manifest` is set, the copied lines of every fork: [{ file, lines: [raw JSON text…] }].
 */
export function generateFleet({ dir, sessions, size, forks = 0.1, seed = 7, stepMs = 30_000, filler = 2000, manifest = false }) {
  const rnd = random(seed);
  fs.rmSync(dir, { recursive: true, force: true });
  const perSession = size / sessions;
  const text = "x".repeat(filler);
  const pool = [];
  const copies = [];
  let t0 = Date.UTC(2026, 0, 1, 20);
  for (let s = 0; s < sessions; s++) {
    const project = `--home-dev-p${s % 40}--`;
    const nested = s % 17 === 0 ? path.join(`sub-${s}`, "subagents") : "";
    const folder = path.join(dir, project, nested);
    fs.mkdirSync(folder, { recursive: true });
    const file = path.join(folder, `s${s}.jsonl`);
    const fork = s > 20 && rnd() < forks ? pool[Math.floor(rnd() * pool.length)] : undefined;
    const header = {
      type: "session",
      version: 3,
      id: `00000000-0000-4000-8000-${String(s).padStart(12, "0")}`,
      timestamp: new Date(t0).toISOString(),
      cwd: `/home/dev/p${s % 40}`,
    };
    if (fork) header.parentSession = fork.file;
    const lines = [JSON.stringify(header)];
    let bytes = 0;
    let parent = null;
    if (fork) {
      const keep = fork.lines.slice(1, 1 + Math.floor((fork.lines.length - 1) * rnd()));
      for (const l of keep) {
        lines.push(l);
        bytes += l.length;
      }
      if (keep.length > 0) parent = JSON.parse(keep[keep.length - 1]).id;
      if (manifest) copies.push({ file, lines: keep });
    }
    let i = 0;
    while (bytes < perSession) {
      t0 += 1000 + Math.floor(rnd() * 2 * stepMs);
      const id = `${s.toString(36)}-${i++}`;
      const ts = new Date(t0).toISOString();
      let e;
      if (i % 2 === 1)
        e = { type: "message", id, parentId: parent, timestamp: ts, message: { role: "user", content: text, timestamp: t0 } };
      else {
        const input = 1 + Math.floor(rnd() * 5000);
        const output = Math.floor(rnd() * 2000);
        const cacheRead = Math.floor(rnd() * 50_000);
        const cacheWrite = Math.floor(rnd() * 3000);
        // Cents and tenths of cents: sums stay exact enough to compare to 1e-6.
        const total = Math.floor(rnd() * 10_000) / 1000;
        e = {
          type: "message",
          id,
          parentId: parent,
          timestamp: ts,
          message: {
            role: "assistant",
            content: [{ type: "text", text }],
            api: "anthropic-messages",
            provider: "anthropic",
            model: i % 6 === 0 ? "claude-sonnet-4-5" : "claude-opus-4-6",
            usage: {
              input,
              output,
              cacheRead,
              cacheWrite,
              totalTokens: input + output + cacheRead + cacheWrite,
              cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total },
            },
            stopReason: "stop",
            timestamp: t0,
          },
        };
      }
      const l = JSON.stringify(e);
      lines.push(l);
      bytes += l.length;
      parent = id;
    }
    fs.writeFileSync(file, `${lines.join("\n")}\n`);
    // Modified when its last entry was written, as pi leaves a file (a fleet's files are not all from today).
    fs.utimesSync(file, new Date(t0), new Date(t0));
    // A bounded pool of earlier sessions to fork from (forks of forks included).
    if (pool.length < 200) pool.push({ file, lines });
    else if (rnd() < 0.05) pool[Math.floor(rnd() * pool.length)] = { file, lines };
  }
  return copies;
}
