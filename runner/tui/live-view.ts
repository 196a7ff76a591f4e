/**
 * The live region as lines, from the UI's state: the line being streamed, the spinner (what runs,
 * elapsed seconds, tokens streamed), queued prompts, the question asked, the prompt editor's
 * visible lines with the cursor, and the status line (model, mode, cost, tokens). A pure function,
 * so every state can be checked without a terminal.
 */
import { thousands } from "../render";
import type { LiveView } from "./screen";
import { visibleWidth } from "./screen";
import type { Theme } from "./theme";

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
/** Editor lines shown at once (a long paste scrolls inside the live region). */
const EDITOR_ROWS = 8;
/** Queued prompts listed before "… N more". */
const QUEUE_SHOWN = 3;

/** What the live region shows. */
export interface LiveState {
  /** The answer's line still being written. */
  partial: string;
  /** The turn running, if any: when it started, characters streamed, what streams, the running tool's line. */
  turn?: { started: number; streamed: number; phase: string; tool?: string };
  queue: readonly string[];
  question?: { kind: "approval" | "line"; text: string };
  editor: { text: string; line: number; column: number };
  status: { model: string; mode: string; costUsd: number | null; tokens: number };
  /** A hint in front of the status line ("Ctrl-C again quits"). */
  notice: string;
  frame: number;
  now: number;
}

/** The live region's lines and cursor for `state` on a terminal `columns` wide. */
export function liveView(state: LiveState, theme: Theme, columns: number): LiveView {
  const lines: string[] = [];
  // The line being streamed, its end only when it is long (the live region stays a few rows).
  if (state.partial) lines.push(tail(shown(state.partial), columns * 3 - 2));
  if (state.turn) lines.push(spinnerLine(state, theme, columns));
  for (const q of state.queue.slice(0, QUEUE_SHOWN)) lines.push(theme.dim(`↳ queued: ${firstLine(q)}`));
  if (state.queue.length > QUEUE_SHOWN) lines.push(theme.dim(`  … ${state.queue.length - QUEUE_SHOWN} more queued`));
  const { question } = state;
  if (question)
    lines.push(theme.bold(question.kind === "approval" ? question.text : lastLine(question.text) || "answer:"));
  const all = state.editor.text.split("\n");
  const { line, column } = state.editor;
  const from = Math.max(0, Math.min(line - EDITOR_ROWS + 1, all.length - EDITOR_ROWS));
  const visible = all.slice(from, from + EDITOR_ROWS);
  if (from > 0) lines.push(theme.dim(`  … ${from} line${from === 1 ? "" : "s"} above`));
  const editorTop = lines.length;
  const marker = question?.kind === "line" ? "» " : "› ";
  visible.forEach((l, i) => {
    lines.push(`${i === 0 && from === 0 ? theme.prompt(marker) : "  "}${shown(l)}`);
  });
  const below = all.length - from - visible.length;
  if (below > 0) lines.push(theme.dim(`  … ${below} line${below === 1 ? "" : "s"} below`));
  lines.push(statusLine(state, theme, columns));
  // An approval takes one key: no cursor in the editor meanwhile.
  const cursor =
    question?.kind === "approval"
      ? undefined
      : { line: editorTop + line - from, column: 2 + visibleWidth(shown(all[line]!.slice(0, column))) };
  return { lines, cursor };
}

/** `⠹ Bash(npm test) · 12s · ↓ 340 tokens · Ctrl-C interrupts`, on one row. */
function spinnerLine(state: LiveState, theme: Theme, columns: number): string {
  const t = state.turn!;
  const what = state.question?.kind === "approval" ? "waiting for your answer" : (t.tool ?? t.phase);
  const tokens = Math.round(t.streamed / 4);
  const figures = ` · ${Math.floor((state.now - t.started) / 1000)}s · ↓ ${thousands(tokens)} tokens · Ctrl-C interrupts`;
  // The call's line gives way to the figures.
  const room = Math.max(10, columns - 3 - figures.length);
  return `${theme.tool(SPINNER[state.frame % SPINNER.length]!)} ${what.length > room ? `${what.slice(0, room - 1)}…` : what}${theme.dim(figures)}`;
}

/** `openai:gpt-5 · default mode · $0.0123 · 14,210 tokens`, on one row. */
function statusLine(state: LiveState, theme: Theme, columns: number): string {
  const { model, mode, costUsd, tokens } = state.status;
  const cost = costUsd === null ? "cost unknown" : `$${costUsd.toFixed(4)}`;
  const text = `${model} · ${mode} mode · ${cost} · ${thousands(tokens)} tokens`;
  const notice = state.notice;
  const room = columns - 1 - (notice ? notice.length + 3 : 0);
  return `${notice ? `${theme.warn(notice)} ${theme.dim("·")} ` : ""}${theme.dim(text.length > room ? `${text.slice(0, Math.max(1, room - 1))}…` : text)}`;
}

/** Text as the live region draws it: tabs as spaces, other control characters visible. */
function shown(text: string): string {
  return text.replace(/\t/g, "    ").replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, "�");
}

/** The last `width` characters of `text`, marked when cut. */
function tail(text: string, width: number): string {
  return text.length > width ? `…${text.slice(text.length - width + 1)}` : text;
}

function firstLine(text: string): string {
  const lines = text.trim().split("\n");
  const first = lines[0]!.length > 60 ? `${lines[0]!.slice(0, 59)}…` : lines[0]!;
  return lines.length > 1 ? `${first} (+${lines.length - 1} lines)` : first;
}

/** The last line of a question (the one the answer is typed after). */
export function lastLine(text: string): string {
  return text.replace(/\s+$/, "").split("\n").at(-1)!;
}
