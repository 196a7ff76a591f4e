/**
 * Claude Code's `asyncRewake`: a hook started and not waited for whose report (exit 2 and its
 * stderr, or a JSON block or context) still reaches the model. The report waits in the session's
 * queue for the main conversation's next tool result or prompt, as a background task's end does;
 * a live session that sits idle between messages is woken by it: the report enters as the next
 * message, as Claude Code wakes an idle session.
 */
import type { KernelEvent, RunContext } from "../../src/index";

const queues = new WeakMap<RunContext, string[]>();
/** Main conversations of live sessions whose last stretch of work ended (a `result`), waiting for a message. */
const idle = new WeakSet<RunContext>();

/** A live session's input, which takes messages from outside (the session driver's queue). */
type Wakeable = { push(input: { type: "user"; text: string }): void; readonly ended: boolean };

function rootOf(run: RunContext): RunContext {
  let root = run;
  while (root.parent) root = root.parent;
  return root;
}

/** Queue `text` for the main conversation of `run`'s session (an idle live session takes it now). */
export function queueRewake(run: RunContext, text: string): void {
  const root = rootOf(run);
  const queue = queues.get(root) ?? [];
  queue.push(text);
  queues.set(root, queue);
  if (idle.has(root)) wake(root);
}

/** What waits for `run` (the main conversation only; a subagent's model never takes it), or undefined. */
export function takeRewakes(run: RunContext): string | undefined {
  if (run.parent) return undefined;
  const queue = queues.get(run);
  if (!queue?.length) return undefined;
  queues.delete(run);
  return queue.join("\n\n");
}

/**
 * Follows whether the main conversation of a live session is idle: a `result` ends a stretch of
 * work (what waits then wakes it), any other message of it means work goes on.
 */
export function watchIdle(event: KernelEvent, run: RunContext | undefined): void {
  if (event.type !== "message" || !run || run.parent || !wakeable(run)) return;
  if (event.message.type !== "result") {
    idle.delete(run);
    return;
  }
  idle.add(run);
  if (queues.get(run)?.length) wake(run);
}

/** The waiting reports enter the idle session as its next message. */
function wake(root: RunContext): void {
  const input = wakeable(root);
  const text = input && !input.ended ? takeRewakes(root) : undefined;
  if (!input || text === undefined) return;
  idle.delete(root);
  input.push({ type: "user", text });
}

function wakeable(run: RunContext): Wakeable | undefined {
  const input = run.input as Partial<Wakeable> | undefined;
  return typeof input?.push === "function" ? (input as Wakeable) : undefined;
}
