/**
 * The tool funnel: every tool call (built-in, custom, MCP) goes through the same steps, and
 * every `tool_use` is answered by exactly one `tool_result` on every path.
 *
 * validate (schema, then the tool's validateInput) → tool.beforeCall (rewrite / block) →
 * tool.permission (votes; a deny is final) → the tool's preconditions, then tool.ask (when the
 * verdict is ask) → tool.allowed (the verdict is final) → execute → tool.afterCall. Execute is bounded by a time limit and the run's abort (tool-bound.ts). `beforeCall` runs before the permission vote so that permission judges the
 * input that will actually run (a PreToolUse rewrite cannot smuggle anything past the rules).
 */
import type { ToolResultPart } from "ai";
import { chargeUsage, type RunContext } from "./run";
import { z } from "zod";
import type { Tool, ToolContext } from "./tool";
import type { ToolCall as FunnelCall, PermissionVerdict } from "./hooks";
import type { ToolOutput, ToolResultMessage } from "./messages";
import { describeError, PluginError } from "./errors";
import { UserInterrupt } from "./live";
import { boundedCall } from "./tool-bound";
import { redactText, secretsOfRun } from "./redact";

/** Default cap on a tool result's content as the model sees it. */
export const DEFAULT_MAX_RESULT_CHARS = 30_000;

/** A tool call as the model made it. */
export interface RawToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
  /** Set when the call must not run (its response was cut by maxTokens): answered with this error. */
  refusal?: string;
  /** The label of the model whose response made the call: the call counts in its `modelUsage` too. */
  model?: string;
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

/** The call's input as the tool's schema reads it (an object), else why it cannot run. */
function parseInput(tool: Tool, input: unknown): Record<string, unknown> | string {
  // Arguments that did not parse as JSON come as their text (a small model's commonest slip): say so.
  if (typeof input === "string")
    return `Invalid arguments for ${tool.name}: they are not valid JSON; send them as one JSON object. Received: ${input.slice(0, 200)}`;
  const result = tool.inputSchema.safeParse(input);
  if (!result.success) return `Invalid arguments for ${tool.name}: ${z.prettifyError(result.error)}`;
  const value = result.data;
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return `Invalid arguments for ${tool.name}: expected an object`;
  return value as Record<string, unknown>;
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

/** One call's answer: its `tool_use`, announced once, and its one `tool_result`. */
type Answer = ReturnType<typeof answerTo>;

/** The answer of `raw`, a call of `tool` (its `maxResultChars` caps what the model sees). */
function answerTo(run: RunContext, raw: RawToolCall, tool: Tool | undefined) {
  const started = performance.now();
  const { toolCallId: toolUseId, toolName } = raw;
  let announced = false;
  const announce = (input: unknown) => {
    if (announced) return;
    announced = true;
    chargeUsage(run, { toolCalls: 1 }, raw.model);
    run.emit({ type: "tool_use", toolName, toolInput: input, toolUseId });
  };
  const finish = (output: ToolOutput, input: unknown): CallOutcome => {
    announce(input);
    const isError = output.isError === true;
    // What a tool read or ran may hold the run's keys (a command without the sandbox can read them
    // from /proc): the stream, the transcript and the model see them masked.
    const content = redactText(String(output.content), secretsOfRun(run));
    const message = run.emit({
      type: "tool_result",
      toolName,
      toolUseId,
      output: { content, isError, metadata: output.metadata ?? {} },
      durationMs: Math.round((performance.now() - started) * 1000) / 1000,
    }) as ToolResultMessage;
    const value = capContent(content, tool?.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS);
    const parts = isError ? undefined : output.parts;
    const sent: ToolResultPart["output"] = isError
      ? { type: "error-text", value }
      : parts?.length
        ? { type: "content", value: [{ type: "text", text: value }, ...parts] }
        : { type: "text", value };
    return { message, part: { type: "tool-result", toolCallId: toolUseId, toolName, output: sent } };
  };
  return { announce, finish, refuse: (content: string, input: unknown) => finish({ content, isError: true }, input) };
}

/** Why a call is refused before its input is even read (the run stopped, a cut response, an unknown tool). */
function refusedUpFront(run: RunContext, tools: ReadonlyMap<string, Tool>, raw: RawToolCall): string | undefined {
  if (run.abortSignal.aborted) return abortedMessage(run);
  if (run.interrupted) return `Not run: the run was interrupted (${run.interrupted}).`;
  if (raw.refusal !== undefined) return raw.refusal;
  if (tools.has(raw.toolName)) return undefined;
  const names = [...tools.keys()];
  return `Unknown tool "${raw.toolName}". Available tools: ${names.length ? names.join(", ") : "none"}.`;
}

const abortedMessage = (run: RunContext) =>
  run.abortSignal.reason instanceof UserInterrupt
    ? "Not run: interrupted by the user."
    : "Run aborted before this tool ran.";

/** A call on its way through the funnel: its hook payload, its answer, and the step it is at (a failure names it). */
interface Passage {
  call: FunnelCall;
  answer: Answer;
  stage: string;
}

/** Take `input` as the call's input if it still fits the tool's schema; else the refusal. */
function reparse({ call, answer }: Passage, input: Record<string, unknown>): CallOutcome | undefined {
  const parsed = parseInput(call.tool, input);
  if (typeof parsed === "string") return answer.refuse(parsed, input);
  call.input = parsed;
  return undefined;
}

/** When `tool.permission` asks: the tool's preconditions (nobody is asked to approve a call its tool would refuse anyway), then `tool.ask`'s answer. */
async function ask(p: Passage, verdict: PermissionVerdict): Promise<PermissionVerdict | CallOutcome> {
  const { call } = p;
  const unmet = await call.tool.preconditions?.(call.input, call.context);
  if (unmet) return p.answer.refuse(unmet, call.input);
  p.stage = "tool.ask";
  const answer = await call.run.kernel.hooks.tool.ask.promise(verdict, call);
  if (!answer) {
    return {
      behavior: "deny",
      message: verdict.message ?? `${call.toolName} needs approval and nothing answered the prompt.`,
    };
  }
  if (answer.behavior === "allow") return { behavior: "allow", updatedInput: answer.updatedInput };
  return { behavior: "deny", message: answer.message, interrupt: answer.interrupt };
}

/** Record a denial (in the result and for `tool.denied`'s observers) and answer the call with it. */
async function deny({ call, answer }: Passage, message: string): Promise<CallOutcome> {
  const denial = { toolName: call.toolName, toolUseId: call.toolUseId, toolInput: call.input, message };
  call.run.permissionDenials.push(denial);
  await call.run.kernel.hooks.tool.denied.promise(denial, call); // observers: isolated by the kernel
  return answer.refuse(message, call.input);
}

/** Run the allowed call under its bounds; a tool that throws or returns no content gives an error output. */
async function execute({ call, answer }: Passage): Promise<ToolOutput> {
  answer.announce(call.input);
  try {
    const output = await boundedCall(call.run, call.tool, call.input, call.context);
    if (output && typeof output.content === "string") return output;
    return {
      content: `${call.toolName} failed: it returned no content (a tool must return { content: string })`,
      isError: true,
    };
  } catch (error) {
    return { content: `${call.toolName} failed: ${describeError(error)}`, isError: true };
  }
}

/**
 * The steps after the input was read: the tool's own validation, `tool.beforeCall` (rewrite or
 * block), `tool.permission`'s vote (and `ask` when it asks), `tool.allowed`, execute,
 * `tool.afterCall`. One function on the path every call takes (each step of its own would be
 * another promise and resumption per call); the rarely taken paths are their own.
 */
async function pass(p: Passage): Promise<CallOutcome> {
  const { call, answer } = p;
  const hooks = call.run.kernel.hooks;
  const invalid = await call.tool.validateInput(call.input, call.context);
  if (invalid) return answer.refuse(`Invalid arguments for ${call.toolName}: ${invalid}`, call.input);
  p.stage = "tool.beforeCall";
  const before = await hooks.tool.beforeCall.promise({ input: call.input }, call);
  if (before.block) return answer.refuse(before.block, before.input);
  const changed = before.input !== call.input && reparse(p, before.input);
  if (changed) return changed;
  p.stage = "tool.permission";
  const vote = await hooks.tool.permission.promise({ behavior: "allow" }, call);
  const verdict = vote.behavior === "ask" ? await ask(p, vote) : vote;
  if ("part" in verdict) return verdict;
  // A handler, or the tool's own check, may authorize a rewritten input (the original's updated_input).
  const rewritten = verdict.behavior === "allow" && verdict.updatedInput && reparse(p, verdict.updatedInput);
  if (rewritten) return rewritten;
  if (verdict.behavior !== "allow") {
    const message = verdict.message || `Permission to use ${call.toolName} was denied.`;
    if (verdict.interrupt) call.run.interrupted = message;
    return await deny(p, message);
  }
  if (call.run.abortSignal.aborted) return answer.refuse(abortedMessage(call.run), call.input);
  p.stage = "tool.allowed";
  await hooks.tool.allowed.promise(verdict, call);
  p.stage = "execute";
  const output = await execute(p);
  p.stage = "tool.afterCall";
  return answer.finish(await hooks.tool.afterCall.promise(output, call), call.input);
}

/** Run one call through the funnel. Never throws: every failure becomes an error result. */
export async function runToolCall(
  run: RunContext,
  tools: ReadonlyMap<string, Tool>,
  raw: RawToolCall,
): Promise<CallOutcome> {
  const { toolCallId: toolUseId, toolName } = raw;
  const answer = answerTo(run, raw, tools.get(toolName));
  const refusal = refusedUpFront(run, tools, raw);
  if (refusal !== undefined) return answer.refuse(refusal, raw.input);
  const tool = tools.get(toolName)!;
  const parsed = parseInput(tool, raw.input);
  if (typeof parsed === "string") return answer.refuse(parsed, raw.input);
  const context = toolContext(run, toolUseId);
  const p: Passage = {
    call: { run, tool, toolName, toolUseId, input: parsed, context },
    answer,
    stage: "validateInput",
  };
  try {
    return await pass(p);
  } catch (error) {
    // A failing plugin must not leave a tool_use unanswered; a failing permission check denies.
    const { stage, call } = p;
    const [cause, by] = error instanceof PluginError ? [error.original, error.plugin] : [error, stage];
    // A throw from tool.allowed is how a plugin refuses the call (the hook's contract): a denial in its words.
    const refusal = `${toolName} was refused before it ran: ${describeError(cause)} (${by})`;
    if (stage === "tool.allowed") return await deny(p, refusal);
    const who = error instanceof PluginError ? error.message : `${stage}: ${describeError(error)}`;
    run.logger.error(`tool call ${toolName} (${toolUseId}) failed in ${stage}: ${describeError(error)}`);
    if (stage === "tool.permission" || stage === "tool.ask") {
      return await deny(p, `Permission check failed, so the call was denied: ${who}`);
    }
    return answer.refuse(`${toolName} failed: ${who}`, call.input);
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
  for (let i = 0; i < calls.length; ) {
    let j = i + 1;
    if (isConcurrencySafe(tools, calls[i]!)) while (j < calls.length && isConcurrencySafe(tools, calls[j]!)) j++;
    outcomes.push(...(await Promise.all(calls.slice(i, j).map((c) => runToolCall(run, tools, c)))));
    i = j;
  }
  return outcomes;
}
