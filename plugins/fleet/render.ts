/** How `ubiquity fleet status` and `ubiquity fleet logs` print runs and records. */
import { redactText, urlPasswords } from "../../src/index";
import type { TranscriptRecord } from "../sessions/index";
import type { FleetRunStatus } from "./fleet";

/**
 * Labels, results, errors and diffs come from the queue and from hostile repositories: no control
 * character reaches the terminal (an ESC could rewrite the screen or set the window title), and
 * no password of a `scheme://user:password@host` URL (a repository's token) is shown.
 */
const clean = (text: string) => {
  const plain = text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, "\uFFFD");
  return redactText(plain, urlPasswords(plain));
};

const oneLine = (text: string, max = 160) => {
  const flat = clean(text).replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/** One line per run, then (with `diffs`) each run's diff. */
export function formatStatus(runs: readonly FleetRunStatus[], diffs = false): string {
  if (runs.length === 0) return "No fleet runs.\n";
  const rows = runs.map((r) => [
    clean(r.id),
    r.state + (r.outcome?.isError ? ` (${r.outcome.subtype})` : ""),
    String(r.turns),
    r.costUsd === null ? "-" : `$${r.costUsd.toFixed(4)}`,
    r.takeovers > 0 ? String(r.takeovers) : "",
    r.outcome?.diff ? `${r.outcome.diff.split("\n").filter((l) => /^[+-](?![+-])/.test(l)).length} lines` : "",
    clean(r.label),
  ]);
  const head = ["ID", "STATE", "TURNS", "COST", "MOVED", "DIFF", "RUN"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  let out = `${[line(head), ...rows.map(line)].join("\n")}\n`;
  for (const r of runs) if (r.error) out += `\n${clean(r.id)}: ${oneLine(r.error, 600)}\n`;
  if (diffs)
    for (const r of runs)
      if (r.outcome?.diff) out += `\n── ${clean(r.id)} ${clean(r.label)} ──\n${clean(r.outcome.diff)}`;
  return out;
}

/** One record as a log line. */
export function formatRecord(record: TranscriptRecord): string {
  const m = record.message;
  const time = record.timestamp.slice(11, 19);
  const who = m.agentId ? ` [${m.agentId}]` : "";
  switch (m.type) {
    case "user":
      return `${time}${who} user: ${oneLine(m.text)}\n`;
    case "assistant": {
      const calls = m.content.flatMap((b) =>
        b.type === "tool_call" ? [`${b.toolName}(${oneLine(JSON.stringify(b.input), 80)})`] : [],
      );
      return `${time}${who} assistant: ${oneLine(m.text || "")}${calls.length ? `${m.text ? " " : ""}→ ${calls.join(", ")}` : ""}\n`;
    }
    case "tool_use":
      return `${time}${who} tool_use ${m.toolName} ${m.toolUseId}\n`;
    case "tool_result":
      return `${time}${who} tool_result ${m.toolName}${m.output.isError ? " (error)" : ""}: ${oneLine(m.output.content)}\n`;
    case "result":
      return `${time}${who} result ${m.subtype} after ${m.numTurns} turn${m.numTurns === 1 ? "" : "s"}${m.totalCostUsd === null ? "" : `, $${m.totalCostUsd.toFixed(4)}`}: ${oneLine(m.result)}\n`;
    default:
      return `${time}${who} ${m.type}${"subtype" in m ? `/${String(m.subtype)}` : ""}\n`;
  }
}
