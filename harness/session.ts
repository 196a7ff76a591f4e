/**
 * One harness session: one live Ubiquity session (`summon()` reading an `Inbox`), started at the
 * first turn. A turn pushes its prompt and translates the messages up to the stretch's `result`;
 * an abort is `interrupt()`; an ask of the permission engine is a `tool-approval-request` the
 * host answers with `submitToolApproval`; a host tool's call waits for `submitToolResult`.
 * Detaching parks the live session in this process (`Parking`), so `doStart({ resumeFrom })`
 * reattaches to it, pending approval included; in another process the transcript resumes it.
 */
import type {
  HarnessV1CallWarning,
  HarnessV1ContinueTurnOptions,
  HarnessV1ContinueTurnState,
  HarnessV1PermissionMode,
  HarnessV1Prompt,
  HarnessV1PromptControl,
  HarnessV1PromptTurnOptions,
  HarnessV1ResumeSessionState,
  HarnessV1Session,
  HarnessV1StreamPart,
  HarnessV1ToolSpec,
} from "@ai-sdk/harness";
import { randomUUID } from "node:crypto";
import type { JSONValue } from "@ai-sdk/provider";
import type { Message, PermissionResult, ResultMessage, ToolOutput, Usage, UserContentParts } from "../src/index";
import type { UserInput } from "../sdk/live";
import { emptyUsage } from "../src/index";
import { summon, type Query, type SummonOptions } from "../sdk/index";
import { hostToolsPlugin } from "./host-tools";
import { Inbox } from "./inbox";
import type { Parking } from "./parking";
import { ASK_USER, answerFromHost } from "./questions";
import { TurnTranslator, type ToolKinds } from "./translate";

type Emit = (part: HarnessV1StreamPart) => void;

/** What the host submitted for a call it executed (a host tool, or `askUserQuestions`). */
interface HostSubmission {
  output: unknown;
  isError?: boolean;
}

/** The adapter's lifecycle payload: the Ubiquity session a later `doStart` resumes. */
export interface UbiquityHarnessState {
  [key: string]: string;
  ubiquitySessionId: string;
}

/** Raised (as the turn's error) when a Ubiquity stretch ends in an error `result`. */
export class UbiquityTurnError extends Error {
  constructor(readonly result: ResultMessage) {
    super(result.result);
    this.name = "UbiquityTurnError";
  }
}

/** What a session needs from its harness. */
export interface SessionInit {
  harnessId: string;
  sessionId: string;
  cwd: string;
  options: SummonOptions;
  permissionMode: HarnessV1PermissionMode;
  disallowed: readonly string[];
  declared: ReadonlySet<string>;
  /** Resume this stored Ubiquity session (from another process's lifecycle state). */
  resume?: string;
  parkedTimeoutMs: number;
  parking: Parking;
}

interface Turn {
  translator: TurnTranslator;
  emit: Emit;
  done: { promise: Promise<void>; resolve(): void; reject(error: unknown): void };
  abort?: AbortSignal;
  unwatch?: () => void;
  /** Inputs pushed in this turn that have not entered the conversation yet. */
  queued: number;
}

function deferred(): Turn["done"] {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

/** Ubiquity's permission mode for each of HarnessAgent's, unless the options set one. */
const UBIQUITY_MODE = {
  "allow-reads": "default",
  "allow-edits": "acceptEdits",
  "allow-all": "bypassPermissions",
} as const;

/** A prompt as a Ubiquity user input: a string, or the user message's text/image/file parts. */
function userInput(prompt: HarnessV1Prompt): UserInput {
  if (typeof prompt === "string") return prompt;
  if (typeof prompt.content === "string") return prompt.content;
  // The harness's parts are the AI SDK's user parts (its own copy of the types).
  return { type: "user", content: prompt.content as unknown as UserContentParts };
}

/** The `HarnessV1Session` of `ubiquityHarness()`: one live Ubiquity session, driven turn by turn. */
export class UbiquityHarnessSession implements HarnessV1Session {
  readonly sessionId: string;
  readonly isResume: boolean;
  #init: SessionInit;
  #inbox = new Inbox();
  #query?: Query;
  #reading?: Promise<void>;
  #ubiquitySessionId: string;
  #turn?: Turn;
  /** Parts emitted while the turn is suspended (no one listening): delivered on `doContinueTurn`. */
  #held: HarnessV1StreamPart[] = [];
  #listening = true;
  /** Parts sent since the last step boundary: a stop condition's suspension replays them (the stream that stopped dropped them). */
  #sinceStep: HarnessV1StreamPart[] = [];
  #usage: Usage = emptyUsage();
  #approvals = new Map<string, (answer: PermissionResult) => void>();
  #hostAnswers = new Map<string, { promise: Promise<HostSubmission>; resolve(a: HostSubmission): void }>();
  #hostTools = new Set<string>();
  #hostOutputs = new Map<string, NonNullable<JSONValue>>();
  #started?: { model?: string; instructions?: string; tools: string };
  #closed = false;

  constructor(init: SessionInit) {
    this.#init = init;
    this.sessionId = init.sessionId;
    this.isResume = init.resume !== undefined;
    // Ubiquity's session id is the harness's when it is one Ubiquity accepts (the lifecycle state carries it either way).
    this.#ubiquitySessionId =
      init.resume ?? (/^[A-Za-z0-9_-]{1,128}$/.test(init.sessionId) ? init.sessionId : randomUUID());
  }

  /** Reattach a parked session under a new harness start (its permission mode may differ). */
  reattach(permissionMode: HarnessV1PermissionMode): this {
    if (permissionMode !== this.#init.permissionMode && !this.#init.options.permissionMode) {
      this.#query?.setPermissionMode(UBIQUITY_MODE[permissionMode]).catch(() => undefined);
    }
    this.#init = { ...this.#init, permissionMode };
    return this;
  }

  // ── turns ─────────────────────────────────────────────────────────

  async doPromptTurn(options: HarnessV1PromptTurnOptions): Promise<HarnessV1PromptControl> {
    if (this.#closed) throw new Error(`ubiquityHarness: session ${this.sessionId} has ended.`);
    // In use again (a stop condition's suspension parks a session its handle still drives).
    this.#init.parking.drop(this);
    if (this.#turn) throw new Error(`ubiquityHarness: session ${this.sessionId} already has a turn in progress.`);
    if (options.responseFormat?.type === "json") {
      const { HarnessCapabilityUnsupportedError } = await import("@ai-sdk/harness");
      throw new HarnessCapabilityUnsupportedError({
        message:
          "ubiquityHarness does not take a per-turn JSON response format; give the preset an `outputSchema` instead.",
        harnessId: this.#init.harnessId,
      });
    }
    const warnings = await this.#start(options);
    const turn = this.#begin(options.emit, options.abortSignal);
    turn.emit({
      type: "stream-start",
      ...(warnings.length ? { warnings } : {}),
      ...(this.#started?.model ? { modelId: this.#started.model } : {}),
    });
    turn.queued++;
    this.#inbox.push(userInput(options.prompt));
    return this.#control(turn);
  }

  async doContinueTurn(options: HarnessV1ContinueTurnOptions): Promise<HarnessV1PromptControl> {
    if (this.#closed) throw new Error(`ubiquityHarness: session ${this.sessionId} has ended.`);
    this.#init.parking.drop(this);
    const turn = this.#turn;
    if (!turn) {
      // The turn was lost with its process (a transcript resume): re-drive it from the transcript.
      await this.#start(options);
      const fresh = this.#begin(options.emit, options.abortSignal);
      fresh.emit({ type: "stream-start" });
      fresh.queued++;
      this.#inbox.push("Continue where you left off.");
      return this.#control(fresh);
    }
    // The suspended (or paused) turn's control is done; the continued one has its own.
    turn.done.resolve();
    turn.done = deferred();
    turn.emit = options.emit;
    this.#watchAbort(turn, options.abortSignal);
    this.#listening = true;
    for (const part of this.#held.splice(0)) options.emit(part);
    return this.#control(turn);
  }

  #begin(emit: Emit, abort: AbortSignal | undefined): Turn {
    const kinds: ToolKinds = {
      isHost: (name) => this.#hostTools.has(name),
      isDeclared: (name) => this.#init.declared.has(name),
      hostOutput: (id) => this.#hostOutputs.get(id),
    };
    const forward: Emit = (part) => {
      if (!this.#listening) return void this.#held.push(part);
      turn.emit(part);
      if (part.type === "finish-step") this.#sinceStep = [];
      else this.#sinceStep.push(part);
    };
    const turn: Turn = {
      translator: new TurnTranslator(forward, kinds, this.#usage),
      emit,
      done: deferred(),
      queued: 0,
    };
    this.#turn = turn;
    this.#listening = true;
    this.#watchAbort(turn, abort);
    return turn;
  }

  #watchAbort(turn: Turn, signal: AbortSignal | undefined) {
    this.#unwatch(turn);
    if (!signal) return;
    turn.abort = signal;
    const stop = () => {
      if (this.#turn !== turn) return;
      for (const answer of this.#approvals.values())
        answer({ behavior: "deny", message: "The turn was aborted.", interrupt: true });
      void this.#query?.interrupt();
    };
    turn.unwatch = () => signal.removeEventListener("abort", stop);
    if (signal.aborted) stop();
    else signal.addEventListener("abort", stop, { once: true });
  }

  /**
   * Stop following the signal of the stream that asked the host: HarnessAgent ends that stream
   * when the turn pauses for the host's answer, and its signal (a finished HTTP request's) must
   * not abort the paused turn. The stream that answers brings its own.
   */
  #unwatch(turn: Turn) {
    turn.unwatch?.();
    turn.unwatch = undefined;
    turn.abort = undefined;
  }

  #control(turn: Turn): HarnessV1PromptControl {
    return {
      done: turn.done.promise,
      submitToolResult: async ({ toolCallId, output, isError }) => {
        if (output !== undefined && output !== null)
          this.#hostOutputs.set(toolCallId, output as NonNullable<JSONValue>);
        this.#hostAnswer(toolCallId).resolve({ output, ...(isError ? { isError: true } : {}) });
      },
      submitToolApproval: async ({ approvalId, approved, reason }) => {
        const answer = this.#approvals.get(approvalId);
        if (!answer) return;
        this.#approvals.delete(approvalId);
        answer(
          approved
            ? { behavior: "allow" }
            : {
                behavior: "deny",
                message: reason ? `The user denied this call: ${reason}` : "The user denied this call.",
              },
        );
      },
      submitUserMessage: async (text) => {
        if (this.#turn !== turn) throw new Error(`ubiquityHarness: session ${this.sessionId} has no turn in progress.`);
        turn.queued++;
        this.#inbox.push(text);
      },
    };
  }

  #hostAnswer(toolCallId: string) {
    let entry = this.#hostAnswers.get(toolCallId);
    if (!entry) {
      let resolve!: (a: HostSubmission) => void;
      const promise = new Promise<HostSubmission>((r) => (resolve = r));
      entry = { promise, resolve };
      this.#hostAnswers.set(toolCallId, entry);
    }
    return entry;
  }

  /** What the host submits for `toolCallId` (undefined when `signal` aborts first). */
  #awaitSubmission(toolCallId: string, signal: AbortSignal): Promise<HostSubmission | undefined> {
    const aborted = new Promise<undefined>((resolve) => {
      if (signal.aborted) resolve(undefined);
      else signal.addEventListener("abort", () => resolve(undefined), { once: true });
    });
    return Promise.race([this.#hostAnswer(toolCallId).promise, aborted]).finally(() =>
      this.#hostAnswers.delete(toolCallId),
    );
  }

  /** A host tool's call: wait for the host's result (or the run's abort). */
  #awaitHost = async (toolCallId: string, signal: AbortSignal): Promise<ToolOutput> => {
    const answer = await this.#awaitSubmission(toolCallId, signal);
    if (!answer) return { content: "Not run: the turn was aborted before the host answered.", isError: true };
    const content = typeof answer.output === "string" ? answer.output : (JSON.stringify(answer.output) ?? "");
    return { content, ...(answer.isError ? { isError: true } : {}) };
  };

  /** An ask of Ubiquity's permission engine, as the harness's approval request (or answered by the mode). */
  #ask = async (
    toolName: string,
    input: Record<string, unknown>,
    context: { signal: AbortSignal; toolUseId: string },
  ): Promise<PermissionResult> => {
    // AskUserQuestion went to the host as `askUserQuestions`: its answer is the host's tool result.
    if (toolName === ASK_USER && this.#turn?.translator.announced(context.toolUseId)) {
      this.#unwatch(this.#turn);
      const answer = await this.#awaitSubmission(context.toolUseId, context.signal);
      return answer
        ? answerFromHost(input, answer.output)
        : { behavior: "deny", message: "The run was aborted while waiting for the user's answers." };
    }
    if (this.#init.permissionMode === "allow-all") {
      // HarnessAgent sends no approvals under allow-all (Ubiquity runs in bypassPermissions): what still asks is denied.
      return {
        behavior: "deny",
        message: `${toolName} needs approval (an ask rule, a sensitive path or the permission mode says so), and the harness's permissionMode allow-all takes no approvals, so it was denied. Run the HarnessAgent with permissionMode "allow-reads" or "allow-edits" to be asked.`,
      };
    }
    const turn = this.#turn;
    if (!turn?.translator.announced(context.toolUseId)) {
      return {
        behavior: "deny",
        message:
          "This call needs approval, and the harness host was not shown it (a subagent's call), so it was denied.",
      };
    }
    const approvalId = `approval-${context.toolUseId}`;
    return new Promise<PermissionResult>((resolve) => {
      const settle = (answer: PermissionResult) => {
        this.#approvals.delete(approvalId);
        resolve(answer);
      };
      this.#approvals.set(approvalId, settle);
      context.signal.addEventListener(
        "abort",
        () => settle({ behavior: "deny", message: "The run was aborted while waiting for approval." }),
        { once: true },
      );
      this.#unwatch(turn);
      turn.translator.approval(approvalId, context.toolUseId);
    });
  };

  // ── the live Ubiquity session ─────────────────────────────────────

  /** Start the live session at the first turn (with that turn's model, instructions and tools); later turns get warnings for what cannot change. */
  async #start(turn: {
    model?: string;
    instructions?: string;
    tools: readonly HarnessV1ToolSpec[];
    skills?: readonly unknown[];
  }): Promise<HarnessV1CallWarning[]> {
    const warnings: HarnessV1CallWarning[] = [];
    if (turn.skills?.length)
      warnings.push({
        type: "unsupported-setting",
        setting: "skills",
        details: "Ubiquity loads skills from its own `skills`/`skillSources` options.",
      });
    const toolKey = JSON.stringify(turn.tools.map((t) => t.name).sort());
    if (this.#started) {
      if (turn.model && turn.model !== this.#started.model) {
        await this.#query!.setModel(turn.model);
        this.#started.model = turn.model;
      }
      if ((turn.instructions ?? undefined) !== this.#started.instructions) {
        warnings.push({
          type: "unsupported-setting",
          setting: "instructions",
          details: "A live Ubiquity session keeps the instructions it started with.",
        });
      }
      if (toolKey !== this.#started.tools)
        warnings.push({
          type: "unsupported-setting",
          setting: "tools",
          details: "A live Ubiquity session keeps the host tools it started with.",
        });
      return warnings;
    }
    const { options, permissionMode, disallowed } = this.#init;
    for (const t of turn.tools) this.#hostTools.add(t.name);
    const append = [options.appendSystemPrompt, turn.instructions].filter(Boolean).join("\n\n");
    const query = summon(this.#inbox, {
      ...options,
      cwd: this.#init.cwd,
      ...(turn.model ? { model: turn.model } : {}),
      ...(append ? { appendSystemPrompt: append } : {}),
      includePartialMessages: true,
      ...(this.#init.resume ? { resume: this.#init.resume } : { sessionId: this.#ubiquitySessionId }),
      permissionMode: options.permissionMode ?? UBIQUITY_MODE[permissionMode],
      ...(disallowed.length ? { disallowedTools: [...(options.disallowedTools ?? []), ...disallowed] } : {}),
      canUseTool: this.#ask,
      plugins: [
        ...(options.plugins ?? []),
        ...(turn.tools.length ? [hostToolsPlugin(turn.tools, this.#awaitHost)] : []),
      ],
    });
    this.#query = query;
    this.#started = {
      model: turn.model ?? (typeof options.model === "string" ? options.model : undefined),
      instructions: turn.instructions,
      tools: toolKey,
    };
    this.#reading = this.#read(query);
    return warnings;
  }

  async #read(query: Query): Promise<void> {
    try {
      for await (const message of query) this.#dispatch(message);
    } catch (error) {
      this.#turn?.done.reject(error);
    } finally {
      this.#closed = true;
      const turn = this.#turn;
      this.#turn = undefined;
      turn?.done.reject(
        new Error(`ubiquityHarness: the Ubiquity session ${this.#ubiquitySessionId} ended during the turn.`),
      );
    }
  }

  #dispatch(m: Message) {
    if (m.type === "system" && m.subtype === "init" && m.agentId === undefined) this.#ubiquitySessionId = m.sessionId;
    const turn = this.#turn;
    if (!turn) return;
    if (m.type === "user" && m.agentId === undefined) turn.queued = Math.max(0, turn.queued - 1);
    const result = turn.translator.push(m);
    if (m.type === "tool_result") this.#hostOutputs.delete(m.toolUseId);
    if (!result) return;
    this.#usage = result.usage;
    const aborted = turn.abort?.aborted === true;
    // A message the host sent during the turn that has not entered yet starts the next stretch: still this turn.
    if (turn.queued > 0 && !aborted && !result.isError) return;
    this.#turn = undefined;
    this.#approvals.clear();
    if (result.isError) {
      turn.translator.fail(aborted ? (turn.abort!.reason ?? new Error(result.result)) : new UbiquityTurnError(result));
    } else turn.translator.finish(result);
    turn.done.resolve();
  }

  // ── lifecycle ─────────────────────────────────────────────────────

  async doCompact(): Promise<void> {
    const { HarnessCapabilityUnsupportedError } = await import("@ai-sdk/harness");
    throw new HarnessCapabilityUnsupportedError({
      message: "ubiquityHarness compacts on its own (autoCompact); it has no manual compaction.",
      harnessId: this.#init.harnessId,
    });
  }

  #state(): UbiquityHarnessState {
    return { ubiquitySessionId: this.#ubiquitySessionId };
  }

  #park() {
    this.#init.parking.park(this, this.#init.parkedTimeoutMs);
  }

  async doSuspendTurn(): Promise<HarnessV1ContinueTurnState> {
    // Stop delivering: what the turn emits meanwhile is held for `doContinueTurn`; the turn's `done` resolves cleanly.
    // HarnessAgent suspends at a stop condition after a step boundary (dropping what it had not
    // consumed since): those parts go out again. A turn paused for the host's answer lost nothing.
    if (this.#approvals.size === 0 && this.#hostAnswers.size === 0) this.#held.unshift(...this.#sinceStep);
    this.#sinceStep = [];
    this.#listening = false;
    this.#turn?.done.resolve();
    this.#park();
    return {
      type: "continue-turn",
      harnessId: this.#init.harnessId,
      specificationVersion: "harness-v1",
      data: this.#state(),
    };
  }

  async doDetach(): Promise<HarnessV1ResumeSessionState> {
    this.#park();
    return {
      type: "resume-session",
      harnessId: this.#init.harnessId,
      specificationVersion: "harness-v1",
      data: this.#state(),
    };
  }

  async doStop(): Promise<HarnessV1ResumeSessionState> {
    const state = this.#state();
    await this.#close();
    return { type: "resume-session", harnessId: this.#init.harnessId, specificationVersion: "harness-v1", data: state };
  }

  async doDestroy(): Promise<void> {
    await this.#close();
  }

  async #close() {
    this.#init.parking.drop(this);
    for (const answer of this.#approvals.values()) answer({ behavior: "deny", message: "The session was closed." });
    this.#inbox.end();
    this.#query?.close();
    await this.#reading;
    this.#closed = true;
  }
}
