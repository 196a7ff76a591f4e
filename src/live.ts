/**
 * Live input: the user messages of a session that stays open (`summon()` with an async iterable
 * prompt). The loop takes what is queued at each turn boundary and waits on `next()` between
 * stretches of work; an interrupt aborts the stretch in progress. The queue itself is the
 * session driver's (`sdk/live.ts`); the kernel knows only what the loop asks of it.
 */
import type { UserContent } from "ai";

/** The parts a user message may carry (text and image parts, as the AI SDK's user content). */
export type UserContentParts = Exclude<UserContent, string>;

/** A user message as the loop takes it. */
export interface UserTurn {
  text: string;
  content?: UserContentParts;
  interrupt?: boolean;
}

/** Raised (as the abort reason) when a user message interrupts the work in progress. */
export class UserInterrupt extends Error {
  constructor() {
    super("Interrupted by the user.");
    this.name = "UserInterrupt";
  }
}

/** A live session's input as the loop drains it. */
export interface RunInput {
  /** Why the input ended early (its iterable threw, or yielded a non-message): the session ends with an error result naming it. */
  readonly failure?: unknown;
  /** True once the input ended and nothing is left in the queue. */
  readonly ended: boolean;
  /** Every queued message, without waiting. */
  take(): UserTurn[];
  /** The next message and every one queued behind it, waiting for one; empty once the input ended. */
  next(): Promise<UserTurn[]>;
  /** Start a stretch of work: a signal aborted by `base` or by an interrupt. */
  begin(base: AbortSignal): AbortSignal;
}
