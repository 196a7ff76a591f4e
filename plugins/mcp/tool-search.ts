/**
 * Tool search: when the MCP tools' definitions would take more than a share of the model's
 * context window (`mcpToolSearch`, 10% by default, as Claude Code defers), they are left out of
 * the request and the model gets one search tool instead, whose description names them. A tool
 * the search returns (or that the model calls by its exact name) is loaded for the rest of the
 * run: it joins the offered tools at the end, in the order loaded, so the tools before it stay
 * byte for byte. The decision is taken once per run, on its first tool list, so it does not flip
 * mid-run and break the cache. Deferred tools stay in the run's tool list (callable, judged by
 * the same rules); only the request leaves them out.
 */
import { z } from "zod";
import { Tool, type RunContext, type ToolContext, type ToolOutput, type ToolPermission } from "../../src/index";
import { resolveContextWindow } from "../_kits/compaction/index";
import { definitionTokens, matchTools } from "../_kits/tool-search/index";
import { McpTool } from "./mcp-tool";

/** The search tool's name. */
export const TOOL_SEARCH = "McpToolSearch";
/** The default share of the window above which MCP tools are deferred. */
export const DEFAULT_TOOL_SEARCH_SHARE = 0.1;
/** How many tools one search loads at most [5]. */
const DEFAULT_RESULTS = 5;

interface RunSearch {
  deferred: boolean;
  /** Tools loaded by a search, in order. */
  loaded: string[];
}

/** Which runs defer their MCP tools, and what they loaded. */
export class ToolSearch {
  #runs = new WeakMap<RunContext, RunSearch>();
  readonly tool: McpToolSearchTool;

  constructor(
    private readonly setting: () => boolean | number | undefined,
    private readonly mcpTools: () => McpTool[],
  ) {
    this.tool = new McpToolSearchTool(this);
  }

  /**
   * The run's tools: unchanged, plus the search tool when the run defers (decided on its first
   * list). Deferred tools stay callable — a call by exact name loads the tool — and are only left
   * out of what each request offers (`offer`).
   */
  async list(tools: Tool[], run: RunContext): Promise<Tool[]> {
    const state = await this.#state(tools, run);
    const rest = tools.filter((t) => t !== this.tool);
    return state.deferred ? [...rest, this.tool] : rest;
  }

  async #state(tools: Tool[], run: RunContext): Promise<RunSearch> {
    let state = this.#runs.get(run);
    if (!state) {
      state = { deferred: await this.#shouldDefer(tools, run), loaded: [] };
      this.#runs.set(run, state);
    }
    return state;
  }

  /**
   * What one request offers, in order: the tools that are not MCP tools, the search tool, then
   * the MCP tools loaded so far in the order loaded (so a load appends and the prefix stays).
   */
  offer<T extends { name: string }>(toolList: readonly T[], run: RunContext): T[] | undefined {
    const state = this.#runs.get(run);
    if (!state?.deferred) return undefined;
    const byName = new Map(toolList.map((t) => [t.name, t]));
    const kept = toolList.filter((t) => !(t instanceof McpTool) && t.name !== this.tool.name);
    const search = byName.get(this.tool.name);
    const loaded = state.loaded.map((name) => byName.get(name)).filter((t): t is T => !!t);
    return [...kept, ...(search ? [search] : []), ...loaded];
  }

  /** A deferred tool the model called by name is loaded from then on. */
  called(run: RunContext, name: string): void {
    const state = this.#runs.get(run);
    if (state?.deferred && !state.loaded.includes(name) && this.mcpTools().some((t) => t.name === name))
      state.loaded.push(name);
  }

  async #shouldDefer(tools: Tool[], run: RunContext): Promise<boolean> {
    const given = this.setting();
    const mcp = tools.filter((t) => t instanceof McpTool);
    if (given === false || mcp.length === 0) return false;
    if (given === true) return true;
    const window = await resolveContextWindow(run, run.modelLabel ?? null);
    // A window nobody declared is a guess (kept small for compaction's sake): tools are hidden on it only when asked to.
    if (given === undefined && window.source === "default") return false;
    return mcp.reduce((sum, t) => sum + definitionTokens(t), 0) > window.tokens * (given ?? DEFAULT_TOOL_SEARCH_SHARE);
  }

  /** The deferred tools matching `query` (`select:a,b` names them), loaded into the run. */
  search(run: RunContext | undefined, query: string, max: number): McpTool[] {
    const found = matchTools(this.mcpTools(), query, max, (t) => t.remote.name);
    const state = run && this.#runs.get(run);
    if (state) for (const t of found) if (!state.loaded.includes(t.name)) state.loaded.push(t.name);
    return found;
  }

  /** The names the search tool's description lists (every MCP tool, sorted: stable per kernel). */
  names(): string[] {
    return this.mcpTools().map((t) => t.name);
  }
}

const Input = z.strictObject({
  query: z
    .string()
    .min(1)
    .describe('Words describing the tool you need, or "select:<name>,<name>" to load tools by name'),
  max_results: z
    .number()
    .int()
    .min(1)
    .max(50)
    .optional()
    .describe(`How many tools to load at most [${DEFAULT_RESULTS}]`),
});

/** The search tool the model sees in place of deferred MCP tools. */
export class McpToolSearchTool extends Tool<typeof Input> {
  readonly name = TOOL_SEARCH;
  readonly inputSchema = Input;
  #description: string | undefined;
  constructor(private readonly search: ToolSearch) {
    super();
  }
  get description(): string {
    // Computed once: the names are the kernel's, and a description that changed would break the cache.
    return (this.#description ??= [
      "Load tools of the connected MCP servers. They are not offered until loaded, to keep requests small; a loaded tool can be called from the next step on.",
      'Search with words ("query": "create github issue"), or load by name ("query": "select:mcp__github__create_issue").',
      `Available tools:\n${this.search.names().join("\n")}`,
    ].join("\n"));
  }
  override isReadOnly(): boolean {
    return true;
  }
  override checkPermissions(): ToolPermission {
    return { behavior: "allow" };
  }
  async call(input: z.output<typeof Input>, ctx: ToolContext): Promise<ToolOutput> {
    const found = this.search.search(ctx.run, input.query.trim(), input.max_results ?? DEFAULT_RESULTS);
    if (found.length === 0)
      return {
        content: `No MCP tool matches "${input.query}". Try other words, or load one by its exact name with "select:<name>".`,
        isError: false,
        metadata: { loaded: [] },
      };
    const lines = found.map((t) => `${t.name}: ${t.description.split("\n")[0]}`);
    return {
      content: `Loaded (callable from now on):\n${lines.join("\n")}`,
      isError: false,
      metadata: { loaded: found.map((t) => t.name) },
    };
  }
}
