/**
 * The tool funnel: every tool call (built-in, custom, MCP) goes through the same steps, and
 * every `tool_use` is answered by exactly one `tool_result` on every path.
 *
 * validate (schema, then the tool's validateInput) → tool.beforeCall (rewrite / block) →
 * tool.permission (votes; a deny is final) → the tool's preconditions, then tool.ask (when the
 * verdict is ask) → tool.allowed (the verdict is final) → execute → tool.afterCall. Execute is bounded by a time limit and the run's abort (tool-bound.ts). `beforeCall` runs before the permission vote so that permission judges the
 * input that will actually run (a PreToolUse rewrite cannot smuggle anything past the rules).
 */
import { z } from "zod";
import type { ToolResultPart } from "ai";
import { chargeUsage, type RunContext } from "./run";
import type { Tool, ToolContext } from "./tool";
import type { ToolCall as FunnelCall, PermissionVerdict } from "./hooks";
import type { ToolOutput, ToolResultMessage } from "./messages";
import { describeError, PluginError } from "./errors";
import { UserInterrupt } from "./live";
import { boundedCall } from "./tool-bound";

/** Default cap on a tool result's content as the model sees it. */
export const DEFAULT_MAX_RESULT_CHARS = 30_000;

/** A tool call as the model made it. */
export interface RawToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
  /** Set when the call must not run (its response was cut by maxTokens): answered with this error. */
  refusal?: string;
}

/** What one call produced: the stream message and the part that goes back to the model. */
export interface CallOutcome {
  message: ToolResultMessage;
  part: ToolResultPart;
}

/** Build the context a tool call sees. */
export function toolContext(run: RunContext, toolUseId: string): ToolContext {
  return {
    cwd: run.cwd,
    roots: run.roots,
    abortSignal: run.abortSignal,
    sessionId: run.sessionId,
    toolUseId,
    env: run.options.env ?? {},
    subprocessEnv: run.options.subprocessEnv ?? "scrubbed",
    logger: run.logger,
    run,
  };
}

/**
 * Cut `content` to `limit` characters: the head and the tail with a marker between saying how
 * much was cut. One policy for every tool's long output (Bash captures the same way): the end of
 * an output — the error, the summary line, the failing test — is as telling as its start.
 */
export function capContent(content: string, limit: number): string {
  if (content.length <= limit) return content;
  const head = Math.ceil(limit / 2);
  const tail = limit - head;
  const cut = content.length - limit;
  const marker = `\n\n[… ${cut} characters cut from the middle: the output was ${content.length} characters; the first ${head} and the last ${tail} are shown …]\n\n`;
  return `${content.slice(0, head)}${marker}${tail > 0 ? content.slice(-tail) : ""}`;
}

function parseInput(
  tool: Tool,
  input: unknown,
): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  const result = tool.inputSchema.safeParse(input);
  if (!result.success)
    return { ok: false, error: `Invalid arguments for ${tool.name}: ${z.prettifyError(result.error)}` };
  const value = result.data;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, error: `Invalid arguments for ${tool.name}: expected an object` };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/** True when this call may run in parallel with its neighbours. */
export function isConcurrencySafe(tools: ReadonlyMap<string, Tool>, call: RawToolCall): boolean {
  const tool = tools.get(call.toolName);
  if (!tool) return false;
  const parsed = tool.inputSchema.safeParse(call.input);
  if (!parsed.success) return false;
  try {
    return tool.isConcurrencySafe(parsed.data) === true;
  } catch {
    return false;
  }
}

/** Run one call through the funnel. Never throws: every failure becomes an error result. */
export async function runToolCall(
  run: RunContext,
  tools: ReadonlyMap<string, Tool>,
  raw: RawToolCall,
): Promise<CallOutcome> {
  const started = performance.now();
  const { toolCallId: toolUseId, toolName } = raw;
  const hooks = run.kernel.hooks;
  let announced = false;
  const announce = (input: unknown) => {
    if (announced) return;
    announced = true;
    chargeUsage(run, { toolCalls: 1 });
    run.emit({ type: "tool_use", toolName, toolInput: input, toolUseId });
  };
  const finish = (output: ToolOutput, input: unknown, tool?: Tool): CallOutcome => {
    announce(input);
    const isError = output.isError === true;
    const content = typeof output.content === "string" ? output.content : String(output.content);
    const message = run.emit({
      type: "tool_result",
      toolName,
      toolUseId,
      output: { content, isError, metadata: output.metadata ?? {} },
      durationMs: Math.round((performance.now() - started) * 1000) / 1000,
    }) as ToolResultMessage;
    const limit = tool?.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS;
    const value = capContent(content, limit);
    const parts = isError ? undefined : output.parts;
    const sent: ToolResultPart["output"] = isError
      ? { type: "error-text", value }
      : parts?.length
        ? { type: "content", value: [{ type: "text", text: value }, ...parts] }
        : { type: "text", value };
    return { message, part: { type: "tool-result", toolCallId: toolUseId, toolName, output: sent } };
  };
  const refuse = (content: string, input: unknown, tool?: Tool) => finish({ content, isError: true }, input, tool);

  const aborted = () =>
    run.abortSignal.reason instanceof UserInterrupt
      ? "Not run: interrupted by the user."
      : "Run aborted before this tool ran.";
  if (run.abortSignal.aborted) return refuse(aborted(), raw.input);
  if (run.interrupted) return refuse(`Not run: the run was interrupted (${run.interrupted}).`, raw.input);
  if (raw.refusal !== undefined) return refuse(raw.refusal, raw.input, tools.get(toolName));
  const tool = tools.get(toolName);
  if (!tool) {
    const names = [...tools.keys()];
    return refuse(
      `Unknown tool "${toolName}". Available tools: ${names.length ? names.join(", ") : "none"}.`,
      raw.input,
    );
  }
  let parsed = parseInput(tool, raw.input);
  if (!parsed.ok) return refuse(parsed.error, raw.input, tool);
  const context = toolContext(run, toolUseId);
  const call: FunnelCall = { run, tool, toolName, toolUseId, input: parsed.value, context };
  const deny = async (message: string) => {
    const denial = { toolName, toolUseId, toolInput: call.input, message };
    run.permissionDenials.push(denial);
    await hooks.tool.denied.promise(denial, call); // observers: isolated by the kernel
    return refuse(message, call.input, tool);
  };
  let stage = "validateInput";
  try {
    const invalid = await tool.validateInput(call.input, context);
    if (invalid) return refuse(`Invalid arguments for ${toolName}: ${invalid}`, call.input, tool);

    stage = "tool.beforeCall";
    const before = await hooks.tool.beforeCall.promise({ input: call.input }, call);
    if (before.block) return refuse(before.block, before.input, tool);
    if (before.input !== call.input) {
      parsed = parseInput(tool, before.input);
      if (!parsed.ok) return refuse(parsed.error, before.input, tool);
      call.input = parsed.value;
    }

    stage = "tool.permission";
    let verdict: PermissionVerdict = await hooks.tool.permission.promise({ behavior: "allow" }, call);
    if (verdict.behavior === "ask") {
      // Nobody is asked to approve a call its tool would refuse anyway.
      const unmet = await tool.preconditions?.(call.input, context);
      if (unmet) return refuse(unmet, call.input, tool);
      stage = "tool.ask";
      const answer = await hooks.tool.ask.promise(verdict, call);
      if (!answer) {
        verdict = {
          behavior: "deny",
          message: verdict.message ?? `${toolName} needs approval and nothing answered the prompt.`,
        };
      } else if (answer.behavior === "allow") {
        verdict = { behavior: "allow", updatedInput: answer.updatedInput };
      } else {
        verdict = { behavior: "deny", message: answer.message, interrupt: answer.interrupt };
      }
    }
    if (verdict.behavior === "allow" && verdict.updatedInput) {
      // A handler, or the tool's own check, may authorize a rewritten input (the original's updated_input).
      parsed = parseInput(tool, verdict.updatedInput);
      if (!parsed.ok) return refuse(parsed.error, verdict.updatedInput, tool);
      call.input = parsed.value;
    }
    if (verdict.behavior !== "allow") {
      const message = verdict.message || `Permission to use ${toolName} was denied.`;
      if (verdict.interrupt) run.interrupted = message;
      return await deny(message);
    }
    if (run.abortSignal.aborted) return refuse(aborted(), call.input, tool);
    stage = "tool.allowed";
    await hooks.tool.allowed.promise(verdict, call);

    stage = "execute";
    announce(call.input);
    let output: ToolOutput;
    try {
      output = await boundedCall(run, tool, call.input, context);
      if (!output || typeof output.content !== "string") {
        output = {
          content: `${toolName} failed: it returned no content (a tool must return { content: string })`,
          isError: true,
        };
      }
    } catch (error) {
      output = { content: `${toolName} failed: ${describeError(error)}`, isError: true };
    }
    stage = "tool.afterCall";
    output = await hooks.tool.afterCall.promise(output, call);
    return finish(output, call.input, tool);
  } catch (error) {
    // A failing plugin must not leave a tool_use unanswered; a failing permission check denies.
    const who = error instanceof PluginError ? error.message : `${stage}: ${describeError(error)}`;
    run.logger.error(`tool call ${toolName} (${toolUseId}) failed in ${stage}: ${describeError(error)}`);
    if (stage === "tool.permission" || stage === "tool.ask") {
      return await deny(`Permission check failed, so the call was denied: ${who}`);
    }
    return refuse(`${toolName} failed: ${who}`, call.input, tool);
  }
}

/**
 * Run the calls of one model response: consecutive concurrency-safe calls run in parallel,
 * the others one at a time in the model's order. Outcomes come back in call order.
 */
export async function runToolCalls(
  run: RunContext,
  tools: ReadonlyMap<string, Tool>,
  calls: RawToolCall[],
): Promise<CallOutcome[]> {
  const outcomes: CallOutcome[] = [];
  let i = 0;
  while (i < calls.length) {
    if (!isConcurrencySafe(tools, calls[i]!)) {
      outcomes.push(await runToolCall(run, tools, calls[i]!));
      i++;
      continue;
    }
    let j = i;
    while (j < calls.length && isConcurrencySafe(tools, calls[j]!)) j++;
    const batch = calls.slice(i, j);
    outcomes.push(...(await Promise.all(batch.map((c) => runToolCall(run, tools, c)))));
    i = j;
  }
  return outcomes;
}
