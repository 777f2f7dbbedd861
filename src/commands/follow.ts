import { runIo } from "./run-state.js";
import type { Argv, CommandModule } from "yargs";
import type { Session } from "../model/session.js";
import type { FollowTotals } from "../ops/follow.js";
import { diagnosticLine } from "../render/diagnostics.js";
import { followLines, followNdjson, followStatus } from "../render/follow.js";
import { readingProblemsLine } from "../render/problems.js";
import { sanitizeLine } from "../render/sanitize.js";
import { resolveSessionFile } from "../reports/context.js";
import { followSession, projectSessionFolder, ThrottledContextSize } from "../reports/follow.js";
import {
  CliError,
  ioReason,
  requestExit,
  styleFor,
  terminalWidth,
  writeOut,
  type GlobalArgs,
  allProjectsArg,
  numberArg,
  wholeNumbers,
  writeErr,
  writeControl,
  outputSession,
} from "./common.js";

interface FollowArgs extends GlobalArgs {
  file?: string;
  fromStart?: boolean;
  ndjson?: boolean;
  untilIdle?: number;
  newest?: boolean;
  session?: string;
  allProjects?: boolean;
  width?: number;
}

/** Poll interval; tests shorten it. fs.watch wakes the reader earlier where it works. */
function pollMs(): number {
  const v = Number(runIo().env.PISESS_FOLLOW_POLL_MS);
  return Number.isFinite(v) && v > 0 ? v : 1000;
}

export const followCommand: CommandModule<object, FollowArgs> = {
  command: "follow [file]",
  describe: "Print entries as pi appends them to a session (like tail -f, in the tree's style)",
  builder: (y: Argv) =>
    y
      .positional("file", { describe: "Session file; default: the most recent session of the current directory", type: "string" })
      .option("from-start", { describe: "Print the entries already in the file first", type: "boolean" })
      .option("ndjson", { describe: "One JSON object per new entry: the fields of tree --ndjson, plus entry", type: "boolean" })
      .option("until-idle", { describe: "Exit after SECONDS without a change", ...numberArg })
      .option("newest", { describe: "Without FILE: switch to a newer session when pi starts one in this project", type: "boolean" })
      .option("session", {
        describe: "Follow the session whose id starts with ID (as context --session)",
        type: "string",
        requiresArg: true,
      })
      .option("all-projects", allProjectsArg("where --session looks"))
      .option("width", {
        describe: "Cut lines to N columns (default: terminal width on a TTY; 0: no cut)",
        ...numberArg,
      })
      .conflicts("file", "session")
      .conflicts("file", "newest")
      .implies("all-projects", "session")
      .check((a) => {
        const idle = a["until-idle"];
        if (idle !== undefined && (typeof idle !== "number" || !Number.isFinite(idle) || idle <= 0))
          throw new CliError("--until-idle takes a number of seconds > 0");
        return true;
      })
      .check(wholeNumbers({ width: { min: 0, note: "0: no cut" } }))
      .example("$0 follow", "watch the newest session of this directory")
      .example("$0 follow session.jsonl --from-start", "replay the session, then keep following it")
      .example("$0 follow --newest", "keep following whatever session pi is writing in this project")
      .example("$0 follow s.jsonl --ndjson | jq -r 'select(.type==\"compaction\") | .line'", "lines of compactions as they happen")
      .example("$0 follow s.jsonl --ndjson --until-idle 30", "stop after 30 s without a change") as unknown as Argv<FollowArgs>,
  handler: async (args) => {
    const env = runIo().env;
    const file = args.file ?? (await resolveSessionFile({ session: args.session, allProjects: args.allProjects, cwd: runIo().cwd(), env }));
    const style = styleFor(args);
    const width = terminalWidth(args.width);
    const tty = runIo().stderr.isTTY === true;
    const ac = new AbortController();
    const stop = (): void => ac.abort();
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
    let status = "";
    const clearStatus = (): void => {
      if (status) writeControl("clearLine");
      status = "";
    };
    const note = (s: string): void => {
      clearStatus();
      writeErr(s);
    };
    let last: { f: string; session: Session; totals: FollowTotals } | null = null;
    // The trailing update redraws only a status line on show: while an entry is written (the line cleared) the
    // next idle event draws it.
    const contextSize = new ThrottledContextSize(() => {
      if (status && last) drawStatus(last.f, last.session, last.totals);
    });
    /** The status line (a terminal only): totals and the context size, cut to the terminal's width. */
    const drawStatus = (f: string, session: Session, totals: FollowTotals): void => {
      if (!tty) return;
      clearStatus();
      last = { f, session, totals };
      status = followStatus(f, totals, contextSize.tokensAt(session));
      const cols = runIo().stderr.columns;
      writeErr(cols !== undefined && cols > 1 && status.length >= cols ? `${status.slice(0, cols - 2)}…` : status);
    };
    try {
      const events = followSession({
        file,
        pollMs: pollMs(),
        signal: ac.signal,
        wholeEntries: args.ndjson === true,
        ...(args.fromStart ? { fromStart: true } : {}),
        ...(args.untilIdle !== undefined ? { untilIdleMs: args.untilIdle * 1000 } : {}),
        ...(args.newest && args.file === undefined ? { newestIn: await projectSessionFolder(runIo().cwd(), env) } : {}),
      });
      for await (const ev of events) {
        switch (ev.kind) {
          case "open":
            // Said off a terminal too: a script (or a test) knows from it when appends start to count as new.
            note(
              `pisess follow: following ${sanitizeLine(ev.file)} (${ev.existing} entries${args.fromStart ? "" : " before, not shown"})\n`,
            );
            if (ev.problems.error + ev.problems.warning > 0) note(readingProblemsLine(sanitizeLine(ev.file), ev.problems));
            drawStatus(ev.file, ev.session, ev.totals);
            break;
          case "entry":
            clearStatus();
            outputSession(ev.session);
            if (args.ndjson) await writeOut([followNdjson(ev.session, ev.rec, ev.step, ev.entry ?? {})], "json");
            else await writeOut([`${followLines(ev.session, ev.rec, ev.step, { style, width }).join("\n")}\n`]);
            break;
          case "problem":
            note(diagnosticLine(ev.diagnostic));
            break;
          case "idle":
            drawStatus(ev.file, ev.session, ev.totals);
            break;
          case "reset":
            if (ev.held) note(diagnosticLine(ev.held));
            note(
              `${sanitizeLine(ev.file)}: the file was ${ev.reason === "truncated" ? "truncated or rewritten" : "replaced"}; following it from its start\n`,
            );
            break;
          case "switch":
            if (ev.held) note(diagnosticLine(ev.held));
            note(`pisess follow: pi started a newer session; following ${sanitizeLine(ev.to)}\n`);
            break;
          case "gone":
            if (ev.held) note(diagnosticLine(ev.held));
            note(`${sanitizeLine(ev.file)}: the file was deleted\n`);
            requestExit(2);
            break;
          case "end":
            if (ev.held) note(diagnosticLine(ev.held));
            break;
        }
      }
    } catch (err) {
      // The file could not be opened or read (missing, unreadable, a directory, a FIFO; at the start, or once it was
      // replaced by one): one line, exit 2.
      if (typeof (err as NodeJS.ErrnoException).code === "string") throw new CliError(`${file}: ${ioReason(err)}`);
      throw err;
    } finally {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      contextSize.stop();
      // Leave the terminal as it was: no status line, colours reset, cursor shown.
      if (tty) {
        clearStatus();
        writeControl("reset");
      }
    }
  },
};
