/**
 * The tool-search kit: what deferring tools takes, shared by the built-in deferral
 * (`ubiquity:tool-search`, its ToolSearch tool) and the MCP tool search (McpToolSearch). A
 * deferred tool stays in the run's tool list — callable by name, judged by the same rules — and
 * is only left out of what each request offers; a search finds tools by name or words. Not a
 * plugin: the only file other folders import.
 */
import { toolJsonSchema, type ModelRequest, type Tool } from "../../../src/index";

/** A tool definition's size in tokens, as the request would carry it (chars / 4). */
export function definitionTokens(tool: Tool): number {
  const schema = tool.jsonSchema ?? {};
  return Math.ceil((tool.name.length + tool.description.length + JSON.stringify(schema).length) / 4);
}

/**
 * The tools of `all` that `query` asks for, best first, at most `max`: `select:a,b` names them
 * (`alias` is another name a tool answers to, an MCP tool's own), else each word of the query
 * scores a tool 3 when in its name and 1 when in its description.
 */
export function matchTools<T extends Tool>(
  all: readonly T[],
  query: string,
  max: number,
  alias: (tool: T) => string | undefined = () => undefined,
): T[] {
  if (query.startsWith("select:")) {
    const names = query
      .slice("select:".length)
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    return names.map((n) => all.find((t) => t.name === n || alias(t) === n)).filter((t): t is T => !!t);
  }
  const words = query
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const score = (t: T) => {
    const name = t.name.toLowerCase();
    const text = t.description.toLowerCase();
    return words.reduce((s, w) => s + (name.includes(w) ? 3 : 0) + (text.includes(w) ? 1 : 0), 0);
  };
  return all
    .map((t) => ({ t, s: score(t) }))
    .filter((x) => x.s > 0)
    .sort((a, b) => b.s - a.s || (a.t.name < b.t.name ? -1 : 1))
    .slice(0, max)
    .map((x) => x.t);
}

/**
 * `request` offering only `offered` of its listed tools, in the order given. An entry no listed
 * tool stands behind (a provider's own search tool, added by another tap) stays.
 */
export function offerOnly(request: ModelRequest, offered: Tool[]): ModelRequest {
  const tools = Object.fromEntries(
    offered.filter((t) => t.name in request.tools).map((t) => [t.name, request.tools[t.name]!]),
  );
  const listed = new Set(request.toolList.map((t) => t.name));
  for (const [name, entry] of Object.entries(request.tools)) if (!listed.has(name)) tools[name] = entry;
  return { ...request, toolList: offered, tools };
}

/**
 * A loaded tool's definition as the model reads it in a tool result — the JSON a request would
 * carry for it — so it can be called without joining the request's tool block (which would
 * rewrite every cached byte after it).
 */
export function definitionText(tool: Tool): string {
  return JSON.stringify({ name: tool.name, description: tool.description, parameters: toolJsonSchema(tool) });
}
