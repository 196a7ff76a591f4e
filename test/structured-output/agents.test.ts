/**
 * Subagents with an `outputSchema`: the subagent's final answer is checked like a run's, and the
 * Agent tool returns its value as JSON; a parent's schema stays the parent's. Agent files carry
 * the schema in their frontmatter.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { LanguageModelV4CallOptions } from "@ai-sdk/provider";
import { scriptedModel } from "ubiquity/testing";
import { parseAgentFile } from "../../plugins/agents/index";
import { agentCall, agentOf, answered } from "../agents/helpers";
import { offered, promptText, runWith } from "./helpers";

const schema = {
  type: "object",
  properties: { files: { type: "integer" } },
  required: ["files"],
  additionalProperties: false,
};
const agents = {
  COUNTER: { description: "Counts files", prompt: "You are COUNTER. Count the files.", outputSchema: schema },
};

describe("a subagent with an outputSchema", () => {
  it("answers through its StructuredOutput tool (corrected once) and the Agent tool returns the JSON", async () => {
    const seen: LanguageModelV4CallOptions[] = [];
    const model = scriptedModel(({ request }) => {
      seen.push(request);
      if (agentOf(request) === "COUNTER") {
        // First a value that fails the schema, then a valid one.
        return answered(request)
          ? { toolCalls: [{ toolName: "StructuredOutput", input: { files: 3 } }] }
          : { toolCalls: [{ toolName: "StructuredOutput", input: { files: "three" } }] };
      }
      return answered(request) ? "The counter says 3." : { toolCalls: [agentCall("COUNTER", "a1")] };
    });
    const { result, messages } = await runWith("count", { model, agents });
    expect(result.subtype).toBe("success");
    const agentResult = messages.find((m) => m.type === "tool_result" && m.toolName === "Agent");
    expect(agentResult?.type === "tool_result" && agentResult.output.content).toBe('{"files":3}');
    expect(agentResult?.type === "tool_result" && agentResult.output.metadata.structuredOutput).toEqual({ files: 3 });
    // The subagent was offered the tool; the parent (no schema of its own) was not.
    const child = seen.filter((r) => agentOf(r) === "COUNTER");
    expect(offered(child[0]!)).toContain("StructuredOutput");
    expect(promptText(child[1]!)).toContain("does not match the schema");
    expect(offered(seen[0]!)).not.toContain("StructuredOutput");
    expect(result.structuredOutput).toBeUndefined();
  });

  it("a parent's outputSchema is not the subagent's: the subagent answers in text, the parent in its schema", async () => {
    const model = scriptedModel(({ request }) => {
      if (agentOf(request) === "HELPER") return "plain findings";
      if (!answered(request)) return { toolCalls: [agentCall("HELPER", "h1")] };
      return { toolCalls: [{ toolName: "StructuredOutput", input: { summary: "plain findings" } }] };
    });
    const { result, messages } = await runWith("go", {
      model,
      outputSchema: z.object({ summary: z.string() }),
      agents: { HELPER: { description: "Helps", prompt: "You are HELPER." } },
    });
    expect(result.structuredOutput).toEqual({ summary: "plain findings" });
    const agentResult = messages.find((m) => m.type === "tool_result" && m.toolName === "Agent");
    expect(agentResult?.type === "tool_result" && agentResult.output.content).toBe("plain findings");
  });

  it("an agent file's frontmatter declares it (a YAML mapping or JSON text); an unusable one is dropped", () => {
    const yaml = parseAgentFile(
      "---\ndescription: Counts\noutput-schema:\n  type: object\n  properties:\n    files: { type: integer }\n---\n\nCount.\n",
      "counter",
    );
    expect(yaml.ok && yaml.definition.outputSchema).toEqual({
      type: "object",
      properties: { files: { type: "integer" } },
    });
    const json = parseAgentFile(
      `---\ndescription: Counts\noutputSchema: '${JSON.stringify(schema)}'\n---\n\nCount.\n`,
      "counter",
    );
    expect(json.ok && json.definition.outputSchema).toEqual(schema);
    const bad = parseAgentFile("---\ndescription: Counts\noutputSchema: [1, 2]\n---\n\nCount.\n", "counter");
    expect(bad).toMatchObject({ ok: true, dropped: ["outputSchema"] });
  });
});
