/**
 * An input rewritten by whoever answered a call's question — a PermissionRequest hook's
 * `updatedInput`, a canUseTool handler's, an MCP permission prompt's — is what runs, and the funnel
 * takes it without another vote (src/funnel.ts). A deny is final whatever answered: so the rewrite
 * is voted on again before it runs, and a deny of it stands (red team zm, ZM1: a trusted project's
 * PermissionRequest hook approved `mkdir` as `touch`, past a deny rule of `touch` — a managed
 * policy's too). Its question needs no second answer: the answerer wrote the input it approved.
 */
import type { Kernel, ToolCall } from "../../src/index";

/** The input each call's vote judged (set by the vote itself, so a vote on the rewrite records it too). */
const judged = new WeakMap<ToolCall, unknown>();

/** Record the input a call's vote judged. */
export function recordVoted(call: ToolCall): void {
  judged.set(call, call.input);
}

/** Before an allowed call runs: an input other than the one voted on is voted on again; denied, it does not run. */
export function tapRewrites(kernel: Kernel, name: string): void {
  kernel.hooks.tool.allowed.tapPromise(name, async (_verdict, call) => {
    if (!judged.has(call) || judged.get(call) === call.input) return;
    const vote = await kernel.hooks.tool.permission.promise({ behavior: "allow" }, call);
    if (vote.behavior !== "deny") return;
    // The funnel makes the throw a denial: listed in permissionDenials, told to tool.denied's observers.
    throw new Error(`the input its approval rewrote it to is denied: ${vote.message ?? `${call.toolName} is denied`}`);
  });
}
