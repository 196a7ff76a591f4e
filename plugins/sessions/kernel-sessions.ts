/**
 * What the sessions plugin keeps per kernel, shared by its steps: the transcripts being written
 * (messages reach `event` without their run, so a session id names the writer; subagents share
 * it, and runs of one kernel resuming the same session share its writer, counted), the sessions
 * a run of this kernel continues, and the sessions API whose store loads answer first.
 */
import { describeError, type Kernel, type PluginContext, PROMPT_STAGE, RunEnd, type RunContext } from "../../src/index";
import { createSessionsApi, type SessionLoader, type SessionsApi } from "./api";
import type { SessionBackend } from "./backend";
import type { SessionsOptions } from "./options";
import type { TranscriptWriter } from "./writer";

/** The plugin's name. */
export const NAME = "ubiquity:sessions";

/**
 * Stage of the `turn.prompt` tap that records the prompt: after every other tap, so the record
 * holds the context the model actually received.
 */
export const RECORD_PROMPT_STAGE = PROMPT_STAGE.RECORD;

/** The plugin's state in one run. */
export interface RunState {
  /** The transcript this run appends to (the loaded one, or the fork's copy). */
  path?: string;
  /** Set for a run that replayed a session: its first prompt absorbs an unanswered last one. */
  resumed?: boolean;
  /** The transcript whose lock this run took (released when its writer closes). */
  locked?: string;
  /** The store the run's session is kept in. */
  store?: SessionBackend;
  /** The session this run continues, claimed in this kernel (stores without lock files). */
  claimed?: string;
  /** The last record of the session as replayed (stores without lock files): the writer's first append must follow it. */
  replayedLast?: string | null;
}

/** The context `apply` hands every step. */
export type SessionsContext = PluginContext<undefined, RunState, SessionsOptions>;

/** A transcript being written, and how many runs of this kernel write it. */
export interface OpenTranscript {
  writer: TranscriptWriter;
  runs: number;
  /** The transcript whose lock was taken for it (released when it closes). */
  locked?: string;
  opened: Promise<void>;
  /** Its write failure was reported in the stream. */
  reported?: boolean;
}

/** One kernel's transcripts, claims and sessions API. */
export class KernelSessions {
  /** The transcripts being written, by session id. */
  readonly writers = new Map<string, OpenTranscript>();
  /** Sessions a run of this kernel continues (stores without locks): a second run forks. */
  readonly claimed = new Set<string>();
  /** The kernel's sessions API (registered on the kernel). */
  readonly api: SessionsApi;

  /** Registers the kernel's sessions API, whose own loader (answering first) is `load`: the store's. */
  constructor(
    readonly kernel: Kernel,
    readonly context: SessionsContext,
    load: (sessions: KernelSessions, ...args: Parameters<SessionLoader>) => ReturnType<SessionLoader>,
  ) {
    this.api = createSessionsApi(
      kernel,
      (sessionId) => this.flush(sessionId),
      (run) => this.transcriptPath(run),
      (request, run) => load(this, request, run),
    );
  }

  /** Wait until what a session's writer was given is stored; throws the store's refusal. */
  async flush(sessionId: string): Promise<void> {
    const open = this.writers.get(sessionId);
    if (!open) return;
    await open.opened;
    await open.writer.flush();
    if (open.writer.stale) throw open.writer.stale;
  }

  /** Where `run`'s session is written; undefined when it keeps none. A subagent's messages go to its session's transcript (subagents share the id). */
  transcriptPath(run: RunContext): string | undefined {
    if (this.context.optionsOf(run).persistSession === false) return undefined;
    return this.context.run(run).path ?? this.writtenAt(run);
  }

  /** The transcript the session of `run` is (or would be) written to. */
  writtenAt(run: RunContext): string {
    return this.writers.get(run.sessionId)?.writer.path ?? this.storeOf(run).pathFor(run.sessionId, run.cwd);
  }

  /** The store of `run`'s session (picked once per run). */
  storeOf(run: RunContext): SessionBackend {
    const state = this.context.run(run);
    state.store ??= this.api.backendFor(run.options, run.cwd);
    return state.store;
  }

  /** The stale-writer refusal of the session `run` writes, if the store refused it. */
  async staleOf(run: RunContext) {
    const open = this.writers.get(run.sessionId);
    if (!open) return undefined;
    await open.opened;
    await open.writer.flush();
    return open.writer.stale;
  }

  /**
   * Why the run must stop, once what it wrote is stored or refused: another writer took the
   * session, or the transcript could not be written — reported once in the stream, and the end
   * of the run unless persistSession is "best-effort" (a run nobody can resume is no success).
   */
  async endOf(run: RunContext): Promise<RunEnd | undefined> {
    if (!this.writers.has(run.sessionId)) return undefined; // nothing written: the hot path of a run without a transcript
    const stale = await this.staleOf(run);
    if (stale) return new RunEnd(stale.message, "error_stale_writer");
    const open = this.writers.get(run.sessionId);
    if (!open || open.writer.writeError === undefined) return undefined;
    const bestEffort = this.context.optionsOf(run).persistSession === "best-effort";
    const error = describeError(open.writer.writeError);
    if (!open.reported) {
      open.reported = true;
      run.emit({ type: "system", subtype: "session_write_failed", path: open.writer.path, error, bestEffort });
    }
    if (bestEffort) return undefined;
    return new RunEnd(
      `The session's transcript could not be written (${open.writer.path}: ${error}), so the run stopped: what it did next could not be resumed. ` +
        `Free the space or fix the store, then resume session ${run.sessionId} (it continues from its last stored record); or set persistSession: "best-effort" to run on without a transcript.`,
      "error_session_write",
    );
  }
}
