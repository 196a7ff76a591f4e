/**
 * Writes one session's transcript as the run proceeds: one record per persisted message,
 * chained through `parentUuid` (the main conversation and each subagent have their own chain).
 * A prompt is held until `turn.prompt` has run, so its record carries the context the model
 * saw ahead of it (or why it was refused); a summary's record is held until the next request,
 * so it carries the compacted history replay can start from. A microcompaction record names the
 * results it cleared, nothing more (a copy of the history per microcompaction made a 1,000-turn
 * transcript 72 times as large as without microcompaction; test/sessions/microcompact-size).
 *
 * Every append names the record the writer wrote last (the session's last record when it
 * opened): a store refuses it when another writer appended since (`StaleWriterError`), the
 * writer stops, and the plugin ends the run at its next tool call or model request. Appends are
 * issued in order without waiting (a database pipelines them); `flush()` waits for them.
 */
import type { ModelMessage } from "ai";
import type { Logger, TurnPrompt, UserMessage } from "../../src/index";
import { describeError, learnedSecrets } from "../../src/index";
import { redactStrings } from "../_kits/redaction/index";
import { isStaleWriterError, type SessionAppender, type StaleWriterError, type TranscriptEntry } from "./backend";
import type { PersistedMessage, TranscriptNote, TranscriptRecord } from "./records";

const MAIN = "";

/** The transcript writer of one session. */
export class TranscriptWriter {
  #file: SessionAppender;
  #opened = false;
  #failed = false;
  #stale: StaleWriterError | undefined;
  #writeError: unknown;
  /** The last record of each chain (main conversation, each subagent). */
  #last = new Map<string, string | null>();
  /** The last record this writer wrote to the session (any chain): what the store must still have last. */
  #tip: string | null = null;
  /** Appends not yet confirmed. */
  #inflight = new Set<Promise<void>>();
  /** Prompts emitted but not yet through `turn.prompt` (several when runs share the session). */
  #pending: UserMessage[] = [];
  /** Compaction records waiting for the history the next request carries. */
  #compactions: PersistedMessage[] = [];

  constructor(
    file: SessionAppender,
    private readonly cwd: string,
    private readonly logger: Logger,
    /** Strings masked in every record (the run's keys: options and environment credentials). */
    private readonly secrets: readonly string[] = [],
  ) {
    this.#file = file;
  }

  /** The run's secrets and those learned since it started (`noteSecret`), longest first. */
  #secrets(): readonly string[] {
    const learned = learnedSecrets();
    if (learned.length === 0) return this.secrets;
    return [...new Set([...this.secrets, ...learned])].sort((a, b) => b.length - a.length);
  }

  /** Where the transcript is kept. */
  get path(): string {
    return this.#file.path;
  }

  /** Set once the store refused this writer: the run must stop. */
  get stale(): StaleWriterError | undefined {
    return this.#stale;
  }

  /** Set when the store could not be written (a full disk, an I/O error, a database gone): the transcript stops there. */
  get writeError(): unknown {
    return this.#writeError;
  }

  /** Set when `open()` could not read the session's last record (the writer then writes nothing). */
  openError: unknown;

  /**
   * Learn the session's last record (a resumed transcript's first new record chains onto it).
   * Nothing is created. `known`: the last record of what the run replayed — its first append must
   * follow exactly that, so a record another writer added after the replay is refused, not skipped over.
   * `fresh`: a new session, whose first record must be its first (one already there is another
   * run's); the store is still asked, so one that cannot be reached says so here.
   */
  async open(known?: string | null, fresh = false): Promise<void> {
    try {
      const stored = known !== undefined ? known : await this.#file.last();
      const last = fresh ? null : stored;
      this.#last.set(MAIN, last);
      this.#tip = last;
    } catch (error) {
      this.openError = error;
      this.#fail(error);
    }
  }

  /** Wait until every append issued so far is stored or refused. */
  async flush(): Promise<void> {
    while (this.#inflight.size > 0) await Promise.all([...this.#inflight]);
  }

  /** Take one message of the run (called from the `event` firehose). */
  message(message: PersistedMessage): void {
    if (message.type === "user" && message.agentId === undefined) {
      this.#pending.push(message);
      return;
    }
    // A summary replaces the history: its record is held for the history the next request
    // carries. A microcompaction only cleared results, and its message names them: recorded as is.
    if (message.type === "system" && message.subtype === "compact_boundary" && message.agentId === undefined) {
      this.#compactions.push(message);
      return;
    }
    if (message.type === "result" && message.agentId === undefined) {
      this.#flushPending("the run ended before the prompt reached the model");
      this.#flushCompactions();
      // A run that failed before its prompt leaves no transcript of a lone result.
      if (!this.#opened) return;
    }
    this.#write(message);
  }

  /** The prompt as it leaves `turn.prompt`: record the held prompt with its context. */
  prompt(prompt: TurnPrompt): void {
    const at = Math.max(
      0,
      this.#pending.findIndex((m) => m.text === prompt.text),
    );
    const [held] = this.#pending.splice(at, 1);
    if (!held) return;
    // A tap may have rewritten the prompt (a slash command's expansion): record what the model got, so a resume replays it.
    const message =
      held.text === prompt.text
        ? held
        : { ...held, text: prompt.text, ...(prompt.content ? { content: prompt.content } : {}) };
    this.#write(message, {
      ...(prompt.context.length > 0 ? { context: [...prompt.context] } : {}),
      ...(prompt.blocked !== undefined ? { blocked: prompt.blocked } : {}),
    });
  }

  /** True while compaction records wait for `checkpoint()`. */
  get compacted(): boolean {
    return this.#compactions.length > 0;
  }

  /** The history after a compaction, as the next request carries it: written with the compaction record. */
  checkpoint(history: readonly ModelMessage[]): void {
    const last = this.#compactions.at(-1);
    if (!last) return;
    this.#flushCompactions(last);
    // A deep copy: the loop keeps appending to its history after this.
    this.#write(last, { history: JSON.parse(JSON.stringify(history)) as ModelMessage[] });
  }

  /**
   * Keep a plugin's note in the transcript (not a record: nothing chains onto it). A note may come
   * before the first record (the fleet names a session's job before the run writes anything, so
   * a job that dies after its first record is still known as the session's owner).
   */
  note(sessionId: string, kind: string, data: Record<string, unknown>): void {
    if (this.#failed) return;
    const note: TranscriptNote = { type: "note", kind, sessionId, timestamp: new Date().toISOString(), data };
    this.#append(redactStrings(note, this.#secrets()));
  }

  /** Flush and close. */
  async close(): Promise<void> {
    this.#flushPending("the run ended before the prompt reached the model");
    this.#flushCompactions();
    await this.flush();
    await this.#file
      .close()
      .catch((error: unknown) =>
        this.logger.debug(`[ubiquity:sessions] closing ${this.path}: ${describeError(error)}`),
      );
  }

  /** Write the held compaction records (all but `except`) without a history. */
  #flushCompactions(except?: PersistedMessage) {
    for (const message of this.#compactions.splice(0)) if (message !== except) this.#write(message);
  }

  #flushPending(reason: string) {
    for (const message of this.#pending.splice(0)) this.#write(message, { blocked: reason });
  }

  #write(message: PersistedMessage, extra: Pick<TranscriptRecord, "context" | "blocked" | "history"> = {}) {
    if (this.#failed) return;
    this.#opened = true;
    const chain = message.agentId ?? MAIN;
    const record: TranscriptRecord = {
      uuid: message.uuid,
      parentUuid: this.#last.get(chain) ?? null,
      sessionId: message.sessionId,
      type: message.type,
      timestamp: new Date().toISOString(),
      cwd: this.cwd,
      message,
      ...extra,
    };
    this.#append(redactStrings(record, this.#secrets()));
    this.#last.set(chain, message.uuid);
    this.#tip = message.uuid;
  }

  #append(entry: TranscriptEntry) {
    if (this.#failed) return;
    let done: Promise<void>;
    try {
      done = this.#file.append(entry, this.#tip);
    } catch (error) {
      done = Promise.reject(error);
    }
    const tracked: Promise<void> = done
      .catch((error: unknown) => this.#fail(error))
      .finally(() => this.#inflight.delete(tracked));
    this.#inflight.add(tracked);
  }

  #fail(error: unknown) {
    if (this.#failed) return;
    // Stop writing: a record after a gap would chain onto one the store lacks. The plugin decides
    // whether the run ends (it does, unless persistSession is "best-effort").
    this.#failed = true;
    if (isStaleWriterError(error)) {
      this.#stale = error;
      this.logger.error(`[ubiquity:sessions] ${error.message}`);
      return;
    }
    this.#writeError = error;
    this.logger.error(
      `[ubiquity:sessions] cannot write ${this.path}, the transcript stops here: ${describeError(error)}`,
    );
  }
}
