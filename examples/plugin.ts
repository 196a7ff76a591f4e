/**
 * A plugin with a typed option: it registers a tool and adds a system-prompt section. Its option
 * (`shoutStyle`) joins the config's type through `Ubiquity.PluginOptions`, so tsc checks it.
 * Run: npx jiti examples/plugin.ts
 */
import { summon } from "ubiquity";
import { definePlugin, defineTool, SYSTEM_STAGE } from "ubiquity/plugin";
import { scriptedModel } from "ubiquity/testing";
import { z } from "zod";

declare global {
  namespace Ubiquity {
    interface PluginOptions {
      /** How the Shout tool shouts. */
      shoutStyle?: "upper" | "exclaim";
    }
  }
}

const NAME = "example-shout";

const shoutPlugin = definePlugin({
  name: NAME,
  options: z.strictObject({ shoutStyle: z.enum(["upper", "exclaim"]).optional() }),
  apply(kernel, context) {
    const shout = defineTool({
      name: "Shout",
      description: "Shout a text",
      inputSchema: z.object({ text: z.string() }),
      isReadOnly: true,
      execute: ({ text }) => (context.options.shoutStyle === "exclaim" ? `${text}!!!` : text.toUpperCase()),
    });
    kernel.registries.tools.register(shout.name, shout, NAME);
    kernel.hooks.turn.system.tap({ name: NAME, stage: SYSTEM_STAGE.FEATURES }, (sections) => [
      ...sections,
      { id: NAME, text: "Shout when asked to." },
    ]);
  },
});

const model = scriptedModel([{ toolCalls: [{ toolName: "Shout", input: { text: "hello" } }] }, { text: "Done." }]);
for await (const message of summon("shout hello", {
  model,
  plugins: [shoutPlugin()],
  shoutStyle: "exclaim",
  persistSession: false,
})) {
  if (message.type === "tool_result") console.log(`Shout → ${String(message.output.content)}`);
  if (message.type === "result") {
    const prompt = JSON.stringify(model.requests[0]?.prompt);
    console.log(`system prompt has the plugin's section: ${prompt.includes("Shout when asked to.")}`);
    if (message.isError || !prompt.includes("Shout when asked to.")) process.exitCode = 1;
  }
}
