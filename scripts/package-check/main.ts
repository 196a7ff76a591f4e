// A user's first program, as README's quick start shows it: type-checked with tsc (strict,
// module nodenext) against the installed tarball, then run on the offline model.
import { defineConfig, defineTool, summon, type Message, type Options } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import type { PermissionsPluginOptions } from "ubiquity/plugins/permissions";
import { z } from "zod";

const shout = defineTool({
  name: "Shout",
  description: "Upper-case a text",
  inputSchema: z.object({ text: z.string() }),
  isReadOnly: true,
  execute: ({ text }) => text.toUpperCase(),
});

export const config = defineConfig({ model: "test", maxTurns: 3, permissionMode: "default" });
const permissionOptions: PermissionsPluginOptions = {};
void permissionOptions;

function describe(message: Message): string {
  switch (message.type) {
    case "system":
      return `system/${message.subtype}`;
    case "assistant":
      return `assistant: ${message.text}`;
    case "tool_use":
      return `tool_use ${message.toolName}`;
    case "tool_result":
      return `tool_result ${message.toolName}: ${String(message.output.content)}`;
    case "result":
      return `result ${message.subtype} after ${message.numTurns} turns, cost ${message.totalCostUsd ?? "unknown"}`;
    default:
      return message.type;
  }
}

const model = scriptedModel([{ toolCalls: [{ toolName: "Shout", input: { text: "hello" } }] }, { text: "done" }]);
const options: Options = { model, tools: [shout], persistSession: false };
const lines: string[] = [];
for await (const message of summon("shout hello", options)) lines.push(describe(message));
console.log(lines.join("\n"));
if (!lines.includes("tool_result Shout: HELLO") || !lines.at(-1)?.startsWith("result success")) process.exit(1);

// Structured output: a zod outputSchema types result.structuredOutput (tsc above fails if it is `unknown`).
const Shouted = z.object({ shouted: z.string() });
const answering = scriptedModel([{ toolCalls: [{ toolName: "StructuredOutput", input: { shouted: "HELLO" } }] }]);
let shouted: string | undefined;
for await (const message of summon("shout hello as JSON", { model: answering, outputSchema: Shouted, persistSession: false })) {
  if (message.type === "result") shouted = message.structuredOutput?.shouted;
}
console.log(`structuredOutput.shouted: ${shouted}`);
if (shouted !== "HELLO") process.exit(1);

// A plugin's result fields (module augmentation in the declarations): result.budget under a cap.
let spentTokens: number | undefined;
for await (const message of summon("hi", { model: "test", maxBudgetTokens: 100_000, persistSession: false })) {
  if (message.type === "result") spentTokens = message.budget?.spentTokens;
}
console.log(`budget.spentTokens: ${spentTokens}`);
if (!spentTokens) process.exit(1);
