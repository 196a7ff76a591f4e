/**
 * ToolSearch: the one tool the model sees in place of a run's deferred tools. Its description
 * names them; a search answers with their definitions in the result, the JSON a request would
 * carry for each. The request's tool block never changes, so loading a tool rewrites no cached
 * byte; the tool itself was callable all along (it stays in the run's tool list).
 */
import { z } from "zod";
import { Tool, type ToolOutput, type ToolPermission } from "../../src/index";
import { definitionText, matchTools } from "../_kits/tool-search/index";

/** The tool's name (Claude Code's). */
export const TOOL_SEARCH = "ToolSearch";
/** How many definitions one search returns at most. */
const MAX_RESULTS = 5;

const Input = z.strictObject({
  query: z.string().min(1).describe('"select:<name>,<name>", or words'),
});

/** The search tool of one run: its deferred tools are fixed when it is made (its description is part of the cached prefix). */
export class ToolSearchTool extends Tool<typeof Input> {
  readonly name = TOOL_SEARCH;
  readonly inputSchema = Input;
  readonly description: string;

  constructor(private readonly deferred: readonly Tool[]) {
    super();
    this.description = `Returns the definitions of tools not offered yet, to keep requests small; then call them like any other. Not offered yet: ${deferred.map((t) => t.name).join(", ")}.`;
  }
  override isReadOnly(): boolean {
    return true;
  }
  override isConcurrencySafe(): boolean {
    return true;
  }
  override checkPermissions(): ToolPermission {
    return { behavior: "allow" };
  }
  async call(input: z.output<typeof Input>): Promise<ToolOutput> {
    const found = matchTools(this.deferred, input.query.trim(), MAX_RESULTS);
    if (found.length === 0)
      return {
        content: `No tool matches "${input.query}". Not offered yet: ${this.deferred.map((t) => t.name).join(", ")}; load one with "select:<name>".`,
        isError: false,
        metadata: { loaded: [] },
      };
    return {
      content: `<functions>\n${found.map((t) => `<function>${definitionText(t)}</function>`).join("\n")}\n</functions>`,
      isError: false,
      metadata: { loaded: found.map((t) => t.name) },
    };
  }
}
