/** A stored session as a person reads it (`ubiquity sessions show`), and the `list` table. */
import type { SessionInfo, StoredSession } from "./store";

const ARG_CHARS = 60;
const RESULT_CHARS = 100;

function clip(text: string, max: number): string {
  const flat = text.replace(/\s*\n\s*/g, " ⏎ ");
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function formatCall(toolName: string, input: unknown): string {
  if (!input || typeof input !== "object" || Array.isArray(input)) return `${toolName}()`;
  const args = Object.entries(input as Record<string, unknown>).map(
    ([k, v]) => `${k}: ${clip(JSON.stringify(v) ?? String(v), ARG_CHARS)}`,
  );
  return `${toolName}(${args.join(", ")})`;
}

function indent(text: string, prefix: string): string {
  return text
    .split("\n")
    .map((line) => `${prefix}${line}`)
    .join("\n");
}

/** `YYYY-MM-DD HH:MM` in UTC, short enough for a table. */
function when(iso: string): string {
  return iso.replace("T", " ").slice(0, 16);
}

function usd(cost: number | null | undefined): string {
  return typeof cost === "number" ? `$${cost.toFixed(4)}` : "cost unknown";
}

/**
 * What the session's runs cost together: each run's result has its own `totalCostUsd` (a
 * `--resume` run's covers that run alone), and a long piece of work spread over days and resumes
 * had no total anywhere. A run that ended without a result (killed: SIGKILL, a crash) recorded no
 * cost, so the total is a floor then, and says so. Subagents' results are inside their parent's.
 */
function sessionCost(session: StoredSession): string {
  let total = 0;
  let unknown = 0;
  let runs = 0;
  let open = false;
  let unfinished = 0;
  for (const { message: m } of session.records) {
    if (m.agentId) continue;
    if (m.type === "user") {
      if (open) unfinished++;
      open = true;
    } else if (m.type === "result") {
      open = false;
      runs++;
      if (typeof m.totalCostUsd === "number") total += m.totalCostUsd;
      else unknown++;
    }
  }
  if (open) unfinished++;
  const parts = [`${usd(total)} over ${runs} run${runs === 1 ? "" : "s"}`];
  if (unknown) parts.push(`${unknown} of them at no known price, not counted`);
  if (unfinished)
    parts.push(
      `${unfinished} prompt${unfinished === 1 ? "" : "s"} ended without a result (the run was killed), ${unfinished === 1 ? "its" : "their"} spend not recorded`,
    );
  return parts.join("; ");
}

/** The `sessions list` table: id, last update, size, first prompt. */
export function formatSessionList(sessions: readonly SessionInfo[]): string {
  if (sessions.length === 0) return "No stored sessions.\n";
  return sessions
    .map(
      (s) =>
        `${s.sessionId}  ${when(s.updatedAt)}  ${String(s.messageCount).padStart(4)} msgs  ${s.summary || "(no prompt)"}\n`,
    )
    .join("");
}

/** The conversation of a session: prompts, answers, one line per tool call with its outcome. */
export function formatSession(session: StoredSession): string {
  const lines = [
    `Session ${session.sessionId}`,
    `  cwd      ${session.cwd}`,
    `  created  ${session.createdAt}`,
    `  updated  ${session.updatedAt}`,
    `  records  ${session.messageCount}`,
    `  cost     ${sessionCost(session)}`,
    "",
  ];
  const results = new Map<string, { content: string; isError: boolean }>();
  for (const r of session.records)
    if (r.message.type === "tool_result") results.set(r.message.toolUseId, r.message.output);
  for (const record of session.records) {
    const m = record.message;
    const sub = m.agentId ? `[${m.agentId}] ` : "";
    switch (m.type) {
      case "user":
        for (const c of record.context ?? []) lines.push(indent(clip(c, 200), `${sub}  (context) `));
        lines.push(indent(m.text, `${sub}> `));
        if (record.blocked !== undefined) lines.push(`${sub}  (not sent: ${record.blocked})`);
        break;
      case "assistant":
        if (m.text) lines.push(indent(m.text, sub));
        for (const block of m.content) {
          if (block.type !== "tool_call") continue;
          const out = results.get(block.toolUseId);
          const status = !out
            ? "no result (interrupted)"
            : out.isError
              ? `error: ${clip(out.content, RESULT_CHARS)}`
              : `ok: ${clip(out.content, RESULT_CHARS)}`;
          lines.push(`${sub}  → ${formatCall(block.toolName, block.input)}  ${status}`);
        }
        break;
      case "result":
        lines.push(
          `${sub}── ${m.isError ? `failed (${m.subtype}): ${clip(m.result, 200)}` : "done"} · ${m.numTurns} turn${m.numTurns === 1 ? "" : "s"} · ${usd(m.totalCostUsd)}`,
        );
        break;
      case "system":
        lines.push(`${sub}── ${m.subtype.replace("_", " ")}`);
        break;
      default:
        break; // tool_use / tool_result are shown with their call
    }
  }
  return `${lines.join("\n")}\n`;
}
