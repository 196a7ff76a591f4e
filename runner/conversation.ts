/**
 * One session across several prompts: the terminal mode speaks to one live session (`summon()`
 * with an async iterable prompt) until a command needs new options; the next live session then
 * resumes the stored one: a persisted session from its transcript (the sessions plugin answers
 * first), an unpersisted one (`--no-session-persistence`) from the history kept in memory.
 */
import type { ModelMessage } from "ai";
import { resolve } from "node:path";
import {
  SessionStore,
  summon,
  type CommandInfo,
  type ShellOutcome,
  type PermissionMode,
  type Query,
  type TaskInfo,
} from "../sdk/facade";
import type { UserInput } from "../sdk/live";
import type { Plugin } from "../src/plugin";
import type { UbiquityConfig } from "../sdk/facade";
import type { Message, ResultMessage, Usage } from "../src/messages";
import { addUsage, emptyUsage } from "../src/messages";
import { storageRoot } from "../plugins/_kits/storage/index";
import { getSessionsApi } from "../plugins/sessions/index";
import { lastModelOf } from "../plugins/sessions/records";
import { pushInput } from "./push-input";

/** The model the stored session last answered with (its transcript's last assistant message), if any. */
export async function storedSessionModel(
  options: UbiquityConfig,
  sessionId: string | undefined,
): Promise<string | undefined> {
  return (await storedSessionLookup(options, sessionId)).model;
}

/**
 * The stored session `--resume <id>` (or `--continue`: the cwd's latest) names, as the runner's
 * file store has it: whether it was found, where it was looked for, and the model it last
 * answered with.
 */
export async function storedSessionLookup(
  options: UbiquityConfig,
  sessionId: string | undefined,
): Promise<{ found: boolean; dir: string; model?: string }> {
  const cwd = resolve(options.cwd ?? process.cwd());
  const dir = storageRoot(options.sessionDir, cwd, "sessions");
  const store = new SessionStore({ dir });
  const id = sessionId ?? (await store.list({ cwd, limit: 1 }))[0]?.sessionId;
  if (!id) return { found: false, dir };
  const session = await store.get(id, cwd).catch(() => undefined);
  const model = session ? lastModelOf(session.records) : undefined;
  return { found: session !== undefined, dir, ...(model ? { model } : {}) };
}

/**
 * One prompt's figures out of a live session's result, whose turns, usage and cost are the
 * session's so far (`before` is the session's previous result): a one-turn prompt's closing line
 * read "11 turns · 41,617 in" late in a session.
 */
function stretchOf(result: ResultMessage, before: ResultMessage): ResultMessage {
  const usage = emptyUsage();
  for (const key of Object.keys(usage) as (keyof Usage)[])
    usage[key] = Math.max(0, result.usage[key] - before.usage[key]);
  const cost =
    result.totalCostUsd === null || before.totalCostUsd === null
      ? null
      : Math.max(0, result.totalCostUsd - before.totalCostUsd);
  return { ...result, numTurns: Math.max(0, result.numTurns - before.numTurns), usage, totalCostUsd: cost };
}

/** Totals over the runs of a conversation, for `/cost` and the closing line. */
export interface ConversationTotals {
  turns: number;
  usage: Usage;
  /** `null` when some run's cost is unknown. */
  costUsd: number | null;
  runs: number;
}

/** The live session a conversation speaks to, and who waits for the end of its current stretch. */
interface Live {
  query: Query;
  push(message: string): void;
  /** Resolves when the stream ended. */
  ended: Promise<void>;
  waiting?: { onMessage: (message: Message) => void; done: (result: ResultMessage | undefined) => void };
  /** The session's last result (its totals so far). */
  last?: ResultMessage;
}

/**
 * A session spoken to one prompt at a time: one live session (`summon()` with an async iterable
 * prompt) while the options stay the same; `/clear`, `/resume` and `/compact` end it, and the
 * next prompt opens a new one that continues the stored session.
 */
export class Conversation {
  /** The session's id once a run has started it. */
  sessionId: string | undefined;
  /** Every stretch's result, in order. */
  readonly results: ResultMessage[] = [];
  #first = true;
  #histories = new Map<string, ModelMessage[]>();
  #once: Partial<UbiquityConfig> = {};
  #live: Live | undefined;
  /** The last result of each live session already ended (their totals add up). */
  #ended: ResultMessage[] = [];
  /** The latest output of each background task (`task_output`), kept between prompts too, for `/tasks <id>`. */
  #taskOutput = new Map<string, string>();

  constructor(private options: UbiquityConfig) {}

  /** The model the next prompt runs on. */
  get model(): UbiquityConfig["model"] {
    return this.options.model;
  }

  /** Run on `spec` from the next request on (the live session switches through `setModel`). */
  async setModel(spec: string): Promise<void> {
    await this.#live?.query.setModel(spec);
    this.options = { ...this.options, model: spec };
  }

  /** Judge the next tool calls in `mode` (the live session switches through `setPermissionMode`; the next one starts in it). */
  async setPermissionMode(mode: PermissionMode): Promise<void> {
    await this.#live?.query.setPermissionMode(mode);
    this.options = { ...this.options, permissionMode: mode };
  }

  /** The project's trust the next live session reads the folder's files under (the runner's `trust` option). */
  get trust(): UbiquityConfig["trust"] {
    return this.options.trust;
  }

  /** Read the folder's files under `trust` from the next live session on (files approved since the start). */
  setTrust(trust: UbiquityConfig["trust"]): void {
    this.options = { ...this.options, trust };
  }

  /** A new session: the next prompt starts fresh. Resolves to the background tasks that ended with the old one. */
  async clear(): Promise<TaskInfo[]> {
    const stopped = await this.close();
    this.sessionId = undefined;
    this.#first = false;
    this.results.length = 0;
    this.#ended = [];
    return stopped;
  }

  /** Continue the stored session `id` with the next prompt. Resolves to the background tasks that ended with the live one. */
  async resume(id: string): Promise<TaskInfo[]> {
    const stopped = await this.close();
    this.sessionId = id;
    this.#first = false;
    this.results.length = 0;
    this.#ended = [];
    return stopped;
  }

  /**
   * Summarize the conversation before the next prompt reaches the model (`/compact`): the live
   * session ends for it, and its background tasks with it (they are the resolved value).
   */
  async compactNext(instructions?: string): Promise<TaskInfo[]> {
    const stopped = await this.close();
    // A threshold of ~0 makes the summarizing tier compact at once; the newest exchange stays.
    this.#once = {
      compactThreshold: 1e-9,
      compactKeepRecent: 1,
      autoCompact: true,
      ...(instructions ? { compactInstructions: instructions } : {}),
    };
    return stopped;
  }

  /** The live session's background tasks (none before the first prompt). */
  async tasks(): Promise<TaskInfo[]> {
    return (await this.#live?.query.backgroundTasks()) ?? [];
  }

  /** The latest output of background task `id` (up to ~8,000 characters), or undefined when it printed none. */
  taskOutput(id: string): string | undefined {
    return this.#taskOutput.get(id);
  }

  #noteTaskOutput(message: Message): void {
    if (message.type !== "system") return;
    const m = message as { subtype: string; taskId?: string; text?: string; task?: { id: string } };
    // A new task of the same id (a session reopened) starts with no output.
    if (m.subtype === "task_started" && m.task) this.#taskOutput.delete(m.task.id);
    if (m.subtype !== "task_output" || !m.taskId || !m.text) return;
    this.#taskOutput.set(m.taskId, `${this.#taskOutput.get(m.taskId) ?? ""}${m.text}`.slice(-8000));
  }

  /** Stop a background task of the live session; false when no such task runs. */
  async stopTask(id: string): Promise<boolean> {
    return (await this.#live?.query.stopTask(id)) ?? false;
  }

  /** The `!command` running now, until its call is approved (`typedCall`). */
  #typing: string | undefined;

  /** Run a command the user typed after `!` now (no model turn); what it printed goes ahead of the next prompt. Opens the live session. */
  async shell(command: string): Promise<ShellOutcome> {
    this.#typing = command;
    try {
      return await (this.#live ??= this.#open()).query.shell(command);
    } finally {
      this.#typing = undefined;
    }
  }

  /**
   * True for the call a `shell()` command makes (the funnel's own id, the command as typed, once):
   * typing it was the user's answer, so the approver does not ask again (the approver's `typed`).
   * A deny rule still refuses it, and the sandbox holds it.
   */
  typedCall(toolName: string, input: Record<string, unknown>, toolUseId: string): boolean {
    const typed = this.#typing;
    if (typed === undefined || toolName !== "Bash" || input.command !== typed || !toolUseId.startsWith("inline_"))
      return false;
    this.#typing = undefined;
    return true;
  }

  /** The slash commands of the session (command files and skills); opens the live session to ask it. */
  async commands(): Promise<CommandInfo[]> {
    return (this.#live ??= this.#open()).query.supportedCommands();
  }

  /**
   * End the live session (the next prompt opens a new one). Nothing outlives a session: resolves to
   * the background tasks that were still running and ended with it (a dev server), for the caller to say so.
   */
  async close(): Promise<TaskInfo[]> {
    const live = this.#live;
    if (!live) return [];
    const running = (await live.query.backgroundTasks().catch(() => [])).filter((t) => t.state === "running");
    live.query.close();
    await live.ended;
    return running;
  }

  /** The options of the next live session. */
  #next(): UbiquityConfig {
    const { resume: _r, continueConversation: _c, forkSession: _f, sessionId: _s, ...rest } = this.options;
    const base: UbiquityConfig = this.#first
      ? { ...this.options }
      : { ...rest, ...(this.sessionId ? { resume: this.sessionId } : {}) };
    return { ...base, ...this.#once, plugins: [...(base.plugins ?? []), this.#memory()] };
  }

  #open(): Live {
    const inbox = pushInput<UserInput>();
    const query = summon(inbox.input, this.#next());
    this.#once = {};
    this.#first = false;
    const live: Live = { query, push: (m) => inbox.push(m), ended: Promise.resolve() };
    live.ended = (async () => {
      // A live session that got as far as a prompt has a session to continue (also when interrupted).
      try {
        for await (const message of query) {
          if (message.type === "user" && message.agentId === undefined) this.sessionId = message.sessionId;
          this.#noteTaskOutput(message);
          live.waiting?.onMessage(message);
          if (message.type !== "result") continue;
          live.last = message;
          const waiting = live.waiting;
          live.waiting = undefined;
          if (waiting) this.results.push(message);
          waiting?.done(message);
        }
      } finally {
        inbox.close();
        if (this.#live === live) this.#live = undefined;
        if (live.last) this.#ended.push(live.last);
        live.waiting?.done(undefined);
      }
    })();
    return live;
  }

  /** Send one prompt; `onMessage` sees every message of its stretch; an abort of `signal` interrupts it; resolves to its result. */
  send(prompt: string, signal: AbortSignal, onMessage: (message: Message) => void): Promise<ResultMessage | undefined> {
    const live = (this.#live ??= this.#open());
    const onAbort = () => void live.query.interrupt();
    signal.addEventListener("abort", onAbort, { once: true });
    // A live session's result carries its totals so far: the prompt's own closing line shows what this prompt took.
    const before = live.last;
    const shown = (m: Message) => onMessage(m.type === "result" && before ? stretchOf(m, before) : m);
    return new Promise<ResultMessage | undefined>((done) => {
      live.waiting = { onMessage: shown, done };
      live.push(prompt);
    }).finally(() => signal.removeEventListener("abort", onAbort));
  }

  /** Totals of this session's stretches (each result carries its live session's totals so far). */
  totals(): ConversationTotals {
    const usage = emptyUsage();
    let cost: number | null = 0;
    let turns = 0;
    const lasts = [...this.#ended, ...(this.#live?.last ? [this.#live.last] : [])];
    for (const r of lasts) {
      addUsage(usage, r.usage);
      turns += r.numTurns;
      cost = cost === null || r.totalCostUsd === null ? null : cost + r.totalCostUsd;
    }
    return { turns, usage, costUsd: cost, runs: this.results.length };
  }

  /** The in-memory store: answers loads (the sessions API's `useLoader`) of sessions no transcript holds. */
  #memory(): Plugin {
    const histories = this.#histories;
    return {
      name: "ubiquity:runner-conversation",
      apply(kernel) {
        getSessionsApi(kernel)?.useLoader("ubiquity:runner-conversation", async (request) => {
          const history = request.sessionId ? histories.get(request.sessionId) : undefined;
          return history ? { sessionId: request.sessionId!, history: structuredClone(history) } : undefined;
        });
        kernel.hooks.session.end.tap("ubiquity:runner-conversation", (run) => {
          if (!run.agent) histories.set(run.sessionId, structuredClone(run.history));
        });
      },
    };
  }
}
