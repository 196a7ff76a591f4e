/**
 * The terminal's approval handler for `ubiquity run`: y / n / always, after the plugins'
 * answerers (a tool that asks the user a question of its own answers there). One prompt
 * at a time.
 */
import { createInterface } from "./readline";
import type { CanUseTool } from "../sdk/facade";
import type { TerminalAnswerer } from "../loader/index";
import type { RunnerIO } from "./run";
import { visibleExactly } from "./render";
import { colorEnabled } from "./style";

/** How the approver reaches the terminal, when the runner owns it. */
export interface ApproverHooks {
  /**
   * Ask one question and resolve to the line typed. The terminal mode passes its own readline
   * interface here, so two readers never fight over stdin. [a line read from `io.stdin`]
   */
  ask?: (question: string, signal: AbortSignal) => Promise<string>;
  /** Called before a tool call's question (the runner prints the call's line there). */
  beforeQuestion?: (toolName: string, input: Record<string, unknown>, toolUseId: string) => void;
  /** The active plugins' answerers (`plugin.terminal`), asked in order before the approval question. */
  answerers?: TerminalAnswerer[];
  /** The folder relative paths in a call's input are read from (a Write's current file) [process.cwd()]. */
  cwd?: string;
  /**
   * Ask the approval question itself (the terminal UI shows a diff and reads one key) instead of
   * the one-line question through `ask`; `rules` are what "always" would add (none: no "always").
   */
  /** A call the user typed (the terminal's `!command`): true approves it as typed, unasked; deny rules and the sandbox still apply. */
  typed?: (toolName: string, input: Record<string, unknown>, toolUseId: string) => boolean;
  approve?: (call: {
    toolName: string;
    input: Record<string, unknown>;
    rules: readonly string[];
    signal: AbortSignal;
  }) => Promise<"yes" | "no" | "always">;
}

export { describeRule } from "./describe-rule";

/**
 * An interactive approval handler: y / n / always. "Always" remembers the rules the engine
 * suggested for the call — the narrowest that cover it: the exact command for a program that
 * deletes, moves, overwrites or changes permissions, nothing for a path outside the permitted
 * folders — and approves later calls whose suggestions it all holds. A call with no suggestion
 * (one the engine could not prove safe, or a sensitive write) is asked about every time. The
 * prompt says what "always" will allow. A plugin's answerer that answers a call decides it.
 */
export function terminalApprover(io: RunnerIO, hooks: ApproverHooks = {}): CanUseTool {
  const always = alwaysRules();
  const ask = hooks.ask
    ? async (question: string, signal: AbortSignal) => (await hooks.ask!(question, signal)).trim()
    : async (question: string, signal: AbortSignal) => {
        io.stderr(question);
        const rl = createInterface({ input: io.stdin, terminal: false });
        try {
          return (await rl.question("", { signal })).trim();
        } finally {
          rl.close();
        }
      };
  // What an answerer shows comes from a server or the model (an MCP elicitation's message and
  // URL, a question's options): the user answers it, so it is shown exactly, escapes visible.
  const shown = {
    print: (text: string) => io.stderr(visibleExactly(text)),
    ask: (question: string, signal: AbortSignal) => ask(visibleExactly(question), signal),
  };
  const decide: CanUseTool = async (toolName, input, ctx) => {
    for (const answer of hooks.answerers ?? []) {
      const answered = await answer({ toolName, input, signal: ctx.signal }, shown);
      if (answered) return { behavior: "allow", updatedInput: answered.input };
    }
    const rules = ctx.suggestions;
    if (always.covers(rules) || hooks.typed?.(toolName, input, ctx.toolUseId)) return { behavior: "allow" };
    hooks.beforeQuestion?.(toolName, input, ctx.toolUseId);
    if (hooks.approve) {
      const answer = await hooks.approve({ toolName, input, rules, signal: ctx.signal });
      if (answer === "always" && rules.length > 0) always.remember(rules);
      return answer === "no" ? { behavior: "deny", message: "The user declined this call." } : { behavior: "allow" };
    }
    // What the call would do — a Write's or an Edit's diff, a Bash command, the arguments one per
    // line — from the terminal UI's views, loaded at the first question (not with the runner).
    const [{ approvalBody, approvalQuestion }, { createTheme }] = await Promise.all([
      import("./tui/approval-view"),
      import("./tui/theme"),
    ]);
    const theme = createTheme(colorEnabled(io.stderrIsTTY ?? io.stdoutIsTTY));
    const body = approvalBody(toolName, input, hooks.cwd ?? process.cwd(), theme).join("\n");
    const reply = (await ask(`\n${body}\n${approvalQuestion(toolName, input, rules)}: `, ctx.signal)).toLowerCase();
    if (rules.length > 0 && (reply === "a" || reply === "always")) {
      always.remember(rules);
      return { behavior: "allow" };
    }
    if (reply === "y" || reply === "yes") return { behavior: "allow" };
    return { behavior: "deny", message: "The user declined this call." };
  };
  return oneAtATime(decide);
}

/**
 * The session rules "always" answers made: the rules the engine suggested for a call, kept for
 * the session; a later call all of whose suggestions are kept is allowed without asking (one
 * with no suggestion never is).
 */
export function alwaysRules() {
  const approved = new Set<string>();
  return {
    covers: (rules: readonly string[]) => rules.length > 0 && rules.every((r) => approved.has(r)),
    remember: (rules: readonly string[]) => {
      for (const r of rules) approved.add(r);
    },
  };
}

/** An approval handler that asks one question at a time, even when parallel calls ask together. */
export function oneAtATime(decide: CanUseTool): CanUseTool {
  let queue: Promise<unknown> = Promise.resolve();
  return (toolName, input, ctx) => {
    const next = queue.then(() => decide(toolName, input, ctx));
    queue = next.catch(() => undefined);
    return next;
  };
}
