/**
 * The files `ubiquity init` writes: a config, a custom tool, a plugin skeleton that registers it,
 * and a test that runs the agent on the scripted model (no LLM, no key). TypeScript that Node
 * runs as is (type stripping, Node ≥ 22.18), so the test is green right after `init`.
 */

// The scaffold's relative imports are spelled through this, so this file's own import scan
// (test/kernel/architecture.test.ts) does not read them as imports of the runner.
const DOT = ".";

/** path → content of the scaffold (package.json and tsconfig.json are handled apart). */
export const SCAFFOLD_FILES: Record<string, string> = {
  "ubiquity.config.ts": `import { defineConfig } from "ubiquity";
import wordCount from "${DOT}/plugins/word-count.ts";

// tsc checks this object: an unknown key or hook event, or a wrong option type, is an error.
// Choose a model here ("openai:gpt-5", "anthropic:claude-sonnet-4-5", "ollama:qwen3") or with
// UBIQUITY_MODEL; "test" is an offline model for trying the runner.
export default defineConfig({
  maxTurns: 20,
  permissionMode: "default",
  plugins: [wordCount()],
  wordCountNote: "Use the WordCount tool to count words; never count by hand.",
});
`,
  "tools/word-count.ts": `import { defineTool } from "ubiquity";
import { z } from "zod";

/** A custom tool: the model calls it with { text } and reads the count. */
export const wordCount = defineTool({
  name: "WordCount",
  description: "Count the words in a text",
  inputSchema: z.object({ text: z.string().describe("The text whose words to count") }),
  isReadOnly: true,
  execute: ({ text }) => String(text.split(/\\s+/).filter(Boolean).length),
});
`,
  "plugins/word-count.ts": `import { definePlugin, SYSTEM_STAGE } from "ubiquity/plugin";
import { z } from "zod";
import { wordCount } from "${DOT}./tools/word-count.ts";

/** The plugin's name: a later plugin with the same name replaces this one in place. */
export const NAME = "word-count";

// The option this plugin reads, added to the config's type (tsc checks \`wordCountNote\`).
declare global {
  namespace Ubiquity {
    interface PluginOptions {
      /** A line added to the system prompt about the WordCount tool. */
      wordCountNote?: string;
    }
  }
}

/** A plugin skeleton: registers the WordCount tool and adds its note to the system prompt. */
export default definePlugin({
  name: NAME,
  // Validated at start-up, and shown by \`ubiquity schema --config ubiquity.config.ts\`.
  options: z.strictObject({ wordCountNote: z.string().optional().describe("A line added to the system prompt") }),
  apply(kernel, context) {
    kernel.registries.tools.register(wordCount.name, wordCount, NAME);
    kernel.hooks.turn.system.tap({ name: NAME, stage: SYSTEM_STAGE.FEATURES }, (sections) => {
      const note = context.options.wordCountNote;
      return note ? [...sections, { id: NAME, text: note }] : sections;
    });
  },
});
`,
  "test/agent.test.ts": `import assert from "node:assert/strict";
import { test } from "node:test";
import { summon, type Message } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import config from "${DOT}./ubiquity.config.ts";

test("the agent counts words with the WordCount tool", async () => {
  // The scripted model stands in for the LLM: turn 1 calls the tool, turn 2 answers.
  const model = scriptedModel([
    { toolCalls: [{ toolName: "WordCount", input: { text: "one two three" } }] },
    { text: "There are 3 words." },
  ]);
  const messages: Message[] = [];
  for await (const message of summon("How many words are in 'one two three'?", { ...config, model, persistSession: false })) {
    messages.push(message);
  }
  const last = messages.at(-1);
  assert.ok(last?.type === "result" && !last.isError, \`the run failed: \${JSON.stringify(last)}\`);
  const output = messages.find((m) => m.type === "tool_result");
  assert.equal(output?.type === "tool_result" ? String(output.output.content) : undefined, "3");
  // The plugin's note reached the model's system prompt.
  assert.match(JSON.stringify(model.requests[0]?.prompt), /Use the WordCount tool/);
});
`,
};

/** tsconfig.json for the scaffold (written when the folder has none). */
export const SCAFFOLD_TSCONFIG = `{
  "compilerOptions": {
    "strict": true,
    "module": "nodenext",
    "moduleResolution": "nodenext",
    "target": "es2023",
    "noEmit": true,
    "allowImportingTsExtensions": true,
    "skipLibCheck": true,
    "types": ["node"]
  },
  "include": ["ubiquity.config.ts", "tools", "plugins", "test"]
}
`;

/** The scripts the scaffold adds to package.json (when absent, or npm's placeholder test). */
export const SCAFFOLD_SCRIPTS: Record<string, string> = {
  test: 'node --test "test/**/*.test.ts"',
  typecheck: "tsc --noEmit -p .",
};
