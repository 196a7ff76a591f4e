/**
 * `permissionPromptTool` (claude's `--permission-prompt-tool mcp__<server>__<tool>`): an MCP tool
 * answers the calls that need a decision, where no person can (CI, a bot, a Slack approval). It
 * is called directly — never through the funnel, which would ask about the asking — with
 * Claude Code's input (`tool_name`, `input`, `tool_use_id`), and answers with Claude Code's
 * JSON text: `{"behavior":"allow","updatedInput":{…}}` or `{"behavior":"deny","message":"…"}`.
 * Fail closed: a tool that is missing, fails, or answers anything else denies the call. An allow
 * with `updatedInput` is judged again on the input that will run: the tool answers the ask, it is
 * not above the rules, so a deny rule (`Bash(rm:*)`) holds against a rewrite into what it forbids.
 */
import {
  ASK_STAGE,
  describeError,
  toolContext,
  type Kernel,
  type PermissionResult,
  type PermissionVerdict,
  type ToolCall,
} from "../../src/index";
import { getPermissionsApi } from "../permissions/api";
import { isRecord } from "../_kits/json/index";

/** Claude Code's answer, read strictly: anything but a well-formed allow or deny is a deny naming what came. */
export function readPromptAnswer(tool: string, text: string): PermissionResult {
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    answer = undefined;
  }
  if (
    isRecord(answer) &&
    answer.behavior === "allow" &&
    (answer.updatedInput === undefined || isRecord(answer.updatedInput))
  )
    return { behavior: "allow", ...(answer.updatedInput ? { updatedInput: answer.updatedInput } : {}) };
  if (isRecord(answer) && answer.behavior === "deny")
    return {
      behavior: "deny",
      message: typeof answer.message === "string" && answer.message ? answer.message : `${tool} denied the call.`,
    };
  return {
    behavior: "deny",
    message: `The permission prompt tool ${tool} answered neither {"behavior":"allow"} nor {"behavior":"deny"} (it said: ${JSON.stringify(text.slice(0, 200))}), so the call was denied.`,
  };
}

/** Tap `tool.ask` ahead of the permissions plugin's handler: the named tool answers when it is set. */
export function tapPermissionPromptTool(
  kernel: Kernel,
  owner: string,
  toolOf: (run: ToolCall["run"]) => string | undefined,
): void {
  kernel.hooks.tool.ask.tapPromise(
    { name: owner, stage: ASK_STAGE.HANDLER, before: "ubiquity:permissions" },
    async (verdict: PermissionVerdict, call: ToolCall): Promise<PermissionResult | undefined> => {
      const name = toolOf(call.run);
      // dontAsk never prompts anyone: the permissions plugin denies it.
      if (!name || getPermissionsApi(kernel).modeOf(call.run) === "dontAsk") return undefined;
      const tool = kernel.registries.tools.get(name);
      if (!tool)
        return {
          behavior: "deny",
          message: `${verdict.message ?? `${call.toolName} needs approval.`} The permission prompt tool ${name} is not available (is its MCP server configured and connected?), so the call was denied.`,
        };
      try {
        const output = await tool.call(
          { tool_name: call.toolName, input: call.input, tool_use_id: call.toolUseId },
          toolContext(call.run, `permission_${call.toolUseId}`),
        );
        if (output.isError)
          return { behavior: "deny", message: `The permission prompt tool ${name} failed: ${output.content}` };
        const answer = readPromptAnswer(name, output.content);
        return answer.behavior === "allow" && answer.updatedInput ? await rejudged(kernel, call, name, answer) : answer;
      } catch (error) {
        return { behavior: "deny", message: `The permission prompt tool ${name} failed: ${describeError(error)}` };
      }
    },
  );
}

/** An allow that rewrote the input, judged again on that input: a deny there is the answer. */
async function rejudged(
  kernel: Kernel,
  call: ToolCall,
  name: string,
  answer: PermissionResult & { behavior: "allow" },
): Promise<PermissionResult> {
  const verdict = await kernel.hooks.tool.permission.promise(
    { behavior: "allow" },
    { ...call, input: answer.updatedInput! },
  );
  if (verdict.behavior !== "deny") return answer;
  return {
    behavior: "deny",
    message: `The permission prompt tool ${name} allowed ${call.toolName} with an input of its own, which is denied: ${verdict.message ?? "a deny rule forbids it"}`,
  };
}
