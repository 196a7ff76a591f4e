/**
 * The terminal UI of `ubiquity chat` (and of `ubiquity` alone in a terminal): an inline screen
 * whose finished output scrolls like any program's, and a live region at the bottom with a
 * spinner (elapsed time, tokens), queued prompts, the question being asked, the multi-line prompt
 * editor and a status line (model, mode, cost). Loaded only in terminal mode (runner/chat.ts).
 *
 * Keys: Enter sends (during a turn the prompt is queued and runs next); Alt-Enter, Shift-Enter
 * or a `\` before Enter adds a line; a paste (bracketed) is inserted whole; Ctrl-C interrupts
 * the turn (Esc too), or clears the line, and a second Ctrl-C in a row quits; Ctrl-D on an empty
 * line quits; Up/Down recall prompts.
 */
import { resolve } from "node:path";
import type { UbiquityConfig } from "../../sdk/facade";
import type { Message } from "../../src/messages";
import type { RunnerIO } from "../run";
import { terminalApprover } from "../approver";
import type { ChatContext, CommandContext } from "../chat";
import { declaresOption } from "../config";
import { Conversation } from "../conversation";
import { EXIT } from "../exit";
import { TextRenderer } from "../render";
import { colorEnabled } from "../style";
import { approvalBody, approvalQuestion } from "./approval-view";
import { Editor } from "./editor";
import { KeyDecoder, type Key } from "./keys";
import { MarkdownStream } from "./markdown";
import { InlineScreen } from "./screen";
import { lastLine, liveView } from "./live-view";
import { takeTerminal } from "./terminal";
import { createTheme } from "./theme";
import { toolCallLine, toolOutputLines } from "./tool-view";

type Answer = "yes" | "no" | "always";
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
}

/** Run the terminal UI until /exit, Ctrl-D or Ctrl-C twice; resolves to the exit code. */
export async function runTerminalUI(
  options: UbiquityConfig,
  io: RunnerIO,
  ctx: ChatContext,
  { command, modelName }: ChatParts,
): Promise<number> {
  const term = io.terminal as NodeJS.WriteStream;
  const stdin = io.stdin as NodeJS.ReadStream;
  const cwd = resolve(options.cwd ?? process.cwd());
  const theme = createTheme(colorEnabled(true));
  const columns = () => term.columns || 80;
  // The screen writes with the terminal's own write: other writers are routed above the live region (below).
  const rawWrite = term.write.bind(term) as (text: string) => boolean;
  const screen = new InlineScreen((text) => void rawWrite(text), columns);
  const editor = new Editor();
  const decoder = new KeyDecoder();
  const markdown = new MarkdownStream(theme);
  const queue: string[] = [];
  const shownCalls = new Set<string>();
  let question: Question | undefined;
  let turn: Turn | undefined;
  let notice = "";
  let lastWasCtrlC = false;
  let frame = 0;
  let streamedText = false;
  let wake: ((text: string | null) => void) | undefined;
  let quitting = false;

  const print = (text: string) => screen.print(text);
  // Plain renderer for what the UI shows as the line mode does: system notices and the closing line.
  const plain = new TextRenderer({ out: print, info: print }, false, theme);

  options.includePartialMessages = true;
  if (declaresOption(options, "checkpoints")) options.checkpoints ??= true;
  const conversation = new Conversation(options);

  const render = () => {
    const totals = conversation.totals();
    const { line, column } = editor.position();
    const t = turn;
    const view = liveView(
      {
        partial: markdown.partial,
        turn: t && { started: t.started, streamed: t.streamed, phase: t.phase, tool: [...t.running.values()].at(-1) },
        queue,
        question,
        editor: { text: editor.text, line, column },
        status: {
          model: modelName(conversation.model),
          mode: options.permissionMode ?? "default",
          costUsd: totals.costUsd,
          tokens: totals.usage.inputTokens + totals.usage.outputTokens,
        },
        notice,
        frame,
        now: Date.now(),
      },
      theme,
      columns(),
    );
    screen.update(view);
  };

  const ticker = setInterval(() => {
    if (!turn) return;
    frame++;
    render();
  }, 120);
  ticker.unref?.();

  /** Print a tool call's line once (the approver prints it ahead of its question). */
  const showCall = (toolUseId: string, toolName: string, input: unknown) => {
    if (shownCalls.has(toolUseId)) return;
    shownCalls.add(toolUseId);
    flushAnswer();
    print(`${theme.tool("→")} ${theme.bold(toolCallLine(toolName, input, cwd))}`);
  };

  const flushAnswer = () => {
    for (const l of markdown.end()) print(l);
  };

  const onMessage = (m: Message) => {
    if (m.agentId) return; // a subagent's traffic stays out of the view
    const t = turn;
    switch (m.type) {
      case "stream_event":
        if (t) {
          t.streamed += m.delta.text.length;
          t.phase =
            m.delta.type === "reasoning" ? "thinking" : m.delta.type === "text" ? "writing" : "preparing a tool call";
        }
        if (m.delta.type === "text") {
          streamedText = true;
          for (const l of markdown.push(m.delta.text)) print(l);
        }
        break;
      case "assistant":
        if (t) t.phase = "working";
        if (!streamedText && m.text) markdown.push(m.text);
        flushAnswer();
        // A response the user interrupted ends with the kernel's marker (its text's last line), shown after what streamed.
        if (streamedText && (m as { interrupted?: boolean }).interrupted) print(theme.dim(lastLine(m.text)));
        streamedText = false;
        if (m.stopReason === "max_tokens")
          print(
            theme.warn(
              "warning: the response was cut at the output limit (maxTokens): the text above is incomplete and its tool calls did not run; raise maxTokens",
            ),
          );
        break;
      case "tool_use":
        showCall(m.toolUseId, m.toolName, m.toolInput);
        t?.running.set(m.toolUseId, toolCallLine(m.toolName, m.toolInput, cwd));
        break;
      case "tool_result":
        t?.running.delete(m.toolUseId);
        for (const l of toolOutputLines(m.output.content, m.output.isError, theme, columns())) print(l);
        break;
      case "system":
        plain.render(m);
        break;
      case "result":
        flushAnswer();
        // An interrupted turn was announced when Ctrl-C came: its result shows only the closing line.
        plain.render(t?.abort.signal.aborted ? { ...m, isError: false } : m);
        break;
      default:
        break;
    }
    render();
  };

  /** Ask a line (plugin answerers, /rewind): the editor answers it. */
  const askLine = (text: string, signal?: AbortSignal) =>
    new Promise<string>((done) => {
      const body = text.replace(/\s+$/, "").split("\n");
      if (body.length > 1) print(body.slice(0, -1).join("\n"));
      const finish = (line: string) => {
        question = undefined;
        signal?.removeEventListener("abort", onAbort);
        print(theme.dim(`${lastLine(text)} ${line}`));
        render();
        done(line);
      };
      const onAbort = () => finish("");
      signal?.addEventListener("abort", onAbort, { once: true });
      question = { kind: "line", text, answer: finish };
      render();
    });

  const approve = ({
    toolName,
    input,
    rules,
    signal,
  }: {
    toolName: string;
    input: Record<string, unknown>;
    rules: readonly string[];
    signal: AbortSignal;
  }) =>
    new Promise<Answer>((done) => {
      flushAnswer();
      print(
        approvalBody(toolName, input, cwd, theme)
          .map((l, i) => (i === 0 ? `${theme.dim("╭")} ${l}` : `${theme.dim("│")} ${l}`))
          .join("\n"),
      );
      const text = approvalQuestion(toolName, input, rules);
      const finish = (a: Answer) => {
        question = undefined;
        signal.removeEventListener("abort", onAbort);
        print(`${theme.dim("╰")} ${text.replace(/\?.*$/, "?")} ${a === "no" ? theme.error("no") : theme.ok(a)}`);
        render();
        done(a);
      };
      const onAbort = () => finish("no");
      if (signal.aborted) return finish("no");
      signal.addEventListener("abort", onAbort, { once: true });
      question = { kind: "approval", text, always: rules.length > 0, answer: finish };
      render();
    });

  // Everything the runner's pieces print goes above the live region, never straight to the terminal.
  const commandIO: RunnerIO = { ...io, stdout: print, stderr: print };
  if (declaresOption(options, "canUseTool")) {
    options.canUseTool ??= terminalApprover(commandIO, {
      ask: askLine,
      approve,
      answerers: ctx.answerers,
      beforeQuestion: (toolName, toolInput, toolUseId) => showCall(toolUseId, toolName, toolInput),
    });
  }

  /** The next prompt: queued type-ahead first, else wait for Enter; null quits. */
  const next = () =>
    new Promise<string | null>((done) => {
      if (quitting) return done(null);
      const queued = queue.shift();
      if (queued !== undefined) return done(queued);
      wake = done;
    });

  const quit = () => {
    quitting = true;
    turn?.abort.abort(new Error("quit (Ctrl-C twice)"));
    question?.kind === "approval" ? question.answer("no") : question?.answer("");
    wake?.(null);
    wake = undefined;
  };

  const submit = () => {
    if (question?.kind === "line") return question.answer(editor.take());
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
    if (wake) {
      const w = wake;
      wake = undefined;
      w(text);
    } else queue.push(text);
  };

  /** Interrupt the running turn; false when none runs. */
  const interrupt = (): boolean => {
    if (!turn || turn.abort.signal.aborted) return false;
    turn.abort.abort(new Error("interrupted (Ctrl-C)"));
    flushAnswer();
    print(theme.dim("interrupted; the session stays (Ctrl-C again quits)"));
    return true;
  };

  /** Ctrl-C: interrupt the turn, else give up a question, else clear the prompt, else say how to quit; twice in a row quits. */
  const ctrlC = () => {
    if (lastWasCtrlC) return quit();
    lastWasCtrlC = true;
    if (interrupt()) return;
    if (question?.kind === "line") question.answer("");
    else if (editor.text) editor.clear();
    else notice = "Ctrl-C again quits";
  };

  /**
   * After a one-key approval answer, the rest of the word typed out ("yes", "no", "always") and
   * the Enter after it belong to the answer, not to the next prompt.
   */
  let swallow: string | undefined;

  const onKey = (key: Key): void => {
    const wasCtrlC = lastWasCtrlC;
    lastWasCtrlC = false;
    notice = "";
    if (key.name === "ctrl-c") {
      swallow = undefined;
      lastWasCtrlC = wasCtrlC;
      return void ctrlC();
    }
    if (swallow !== undefined && question?.kind !== "approval") {
      const rest = swallow;
      swallow = undefined;
      if (key.name === "enter") return;
      if (key.name === "text") {
        let i = 0;
        while (i < key.text.length && i < rest.length && key.text[i]!.toLowerCase() === rest[i]) i++;
        if (i === key.text.length) {
          swallow = rest.slice(i);
          return;
        }
        if (i > 0) key = { name: "text", text: key.text.slice(i) };
      }
    }
    if (question?.kind === "approval") {
      const q = question;
      if (key.name === "escape") return void q.answer("no");
      if (key.name === "text") {
        const c = key.text[0]!.toLowerCase();
        const answer: Answer | undefined =
          c === "y" ? "yes" : c === "n" ? "no" : c === "a" && q.always ? "always" : undefined;
        if (answer) {
          q.answer(answer);
          swallow = answer.slice(1);
          // What was typed after the answer in the same read: the rest of the word, or type-ahead.
          if (key.text.length > 1) onKey({ name: "text", text: key.text.slice(1) });
          return;
        }
      }
    }
    if (key.name === "enter") return void submit();
    // Esc interrupts a turn too (as in Claude Code), without counting towards quitting.
    if (key.name === "escape" && interrupt()) return;
    if (key.name === "ctrl-d") {
      if (editor.text === "" && !turn) return void quit();
      return void editor.apply({ name: "delete" });
    }
    if (key.name === "ctrl-l") return void screen.redraw();
    editor.apply(key);
  };

  const onData = (chunk: string) => {
    for (const key of decoder.feed(chunk)) onKey(key);
    render();
  };
  const onSigint = () => {
    ctrlC();
    render();
  };
  const onResize = () => {
    screen.resized();
    render();
  };

  const giveBack = takeTerminal({ stdin, term, rawWrite, print, onData, onSigint, onResize });
  print(`${theme.bold("ubiquity")} ${theme.dim(`· ${modelName(conversation.model)} · /help for commands`)}`);
  print(theme.dim("Enter sends · Alt-Enter or \\ Enter: new line · Ctrl-C interrupts, twice quits · Ctrl-D quits"));
  render();

  try {
    for (;;) {
      const text = await next();
      if (text === null) break;
      const trimmed = text.trim();
      print(
        text
          .replace(/\s+$/, "")
          .split("\n")
          .map((l, i) => `${i === 0 ? theme.prompt("›") : " "} ${l}`)
          .join("\n"),
      );
      if (trimmed.startsWith("/") && !trimmed.includes("\n")) {
        const outcome = await command(trimmed, {
          conversation,
          io: commandIO,
          style: theme,
          ctx,
          options,
          ask: (q) => askLine(q),
        });
        if (outcome === true) break;
        if (outcome !== "send") {
          render();
          continue;
        }
      }
      const current: Turn = (turn = {
        abort: new AbortController(),
        started: Date.now(),
        streamed: 0,
        running: new Map(),
        phase: "working",
      });
      render();
      try {
        await conversation.send(text, current.abort.signal, onMessage);
      } finally {
        flushAnswer();
        turn = undefined;
        streamedText = false;
        render();
      }
    }
  } finally {
    clearInterval(ticker);
    screen.release();
    giveBack();
    await conversation.close();
  }
  return EXIT.ok;
}
