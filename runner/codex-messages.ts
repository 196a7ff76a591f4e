/**
 * `--message-format codex`: the run as `codex exec --json` prints it (Codex's `ThreadEvent` lines),
 * so a CI script written against Codex reads ours unchanged: `thread.started` with the `thread_id`
 * to resume (`--resume <id>` here), `turn.started`, `item.started`/`item.completed` whose `item` is
 * an `agent_message`, `reasoning`, `command_execution` (Bash), `file_change` (Write, Edit,
 * apply_patch), `mcp_tool_call` (an MCP tool), `todo_list` (TodoWrite) or `web_search`, and
 * `turn.completed` with the usage (a failed turn: an `error` event, then `turn.failed` with the same
 * message, as Codex prints it). Checked against codex-cli 0.171 by scripts/codex-parity.ts. Codex has no item for the other
 * tools (Read, Grep, a custom tool): they come as `tool_call` items (`tool`, `arguments`, `result`,
 * `status`), which Codex's own consumers skip as an unknown type. A subagent's work stays inside
 * its Agent call, as in Codex. Codex prints no cost: `turn.completed` and `turn.failed` also carry
 * `total_cost_usd` (the run's so far; null when unknown) and `num_turns`. In a live session
 * (`--input-format stream-json`) each prompt is a turn, with its own usage.
 */
import { resolve } from "node:path";
import type { Message, Usage } from "../src/messages";

type Json = Record<string, unknown>;
type Assistant = Extract<Message, { type: "assistant" }>;
type ToolUse = Extract<Message, { type: "tool_use" }>;
type ToolResult = Extract<Message, { type: "tool_result" }>;

const FILE_TOOLS = new Set(["Write", "Edit", "MultiEdit", "apply_patch", "NotebookEdit"]);

/**
 * Codex's usage of one turn: `input_tokens` include the cached ones, as Ubiquity's `inputTokens` do.
 * A live session's results sum the session so far: a turn's share is what it added since `before`.
 */
function codexUsage(usage: Partial<Usage> | undefined, before: Partial<Usage> | undefined): Json {
  const of = (key: "inputTokens" | "cacheReadTokens" | "cacheWriteTokens" | "outputTokens") =>
    (usage?.[key] ?? 0) - (before?.[key] ?? 0);
  return {
    input_tokens: of("inputTokens"),
    cached_input_tokens: of("cacheReadTokens"),
    cache_write_input_tokens: of("cacheWriteTokens"),
    output_tokens: of("outputTokens"),
  };
}

const input = (m: ToolUse) => (m.toolInput ?? {}) as Record<string, unknown>;

/** The item a tool call starts, before its result; `undefined` for a Write (its kind is known once it ran). */
function startedItem(id: string, m: ToolUse, cwd: string | undefined): Json | undefined {
  if (m.toolName === "Bash")
    return {
      id,
      type: "command_execution",
      command: String(input(m).command ?? ""),
      aggregated_output: "",
      exit_code: null,
      status: "in_progress",
    };
  if (FILE_TOOLS.has(m.toolName)) {
    // Codex starts a patch's item with its changes; a Write's kind (add or update) is known only once it ran.
    const changes = plannedChanges(m, cwd);
    return changes ? { id, type: "file_change", changes, status: "in_progress" } : undefined;
  }
  const mcp = /^mcp__(.+?)__(.+)$/.exec(m.toolName);
  if (mcp)
    return { id, type: "mcp_tool_call", server: mcp[1], tool: mcp[2], arguments: m.toolInput, status: "in_progress" };
  if (m.toolName === "TodoWrite") return { id, type: "todo_list", items: todoItems(input(m).todos) };
  if (m.toolName === "WebSearch") return { id, type: "web_search", query: String(input(m).query ?? "") };
  return { id, type: "tool_call", tool: m.toolName, arguments: m.toolInput, status: "in_progress" };
}

function todoItems(todos: unknown): Json[] {
  if (!Array.isArray(todos)) return [];
  return todos.map((t: { content?: unknown; status?: unknown }) => ({
    text: String(t?.content ?? ""),
    completed: t?.status === "completed",
  }));
}

const PATCH_HEADER = /^\*\*\* (Add|Update|Delete) File: (.+)$/gm;

/**
 * The changes a call means to make, from its input: an apply_patch's file headers (paths resolved
 * against the run's folder, as Codex prints them), an Edit's file; `undefined` for a Write.
 */
function plannedChanges(use: ToolUse, cwd: string | undefined): Json[] | undefined {
  const args = input(use);
  if (use.toolName === "apply_patch") {
    const patch = typeof args.input === "string" ? args.input : typeof args.patch === "string" ? args.patch : "";
    return [...patch.matchAll(PATCH_HEADER)].map(([, kind, path]) => ({
      path: cwd ? resolve(cwd, path!.trim()) : path!.trim(),
      kind: kind === "Add" ? "add" : kind === "Delete" ? "delete" : "update",
    }));
  }
  const path = args.file_path ?? args.notebook_path;
  if (use.toolName === "Write" || typeof path !== "string") return undefined;
  return [{ path, kind: "update" }];
}

/** A file change's paths and kinds: from the tool's metadata where it says, else what its input meant to change. */
function fileChanges(use: ToolUse | undefined, started: Json | undefined, result: ToolResult): Json[] {
  const meta = result.output.metadata;
  if (Array.isArray(meta.files))
    return (meta.files as { path: string; action: string }[]).map((f) => ({
      path: f.path,
      kind: f.action === "delete" ? "delete" : f.action === "add" ? "add" : "update",
    }));
  if (typeof meta.path === "string") return [{ path: meta.path, kind: meta.created === true ? "add" : "update" }];
  if (Array.isArray(started?.changes)) return started.changes as Json[];
  const path = use ? input(use).file_path : undefined;
  return typeof path === "string" ? [{ path, kind: meta.created === true ? "add" : "update" }] : [];
}

/**
 * A command's output as Codex aggregates it: what the command printed, without the notes the Bash
 * tool adds for the model (`[Exit code 3]` is the item's `exit_code`; `(no output)` is nothing),
 * and with the last newline the tool drops (its metadata counts the output's characters: one more
 * than what is left means the output ended with it).
 */
function commandOutput(content: string, meta: Record<string, unknown>): string {
  if (content === "(no output)") return "";
  const note = typeof meta.exitCode === "number" ? `[Exit code ${meta.exitCode}]` : undefined;
  const output =
    note && content === note
      ? ""
      : note && content.endsWith(`\n\n${note}`)
        ? content.slice(0, -note.length - 2)
        : content;
  return meta.cutChars === 0 && meta.outputChars === output.length + 1 ? `${output}\n` : output;
}

/** The item a tool result completes. */
function completedItem(id: string, started: Json | undefined, use: ToolUse | undefined, m: ToolResult): Json {
  const status = m.output.isError ? "failed" : "completed";
  const item = started ?? { id };
  switch (item.type) {
    case "command_execution": {
      const code = m.output.metadata.exitCode;
      return {
        ...item,
        aggregated_output: commandOutput(m.output.content, m.output.metadata),
        exit_code: typeof code === "number" ? code : null,
        status,
      };
    }
    case "mcp_tool_call":
      return m.output.isError
        ? { ...item, error: { message: m.output.content }, status }
        : {
            ...item,
            result: { content: [{ type: "text", text: m.output.content }], structured_content: null },
            status,
          };
    case "todo_list":
    case "web_search":
      return item;
    case "tool_call":
      return { ...item, result: m.output.content, status };
    default:
      return { id, type: "file_change", changes: fileChanges(use, started, m), status };
  }
}

/**
 * A formatter for one output: each message becomes the Codex events it stands for (none, one or
 * several). Stateful: item ids count up, a tool's result completes the item its call started, and
 * in a live session each prompt is a turn of its own.
 */
export function codexFormatter(): (m: Message) => Json[] {
  let next = 0;
  let thread: string | undefined;
  let cwd: string | undefined;
  // Between a turn's end and the next prompt of a live session (whose `user` message starts a turn).
  let inTurn = false;
  let usageBefore: Partial<Usage> | undefined;
  // The StructuredOutput tool gave the answer: print it as the final agent_message (a native answer already is one).
  let structuredByTool = false;
  const open = new Map<string, { id: string; started?: Json; use: ToolUse }>();
  const itemId = () => `item_${next++}`;
  const startTurn = (): Json[] => {
    if (inTurn) return [];
    inTurn = true;
    return [{ type: "turn.started" }];
  };
  return (m) => {
    // A subagent's work is inside its Agent call (a tool_call item), as Codex's collab tools are.
    if (m.parentToolUseId !== undefined) return [];
    switch (m.type) {
      case "system": {
        if (m.subtype !== "init") return [];
        const events: Json[] = thread === m.sessionId ? [] : [{ type: "thread.started", thread_id: m.sessionId }];
        thread = m.sessionId;
        cwd = m.cwd;
        return [...events, ...startTurn()];
      }
      case "user":
        return startTurn();
      case "assistant":
        return assistantItems(m, itemId);
      case "tool_use": {
        // A structured answer is the final agent_message, as Codex gives it (below), not a tool call.
        if (m.toolName === "StructuredOutput") {
          structuredByTool = true;
          return [];
        }
        const id = itemId();
        const started = startedItem(id, m, cwd);
        open.set(m.toolUseId, { id, started, use: m });
        return started ? [{ type: "item.started", item: started }] : [];
      }
      case "tool_result": {
        if (m.toolName === "StructuredOutput") return [];
        const call = open.get(m.toolUseId);
        open.delete(m.toolUseId);
        return [{ type: "item.completed", item: completedItem(call?.id ?? itemId(), call?.started, call?.use, m) }];
      }
      case "result": {
        inTurn = false;
        const usage = codexUsage(m.usage, usageBefore);
        usageBefore = m.usage;
        const answer = structuredByTool ? structuredAnswer(m, itemId) : [];
        return [...answer, ...turnEnd(m, usage)];
      }
      default:
        return [];
    }
  };
}

/** `turn.completed`, or `error` and `turn.failed`, with the cost Codex does not print. */
function turnEnd(m: Extract<Message, { type: "result" }>, usage: Json): Json[] {
  const extra = { total_cost_usd: m.totalCostUsd, num_turns: m.numTurns };
  return m.isError
    ? [
        // Codex says a turn's fatal error twice: an `error` event, then `turn.failed` with the same message.
        { type: "error", message: m.result },
        { type: "turn.failed", error: { message: m.result }, usage, ...extra },
      ]
    : [{ type: "turn.completed", usage, ...extra }];
}

/** The value the StructuredOutput tool took, as the final agent_message's JSON text (Codex's way). */
function structuredAnswer(m: Extract<Message, { type: "result" }>, itemId: () => string): Json[] {
  const structured = (m as { structuredOutput?: unknown }).structuredOutput;
  if (m.isError || structured === undefined) return [];
  return [{ type: "item.completed", item: { id: itemId(), type: "agent_message", text: JSON.stringify(structured) } }];
}

/** An assistant message's reasoning and text, as Codex's items (its tool calls come as their own messages). */
function assistantItems(m: Assistant, itemId: () => string): Json[] {
  const items: Json[] = [];
  for (const block of m.content) {
    if (block.type === "reasoning" && block.text.trim())
      items.push({ type: "item.completed", item: { id: itemId(), type: "reasoning", text: block.text } });
  }
  const text = m.content
    .filter((b) => b.type === "text")
    .map((b) => (b as { text: string }).text)
    .join("");
  if (text.trim()) items.push({ type: "item.completed", item: { id: itemId(), type: "agent_message", text } });
  return items;
}

/** The line a usage or configuration error prints before a run starts: Codex's fatal `error` event. */
export function codexEarlyError(text: string, exitCode: number): Json {
  return { type: "error", message: text, exit_code: exitCode };
}
