/**
 * Writes one session's transcript as the run proceeds: one record per persisted message,
 * chained through `parentUuid` (the main conversation and each subagent have their own chain).
 * A prompt is held until `turn.prompt` has run, so its record carries the context the model
 * saw ahead of it (or why it was refused); a summary's record is held until the next request,
 * so it carries the compacted history replay can start from. A microcompaction record names the
 * results it cleared, nothing more (a copy of the history per microcompaction made a 1,000-turn
 * transcript 72 times as large as without microcompaction; test/sessions/microcompact-size).
 */
import type { ModelMessage } from "ai";
import type { Logger, TurnPrompt, UserMessage } from "../../src/index";
import { describeError, redactStrings } from "../../src/index";
import { JsonlAppender } from "./jsonl";
import { isRecord, type PersistedMessage, type TranscriptNote, type TranscriptRecord } from "./records";

const MAIN = "";

/** The transcript writer of one session. */
export class TranscriptWriter {
  #file: JsonlAppender;
  #opened = false;
  #failed = false;
  #last = new Map<string, string | null>();
  /** Prompts emitted but not yet through `turn.prompt` (several when runs share the session). */
  #pending: UserMessage[] = [];
  /** Compaction records waiting for the history the next request carries. */
  #compactions: PersistedMessage[] = [];

  constructor(
    path: string,
    private readonly cwd: string,
    private readonly logger: Logger,
    /** Strings masked in every record (the run's keys: options and environment credentials). */
    private readonly secrets: readonly string[] = [],
  ) {
    this.#file = new JsonlAppender(path);
  }

  /** The transcript file. */
  get path(): string {
    return this.#file.path;
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
    const at = Math.max(0, this.#pending.findIndex((m) => m.text === prompt.text));
    const [message] = this.#pending.splice(at, 1);
    if (!message) return;
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

  /** Keep a plugin's note in the transcript (not a record: nothing chains onto it). */
  note(sessionId: string, kind: string, data: Record<string, unknown>): void {
    if (this.#failed || !this.#opened) return;
    try {
      const note: TranscriptNote = { type: "note", kind, sessionId, timestamp: new Date().toISOString(), data };
      this.#file.append(redactStrings(note, this.secrets));
    } catch (error) {
      this.#failed = true;
      this.logger.error(`[ubiquity:sessions] cannot write ${this.#file.path}, the transcript stops here: ${describeError(error)}`);
    }
  }

  /** Flush and close the file. */
  close(): void {
    this.#flushPending("the run ended before the prompt reached the model");
    this.#flushCompactions();
    this.#file.close();
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
    try {
      if (!this.#opened) {
        const last = this.#file.open();
        this.#opened = true;
        // A resumed transcript: the first new record chains onto the last one stored.
        this.#last.set(MAIN, isRecord(last) ? last.uuid : null);
      }
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
      this.#file.append(redactStrings(record, this.secrets));
      this.#last.set(chain, message.uuid);
    } catch (error) {
      // A full disk must not end the run; say so once and stop writing.
      this.#failed = true;
      this.logger.error(`[ubiquity:sessions] cannot write ${this.#file.path}, the transcript stops here: ${describeError(error)}`);
    }
  }
}
