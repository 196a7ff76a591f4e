/**
 * One session across several prompts: the terminal mode and `--input-format stream-json` send
 * each prompt as a run that continues the session of the one before. A persisted session is
 * resumed from its transcript (the sessions plugin answers first); an unpersisted one
 * (`--no-session-persistence`) from the history this object keeps in memory.
 */
import type { ModelMessage } from "ai";
import { resolve } from "node:path";
import { SessionStore, summon } from "../src/facade";
import type { Plugin } from "../src/plugin";
import type { UbiquityConfig } from "../src/facade";
import type { Message, ResultMessage, Usage } from "../src/messages";
import { addUsage, emptyUsage } from "../src/messages";
import { storageRoot } from "../plugins/_kits/storage/index";

/** The model the stored session last answered with (its transcript's last assistant message), if any. */
export async function storedSessionModel(options: UbiquityConfig, sessionId: string | undefined): Promise<string | undefined> {
  const cwd = resolve(options.cwd ?? process.cwd());
  const store = new SessionStore({ dir: storageRoot(options.sessionDir, cwd, "sessions") });
  const id = sessionId ?? (await store.list({ cwd, limit: 1 }))[0]?.sessionId;
  if (!id) return undefined;
  const session = await store.get(id, cwd).catch(() => undefined);
  for (const record of [...(session?.records ?? [])].reverse()) {
    const m = record.message;
    if (m.type === "assistant" && m.agentId === undefined && typeof m.model === "string" && m.model) return m.model;
  }
  return undefined;
}

/** Totals over the runs of a conversation, for `/cost` and the closing line. */
export interface ConversationTotals {
  turns: number;
  usage: Usage;
  /** `null` when some run's cost is unknown. */
  costUsd: number | null;
  runs: number;
}

/** A session spoken to one prompt at a time. */
export class Conversation {
  /** The session's id once a run has started it. */
  sessionId: string | undefined;
  /** Every run's result, in order. */
  readonly results: ResultMessage[] = [];
  #first = true;
  #histories = new Map<string, ModelMessage[]>();
  #once: Partial<UbiquityConfig> = {};

  constructor(private options: UbiquityConfig) {}

  /** The model the next prompt runs on. */
  get model(): UbiquityConfig["model"] {
    return this.options.model;
  }

  /** Run on `spec` from the next prompt on. */
  setModel(spec: string): void {
    this.options = { ...this.options, model: spec };
  }

  /** A new session: the next prompt starts fresh. */
  clear(): void {
    this.sessionId = undefined;
    this.#first = false;
    this.results.length = 0;
  }

  /** Continue the stored session `id` with the next prompt. */
  resume(id: string): void {
    this.sessionId = id;
    this.#first = false;
    this.results.length = 0;
  }

  /** Summarize the conversation before the next prompt reaches the model (`/compact`). */
  compactNext(instructions?: string): void {
    // A threshold of ~0 makes the summarizing tier compact at once; the newest exchange stays.
    this.#once = { compactThreshold: 1e-9, compactKeepRecent: 1, autoCompact: true, ...(instructions ? { compactInstructions: instructions } : {}) };
  }

  /** The options of the next run. */
  #next(signal: AbortSignal): UbiquityConfig {
    const { resume: _r, continueConversation: _c, forkSession: _f, sessionId: _s, ...rest } = this.options;
    const base: UbiquityConfig = this.#first ? { ...this.options } : { ...rest, ...(this.sessionId ? { resume: this.sessionId } : {}) };
    return { ...base, ...this.#once, abortSignal: signal, plugins: [...(base.plugins ?? []), this.#memory()] };
  }

  /** Send one prompt; `onMessage` sees every message; resolves to the run's result. */
  async send(prompt: string, signal: AbortSignal, onMessage: (message: Message) => void): Promise<ResultMessage | undefined> {
    const options = this.#next(signal);
    this.#once = {};
    let result: ResultMessage | undefined;
    // A run that got as far as the prompt has a session to continue (also when interrupted).
    let started = false;
    for await (const message of summon(prompt, options)) {
      if (message.type === "result") result = message;
      if (message.type === "user" && message.agentId === undefined) started = true;
      onMessage(message);
    }
    this.#first = false;
    if (result) {
      if (started) this.sessionId = result.sessionId;
      this.results.push(result);
    }
    return result;
  }

  /** Totals of this session's runs. */
  totals(): ConversationTotals {
    const usage = emptyUsage();
    let cost: number | null = 0;
    let turns = 0;
    for (const r of this.results) {
      addUsage(usage, r.usage);
      turns += r.numTurns;
      cost = cost === null || r.totalCostUsd === null ? null : cost + r.totalCostUsd;
    }
    return { turns, usage, costUsd: cost, runs: this.results.length };
  }

  /** The in-memory store: answers `session.load` for sessions no transcript holds. */
  #memory(): Plugin {
    const histories = this.#histories;
    return {
      name: "ubiquity:runner-conversation",
      apply(kernel) {
        kernel.hooks.session.load.tapPromise("ubiquity:runner-conversation", async (request, run) => {
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
