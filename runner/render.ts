/**
 * How the runner shows a run: streamed text in a terminal, one line per tool call with its
 * status, and a closing line with turns, tokens and cost. Pure functions of messages, so
 * every output format is testable without a terminal.
 */
import type { Message, ResultMessage, ToolResultMessage, ToolUseMessage } from "../src/messages";
import { PLAIN, type Style } from "./style";
import { INTERRUPTED_MARKER } from "../src/loop";

const MAX_ARG = 60;

/** `Glob(pattern: "*.ts")`: a tool call on one line. */
export function formatToolUse(m: Pick<ToolUseMessage, "toolName" | "toolInput">): string {
  const input = m.toolInput;
  let args = "";
  if (input && typeof input === "object" && !Array.isArray(input)) {
    args = Object.entries(input as Record<string, unknown>)
      .map(([k, v]) => {
        let s = typeof v === "string" ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v));
        s = s.replace(/\\n/g, "⏎");
        if (s.length > MAX_ARG) s = `${s.slice(0, MAX_ARG - 1)}…`;
        return `${k}: ${s}`;
      })
      .join(", ");
  }
  return visibleExactly(`${m.toolName}(${args})`);
}

/** True when `text` is the JSON of `value` (a structured answer given as text). */
function sameJson(text: string, value: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}

/**
 * Control characters as visible escapes (`\x1b` for ESC): a tool's output is a program's, and an
 * escape sequence in it would reach the terminal (OSC 52 sets the clipboard, others rewrite lines).
 */
export function visibleControls(text: string): string {
  return text.replace(
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g,
    (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
  );
}

/**
 * Text a person is asked to judge (an approval, a server's question, a call's line): controls as
 * in `visibleControls`, and every character Unicode says shows nothing (its Default_Ignorable
 * set: bidi overrides and isolates, zero-width characters, tags, variation selectors, fillers)
 * or breaks the line unseen (U+2028, U+2029) as `\u{…}`. What is shown is then what runs: a
 * `\r` or an escape sequence cannot redraw a command, a bidi override cannot reverse its words.
 */
export function visibleExactly(text: string): string {
  return visibleControls(text).replace(
    /[\p{Default_Ignorable_Code_Point}\u2028\u2029]/gu,
    (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`,
  );
}

/**
 * Text from a model or a program as a terminal gets it: line ends kept (CRLF as LF), tabs kept,
 * every other control character a visible escape, so neither a prompt-injected answer nor a
 * command's output can set the clipboard (OSC 52), retitle the window or rewrite the screen.
 */
export function terminalText(text: string): string {
  return visibleControls(text.replace(/\r\n/g, "\n"));
}

/** `ok, 12 lines` / `error: message`: the status of a tool result on one line. */
export function formatToolResult(m: Pick<ToolResultMessage, "output">): string {
  const { content, isError } = m.output;
  const firstLine = visibleControls(content.split("\n", 1)[0] ?? "");
  if (isError) return `error: ${firstLine.length > 100 ? `${firstLine.slice(0, 99)}…` : firstLine}`;
  const lines = content === "" ? 0 : content.split("\n").length;
  return `ok, ${lines} line${lines === 1 ? "" : "s"}`;
}

/**
 * `1234567` → `1,234,567`, as `toLocaleString("en-US")` writes it: by hand for integers, because
 * the first `toLocaleString` of a process loads ICU's locale data (~7 MB of a cold run's memory).
 */
export function thousands(x: number): string {
  return Number.isSafeInteger(x) && !Object.is(x, -0)
    ? String(x).replace(/\B(?=(\d{3})+(?!\d))/g, ",")
    : x.toLocaleString("en-US");
}

/** `3 turns · 1,234 in / 56 out tokens (800 cached) · $0.0123`: the closing line. */
export function formatSummary(r: ResultMessage): string {
  const n = thousands;
  const cached = r.usage.cacheReadTokens ? ` (${n(r.usage.cacheReadTokens)} cached)` : "";
  const cost = r.totalCostUsd === null ? "cost unknown" : `$${r.totalCostUsd.toFixed(4)}`;
  const secs = (r.durationMs / 1000).toFixed(1);
  return `${r.numTurns} turn${r.numTurns === 1 ? "" : "s"} · ${n(r.usage.inputTokens)} in / ${n(r.usage.outputTokens)} out tokens${cached} · ${cost} · ${secs}s`;
}

/**
 * A message for the person at the terminal: the kernel's attribution `[plugin p] hook h: ` reads
 * `plugin p: ` (the hook's name is for `--verbose`), and where the kernel says to set
 * `options.model` or the model plugin to pass `openaiCompatible(…)` (a program's words), the flags
 * and the config file are named.
 */
export function withoutKernelTerms(text: string): string {
  return text
    .replace(/\[plugin ([^\]]+)\] hook [\w.]+: /g, (_, plugin: string) => `plugin ${plugin}: `)
    .replace(
      /set options\.model \(e\.g\. model: "([^"]+)", or "test" for the offline model\)/,
      (_, example: string) =>
        `pass --model (e.g. --model ${example}, or --model test for the offline model), set model in the config file,`,
    )
    .replace(
      "for any OpenAI-compatible server pass openaiCompatible(model, { baseURL }) as the model",
      "for any OpenAI-compatible server pass --base-url <its API root> with --model naming the model on it",
    );
}

/** Where a rendered run goes. */
export interface RenderSink {
  /** The conversation (assistant text). */
  out(text: string): void;
  /** Progress: tool lines, the summary, errors. */
  info(text: string): void;
  /**
   * A terminal's status line, rewritten in place (`\r`): "waiting for openai… 12 s" while a
   * model request has not answered yet. Unset (pipes, CI): no status line.
   */
  status?(text: string): void;
}

/** How long a request may stay silent before the status line says it is waiting. */
const WAIT_SHOWN_AFTER_MS = 1000;
const CLEAR_LINE = "\r\x1b[2K";

/** What a non-streaming renderer leaves out (`claude -p` prints the final result only). */
export interface RenderScope {
  /** Only the final result goes to `out`, not the assistant texts before it [false]. */
  finalOnly?: boolean;
  /** Tool lines, the summary and the other progress lines go to `info` [true]. */
  progress?: boolean;
  /** Whether the run's logger printed a warning holding this text already (then a message's copy is not printed). */
  warned?: (text: string) => boolean;
}

/** Render messages as text for a person: streamed deltas when `streaming`, whole messages otherwise. */
export class TextRenderer {
  #sandboxWarned = false;
  #midLine = false;
  #streamedThisTurn = false;
  #provider = "the model";
  #pendingCalls = new Set<string>();
  #waitTimer: ReturnType<typeof setInterval> | undefined;
  #waitShown = false;
  /** Tool calls whose line is on screen already (printed ahead of their approval question). */
  #shown = new Set<string>();
  /** The last assistant text shown, so a result's structured value already printed as that text is not printed twice. */
  #lastText = "";
  readonly #finalOnly: boolean;
  readonly #progress: boolean;
  readonly #warned: (text: string) => boolean;
  constructor(
    private readonly sink: RenderSink,
    private readonly streaming: boolean,
    private readonly style: Style = PLAIN,
    scope: RenderScope = {},
  ) {
    this.#finalOnly = scope.finalOnly === true && !streaming;
    this.#progress = scope.progress !== false;
    this.#warned = scope.warned ?? (() => false);
  }

  /** A request went out: after a second of silence the status line counts the seconds. */
  #startWaiting() {
    if (!this.sink.status || this.#waitTimer) return;
    const started = Date.now();
    this.#waitTimer = setInterval(() => {
      const waited = Date.now() - started;
      if (waited < WAIT_SHOWN_AFTER_MS) return;
      this.#waitShown = true;
      this.sink.status!(`${CLEAR_LINE}waiting for ${this.#provider}… ${Math.floor(waited / 1000)} s`);
    }, 250);
    this.#waitTimer.unref?.();
  }

  #stopWaiting() {
    if (this.#waitTimer) clearInterval(this.#waitTimer);
    this.#waitTimer = undefined;
    if (this.#waitShown) this.sink.status?.(CLEAR_LINE);
    this.#waitShown = false;
  }

  /** Stop the status line (the run ended). */
  close(): void {
    this.#stopWaiting();
  }

  #endLine() {
    if (this.#midLine) {
      this.sink.out("\n");
      this.#midLine = false;
    }
  }

  /**
   * Print a tool call's line now, once: the approver calls this before its question, since the
   * `tool_use` message reaches the renderer only after the question is answered.
   */
  toolLine(m: Pick<ToolUseMessage, "toolName" | "toolInput" | "toolUseId">): void {
    if (this.#shown.has(m.toolUseId) || !this.#progress) return;
    this.#shown.add(m.toolUseId);
    this.#endLine();
    this.sink.info(this.style.tool(`→ ${formatToolUse(m)}`));
  }

  /** An assistant message's text: whole when it did not stream; the marker of an interrupted one that did. */
  #assistantText(m: Extract<Message, { type: "assistant" }>) {
    if (m.text) this.#lastText = m.text;
    if (!this.#streamedThisTurn && m.text) this.sink.out(m.text.endsWith("\n") ? m.text : `${m.text}\n`);
    else if (m.interrupted && this.#streamedThisTurn) {
      // The text before it is on screen already.
      this.sink.out(`${this.#midLine ? "\n\n" : "\n"}${INTERRUPTED_MARKER}\n`);
      this.#midLine = false;
    }
  }

  render(m: Message): void {
    if (m.agentId) return; // subagent traffic stays out of the top-level view
    this.#track(m);
    switch (m.type) {
      case "stream_event":
        if (this.streaming && m.delta.type === "text") {
          this.sink.out(m.delta.text);
          this.#midLine = !m.delta.text.endsWith("\n");
          this.#streamedThisTurn = true;
        }
        break;
      case "assistant":
        // With finalOnly, the final result alone is printed (see `result`).
        if (!this.#finalOnly) this.#assistantText(m);
        this.#endLine();
        this.#streamedThisTurn = false;
        if (m.stopReason === "max_tokens") {
          this.sink.info(
            "warning: the response was cut at the output limit (maxTokens): the text above is incomplete and its tool calls did not run; raise maxTokens",
          );
        }
        break;
      case "tool_use":
        this.toolLine(m);
        break;
      case "tool_result":
        if (!this.#progress) break;
        this.sink.info(
          `  ${m.output.isError ? this.style.error("✗") : this.style.ok("✓")} ${visibleControls(m.toolName)}: ${formatToolResult(m)}`,
        );
        break;
      case "system":
        // An unsandboxed run says so once, however many turns a chat has.
        if (m.subtype === "init" && m.sandbox?.warning && !this.#sandboxWarned) {
          this.#sandboxWarned = true;
          if (!this.#warned(m.sandbox.warning)) this.sink.info(this.style.error(`warning: ${m.sandbox.warning}`));
        }
        if (m.subtype === "compact_boundary" && this.#progress) {
          this.#endLine();
          const n = thousands;
          this.sink.info(
            this.style.dim(
              `— the conversation so far was summarized (${n(m.tokensBefore)} → ${n(m.tokensAfter)} tokens)`,
            ),
          );
        }
        if (m.subtype === "task_started") {
          this.#endLine();
          this.sink.info(
            this.style.dim(`  ⧗ ${m.task.id} started in the background: ${visibleControls(m.task.description)}`),
          );
        }
        if (m.subtype === "task_ended") {
          this.#endLine();
          this.sink.info(
            this.style.dim(
              `  ⧗ ${m.task.id} ${visibleControls(m.task.state === "killed" ? String(m.task.outcome) : `${m.task.state}: ${m.task.outcome}`)}`,
            ),
          );
        }
        if (m.subtype === "permission_review") {
          this.#endLine();
          const mark = m.decision === "allow" ? this.style.ok("✓") : this.style.error("✗");
          this.sink.info(
            this.style.dim(
              `  ${mark} reviewer (${m.reviewer}) ${m.decision === "allow" ? "allowed" : "denied"} ${visibleControls(`${m.toolName}${m.reason ? `: ${m.reason}` : ""}`)}`,
            ),
          );
        }
        if (m.subtype === "session_write_failed") {
          this.#endLine();
          this.sink.info(
            this.style.error(
              `warning: the session's transcript could not be written (${visibleControls(m.error)})${m.bestEffort ? "; the run goes on without it" : ""}`,
            ),
          );
        }
        break;
      case "result":
        this.#endLine();
        if (this.#finalOnly && !m.isError && m.result) {
          this.sink.out(m.result.endsWith("\n") ? m.result : `${m.result}\n`);
          this.#lastText = m.result;
        }
        if (m.structuredOutput !== undefined && !sameJson(this.#lastText, m.structuredOutput))
          this.sink.out(`${JSON.stringify(m.structuredOutput)}\n`);
        if (m.isError)
          this.sink.info(this.style.error(`error (${m.subtype}): ${visibleControls(withoutKernelTerms(m.result))}`));
        if (this.#progress) this.sink.info(this.style.dim(formatSummary(m)));
        break;
      default:
        break;
    }
  }

  /**
   * Waiting starts when a request goes out — a prompt, or the result of the response's last tool
   * call (not before: an approval question may still be on the screen) — and stops at any answer.
   */
  #track(m: Message) {
    if (m.type === "system" && m.subtype === "init" && m.model) this.#provider = m.model.split(":")[0]!;
    else if (m.type === "user") this.#startWaiting();
    else if (m.type === "assistant") {
      this.#stopWaiting();
      this.#pendingCalls = new Set(m.content.flatMap((b) => (b.type === "tool_call" ? [b.toolUseId] : [])));
    } else if (m.type === "tool_result") {
      this.#pendingCalls.delete(m.toolUseId);
      if (this.#pendingCalls.size === 0) this.#startWaiting();
    } else if (m.type === "stream_event" || m.type === "result") this.#stopWaiting();
  }
}

/** Collapse a multi-line message (zod's pretty errors) into the one line the runner prints. */
export function oneLine(message: string): string {
  return message
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean)
    .join(" ");
}
