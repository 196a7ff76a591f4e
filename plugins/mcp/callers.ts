/**
 * Which run is calling a server right now. A server's requests and notifications during a call
 * (elicitation, progress, log lines) belong to the run that made the call; the most recent
 * caller answers when several runs share a server.
 */
import type { RunContext } from "../../src/index";
import type { McpConnection } from "./connection";

const callers = new WeakMap<McpConnection, RunContext[]>();
const settlers = new WeakMap<McpConnection, () => Promise<void>>();

/** What a call waits for before its result counts: the server's changes it announced during the call (its tools re-listed). */
export function onSettle(connection: McpConnection, settle: () => Promise<void>): void {
  settlers.set(connection, settle);
}

/** Run `fn` with `run` recorded as a caller of `connection`. */
export async function asCaller<T>(
  connection: McpConnection,
  run: RunContext | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  if (!run) return fn();
  const list = callers.get(connection) ?? [];
  callers.set(connection, list);
  list.push(run);
  try {
    const result = await fn();
    // The SDK hands notifications to their handlers a tick after they arrive, and responses at once:
    // one macrotask later, a tools/list_changed the server sent before its answer has been seen.
    await new Promise((resolve) => setImmediate(resolve));
    await settlers.get(connection)?.();
    return result;
  } finally {
    list.splice(list.lastIndexOf(run), 1);
  }
}

/** The run calling `connection` now (the latest, when several are), if any. */
export function callerOf(connection: McpConnection): RunContext | undefined {
  return callers.get(connection)?.at(-1);
}
