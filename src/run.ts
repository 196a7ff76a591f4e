import { randomUUID } from "node:crypto";
import type { LanguageModel, ModelMessage } from "ai";
import type { JSONValue } from "@ai-sdk/provider";
import type { Kernel, ResolvedOptions } from "./kernel";
import type { Logger } from "./config/schema";
import type { Tool } from "./tool";
import {
  addUsage,
  emptyUsage,
  stamp,
  type Message,
  type MessageInit,
  type PermissionDenial,
  type ResultMessage,
  type Usage,
} from "./messages";
import { absolutePath } from "./paths";
import { maskSecrets, secretsOfRun } from "./redact";
import type { RunInput } from "./live";

/** Identity of a subagent run. */
export interface AgentIdentity {
  agentId: string;
  agentType: string;
  parentToolUseId: string;
}

/** The state of one run (or one subagent run), handed to every hook that runs inside it. */
export interface RunContext {
  readonly kernel: Kernel;
  readonly options: ResolvedOptions;
  /** The session id; a resumed run takes the stored session's id before `system/init`. */
  sessionId: string;
  readonly cwd: string;
  /** Permitted roots for the file tools; plugins may add to it (skills). */
  readonly roots: string[];
  /** The run's signal; during a stretch of live work, one an interrupt also aborts. */
  abortSignal: AbortSignal;
  readonly logger: Logger;
  /** The live input of a session that stays open (`summon()` with an async iterable prompt). */
  input?: RunInput;
  /** Set inside a subagent. */
  readonly agent?: AgentIdentity;
  /** The parent run, inside a subagent. */
  readonly parent?: RunContext;
  /** The conversation as the model sees it. */
  history: ModelMessage[];
  /** The main model and its label (`provider:model`); unset until resolved. */
  model?: Exclude<LanguageModel, string>;
  modelLabel: string | null;
  /** The tools offered on the current turn, in offer order. */
  tools: Tool[];
  usage: Usage;
  /** Usage per answering model. */
  modelUsage: Record<string, Usage>;
  /** Total cost in USD; `null` = unknown. Maintained by a pricing plugin. */
  totalCostUsd: number | null;
  permissionDenials: PermissionDenial[];
  /** Model responses so far. */
  numTurns: number;
  /** Set when a handler asked to end the run (`interrupt: true`). */
  interrupted?: string;
  /** Set by a plugin to end the run successfully once the current response's tool calls are answered (its last tool gave the answer). */
  finished?: boolean;
  /** Per-run slots: each plugin's `context.run(run)` lives here; code without a plugin context keys its own slot with a private symbol. */
  readonly state: Map<unknown, unknown>;
  /** Facts for `system/init`'s `extra`, keyed by feature (e.g. `mcpServers`); fill it at `session.start`. */
  readonly initExtra: Record<string, JSONValue>;
  /** Top-level fields of `system/init` that plugins add (see `InitFields`); fill it at `session.start`. */
  readonly initFields: Record<string, JSONValue>;
  /** Top-level fields of `result` that plugins add (see `ResultFields`); set them before the run ends. */
  readonly resultFields: Record<string, unknown>;
  /** Stamp, publish and return a message, as published (the run's secrets masked). */
  emit(message: MessageInit): Message;
}

/** What a run starts from: its kernel and signal, and what it does not take from the kernel (`options`) or its parent. */
export type CreateRunInit = Pick<RunContext, "kernel" | "abortSignal"> &
  Partial<Pick<RunContext, "sessionId" | "agent" | "parent" | "options" | "input">> & {
    /** Where emitted messages go; a run with a `parent` may omit it to publish into its parent's stream. */
    sink?: (message: Message) => void;
  };

// Each run's sink, so a subagent run can publish into its parent's stream without the parent
// re-stamping (and re-announcing on `event`) every message.
const sinks = new WeakMap<RunContext, (message: Message) => void>();
// The last message each sink (each stream) received.
const lastSent = new WeakMap<(message: Message) => void, Message>();

/** The last message the run's stream received (from this run, a subagent or a plugin). */
export function lastEmitted(run: RunContext): Message | undefined {
  const sink = sinks.get(run);
  return sink && lastSent.get(sink);
}

// Runs whose stream ended (their last `result` is out). A subagent that outlives its caller's
// stream (a background one stopped as the session ends) publishes no more into it: the stream's
// last message stays the caller's result. Observers of `event` still see everything.
const ended = new WeakSet<RunContext>();
/** Mark `run`'s stream as ended: its subagents' later messages are not published into it. */
export const endStream = (run: RunContext): void => void ended.add(run);
const streamEnded = (run: RunContext | undefined): boolean => !!run && (ended.has(run) || streamEnded(run.parent));

/** Create the context of a run. */
export function createRun(init: CreateRunInit): RunContext {
  const inherited = init.sink ? undefined : init.parent ? sinks.get(init.parent) : undefined;
  const sink =
    init.sink ?? (inherited && ((message: Message) => void (streamEnded(init.parent) || inherited(message))));
  if (!sink)
    throw new TypeError("createRun: pass a sink (only a run with a parent may omit it: it then uses its parent's)");
  const options = init.options ?? init.kernel.options;
  const sessionId =
    init.sessionId ??
    init.parent?.sessionId ??
    (typeof options.sessionId === "string" ? options.sessionId : undefined) ??
    randomUUID();
  const roots = [options.cwd, ...(options.additionalDirectories ?? []).map((d) => absolutePath(options.cwd, d))];
  const run: RunContext = {
    kernel: init.kernel,
    options,
    sessionId,
    cwd: options.cwd,
    roots,
    abortSignal: init.abortSignal,
    logger: options.logger,
    agent: init.agent,
    parent: init.parent,
    input: init.input,
    history: [],
    modelLabel: null,
    tools: [],
    usage: emptyUsage(),
    modelUsage: {},
    totalCostUsd: null,
    permissionDenials: [],
    numTurns: 0,
    state: new Map(),
    initExtra: {},
    initFields: {},
    resultFields: {},
    emit(message) {
      // A subagent's messages name it first; each message is copied once either way.
      const a = init.agent;
      const own = a ? { agentId: a.agentId, parentToolUseId: a.parentToolUseId, ...message } : message;
      const full = stamp(own as MessageInit, run.sessionId) as Message;
      // Every message leaves with the run's secrets masked, whatever put them there (a server's
      // error echoing the header it got, a tool's output): the stream, the transcript, observers.
      const shown = maskSecrets(full, secretsOfRun(run));
      sink(shown);
      lastSent.set(sink, shown);
      init.kernel.emit({ type: "message", message: shown }, run);
      // What the loop hands on (session.end's taps, a subagent's caller) is what left (red team zp).
      return shown;
    },
  };
  sinks.set(run, sink);
  return run;
}

/**
 * The usage ledger: add `usage` to `run` and every ancestor run (a subagent's tokens and tool
 * calls are its parent's too), and per answering model when `label` names one.
 */
export function chargeUsage(run: RunContext, usage: Partial<Usage>, label?: string): void {
  for (let r: RunContext | undefined = run; r; r = r.parent) {
    addUsage(r.usage, usage);
    if (label !== undefined) addUsage((r.modelUsage[label] ??= emptyUsage()), usage);
  }
}

/** The `system/init` message of `run`, announcing `model`. */
export function initMessage(run: RunContext, model: string | null): MessageInit {
  return {
    type: "system",
    subtype: "init",
    model,
    cwd: run.cwd,
    tools: run.tools.map((t) => t.name),
    ...run.initFields,
    plugins: run.kernel.plugins.map((p) => p.plugin.name),
    extra: { ...run.initExtra },
  } as MessageInit;
}

/** What the `result` message takes from the run's own state. */
type Outcome = Pick<ResultMessage, "subtype" | "result" | "durationMs" | "stopReason">;

/** The `result` message of `run`: `outcome` (an error unless `success`) plus the run's turns, usage, cost and denials, then the plugins' fields. */
export function resultMessage(run: RunContext, outcome: Outcome): MessageInit {
  const { subtype, result, durationMs, stopReason } = outcome; // the message's documented key order
  const message: Record<string, unknown> = {
    type: "result",
    subtype,
    result,
    isError: subtype !== "success",
    numTurns: run.numTurns,
    durationMs,
    usage: { ...run.usage },
    totalCostUsd: run.totalCostUsd,
    permissionDenials: [...run.permissionDenials],
    modelUsage: run.modelUsage,
    stopReason,
  };
  // A plugin's field never replaces one of the kernel's.
  for (const [key, value] of Object.entries(run.resultFields)) if (!(key in message)) message[key] = value;
  return message as MessageInit;
}
