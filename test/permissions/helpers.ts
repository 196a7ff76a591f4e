/** Shared fixtures for the permission tests: real temp folders, and one-call runs through summon(). */
import { z } from "zod";
import {
  defineTool,
  summon,
  type CanUseTool,
  type Message,
  type PermissionResult,
  type SummonOptions,
  type ToolPermission,
} from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import permissions from "ubiquity/plugins/permissions";
import { collect, ofType, resultOf } from "../helpers/collect";

export { tempDir } from "../tools/helpers";

/** One tool call for the scripted model. */
export interface Call {
  toolName: string;
  input: Record<string, unknown>;
  id?: string;
}

/**
 * Run `calls` (one model turn) and a final "done" through summon() with the permissions plugin
 * and `options`. Returns the messages, the tool results and the result message.
 */
export async function runCalls(calls: Call[], options: SummonOptions) {
  const model = scriptedModel([{ toolCalls: calls.map((c, i) => ({ ...c, id: c.id ?? `call_${i}` })) }, "done"]);
  const messages: Message[] = await collect(summon("go", { presets: [], plugins: [permissions()], ...options, model }));
  return {
    messages,
    results: ofType(messages, "tool_result"),
    uses: ofType(messages, "tool_use"),
    result: resultOf(messages),
    model,
  };
}

/** A canUseTool that records what it was asked and answers with `answer`. */
export function recordingHandler(
  answer:
    | PermissionResult
    | ((toolName: string, input: Record<string, unknown>) => PermissionResult | Promise<PermissionResult>) = {
    behavior: "allow",
  },
) {
  const asked: { toolName: string; input: Record<string, unknown>; ctx: Parameters<CanUseTool>[2] }[] = [];
  const handler: CanUseTool = async (toolName, input, ctx) => {
    asked.push({ toolName, input, ctx });
    return typeof answer === "function" ? answer(toolName, input) : answer;
  };
  return { handler, asked };
}

/** A tool that records its calls; its read-only flag and permission opinion are configurable. */
export function probeTool(
  name = "Probe",
  opts: {
    readOnly?: boolean;
    permission?: () => ToolPermission;
    ruleContent?: (input: { value: string }) => string[];
  } = {},
) {
  const seen: string[] = [];
  const tool = defineTool({
    name,
    description: "Records the value it was called with.",
    inputSchema: z.object({ value: z.string() }),
    isReadOnly: opts.readOnly ?? false,
    ...(opts.permission ? { checkPermissions: opts.permission } : {}),
    ...(opts.ruleContent ? { permissionRuleContent: opts.ruleContent } : {}),
    execute: ({ value }) => {
      seen.push(value);
      return `ran ${value}`;
    },
  });
  return { tool, seen };
}
