/**
 * What other plugins tell the cache-break detector without loading it: a change they made to
 * the prompt's prefix (an MCP server re-listed its tools), named in the next break's message.
 */
import type { Kernel } from "../../src/index";

const notes = new WeakMap<Kernel, string[]>();

/** Say why the prefix changed (`MCP server "docs" changed its tools (tools/list_changed)`); the next break names it. */
export function noteCacheChange(kernel: Kernel, reason: string): void {
  const list = notes.get(kernel) ?? [];
  notes.set(kernel, list);
  if (!list.includes(reason)) list.push(reason);
}

/** The reasons noted since the last call, and forget them. */
export function takeCacheChanges(kernel: Kernel): string[] {
  const list = notes.get(kernel) ?? [];
  notes.delete(kernel);
  return list;
}
