/**
 * Elicitation: a server asks the user for input during a call, with a form (`requestedSchema`,
 * flat fields of text, numbers, booleans and choices) or a URL to open (`mode: "url"`: a sign-in
 * or payment page the server watches; we only show it, never open or fetch it). Who answers:
 * the run's `onElicitation` handler; else its `canUseTool` (the runner's terminal answers with a
 * form, below; an ACP client through its permission question, which can accept a URL and has no
 * form to fill); else nobody, and the request is declined, as a prompt nobody can answer is.
 * Claude Code's hook events come around it, for a request made during a run's call: Elicitation
 * hooks (matched by server name) may answer first, so nobody is asked (exit 2 declines), and
 * ElicitationResult hooks see the answer before the server does and may replace it (exit 2
 * declines).
 */
import type { Client, ElicitRequest, ElicitResult } from "@modelcontextprotocol/client";
import type { Kernel, RunContext } from "../../src/index";
import type { TerminalAnswerer } from "../../loader/index";
import type { CanUseTool } from "../permissions/api";
import { readOption } from "../_kits/authoring/index";
import { mcpOptions } from "./options";
import type { McpConnection } from "./connection";
import { callerOf } from "./callers";
import { getHooksApi } from "../hooks/index";
import { ELICITATION_CALL } from "./names";

export { ELICITATION_CALL };

/** A value of a form field. */
export type McpElicitationValue = string | number | boolean | string[];

/** A server's question to the user. */
export interface McpElicitation {
  /** The server asking. */
  server: string;
  mode: "form" | "url";
  /** What the server says it needs, in its words. */
  message: string;
  /** Form mode: the fields, as a flat JSON Schema object (`properties`, `required`). */
  requestedSchema?: Record<string, unknown>;
  /** URL mode: the page to open. */
  url?: string;
  /** URL mode: the server's id for this request. */
  elicitationId?: string;
}

/** The user's answer: `accept` (with the form's values), `decline`, or `cancel` (dismissed). */
export type McpElicitationResult =
  | { action: "accept"; content?: Record<string, McpElicitationValue> }
  | { action: "decline" }
  | { action: "cancel" };

/** The `onElicitation` option: answers a server's question. */
export type OnElicitation = (
  request: McpElicitation,
  context: { signal: AbortSignal },
) => Promise<McpElicitationResult> | McpElicitationResult;

/** The client capability we announce: both modes. */
export const ELICITATION_CAPABILITY = { form: {}, url: {} };

function toRequest(server: string, params: ElicitRequest["params"]): McpElicitation {
  if (params.mode === "url")
    return { server, mode: "url", message: params.message, url: params.url, elicitationId: params.elicitationId };
  return {
    server,
    mode: "form",
    message: params.message,
    requestedSchema: params.requestedSchema as Record<string, unknown>,
  };
}

/** Ask through `canUseTool`: an allow with `action` in its input is the answer; a plain allow accepts a URL. */
async function throughCanUseTool(
  canUseTool: CanUseTool,
  request: McpElicitation,
  signal: AbortSignal,
): Promise<McpElicitationResult> {
  const verdict = await canUseTool(
    ELICITATION_CALL,
    { ...request },
    { signal, suggestions: [], toolUseId: `elicitation_${request.elicitationId ?? Date.now()}` },
  );
  if (verdict.behavior !== "allow") return { action: "decline" };
  const answer = (verdict as { updatedInput?: Record<string, unknown> }).updatedInput;
  const action = answer?.action;
  if (action === "decline" || action === "cancel") return { action };
  if (action === "accept")
    return { action, ...(answer?.content ? { content: answer.content as Record<string, McpElicitationValue> } : {}) };
  // A bare allow: accepting a URL needs no values; a form without values cannot be accepted.
  return request.mode === "url" ? { action: "accept" } : { action: "decline" };
}

/** Install the `elicitation/create` handler on a client. */
export function installElicitation(client: Client, connection: McpConnection, kernel: Kernel): void {
  client.setRequestHandler("elicitation/create", async (request, ctx): Promise<ElicitResult> => {
    const run: RunContext | undefined = callerOf(connection);
    const asked = toRequest(connection.name, request.params);
    const signal =
      (ctx as { mcpReq?: { signal?: AbortSignal } }).mcpReq?.signal ?? run?.abortSignal ?? new AbortController().signal;
    const hooks = run && getHooksApi(kernel);
    const fields = {
      mcpServerName: asked.server,
      mode: asked.mode,
      ...(asked.url !== undefined ? { url: asked.url } : {}),
      ...(asked.elicitationId !== undefined ? { elicitationId: asked.elicitationId } : {}),
    };
    const declined = (event: string, why: string | undefined): McpElicitationResult => {
      kernel.logger.warn(`MCP server "${connection.name}" asked for input: declined by an ${event} hook: ${why}`);
      return { action: "decline" };
    };
    let answer: McpElicitationResult;
    const before =
      run && hooks?.has("Elicitation", run)
        ? await hooks.fire("Elicitation", run, {
            message: asked.message,
            extra: { ...fields, ...(asked.requestedSchema ? { requestedSchema: asked.requestedSchema } : {}) },
          })
        : undefined;
    if (before?.blocked) answer = declined("Elicitation", before.blocked);
    else if (before?.elicitation) answer = before.elicitation as McpElicitationResult;
    else answer = await ask(kernel, connection.name, run, asked, signal);
    if (run && hooks?.has("ElicitationResult", run)) {
      const content = answer.action === "accept" && answer.content ? { content: answer.content } : {};
      const after = await hooks.fire("ElicitationResult", run, {
        extra: { ...fields, action: answer.action, ...content },
      });
      if (after.blocked) answer = declined("ElicitationResult", after.blocked);
      else if (after.elicitation) answer = after.elicitation as McpElicitationResult;
    }
    return answer as ElicitResult;
  });
}

/** The run's handler's answer (`onElicitation`, else `canUseTool` outside a subagent), else decline. */
async function ask(
  kernel: Kernel,
  server: string,
  run: RunContext | undefined,
  asked: McpElicitation,
  signal: AbortSignal,
): Promise<McpElicitationResult> {
  const options = run?.options ?? kernel.options;
  const onElicitation = readOption(mcpOptions, options, "onElicitation");
  const canUseTool = readOption(mcpOptions, options, "canUseTool");
  try {
    if (onElicitation) return await onElicitation(asked, { signal });
    if (canUseTool && !run?.agent) return await throughCanUseTool(canUseTool, asked, signal);
  } catch (error) {
    kernel.logger.warn(
      `MCP server "${server}" asked for input and the handler failed: ${(error as Error).message}; declined`,
    );
    return { action: "decline" };
  }
  kernel.logger.debug(`[mcp ${server}] declined an elicitation: no onElicitation or canUseTool handler can answer it`);
  return { action: "decline" };
}

interface Field {
  type?: string;
  title?: string;
  description?: string;
  enum?: unknown[];
  oneOf?: { const: string; title?: string }[];
  items?: { enum?: string[]; anyOf?: { const: string; title?: string }[] };
  default?: unknown;
}

/** Parse one typed answer for a field; undefined when it does not fit. */
function parseField(field: Field, typed: string): McpElicitationValue | undefined {
  const choices = field.enum?.map(String) ?? field.oneOf?.map((o) => o.const);
  if (choices) {
    const n = /^\d+$/.test(typed) ? choices[Number(typed) - 1] : undefined;
    return n ?? (choices.includes(typed) ? typed : undefined);
  }
  if (field.type === "array") {
    const options = field.items?.enum ?? field.items?.anyOf?.map((o) => o.const) ?? [];
    const picked = typed
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean)
      .map((s) => (/^\d+$/.test(s) ? options[Number(s) - 1] : s));
    return picked.every((p): p is string => !!p && options.includes(p)) ? picked : undefined;
  }
  if (field.type === "boolean")
    return /^(y|yes|true)$/i.test(typed) ? true : /^(n|no|false)$/i.test(typed) ? false : undefined;
  if (field.type === "number" || field.type === "integer") {
    const value = Number(typed);
    return typed !== "" && Number.isFinite(value) && (field.type === "number" || Number.isInteger(value))
      ? value
      : undefined;
  }
  return typed;
}

/** The runner's terminal: a URL to open, or a form field by field; `!decline` or `!cancel` at any question. */
export const elicitInTerminal: TerminalAnswerer = async ({ toolName, input, signal }, terminal) => {
  if (toolName !== ELICITATION_CALL) return undefined;
  const request = input as unknown as McpElicitation;
  terminal.print(`\nMCP server "${request.server}" asks: ${request.message}\n`);
  const stop = (typed: string) => (typed === "!decline" ? "decline" : typed === "!cancel" ? "cancel" : undefined);
  if (request.mode === "url") {
    // Shown, never opened: the user decides whether to visit it.
    terminal.print(`  ${request.url}\n`);
    const typed = await terminal.ask("Open the link above yourself, then press Enter (or type !decline): ", signal);
    const action = stop(typed);
    return { input: { ...input, action: action ?? "accept" } };
  }
  const schema = (request.requestedSchema ?? {}) as { properties?: Record<string, Field>; required?: string[] };
  const content: Record<string, McpElicitationValue> = {};
  terminal.print("(type !decline to refuse, !cancel to dismiss)\n");
  for (const [name, field] of Object.entries(schema.properties ?? {})) {
    const required = schema.required?.includes(name) ?? false;
    const choices =
      field.enum?.map(String) ??
      field.oneOf?.map((o) => o.title ?? o.const) ??
      field.items?.enum ??
      field.items?.anyOf?.map((o) => o.title ?? o.const);
    terminal.print(`\n${field.title ?? name}${field.description ? ` — ${field.description}` : ""}\n`);
    choices?.forEach((c, i) => {
      terminal.print(`  ${i + 1}. ${c}\n`);
    });
    for (;;) {
      const typed = await terminal.ask(
        `${field.title ?? name}${field.type === "boolean" ? " (y/n)" : ""}${required ? "" : " (optional, Enter skips)"}: `,
        signal,
      );
      const action = stop(typed);
      if (action) return { input: { ...input, action } };
      if (typed === "" && !required) break;
      const value = parseField(field, typed);
      if (value !== undefined) {
        content[name] = value;
        break;
      }
      terminal.print(`  not a valid ${choices ? "choice" : (field.type ?? "value")}; try again\n`);
    }
  }
  return { input: { ...input, action: "accept", content } };
};
