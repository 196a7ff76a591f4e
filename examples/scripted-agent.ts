/**
 * An agent with a custom tool, run on the scripted model (no LLM, no key): prints each message
 * the run yields. Swap `model` for "openai:gpt-5" (or any model string) and nothing else changes.
 * Run: npx jiti examples/scripted-agent.ts
 */
import { defineTool, summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { z } from "zod";

const weather = defineTool({
  name: "Weather",
  description: "Today's weather in a city",
  inputSchema: z.object({ city: z.string() }),
  isReadOnly: true,
  execute: ({ city }) => `${city}: 21°C, clear`,
});

const model = scriptedModel([
  { toolCalls: [{ toolName: "Weather", input: { city: "Lisbon" } }] },
  { text: "It is 21°C and clear in Lisbon." },
]);

for await (const message of summon("What's the weather in Lisbon?", {
  model,
  tools: [weather],
  persistSession: false,
})) {
  if (message.type === "tool_use") console.log(`→ ${message.toolName}`, JSON.stringify(message.toolInput));
  if (message.type === "tool_result") console.log(`← ${String(message.output.content)}`);
  if (message.type === "assistant" && message.text) console.log(message.text);
  if (message.type === "result") {
    console.log(`${message.subtype} after ${message.numTurns} turns`);
    if (message.isError) process.exitCode = 1;
  }
}
