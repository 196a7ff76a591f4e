/** Parity: custom tools (seed README: "Custom tools"). */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { builtinTools, Tool, type ToolContext, type ToolOutput, type ToolPermission } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { ofType } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { run, toolNames } from "./helpers";

const temp = tempDirs();

const SearchInput = z.object({ query: z.string().describe("What to search for.") });
class SearchTool extends Tool<typeof SearchInput> {
  readonly name = "Search";
  readonly description = "Search the knowledge base.";
  readonly inputSchema = SearchInput;
  override isReadOnly() {
    return true;
  }
  override isConcurrencySafe() {
    return true;
  }
  override checkPermissions(): ToolPermission {
    return { behavior: "allow" };
  }
  async call(input: z.infer<typeof SearchInput>): Promise<ToolOutput> {
    return { content: `Results for ${input.query}` };
  }
}

const TicketInput = z.object({ queues: z.array(z.string()) });
class TicketTool extends Tool<typeof TicketInput> {
  readonly name = "Ticket";
  readonly description = "Open tickets in queues.";
  readonly inputSchema = TicketInput;
  override permissionRuleContent(input: z.infer<typeof TicketInput>) {
    return input.queues;
  }
  async call(input: z.infer<typeof TicketInput>, ctx: ToolContext): Promise<ToolOutput> {
    return { content: `opened in ${input.queues.join(",")} (${ctx.cwd})` };
  }
}

describe("custom tools", () => {
  it("a Tool subclass joins the built-ins; its own allow runs it without a prompt", async () => {
    const model = scriptedModel([{ toolCalls: [{ toolName: "Search", id: "s", input: { query: "auth" } }] }, "done"]);
    const messages = await run("x", { model, cwd: temp(), tools: [...builtinTools(), new SearchTool()] });
    expect(toolNames(model.requests[0])).toEqual(expect.arrayContaining(["Read", "Bash", "Search"]));
    expect(ofType(messages, "tool_result")[0]!.output).toMatchObject({ content: "Results for auth" });
    const schema = model.requests[0]!.tools!.find((t) => t.name === "Search") as {
      inputSchema?: { properties?: Record<string, { description?: string }> };
    };
    expect(schema.inputSchema?.properties?.query?.description).toBe("What to search for.");
  });

  it("content rules must authorize every string permissionRuleContent returns", async () => {
    const tools = [new TicketTool()];
    const deny = async () => ({ behavior: "deny" as const, message: "no" });
    const one = async (queues: string[]) => {
      const asked: string[] = [];
      const model = scriptedModel([{ toolCalls: [{ toolName: "Ticket", id: "t", input: { queues } }] }, "done"]);
      const messages = await run("x", {
        model,
        cwd: temp(),
        tools,
        allowedTools: ["Ticket(internal:*)"],
        canUseTool: async (n) => (asked.push(n), deny()),
      });
      return { asked, output: ofType(messages, "tool_result")[0]!.output };
    };
    const ok = await one(["internal billing", "internal"]);
    expect(ok.asked).toEqual([]);
    expect(ok.output.isError).toBeFalsy();
    const mixed = await one(["internal billing", "public"]);
    expect(mixed.asked).toEqual(["Ticket"]);
    expect(mixed.output.isError).toBe(true);
  });

  it("options.tools replaces the built-in suite", async () => {
    const model = scriptedModel(["done"]);
    await run("x", { model, cwd: temp(), tools: [new SearchTool()] });
    expect(toolNames(model.requests[0])).not.toContain("Read");
    expect(toolNames(model.requests[0])).toContain("Search");
  });
});
