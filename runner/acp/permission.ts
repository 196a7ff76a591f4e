/**
 * Approvals through the editor: a call that needs one becomes `session/request_permission`
 * (allow once, allow always, reject once, reject always), and the answer is what `canUseTool`
 * returns. "Always" keeps the rules the engine suggested for the call as session rules — the
 * terminal's path (runner/approver.ts) — so later calls they cover are not asked about; a call
 * with no suggestion is asked every time, and offers no "always".
 */
import type {
  AgentContext,
  PermissionOption,
  RequestPermissionRequest,
  ToolCallContent,
  ToolCallUpdate,
} from "@agentclientprotocol/sdk";
import type { CanUseTool } from "../../sdk/facade";
import { describeError } from "../../src/errors";
import { alwaysRules, describeRule, oneAtATime } from "../approver";
import { editedText, type FileDiff } from "./editor-plugin";
import { commandBlock, toolKind, toolLocations, toolTitle } from "./tool-calls";

/** What the approver needs of its session. */
export interface ApprovalSession {
  readonly id: string;
  readonly cwd: string;
  readonly client: AgentContext;
  readonly diffs: ReadonlyMap<string, FileDiff>;
  /** Resolves once the client was told about the call (its `tool_call` went out before the question). */
  announced(toolUseId: string): Promise<void>;
  /** The client cancelled the prompt turn (it answers an open question "cancelled" only then). */
  cancel(): void;
  /** Mask secrets in what goes to the client. */
  redact<T>(value: T): T;
}

/** The diff a Write or Edit will make, for the question. */
function proposedDiff(toolName: string, input: Record<string, unknown>, diff: FileDiff | undefined): ToolCallContent[] {
  if (!diff) return [];
  const newText =
    toolName === "Write"
      ? typeof input.content === "string"
        ? input.content
        : undefined
      : editedText(diff.oldText, input);
  return newText === undefined ? [] : [{ type: "diff", path: diff.path, oldText: diff.oldText, newText }];
}

/** A Bash call's command whole, for the question (its title is cut to one line). */
function commandText(toolName: string, input: Record<string, unknown>): ToolCallContent[] {
  if (toolName !== "Bash" || typeof input.command !== "string") return [];
  return [{ type: "content", content: { type: "text", text: commandBlock(input.command) } }];
}

/** An MCP server's question (`McpElicitation`), in its words with its URL: the editor has no form, so it can accept a URL or decline. */
function elicitationText(toolName: string, input: Record<string, unknown>): ToolCallContent[] {
  if (toolName !== "McpElicitation" || typeof input.message !== "string") return [];
  const url = input.mode === "url" && typeof input.url === "string" ? `\n${input.url}` : "";
  return [
    {
      type: "content",
      content: { type: "text", text: `MCP server "${String(input.server)}" asks: ${input.message}${url}` },
    },
  ];
}

/** A `canUseTool` that asks the editor, one question at a time. */
export function editorApprover(session: ApprovalSession): CanUseTool {
  const allowed = alwaysRules();
  const rejected = alwaysRules();
  return oneAtATime(async (toolName, input, ctx) => {
    const rules = ctx.suggestions;
    if (allowed.covers(rules)) return { behavior: "allow" };
    if (rejected.covers(rules))
      return { behavior: "deny", message: "The user rejected calls like this one for the rest of the session." };
    await session.announced(ctx.toolUseId);
    const always = rules.map((r) => describeRule(r, input)).join(", ");
    const options: PermissionOption[] = [
      { optionId: "allow_once", name: "Allow", kind: "allow_once" },
      ...(rules.length
        ? [{ optionId: "allow_always", name: `Always allow ${always}`, kind: "allow_always" as const }]
        : []),
      { optionId: "reject_once", name: "Reject", kind: "reject_once" },
      ...(rules.length
        ? [{ optionId: "reject_always", name: `Always reject ${always}`, kind: "reject_always" as const }]
        : []),
    ];
    const toolCall: ToolCallUpdate = {
      toolCallId: ctx.toolUseId,
      title: toolTitle(toolName, input, session.cwd),
      kind: toolKind(toolName),
      status: "pending",
      rawInput: input,
      locations: toolLocations(input, session.cwd),
      content: [
        ...proposedDiff(toolName, input, session.diffs.get(ctx.toolUseId)),
        ...commandText(toolName, input),
        ...elicitationText(toolName, input),
      ],
    };
    let optionId: string | undefined;
    try {
      const params: RequestPermissionRequest = session.redact({ sessionId: session.id, toolCall, options });
      const answer = await session.client.request("session/request_permission", params, {
        cancellationSignal: ctx.signal,
      });
      optionId = answer.outcome.outcome === "selected" ? answer.outcome.optionId : undefined;
    } catch (error) {
      if (ctx.signal.aborted)
        return {
          behavior: "deny",
          message: `The prompt was cancelled while ${toolName} waited for approval.`,
          interrupt: true,
        };
      return {
        behavior: "deny",
        message: `The editor could not ask for approval of ${toolName}, so it was denied: ${describeError(error)}`,
      };
    }
    if (optionId === "allow_always") allowed.remember(rules);
    if (optionId === "reject_always") rejected.remember(rules);
    if (optionId === "allow_once" || optionId === "allow_always") return { behavior: "allow" };
    // Cancelled: the prompt is being cancelled, so the run stops rather than going on without the call.
    if (optionId === undefined) session.cancel();
    if (optionId === undefined)
      return { behavior: "deny", message: `The user cancelled the approval of ${toolName}.`, interrupt: true };
    return { behavior: "deny", message: "The user rejected this call." };
  });
}
