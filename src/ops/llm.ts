type Obj = Record<string, unknown>;

export const COMPACTION_PREFIX = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";
const COMPACTION_SUFFIX = "\n</summary>";
export const BRANCH_PREFIX = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";
const BRANCH_SUFFIX = "</summary>";

/** The user text pi sends for a `!cmd` run. */
function bashText(m: Obj): string {
  let text = `Ran \`${String(m.command)}\`\n`;
  text += m.output ? `\`\`\`\n${String(m.output)}\n\`\`\`` : "(no output)";
  if (m.cancelled) text += "\n\n(command cancelled)";
  else if (m.exitCode !== null && m.exitCode !== undefined && m.exitCode !== 0)
    text += `\n\nCommand exited with code ${String(m.exitCode)}`;
  if (m.truncated && m.fullOutputPath) text += `\n\n[Output truncated. Full output: ${String(m.fullOutputPath)}]`;
  return text;
}

function userText(text: string, timestamp: unknown): Obj {
  return { role: "user", content: [{ type: "text", text }], timestamp };
}

/** Whether pi's convertToLlm keeps the message (as one message; convertOne says which). */
function sentToLlm(m: unknown): boolean {
  // pi reads `.role` of whatever it is given: a primitive has none and is dropped; null would throw in pi.
  if (m === null || m === undefined) return false;
  const o = m as Obj;
  switch (o.role) {
    case "bashExecution":
      return !o.excludeFromContext;
    case "custom":
    case "branchSummary":
    case "compactionSummary":
    case "system":
    case "user":
    case "assistant":
    case "toolResult":
      return true;
    default:
      return false;
  }
}

/** How many messages pi's convertToLlm sends, without making them. */
export function llmCount(messages: readonly unknown[]): number {
  let n = 0;
  for (let i = 0; i < messages.length; i++) if (sentToLlm(messages[i])) n++;
  return n;
}

/** One message as pi's convertToLlm turns it, or undefined where pi drops it. */
function convertOne(m: unknown): unknown {
  if (!sentToLlm(m)) return undefined;
  const o = m as Obj;
  switch (o.role) {
    case "bashExecution":
      return userText(bashText(o), o.timestamp);
    case "custom":
      return {
        role: "user",
        content: typeof o.content === "string" ? [{ type: "text", text: o.content }] : o.content,
        timestamp: o.timestamp,
      };
    case "branchSummary":
      return userText(BRANCH_PREFIX + String(o.summary) + BRANCH_SUFFIX, o.timestamp);
    case "compactionSummary":
      return userText(COMPACTION_PREFIX + String(o.summary) + COMPACTION_SUFFIX, o.timestamp);
    case "system":
    case "user":
    case "assistant":
    case "toolResult":
      return m;
    default:
      return undefined;
  }
}

interface LlmMapped {
  messages: unknown[];
  /** from[i] is the index, in the input, of the message llm message i came from. */
  from: number[];
}

/** pi's convertToLlm, also telling where each output message came from (to name its source entry). */
export function convertToLlmMapped(messages: readonly unknown[]): LlmMapped {
  const out: unknown[] = [];
  const from: number[] = [];
  messages.forEach((m, i) => {
    const c = convertOne(m);
    if (c !== undefined) {
      out.push(c);
      from.push(i);
    }
  });
  return { messages: out, from };
}

/** pi's convertToLlm (1.6.0): system, user, assistant and toolResult pass through; coding-agent roles become user text. */
export function convertToLlm(messages: unknown[]): unknown[] {
  return convertToLlmMapped(messages).messages;
}
