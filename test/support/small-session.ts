/**
 * Small hand-written sessions for tests that need a valid file or two beside the odd ones they are about, and the
 * usage record their assistant turns carry. What a test asserts about them (a cost, a count) is stated in the test.
 */

/** An environment in which no command finds pi's own folders (HOME and pi's agent and session folders). */
export const NO_PI_ENV = { HOME: "/nonexistent", PI_CODING_AGENT_DIR: "/nonexistent", PI_CODING_AGENT_SESSION_DIR: "/nonexistent" };

/**
 * The usage of an assistant turn as pi writes it: `tokens` in and out (10 and 5 unless given), none cached, at the
 * cost given (input and output 0 unless given).
 */
export function turnUsage(cost: { input?: number; output?: number; total: number }, tokens = { input: 10, output: 5 }) {
  return {
    input: tokens.input,
    output: tokens.output,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: tokens.input + tokens.output,
    cost: { input: cost.input ?? 0, output: cost.output ?? 0, cacheRead: 0, cacheWrite: 0, total: cost.total },
  };
}

/** JSONL text: one line a value, each ended by a newline. */
export function jsonl(values: readonly unknown[]): string {
  return `${values.map((v) => JSON.stringify(v)).join("\n")}\n`;
}

/**
 * A session of one user message (`user`, "hi" by default) and the assistant's answer "yo", at 2025-01-01T09:00Z,
 * costing 3 (input 1, output 2).
 */
export function oneTurnSession(id: string, opts: { version?: number; user?: string } = {}): string {
  const T = "2025-01-01T09:00:00.000Z";
  return jsonl([
    { type: "session", version: opts.version ?? 3, id, timestamp: T, cwd: "/home/dev/app" },
    { type: "message", id: "a1", parentId: null, timestamp: T, message: { role: "user", content: opts.user ?? "hi", timestamp: 1 } },
    {
      type: "message",
      id: "a2",
      parentId: "a1",
      timestamp: T,
      message: {
        role: "assistant",
        content: [{ type: "text", text: "yo" }],
        api: "anthropic-messages",
        provider: "p",
        model: "m",
        usage: turnUsage({ input: 1, output: 2, total: 3 }),
        stopReason: "stop",
        timestamp: 2,
      },
    },
  ]);
}

/**
 * A session of one assistant turn whose output is 1e20 tokens: more than a Parquet integer column (`output`) holds,
 * so `tables --format parquet` and `sql` fail partway through writing it.
 */
export function tooLargeForParquet(): string {
  return jsonl([
    { type: "session", version: 3, id: "big", timestamp: "2025-01-01T10:00:00.000Z", cwd: "/p" },
    {
      type: "message",
      id: "m",
      parentId: null,
      timestamp: "2025-01-01T10:00:01.000Z",
      message: {
        role: "assistant",
        provider: "p",
        model: "m",
        content: [],
        usage: { input: 1, output: 1e20, cacheRead: 0, cacheWrite: 0, cost: { total: 0.5 } },
      },
    },
  ]);
}
