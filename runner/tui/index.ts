/**
 * The terminal UI of `ubiquity chat` (and of `ubiquity` alone in a terminal): an inline screen
 * whose finished output scrolls like any program's, and a live region at the bottom with a
 * spinner (elapsed time, tokens), queued prompts, the question being asked, the multi-line prompt
 * editor and a status line (model, mode, cost). Loaded only in terminal mode (runner/chat.ts).
 *
 * Keys: Enter sends (during a turn the prompt is queued and runs next); Alt-Enter, Shift-Enter
 * or a `\` before Enter adds a line; a paste (bracketed) is inserted whole; Ctrl-C interrupts
 * the turn (Esc too), or clears the line, and a second Ctrl-C in a row quits; Ctrl-D on an empty
 * line quits; Up/Down recall prompts; Shift-Tab cycles the permission mode (default, acceptEdits,
 * plan, and the mode the run started in when it is another), as in Claude Code.
 */
import { resolve } from "node:path";
import type { UbiquityConfig } from "../../sdk/facade";
import type { Message } from "../../src/messages";
import { PERMISSION_MODES, type PermissionMode } from "../../sdk/facade";
import type { RunnerIO } from "../run";
import { terminalApprover } from "../approver";
import type { ChatContext, CommandContext } from "../chat";
import { declaresOption } from "../config";
import { Conversation } from "../conversation";
import { EXIT } from "../exit";
import { terminalText, TextRenderer, visibleExactly } from "../render";
import { colorEnabled } from "../style";
import { approvalBody, approvalQuestion } from "./approval-view";
import { Editor } from "./editor";
import { KeyDecoder, type Key } from "./keys";
import { MarkdownStream } from "./markdown";
import { InlineScreen } from "./screen";
import { lastLine, liveView } from "./live-view";
import { takeTerminal } from "./terminal";
import { createTheme, type Theme } from "./theme";
import { toolCallLine, toolOutputLines } from "./tool-view";
import { complete, completes } from "./complete";

type Answer = "yes" | "no" | "always";

/**
 * Shift-Tab's modes, in Claude Code's order. A run started in another mode (bypassPermissions,
 * dontAsk, auto) gets it at the end, so the cycle comes back to it; no key reaches a mode looser
 * than the run was given.
 */
const MODE_CYCLE: readonly PermissionMode[] = ["default", "acceptEdits", "plan"];
type Question =
  | { kind: "approval"; text: string; always: boolean; answer(a: Answer): void }
  | { kind: "line"; text: string; answer(line: string): void };

interface Turn {
  abort: AbortController;
  started: number;
  /** Characters streamed (text, reasoning, tool input): about four to a token. */
  streamed: number;
  /** The lines of the tool calls running, by call id. */
  running: Map<string, string>;
  /** What the model is streaming now. */
  phase: "working" | "thinking" | "writing" | "preparing a tool call";
}

/** What the terminal mode shares with its line mode (runner/chat.ts): the slash commands and the model's name. */
export interface ChatParts {
  /** Run one slash command; resolves to true for /exit. */
  /** true: quit; "send": a command the session knows (a command file, a skill) goes as the prompt; false: done. */
  command(text: string, context: CommandContext): Promise<boolean | "send">;
  modelName(model: UbiquityConfig["model"]): string;
  /** The terminal's own commands (`/clear`, `/cost`…), for Tab to complete. */
  commandNames: readonly string[];
}

/** The terminal UI's parts and state, shared by the pieces below. */
interface Ui {
  options: UbiquityConfig;
  cwd: string;
  theme: Theme;
  columns: () => number;
  screen: InlineScreen;
  editor: Editor;
  markdown: MarkdownStream;
  conversation: Conversation;
  modelName: ChatParts["modelName"];
  commandNames: ChatParts["commandNames"];
  /** Prompts typed during a turn, run next. */
  queue: string[];
  /** The tool calls whose line is printed. */
  shownCalls: Set<string>;
  /** Print above the live region. */
  print: (text: string) => void;
  /** Plain renderer for what the UI shows as the line mode does: system notices and the closing line. */
  plain: TextRenderer;
  question: Question | undefined;
  turn: Turn | undefined;
  notice: string;
  lastWasCtrlC: boolean;
  /** The spinner's frame. */
  frame: number;
  /** The permission mode the session judges calls in: the run's (its init message says it, settings files included), then Shift-Tab's. */
  mode: PermissionMode;
  /** The modes Shift-Tab cycles through. */
  modes: PermissionMode[];
  /** The current response's text arrived streamed (the assistant message repeats it). */
  streamedText: boolean;
  /** The prompt loop waiting for Enter. */
  wake: ((text: string | null) => void) | undefined;
  quitting: boolean;
  /**
   * After a one-key approval answer, the rest of the word typed out ("yes", "no", "always") and
   * the Enter after it belong to the answer, not to the next prompt.
   */
  swallow: string | undefined;
}

/** Run the terminal UI until /exit, Ctrl-D or Ctrl-C twice; resolves to the exit code. */
export async function runTerminalUI(
  options: UbiquityConfig,
  io: RunnerIO,
  ctx: ChatContext,
  { command, modelName, commandNames }: ChatParts,
): Promise<number> {
  const term = io.terminal as NodeJS.WriteStream;
  const stdin = io.stdin as NodeJS.ReadStream;
  const theme = createTheme(colorEnabled(true));
  const columns = () => term.columns || 80;
  // The screen writes with the terminal's own write: other writers are routed above the live region (below).
  const rawWrite = term.write.bind(term) as (text: string) => boolean;
  const screen = new InlineScreen((text) => void rawWrite(text), columns);
  const decoder = new KeyDecoder();
  const print = (text: string) => screen.print(text);

  options.includePartialMessages = true;
  if (declaresOption(options, "checkpoints")) options.checkpoints ??= true;
  // `@path` in a typed prompt brings the file in, as at Claude Code's prompt (a config may still say false).
  if (declaresOption(options, "fileMentions")) options.fileMentions ??= true;
  const ui: Ui = {
    options,
    cwd: resolve(options.cwd ?? process.cwd()),
    theme,
    columns,
    screen,
    editor: new Editor(),
    markdown: new MarkdownStream(theme),
    conversation: new Conversation(options),
    modelName,
    commandNames,
    queue: [],
    shownCalls: new Set(),
    print,
    plain: new TextRenderer({ out: (text) => print(terminalText(text)), info: print }, false, theme),
    question: undefined,
    turn: undefined,
    notice: "",
    lastWasCtrlC: false,
    frame: 0,
    mode: options.permissionMode ?? "default",
    modes: [...MODE_CYCLE],
    streamedText: false,
    wake: undefined,
    quitting: false,
    swallow: undefined,
  };

  noteMode(ui, ui.mode);

  const ticker = setInterval(() => {
    if (!ui.turn) return;
    ui.frame++;
    render(ui);
  }, 120);
  ticker.unref?.();

  // Everything the runner's pieces print goes above the live region, never straight to the terminal.
  const commandIO: RunnerIO = { ...io, stdout: print, stderr: print };
  if (declaresOption(options, "canUseTool")) {
    options.canUseTool ??= terminalApprover(commandIO, {
      ask: (text, signal) => askLine(ui, text, signal),
      approve: (request) => approve(ui, request),
      typed: (toolName, input, toolUseId) => ui.conversation.typedCall(toolName, input, toolUseId),
      answerers: ctx.answerers,
      beforeQuestion: (toolName, toolInput, toolUseId) => showCall(ui, toolUseId, toolName, toolInput),
    });
  }

  const onData = (chunk: string) => {
    for (const key of decoder.feed(chunk)) onKey(ui, key);
    render(ui);
  };
  const onSigint = () => {
    ctrlC(ui);
    render(ui);
  };
  const onResize = () => {
    screen.resized();
    render(ui);
  };

  const giveBack = takeTerminal({ stdin, term, rawWrite, print, onData, onSigint, onResize });
  print(`${theme.bold("ubiquity")} ${theme.dim(`· ${modelName(ui.conversation.model)} · /help for commands`)}`);
  print(theme.dim("Enter sends · Alt-Enter or \\ Enter: new line · Ctrl-C interrupts, twice quits · Ctrl-D quits"));
  render(ui);

  try {
    await promptLoop(ui, ctx, command, commandIO);
  } finally {
    clearInterval(ticker);
    screen.release();
    giveBack();
    await ui.conversation.close();
  }
  return EXIT.ok;
}

/** Run prompts (a slash command, or a turn of the conversation) until one quits. */
async function promptLoop(ui: Ui, ctx: ChatContext, command: ChatParts["command"], commandIO: RunnerIO): Promise<void> {
  const { theme, print, conversation, options } = ui;
  for (;;) {
    const text = await next(ui);
    if (text === null) break;
    const trimmed = text.trim();
    print(
      text
        .replace(/\s+$/, "")
        .split("\n")
        .map((l, i) => `${i === 0 ? theme.prompt("›") : " "} ${l}`)
        .join("\n"),
    );
    if (trimmed.startsWith("!")) {
      await typedCommand(ui, trimmed.slice(1).trim());
      continue;
    }
    if (trimmed.startsWith("/") && !trimmed.includes("\n")) {
      const outcome = await command(trimmed, {
        conversation,
        io: commandIO,
        style: theme,
        ctx,
        options,
        ask: (q) => askLine(ui, q),
      });
      if (outcome === true) break;
      if (outcome !== "send") {
        render(ui);
        continue;
      }
    }
    const current: Turn = (ui.turn = {
      abort: new AbortController(),
      started: Date.now(),
      streamed: 0,
      running: new Map(),
      phase: "working",
    });
    render(ui);
    try {
      await conversation.send(text, current.abort.signal, (m) => onMessage(ui, m));
    } finally {
      flushAnswer(ui);
      ui.turn = undefined;
      ui.streamedText = false;
      render(ui);
    }
  }
}

/**
 * `!command`, Claude Code's bash mode: the command runs now, with no model turn, as a Bash call
 * (the rules and the sandbox apply; typing it answers the approval question); what it printed goes
 * ahead of the next prompt.
 */
async function typedCommand(ui: Ui, command: string): Promise<void> {
  const { theme, print } = ui;
  if (!command)
    return void print(theme.dim("  ⎿ type a command after ! to run it; its output goes with your next prompt"));
  const call = toolCallLine("Bash", { command }, ui.cwd);
  ui.turn = {
    abort: new AbortController(),
    started: Date.now(),
    streamed: 0,
    running: new Map([["!", call]]),
    phase: "working",
  };
  render(ui);
  try {
    const outcome = await ui.conversation.shell(command);
    const failed = !outcome.ran || outcome.exitCode !== 0;
    for (const l of toolOutputLines(terminalText(outcome.output), failed, theme, ui.columns())) print(l);
    if (!outcome.ran) print(theme.dim("  ⎿ not run: nothing goes to the model"));
  } catch (error) {
    print(theme.error(`error: ${error instanceof Error ? error.message : String(error)}`));
  } finally {
    ui.turn = undefined;
    render(ui);
  }
}

/** Draw the live region: the answer streaming, the spinner, the queue, the question, the editor and the status line. */
function render(ui: Ui): void {
  const totals = ui.conversation.totals();
  const { line, column } = ui.editor.position();
  const t = ui.turn;
  const view = liveView(
    {
      partial: ui.markdown.partial,
      turn: t && { started: t.started, streamed: t.streamed, phase: t.phase, tool: [...t.running.values()].at(-1) },
      queue: ui.queue,
      question: ui.question,
      editor: { text: ui.editor.text, line, column },
      status: {
        model: ui.modelName(ui.conversation.model),
        mode: ui.mode,
        costUsd: totals.costUsd,
        tokens: totals.usage.inputTokens + totals.usage.outputTokens,
      },
      notice: ui.notice,
      frame: ui.frame,
      now: Date.now(),
    },
    ui.theme,
    ui.columns(),
  );
  ui.screen.update(view);
}

/** Print a tool call's line once (the approver prints it ahead of its question). */
function showCall(ui: Ui, toolUseId: string, toolName: string, input: unknown): void {
  if (ui.shownCalls.has(toolUseId)) return;
  ui.shownCalls.add(toolUseId);
  flushAnswer(ui);
  ui.print(`${ui.theme.tool("→")} ${ui.theme.bold(toolCallLine(toolName, input, ui.cwd))}`);
}

function flushAnswer(ui: Ui): void {
  for (const l of ui.markdown.end()) ui.print(l);
}

/** Show one message of the run: the answer as it streams, tool calls and their output, notices, the closing line. */
function onMessage(ui: Ui, m: Message): void {
  if (m.agentId) return; // a subagent's traffic stays out of the view
  const { theme, print, markdown } = ui;
  const t = ui.turn;
  switch (m.type) {
    case "stream_event":
      if (t) {
        t.streamed += m.delta.text.length;
        t.phase =
          m.delta.type === "reasoning" ? "thinking" : m.delta.type === "text" ? "writing" : "preparing a tool call";
      }
      if (m.delta.type === "text") {
        ui.streamedText = true;
        for (const l of markdown.push(terminalText(m.delta.text))) print(l);
      }
      break;
    case "assistant":
      if (t) t.phase = "working";
      if (!ui.streamedText && m.text) markdown.push(terminalText(m.text));
      flushAnswer(ui);
      // A response the user interrupted ends with the kernel's marker (its text's last line), shown after what streamed.
      if (ui.streamedText && (m as { interrupted?: boolean }).interrupted) print(theme.dim(lastLine(m.text)));
      ui.streamedText = false;
      if (m.stopReason === "max_tokens")
        print(
          theme.warn(
            "warning: the response was cut at the output limit (maxTokens): the text above is incomplete and its tool calls did not run; raise maxTokens",
          ),
        );
      break;
    case "tool_use":
      showCall(ui, m.toolUseId, m.toolName, m.toolInput);
      t?.running.set(m.toolUseId, toolCallLine(m.toolName, m.toolInput, ui.cwd));
      break;
    case "tool_result":
      t?.running.delete(m.toolUseId);
      for (const l of toolOutputLines(terminalText(m.output.content), m.output.isError, theme, ui.columns())) print(l);
      break;
    case "system":
      // The mode the session really starts in (a settings file's defaultMode, a cap): the status line shows it.
      if (m.subtype === "init") noteMode(ui, (m as { permissionMode?: unknown }).permissionMode);
      ui.plain.render(m);
      break;
    case "result":
      flushAnswer(ui);
      // An interrupted turn was announced when Ctrl-C came: its result shows only the closing line.
      ui.plain.render(t?.abort.signal.aborted ? { ...m, isError: false } : m);
      break;
    default:
      break;
  }
  render(ui);
}

/** Ask a line (plugin answerers, /rewind): the editor answers it. */
function askLine(ui: Ui, text: string, signal?: AbortSignal): Promise<string> {
  return new Promise<string>((done) => {
    const body = text.replace(/\s+$/, "").split("\n");
    if (body.length > 1) ui.print(body.slice(0, -1).join("\n"));
    const finish = (line: string) => {
      ui.question = undefined;
      signal?.removeEventListener("abort", onAbort);
      ui.print(ui.theme.dim(`${lastLine(text)} ${line}`));
      render(ui);
      done(line);
    };
    const onAbort = () => finish("");
    signal?.addEventListener("abort", onAbort, { once: true });
    ui.question = { kind: "line", text, answer: finish };
    render(ui);
  });
}

/** Ask to approve a tool call: its body above, the question in the live region, answered by one key. */
function approve(
  ui: Ui,
  {
    toolName,
    input,
    rules,
    signal,
  }: {
    toolName: string;
    input: Record<string, unknown>;
    rules: readonly string[];
    signal: AbortSignal;
  },
): Promise<Answer> {
  const { theme } = ui;
  return new Promise<Answer>((done) => {
    flushAnswer(ui);
    ui.print(
      approvalBody(toolName, input, ui.cwd, theme)
        .map((l, i) => (i === 0 ? `${theme.dim("╭")} ${l}` : `${theme.dim("│")} ${l}`))
        .join("\n"),
    );
    const text = approvalQuestion(toolName, input, rules);
    const finish = (a: Answer) => {
      ui.question = undefined;
      signal.removeEventListener("abort", onAbort);
      ui.print(`${theme.dim("╰")} ${text.replace(/\?.*$/, "?")} ${a === "no" ? theme.error("no") : theme.ok(a)}`);
      render(ui);
      done(a);
    };
    const onAbort = () => finish("no");
    if (signal.aborted) return finish("no");
    signal.addEventListener("abort", onAbort, { once: true });
    ui.question = { kind: "approval", text, always: rules.length > 0, answer: finish };
    render(ui);
  });
}

/** The next prompt: queued type-ahead first, else wait for Enter; null quits. */
function next(ui: Ui): Promise<string | null> {
  return new Promise<string | null>((done) => {
    if (ui.quitting) return done(null);
    const queued = ui.queue.shift();
    if (queued !== undefined) return done(queued);
    ui.wake = done;
  });
}

function quit(ui: Ui): void {
  ui.quitting = true;
  ui.turn?.abort.abort(new Error("quit (Ctrl-C twice)"));
  const question = ui.question;
  question?.kind === "approval" ? question.answer("no") : question?.answer("");
  ui.wake?.(null);
  ui.wake = undefined;
}

/** Enter: answer the line asked, continue after a backslash, or send the prompt (queued during a turn). */
function submit(ui: Ui): void {
  const { editor } = ui;
  if (ui.question?.kind === "line") return void ui.question.answer(editor.take());
  // A backslash before the cursor at the end of a line: Enter continues the prompt on a new line.
  if (
    editor.cursor > 0 &&
    editor.text[editor.cursor - 1] === "\\" &&
    (editor.cursor === editor.text.length || editor.text[editor.cursor] === "\n")
  ) {
    editor.apply({ name: "backspace" });
    editor.insert("\n");
    return;
  }
  const text = editor.take();
  if (!text.trim()) return;
  if (ui.wake) {
    const w = ui.wake;
    ui.wake = undefined;
    w(text);
  } else ui.queue.push(text);
}

/** Interrupt the running turn (by Ctrl-C, or Esc: which never counts towards quitting); false when none runs. */
function interrupt(ui: Ui, by: "ctrl-c" | "escape" = "ctrl-c"): boolean {
  const turn = ui.turn;
  if (!turn || turn.abort.signal.aborted) return false;
  turn.abort.abort(new Error("interrupted (Ctrl-C)"));
  flushAnswer(ui);
  ui.print(ui.theme.dim(`interrupted; the session stays${by === "ctrl-c" ? " (Ctrl-C again quits)" : ""}`));
  return true;
}

/** Ctrl-C: interrupt the turn, else give up a question, else clear the prompt, else say how to quit; twice in a row quits. */
function ctrlC(ui: Ui): void {
  if (ui.lastWasCtrlC) return void quit(ui);
  ui.lastWasCtrlC = true;
  if (interrupt(ui)) return;
  if (ui.question?.kind === "line") ui.question.answer("");
  else if (ui.editor.text) ui.editor.clear();
  else ui.notice = "Ctrl-C again quits";
}

/** One key: Ctrl-C, the rest of a one-key answer, an approval's answer, Enter, Esc, Ctrl-D, Ctrl-L, or an edit. */
function onKey(ui: Ui, key: Key): void {
  const wasCtrlC = ui.lastWasCtrlC;
  ui.lastWasCtrlC = false;
  ui.notice = "";
  if (key.name === "ctrl-c") {
    ui.swallow = undefined;
    ui.lastWasCtrlC = wasCtrlC;
    return void ctrlC(ui);
  }
  if (ui.swallow !== undefined && ui.question?.kind !== "approval") {
    const rest = ui.swallow;
    ui.swallow = undefined;
    if (key.name === "enter") return;
    if (key.name === "text") {
      let i = 0;
      while (i < key.text.length && i < rest.length && key.text[i]!.toLowerCase() === rest[i]) i++;
      if (i === key.text.length) {
        ui.swallow = rest.slice(i);
        return;
      }
      if (i > 0) key = { name: "text", text: key.text.slice(i) };
    }
  }
  if (ui.question?.kind === "approval") {
    const q = ui.question;
    // Esc is Claude Code's "No, and tell Claude what to do differently": the call is denied and the turn stops.
    if (key.name === "escape") {
      q.answer("no");
      interrupt(ui, "escape");
      return;
    }
    if (key.name === "text") {
      const c = key.text[0]!.toLowerCase();
      const answer: Answer | undefined =
        c === "y" ? "yes" : c === "n" ? "no" : c === "a" && q.always ? "always" : undefined;
      if (answer) {
        q.answer(answer);
        ui.swallow = answer.slice(1);
        // What was typed after the answer in the same read: the rest of the word, or type-ahead.
        if (key.text.length > 1) onKey(ui, { name: "text", text: key.text.slice(1) });
        return;
      }
    }
  }
  if (key.name === "enter") return void submit(ui);
  // Esc interrupts a turn too (as in Claude Code), without counting towards quitting.
  if (key.name === "escape" && interrupt(ui, "escape")) return;
  if (key.name === "ctrl-d") {
    if (ui.editor.text === "" && !ui.turn) return void quit(ui);
    return void ui.editor.apply({ name: "delete" });
  }
  if (key.name === "ctrl-l") return void ui.screen.redraw();
  if (key.name === "shift-tab") return void cycleMode(ui);
  if (key.name === "tab") return void tab(ui);
  ui.editor.apply(key);
}

/**
 * Tab: complete the `/command` or `@path` before the cursor (complete.ts); when several match and
 * they share nothing more, they are listed above the prompt, as a shell lists them.
 */
function tab(ui: Ui): void {
  const before = ui.editor.text.slice(0, ui.editor.cursor);
  const kind = completes(before);
  if (!kind) return;
  const apply = (commands: readonly string[]) => {
    // Typed on while the session's commands were asked for: that Tab is void.
    if (ui.editor.text.slice(0, ui.editor.cursor) !== before) return;
    const done = complete(before, commands, ui.cwd);
    if (!done)
      ui.notice = kind === "command" ? "no command starts so (/help lists them)" : "no file or folder starts so";
    else if (done.insert) ui.editor.insert(done.insert);
    else ui.print(ui.theme.dim(candidateLines(done.candidates, ui.columns()).join("\n")));
    render(ui);
  };
  if (kind === "path") return void apply([]);
  // The session's command files and skills (asking opens the live session, as /help does).
  ui.conversation.commands().then(
    (list) => apply([...ui.commandNames, ...list.map((c) => `/${c.name}`)]),
    () => apply(ui.commandNames),
  );
}

/**
 * Names in columns of the terminal's width, at most 4 lines (then how many more). A name is a file's
 * from the folder (a cloned repository's) or a command file's: each is shown as visibleExactly
 * shows it, so a name cannot set the clipboard, retitle the window or redraw the screen (ZJ2).
 */
function candidateLines(given: readonly string[], columns: number): string[] {
  const names = given.map(visibleExactly);
  const width = Math.min(Math.max(...names.map((n) => n.length)) + 2, Math.max(columns - 2, 10));
  const perLine = Math.max(1, Math.floor((columns - 2) / width));
  const lines: string[] = [];
  for (let i = 0; i < names.length && lines.length < 4; i += perLine)
    lines.push(
      `  ${names
        .slice(i, i + perLine)
        .map((n) => n.padEnd(width))
        .join("")
        .trimEnd()}`,
    );
  const shown = Math.min(names.length, 4 * perLine);
  if (shown < names.length) lines.push(`  … ${names.length - shown} more`);
  return lines;
}

/** The mode a session's init message names: shown, and kept in the cycle when Shift-Tab's modes lack it. */
function noteMode(ui: Ui, mode: unknown): void {
  if (typeof mode !== "string" || !(PERMISSION_MODES as readonly string[]).includes(mode)) return;
  ui.mode = mode as PermissionMode;
  if (!ui.modes.includes(ui.mode)) ui.modes.push(ui.mode);
}

/** Shift-Tab: the next mode of the cycle, from the next tool call on (the running turn's too, as in Claude Code). */
function cycleMode(ui: Ui): void {
  const { modes } = ui;
  const before = ui.mode;
  const mode = modes[(modes.indexOf(before) + 1) % modes.length]!;
  ui.mode = mode;
  ui.conversation.setPermissionMode(mode).catch((error: unknown) => {
    ui.mode = before;
    ui.print(ui.theme.error(`permission mode unchanged: ${error instanceof Error ? error.message : String(error)}`));
    render(ui);
  });
}
