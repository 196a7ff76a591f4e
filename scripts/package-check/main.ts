// A user's first program, as README's quick start shows it: type-checked with tsc (strict,
// module nodenext) against the installed tarball, then run on the offline model.
import * as app from "ubiquity";
import {
  createKernel,
  defineConfig,
  definePlugin as appDefinePlugin,
  defineTool,
  summon,
  type Message,
  type MessageBase,
  type Options,
} from "ubiquity";
import { definePlugin, SYSTEM_STAGE, type Plugin } from "ubiquity/plugin";
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

// The two entries: internals are no export of either, and the helpers both offer are one binding.
for (const internal of ["driveRun", "runToolCall", "createRun", "callModel", "SYSTEM_STAGE"])
  if (internal in app) {
    console.error(`ubiquity exports ${internal}`);
    process.exit(1);
  }
if (appDefinePlugin !== definePlugin || typeof SYSTEM_STAGE.GUIDANCE !== "number") process.exit(1);
console.log(`ubiquity: ${Object.keys(app).length} value exports; ubiquity/plugin resolves`);

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
for await (const message of summon("shout hello as JSON", {
  model: answering,
  outputSchema: Shouted,
  persistSession: false,
})) {
  if (message.type === "result") shouted = message.structuredOutput?.shouted;
}
console.log(`structuredOutput.shouted: ${shouted}`);
if (shouted !== "HELLO") process.exit(1);

// A third-party plugin offering what only the runner and the trust question read (commands, run
// flags, project files: merged into `Plugin` from outside the kernel), and narrowing on a message
// a plugin declared (compaction's `compact_boundary`): tsc above fails if either is lost.
const greeter = definePlugin({
  name: "ubiquity-plugin-greeter",
  commands: { greet: { summary: "Say hello", run: async (_args, io) => (io.stdout("hello\n"), 0) } },
  flags: {
    greeting: {
      type: "string",
      group: "Model",
      description: "What to say",
      apply: (options, value) => void (options.greeting = String(value)),
    },
  },
  apply() {},
});
const planted: Plugin = {
  name: "ubiquity-plugin-planted",
  apply() {},
  projectFiles: ({ cwd }) => [{ path: `${cwd}/.planted`, kind: "settings", effect: "nothing" }],
};
// The object form of definePlugin takes the same host fields (architecture.md's picture lists projectFiles with it).
const plantedSpec = definePlugin({
  name: "ubiquity-plugin-planted-spec",
  apply() {},
  projectFiles: ({ cwd }) => [{ path: `${cwd}/.planted-spec`, kind: "settings", effect: "nothing" }],
});
const boundary = (message: Message) =>
  message.type === "system" && message.subtype === "compact_boundary" ? message.tokensBefore - message.tokensAfter : 0;
const kernel = createKernel({ presets: [], plugins: [greeter, planted, plantedSpec] });
const offered = kernel.plugins.map(
  (p) =>
    Object.keys(p.plugin.commands ?? {}).join(",") +
    (p.plugin.projectFiles?.({ cwd: "/x", folders: [], home: "/h" }).length ?? 0),
);
await kernel.dispose();
console.log(
  `plugin contract: ${offered.join(" ")} ${boundary({ type: "system", subtype: "compact_boundary", tokensBefore: 9, tokensAfter: 4, trigger: "auto", uuid: "u", sessionId: "s" })}`,
);
if (
  offered.join(" ") !== "greet0 1 1" ||
  boundary({
    type: "system",
    subtype: "compact_boundary",
    tokensBefore: 9,
    tokensAfter: 4,
    trigger: "auto",
    uuid: "u",
    sessionId: "s",
  }) !== 5
)
  process.exit(1);
// Plugins' older augmentations, dropped for nodenext users until the declarations' `declare module`
// specifiers got their `.js`: `system/init`'s permissionMode, the budget plugin's result subtype.
const augmented = (message: Message) =>
  message.type === "system" && message.subtype === "init"
    ? (message.permissionMode ?? "")
    : message.type === "result" && message.subtype === "error_max_budget_usd"
      ? "budget"
      : "";
if (augmented({ type: "result", subtype: "error_max_budget_usd" } as Message) !== "budget") process.exit(1);

// A user's own plugin message, declared the way docs/plugins.md shows (augmenting "ubiquity").
interface DeployMessage extends MessageBase {
  type: "acme_deploy";
  url: string;
}
declare module "ubiquity" {
  interface PluginMessages {
    acme_deploy: DeployMessage;
  }
}
const deployedTo = (message: Message) => (message.type === "acme_deploy" ? message.url : undefined);
if (deployedTo({ type: "acme_deploy", url: "https://x", uuid: "u", sessionId: "s" }) !== "https://x") process.exit(1);
// A plugin's result fields (module augmentation in the declarations): result.budget under a cap.
let spentTokens: number | undefined;
for await (const message of summon("hi", { model: "test", maxBudgetTokens: 100_000, persistSession: false })) {
  if (message.type === "result") spentTokens = message.budget?.spentTokens;
}
console.log(`budget.spentTokens: ${spentTokens}`);
if (!spentTokens) process.exit(1);
