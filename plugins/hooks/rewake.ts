/**
 * Claude Code's `asyncRewake`: a hook started and not waited for whose report (exit 2 and its
 * stderr, or a JSON block or context) still reaches the model. The report waits in the session's
 * queue for the main conversation's next tool result or prompt, as a background task's end does.
 */
import type { RunContext } from "../../src/index";

const queues = new WeakMap<RunContext, string[]>();

function rootOf(run: RunContext): RunContext {
  let root = run;
  while (root.parent) root = root.parent;
  return root;
}

/** Queue `text` for the main conversation of `run`'s session. */
export function queueRewake(run: RunContext, text: string): void {
  const root = rootOf(run);
  const queue = queues.get(root) ?? [];
  queue.push(text);
  queues.set(root, queue);
}

/** What waits for `run` (the main conversation only; a subagent's model never takes it), or undefined. */
export function takeRewakes(run: RunContext): string | undefined {
  if (run.parent) return undefined;
  const queue = queues.get(run);
  if (!queue?.length) return undefined;
  queues.delete(run);
  return queue.join("\n\n");
}
