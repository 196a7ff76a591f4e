/**
 * A third-party plugin declares an option (issue 20, point 1): a config file sets it, the kernel
 * validates it against the plugin's slice and the plugin reads it from its context; `inspect` and
 * the generated JSON Schema show it; a wrong type and a disabled plugin fail naming the plugin.
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { configJsonSchema } from "../../loader/index";
import {
  ConfigError,
  createKernel,
  defineConfig,
  definePlugin,
  loadConfig,
  type Logger,
  type Options,
  type Plugin,
  type UbiquityConfig,
} from "ubiquity";
import { defaultPlugins } from "../../sdk/facade";
import permissions from "ubiquity/plugins/permissions";
import { formatInspect, inspectKernel } from "../../runner/inspect";
import { removeTempProjects, repoRoot, tempProject } from "../helpers/project";

afterAll(removeTempProjects);

/** The plugin: its slice declares `greeting`; `apply` reads it from the context once the options are resolved. */
const greeter = definePlugin({
  name: "acme:greeter",
  options: z.object({ greeting: z.string().describe("How the greeter says hello") }),
  apply(kernel, ctx) {
    kernel.hooks.kernel.configResolved.tap("acme:greeter", () => ctx.warn(`greeting: ${ctx.options.greeting}`));
  },
});

/** The same plugin as a module file a config names by path (imports by absolute path: the temp folder has no node_modules). */
const greeterModule = `import { z } from ${JSON.stringify(join(repoRoot, "node_modules", "zod", "index.js"))};
import { definePlugin } from ${JSON.stringify(join(repoRoot, "plugins", "_kits", "authoring", "index.ts"))};
export default definePlugin({
  name: "acme:greeter",
  options: z.object({ greeting: z.string().describe("How the greeter says hello") }),
  apply(kernel, ctx) {
    kernel.hooks.kernel.configResolved.tap("acme:greeter", () => ctx.warn(\`greeting: \${ctx.options.greeting}\`));
  },
});
`;

function capturing(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return {
    warnings,
    debug() {},
    info() {},
    warn: (...args: unknown[]) => void warnings.push(args.join(" ")),
    error() {},
  };
}

const thrown = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
};

describe("a third-party plugin's options", () => {
  it("a config file naming the plugin by path sets its option; the kernel accepts it and the plugin sees it", async () => {
    const dir = tempProject({
      "acme-greeter.ts": greeterModule,
      ".ubiquityrc.json": JSON.stringify({
        presets: [],
        plugins: ["./acme-greeter.ts"],
        greeting: "hello from the file",
      }),
    });
    const { config } = await loadConfig({ trust: true, cwd: dir });
    expect(config?.greeting).toBe("hello from the file");
    const logger = capturing();
    const kernel = createKernel({ ...config, logger });
    expect(kernel.options.greeting).toBe("hello from the file");
    expect(logger.warnings).toContain("[acme:greeter] greeting: hello from the file");

    const report = inspectKernel(kernel, join(dir, ".ubiquityrc.json"));
    expect(report.pluginOptions).toEqual({ "acme:greeter": ["greeting"] });
    expect(formatInspect(report)).toContain("  acme:greeter: greeting\n");
  });

  it("a YAML/JSON config that sets it without naming the plugin validates against the default preset, where it is unknown", async () => {
    const dir = tempProject({ ".ubiquityrc.json": JSON.stringify({ greeting: "hi" }) });
    await expect(loadConfig({ trust: true, cwd: dir })).rejects.toThrow(/Unrecognized key: "greeting"/);
  });

  it("shows in inspect next to the built-in plugins' options", async () => {
    const kernel = createKernel({
      plugins: [...(await defaultPlugins()), greeter()],
      greeting: "hi",
      logger: capturing(),
    });
    const text = formatInspect(inspectKernel(kernel, null));
    expect(text).toContain("options declared by plugins");
    expect(text).toMatch(
      /^ {2}ubiquity:permissions: permissionMode, allowedTools, approvedTools, availableTools, disallowedTools, askTools, canUseTool, permissionPromptTimeoutMs$/m,
    );
    expect(text).toMatch(/^ {2}acme:greeter: greeting$/m);
  });

  it("is in the JSON Schema composed with the default preset's plugins, with its description", async () => {
    const schema = configJsonSchema([...(await defaultPlugins()), greeter()]) as {
      properties: Record<string, { type?: string; description?: string }>;
      additionalProperties: boolean;
    };
    expect(schema.properties.greeting).toEqual({ type: "string", description: "How the greeter says hello" });
    expect(schema.properties.permissionMode?.description).toBe("['default']");
    expect(schema.additionalProperties).toBe(false);
    expect(configJsonSchema(await defaultPlugins())).not.toHaveProperty("properties.greeting");
  });

  it("a wrong type fails naming the plugin and the key", () => {
    const message = thrown(() =>
      createKernel({ presets: [], plugins: [greeter()], greeting: 42, logger: capturing() }),
    );
    expect(message).toMatch(/greeting/);
    expect(message).toContain('"greeting" is an option of the plugin acme:greeter');
  });

  it("with the plugin disabled, the key is unknown and the error says the plugin is not in the list", () => {
    const message = thrown(() =>
      createKernel({
        presets: [],
        plugins: [greeter()],
        disable: ["acme:greeter"],
        greeting: "hi",
        logger: capturing(),
      }),
    );
    expect(message).toContain('Unrecognized key: "greeting"');
    expect(message).toContain(
      '"greeting" is an option of the plugin acme:greeter, which is not in the plugin list (disabled)',
    );
  });
});

describe("a built-in plugin's options without the plugin", () => {
  it("permissionMode with no permissions plugin is an unknown key naming ubiquity:permissions", () => {
    void permissions; // imported, so the process knows the plugin (a factory call remembers its slice)
    permissions();
    const message = thrown(() => createKernel({ plugins: [], permissionMode: "plan", logger: capturing() }));
    expect(message).toContain('Unrecognized key: "permissionMode"');
    expect(message).toMatch(
      /"permissionMode" is an option of the plugins? [^\n]*ubiquity:permissions[^\n]*not in the plugin list/,
    );
  });

  it("the kernel's own fields stay valid with no plugin at all", () => {
    const kernel = createKernel({ plugins: [], maxTurns: 3, cwd: repoRoot, logger: capturing() });
    expect(kernel.options.maxTurns).toBe(3);
    expect(kernel.options).not.toHaveProperty("permissionMode");
  });

  it("an options.tools entry that is not a Tool fails validation, naming the entry and how to make one", () => {
    const message = thrown(() =>
      createKernel({ plugins: [], tools: [{ name: "Half" } as never], logger: capturing() }),
    );
    expect(message).toContain("expected a Tool (use defineTool() or extend Tool)");
    expect(message).toContain("tools[0]");
  });

  it("the permissions plugin applies its own default mode", () => {
    const kernel = createKernel({ plugins: [permissions()], logger: capturing() });
    expect(kernel.options.permissionMode).toBe("default");
  });

  it("a plugin typed by its slice", () => {
    const plugin: Plugin = greeter();
    expect(Object.keys(plugin.options?.shape ?? {})).toEqual(["greeting"]);
  });
});

describe("the package entry's types", () => {
  it("UbiquityConfig and defineConfig take every option of the default preset (a compile-time check: every key of the JSON Schema)", async () => {
    const every = defineConfig({
      model: "test",
      providerOptions: { openai: { store: false } },
      requestTimeoutMs: 3,
      streamIdleTimeoutMs: 3,
      responseTimeoutMs: 3,
      toolTimeoutMs: 3,
      toolTimeouts: { Bash: 3 },
      cwd: "x",
      additionalDirectories: ["x"],
      tools: [],
      maxTurns: 3,
      maxTokens: 3,
      temperature: 0.5,
      includePartialMessages: true,
      env: { A: "1" },
      subprocessEnv: "inherit",
      abortSignal: new AbortController().signal,
      logger: console,
      $schema: "./schema.json",
      presets: [],
      plugins: [],
      disable: ["ubiquity:memory"],
      settingSources: ["user"],
      settings: { permissions: { deny: ["Bash(rm:*)"] } },
      compat: ["claude", "codex"],
      trust: true,
      fallbackModel: "openai:gpt-5",
      modelAliases: { fast: "openai:gpt-5-mini" },
      apiKey: "x",
      providerSettings: { openai: {} },
      maxThinkingTokens: 3,
      modelCapabilities: { "ollama:llava": { images: true } },
      maxRetries: 3,
      retryMaxWaitMs: 3,
      modelPricing: { "acme:*": { input: 1, output: 2 } },
      marketPricing: true,
      maxBudgetUsd: 3,
      maxBudgetTokens: 3,
      autoMicrocompact: true,
      backgroundTasks: { maxShells: 2, backgroundOnTimeout: true },
      webFetch: { model: "test", maxBytes: 3, allowPrivateAddresses: true, cacheTtlMs: 0 },
      webSearch: { backend: { type: "searxng" as const, url: "http://127.0.0.1:8888" }, native: false },
      lspServers: {
        ts: { command: "typescript-language-server", args: ["--stdio"], extensionToLanguage: { ".ts": "typescript" } },
      },
      lspDiagnostics: { timeoutMs: 5000 },
      microcompactKeepRecent: 3,
      maxContextTokens: 3,
      compactThreshold: 0.8,
      autoCompact: true,
      compactKeepRecent: 3,
      compactModel: "test",
      compactInstructions: "x",
      cachePrompt: "1h",
      detectCacheBreaks: true,
      toolProfile: { "acme:*": "apply_patch" },
      reasoning: { plan: "high", work: "low" },
      systemPrompt: "x",
      appendSystemPrompt: "x",
      permissionMode: "plan",
      allowedTools: ["x"],
      approvedTools: ["x"],
      availableTools: ["x"],
      disallowedTools: ["x"],
      askTools: ["x"],
      canUseTool: () => ({ behavior: "allow" as const }),
      permissionPromptTimeoutMs: 3,
      sandbox: { network: { allowedDomains: ["example.com"] } },
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command" as const, command: "true" }] }] },
      persistTodos: true,
      todoDir: "x",
      todoScope: "session",
      resume: "x",
      continueConversation: true,
      forkSession: true,
      sessionId: "x",
      persistSession: true,
      sessionDir: "x",
      sessionStore: { postgres: { connectionString: "postgresql://localhost/x" } },
      checkpoints: { dir: "x", maxSizeMb: 5 },
      mcpServers: { docs: { type: "http" as const, url: "https://example.test/mcp" } },
      strictMcpConfig: true,
      permissionPromptTool: "mcp__approver__approve",
      onElicitation: () => ({ action: "decline" as const }),
      mcpToolSearch: 0.1,
      deferTools: ["TodoWrite"],
      agents: { reviewer: { description: "Reviews", prompt: "Review the diff", permissionMode: "plan" as const } },
      agent: "reviewer",
      agentSources: ["user"],
      agentIsolation: "worktree",
      worktreeDir: "x",
      skills: ["x"],
      skillSources: ["user"],
      commands: ["x"],
      commandSources: ["user"],
      claudePlugins: ["x"],
      codexProfile: "fast",
      disableSkillShellExecution: true,
      fileMentions: true,
      allowedHttpHookUrls: ["https://hooks.example.com/*"],
      httpHookAllowedEnvVars: ["HOOK_TOKEN"],
      reviewer: "openai:gpt-5-mini",
      memory: ["x"],
      memorySources: ["user"],
      outputSchema: { type: "object" },
      outputMode: "tool",
      maxStructuredOutputRetries: 3,
      telemetry: { recordContent: false },
    } satisfies UbiquityConfig);
    const options: Options = {
      model: every.model,
      permissionMode: every.permissionMode,
      mcpServers: every.mcpServers,
      hooks: every.hooks,
    };
    expect(Object.keys(options)).toHaveLength(4);
    const schema = configJsonSchema(await defaultPlugins()) as { properties: Record<string, unknown> };
    expect(Object.keys(every).sort()).toEqual(Object.keys(schema.properties).sort());
  });
});
