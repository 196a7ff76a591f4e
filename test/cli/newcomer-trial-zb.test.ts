/**
 * What a newcomer's trial (zb, 2026-12-07: a TypeScript developer with a working app on the Claude
 * Agent SDK's `query()` — a CLI and a service streaming a live session's messages to a web client,
 * with allowedTools, disallowedTools, canUseTool, hooks with matchers, an in-process MCP server,
 * agents, a preset system prompt with append, settingSources, maxTurns, resume and forkSession,
 * partial messages, streaming input with images, interrupt(), setPermissionMode(), a JSON-schema
 * output, an AbortController, cwd and env — ports it to Ubiquity from its README and docs alone, the
 * packed package in an empty project, runs on the scripted model) met:
 * - `env: { ...process.env, APP_MODE: "demo" }`, as that SDK's docs write it (its `env` replaces the
 *   environment), handed every provider key and token of the service to Bash, hooks and MCP
 *   servers: here `env` is added on top of the allow-list and wins. A copy of the whole environment
 *   is now told apart from a list of names: what it copied goes through the allow-list, what it
 *   adds or changes wins, and a warning names what stayed behind and how to pass one on purpose;
 * - `allowedTools: ["Read", "Glob", "Grep", …]` with `agents` took the Agent tool away (a bare name
 *   here limits the run to the tools listed; that SDK's only pre-approves), so the subagents could
 *   never be called, without a word; the migration table did not name `approvedTools`, the option
 *   that means what that SDK's `allowedTools` means. A warning names the agents and both fixes, and
 *   the table maps `allowedTools` to `approvedTools`;
 * - the streaming input of that SDK's docs (`AsyncGenerator<SDKUserMessage>` yielding `{ type:
 *   "user", message, parent_tool_use_id: null }`), ported to `AsyncGenerator<UserInput>` as the
 *   table says ("the same messages"), failed tsc: "'parent_tool_use_id' does not exist in type …".
 *   `UserInput` takes that SDK's `parent_tool_use_id` and `session_id` (not read);
 * - the service's `canUseTool` kept its pending approvals (shown in the web client) by
 *   `options.toolUseID`, that SDK's name: in JavaScript every approval had the key `undefined`, and
 *   no subagent's ask said which agent asked (`agentID`). The handler's context now carries
 *   `agentId` and `decisionReason`, typed `CanUseToolContext`, and answers to `toolUseID` and
 *   `agentID` as hook inputs answer to that SDK's names;
 * - that SDK's `thinking: { type: "enabled", budgetTokens }`, `effort`, `debug`, and an agent's
 *   `mcpServers` and `effort` were a bare "Unrecognized key": each now names what to write here;
 * - looking for that SDK's `supportedCommands()` for the web client's command menu, the live-sessions
 *   guide said "`supportedCommands()` is not offered" — it is (slash-commands.md) — and its table
 *   of controls left out `setReasoning`, `backgroundTasks`, `stopTask`, `listMcpResources` and
 *   `readMcpResource`. The table lists every method of `Query` (checked here against the
 *   interface), and says where that SDK's `mcpServerStatus()` and `streamInput()` are;
 * - the in-process server's `tool()`s moved to `defineTool` as the table says, their handler bodies
 *   kept (`return { content: [{ type: "text", text }] }`): tsc said "Type '{ type: "text"; text:
 *   string; }[]' is not assignable to type 'string'", and in JavaScript every call failed "it
 *   returned no content (a tool must return { content: string })" — it had. `execute` now takes that
 *   shape: its text blocks are the content, `isError` holds, a block of another kind is refused by
 *   name (typed `TextBlocksResult`);
 * - a hook group with that SDK's `timeout` (`{ matcher: "Edit|Write", hooks: [log], timeout: 30 }`)
 *   failed tsc and the run ("'timeout' does not exist in type …"): a group's `timeout` now bounds
 *   each of its callbacks in seconds, as there — past it the callback's signal aborts and the hook
 *   is skipped, as one that throws is;
 * - `settingSources: ["project"]` (that SDK's way to read `.claude/`) warned that `.claude/settings.json`
 *   is not read and said to set `compat` "in the project's config" (`ubiquity.config.ts`, which
 *   summon() never reads) and to run `ubiquity trust .`: it now names summon()'s option first. The
 *   table says too that that SDK, given no `settingSources`, reads all three sources, where a
 *   ported program here runs without its deny rules unless `compat` is set;
 * - the options page gave `sandbox` [off]: Bash ran in bubblewrap (`system/init` said so), as the
 *   sandbox guide says — on by default. The page says so now;
 * - the service's stored session ids (that SDK's `session_id`s) given to `resume` ended "No stored
 *   session … check the id (ubiquity sessions list)": an id whose Claude Code transcript is in
 *   `~/.claude/projects` is now named as such, with the way on (a new session);
 * The rest ran as that SDK runs it: hooks with matchers and `hookSpecificOutput`, canUseTool's deny
 * in the result's `permissionDenials`, `setPermissionMode("acceptEdits")` letting the next Write run
 * without asking, `resume` with `forkSession`, `continueConversation`, `error_max_turns`, an aborted
 * signal, and the `abortController` option refused with the fix.
 * Noticed and left: a `PreToolUse` callback that throws (or now times out) is skipped, so the call it
 * guarded runs — that SDK's default (`onFailure: "continue"`) too, but not fail-closed; given no
 * `settingSources`, summon() reads nothing of `.claude/` and says nothing (by design: nothing is
 * read unless asked), so a program relying on that SDK's default loses its deny rules silently.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { defineTool, summon, type HookCallback, type Message } from "ubiquity";
import { z } from "zod";
import { scriptedModel } from "ubiquity/testing";
import { installPacked, removePackedDirs, tempDir } from "../helpers/packed";
import { repoRoot, requireDist } from "../helpers/project";
import { tempHome } from "../helpers/temp-home";

beforeAll(() => requireDist());
afterAll(() => removePackedDirs());

/** A logger that keeps what the run warned. */
function recorder() {
  const warnings: string[] = [];
  const keep = (...args: unknown[]) => void warnings.push(args.map(String).join(" "));
  return { warnings, logger: { debug() {}, info() {}, warn: keep, error: keep } };
}

async function collect(run: AsyncIterable<Message>): Promise<Message[]> {
  const out: Message[] = [];
  for await (const m of run) out.push(m);
  return out;
}

describe("env: { ...process.env, … }, the Claude Agent SDK's way", () => {
  const KEY = "ZB_TRIAL_PROVIDER_API_KEY";
  const secret = "sk-zbtrial-0123456789abcdefghij";
  beforeEach(() => {
    vi.stubEnv(KEY, secret);
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  const bash = (env: Record<string, string>, extra: Record<string, unknown> = {}) => {
    const { warnings, logger } = recorder();
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Bash", input: { command: `echo "key=[$${KEY}] mode=[$APP_MODE]"` } }] },
      { text: "done" },
    ]);
    const cwd = tempDir("ubiquity-trial-zb-env-");
    return collect(
      summon("show the environment", {
        model,
        cwd,
        env,
        permissionMode: "bypassPermissions",
        persistSession: false,
        logger,
        ...extra,
      }),
    ).then((messages) => {
      const result = messages.find((m) => m.type === "tool_result");
      return { output: result?.type === "tool_result" ? String(result.output.content) : "", warnings };
    });
  };

  it("a copy of the whole environment does not hand its credentials to Bash, and says so", async () => {
    const { output, warnings } = await bash({ ...(process.env as Record<string, string>), APP_MODE: "demo" });
    expect(output).toContain("mode=[demo]"); // what it adds still wins
    expect(output).toContain("key=[]");
    const warning = warnings.find((w) => w.includes("whole environment"));
    expect(warning).toContain(KEY);
    expect(warning).toContain('env: { APP_MODE: "demo" }');
    expect(warning).toContain('subprocessEnv: "inherit"');
    expect(warning).not.toContain(secret);
  });

  it("stays a copy when the program sets a variable of its own after the run started", async () => {
    // A PreToolUse hook stands for any code of the program that writes process.env mid-run.
    const late: HookCallback = async () => {
      process.env.ZB_TRIAL_SET_LATER = "later";
      return {};
    };
    vi.stubEnv("ZB_TRIAL_SET_LATER", undefined); // absent again after the test
    const { output } = await bash(
      { ...(process.env as Record<string, string>), APP_MODE: "demo" },
      { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [late] }] } },
    );
    expect(output).toContain("mode=[demo]");
    expect(output).toContain("key=[]");
  });

  it("a credential named on purpose still reaches Bash (masked in what the run shows), without the warning", async () => {
    const { output, warnings } = await bash({ [KEY]: process.env[KEY]!, APP_MODE: "demo" });
    expect(output).toContain("key=[[redacted]]");
    expect(warnings.some((w) => w.includes("whole environment"))).toBe(false);
  });
});

describe("allowedTools with agents", () => {
  const agents = { reviewer: { description: "Reviews code for bugs", prompt: "You review code.", tools: ["Read"] } };
  const run = (extra: Record<string, unknown>) => {
    const { warnings, logger } = recorder();
    const model = scriptedModel([{ text: "done" }]);
    return collect(summon("review", { model, agents, persistSession: false, logger, ...extra })).then((messages) => {
      const init = messages[0];
      return { tools: init?.type === "system" && init.subtype === "init" ? init.tools : [], warnings };
    });
  };

  it("a list that leaves the Agent tool out names the agents it cut off and the fixes", async () => {
    const { tools, warnings } = await run({ allowedTools: ["Read", "Glob", "Grep"] });
    expect(tools).not.toContain("Agent");
    const warning = warnings.find((w) => w.includes("cannot be called"));
    expect(warning).toContain("agents reviewer");
    expect(warning).toContain('Add "Agent" to allowedTools');
    expect(warning).toContain("approvedTools");
  });

  it("approvedTools, the table's equivalent of that SDK's allowedTools, keeps the Agent tool offered, without a warning", async () => {
    const { tools, warnings } = await run({ approvedTools: ["Read", "Glob", "Grep"] });
    expect(tools).toContain("Agent");
    expect(tools).toContain("Bash");
    expect(warnings.filter((w) => w.includes("cannot be called"))).toEqual([]);
  });
});

describe("canUseTool ported from the Claude Agent SDK", () => {
  it("reads toolUseID (and the subagent's agentID) as that SDK names them; a spread shows ours only", async () => {
    const seen: { name: string; id: unknown; agent: unknown; ours: unknown; keys: string[]; reason: unknown }[] = [];
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Write", input: { file_path: "a.txt", content: "a" } }] },
      {
        toolCalls: [{ toolName: "Agent", input: { subagent_type: "writer", description: "write", prompt: "write b" } }],
      },
      { toolCalls: [{ toolName: "Write", input: { file_path: "b.txt", content: "b" } }] },
      { text: "wrote b" },
      { text: "done" },
    ]);
    const messages = await collect(
      summon("write two files", {
        model,
        cwd: tempDir("ubiquity-trial-zb-ask-"),
        persistSession: false,
        agents: { writer: { description: "Writes files", prompt: "You write files.", tools: ["Write"] } },
        canUseTool: async (name, input, options) => {
          // A handler written for that SDK, in JavaScript: its names, not ours.
          const sdk = options as unknown as { toolUseID?: unknown; agentID?: unknown };
          seen.push({
            name,
            id: sdk.toolUseID,
            agent: sdk.agentID,
            ours: options.agentId,
            keys: Object.keys({ ...options }),
            reason: options.decisionReason,
          });
          return { behavior: "allow", updatedInput: input };
        },
      }),
    );
    const uses = messages.flatMap((m) => (m.type === "tool_use" && m.toolName === "Write" ? [m] : []));
    expect(uses).toHaveLength(2);
    expect(seen.map((s) => s.name)).toEqual(["Write", "Write"]);
    expect(seen[0]!.id).toBe(uses[0]!.toolUseId);
    expect(seen[0]!.agent).toBeUndefined();
    expect(seen[1]!.id).toBe(uses[1]!.toolUseId);
    expect(seen[1]!.agent).toBe(uses[1]!.agentId);
    expect(seen[1]!.ours).toBe(uses[1]!.agentId);
    expect(typeof seen[1]!.agent).toBe("string");
    expect(typeof seen[0]!.reason).toBe("string");
    for (const s of seen) expect(s.keys).not.toContain("toolUseID");
  });
});

describe("Options of that SDK with another name here", () => {
  const resultOf = async (options: Record<string, unknown>) => {
    const messages = await collect(summon("hi", { model: "test", persistSession: false, ...options } as never));
    const last = messages.at(-1);
    return last?.type === "result" ? last : undefined;
  };

  it("thinking, effort and debug name the options that do their work", async () => {
    const thinking = await resultOf({ thinking: { type: "enabled", budgetTokens: 2000 } });
    expect(thinking?.subtype).toBe("error_configuration");
    expect(thinking?.result).toContain('"thinking" is the Claude Agent SDK\'s option: here it is maxThinkingTokens');
    expect((await resultOf({ effort: "high" }))?.result).toContain('here it is reasoning: "<level>"');
    expect((await resultOf({ debug: true }))?.result).toContain("here it is logger: console");
  });

  it("an agent's mcpServers and effort name what an agent is given here", async () => {
    const agents = {
      docs: { description: "Looks things up", prompt: "You look things up.", mcpServers: ["docs"], effort: "low" },
    };
    const result = await resultOf({ agents });
    expect(result?.subtype).toBe("error_configuration");
    expect(result?.result).toContain("agents.docs.mcpServers is the Claude Agent SDK's AgentDefinition field");
    expect(result?.result).toContain('"mcp__<server>" in the agent\'s tools');
    const effort = await resultOf({ agents: { docs: { description: "d", prompt: "p", effort: "low" } } });
    expect(effort?.result).toContain(
      'agents.docs.effort is the Claude Agent SDK\'s AgentDefinition field: here it is reasoning: "<level>"',
    );
  });
});

describe("a tool() handler's body kept in defineTool", () => {
  it("its text blocks are the tool's content and its isError holds; a block of another kind is refused by name", async () => {
    const forecast = defineTool({
      name: "get_forecast",
      description: "Forecast for a city",
      inputSchema: z.object({ city: z.string() }),
      isReadOnly: true,
      execute: async ({ city }) => ({
        content: [
          { type: "text", text: `Sunny in ${city}` },
          { type: "text", text: "21°" },
        ],
      }),
    });
    const storm = defineTool({
      name: "get_storms",
      description: "Storms",
      inputSchema: z.object({ city: z.string() }),
      isReadOnly: true,
      execute: async ({ city }) => ({ content: [{ type: "text", text: `No data for ${city}` }], isError: true }),
    });
    const map = defineTool({
      name: "get_map",
      description: "Map",
      inputSchema: z.object({}),
      isReadOnly: true,
      execute: async () => ({ content: [{ type: "image", data: "aGk=", mimeType: "image/png" }] }) as never,
    });
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: "get_forecast", input: { city: "Paris" } },
          { toolName: "get_storms", input: { city: "Oslo" } },
          { toolName: "get_map", input: {} },
        ],
      },
      { text: "done" },
    ]);
    const messages = await collect(summon("weather", { model, tools: [forecast, storm, map], persistSession: false }));
    const results = Object.fromEntries(
      messages.flatMap((m) => (m.type === "tool_result" ? [[m.toolName, m.output] as const] : [])),
    );
    expect(results.get_forecast).toMatchObject({ content: "Sunny in Paris\n21°", isError: false });
    expect(results.get_storms).toMatchObject({ content: "No data for Oslo", isError: true });
    expect(results.get_map?.isError).toBe(true);
    expect(results.get_map?.content).toContain('a content block of type "image"');
    expect(results.get_map?.content).toContain("{ content: string, isError? }");
  });
});

describe("a hook matcher's timeout, as that SDK's HookCallbackMatcher has it", () => {
  it("a callback past it sees its signal abort and is skipped, naming the timeout; the run goes on", async () => {
    const { warnings, logger } = recorder();
    let reason: unknown;
    // Never answers on its own: only the matcher's timeout can end it.
    const stuck: HookCallback = (_input, _id, { signal }) =>
      new Promise((resolve) =>
        signal.addEventListener("abort", () => {
          reason = signal.reason;
          resolve({});
        }),
      );
    const model = scriptedModel([{ toolCalls: [{ toolName: "Glob", input: { pattern: "*" } }] }, { text: "done" }]);
    const messages = await collect(
      summon("list", {
        model,
        cwd: tempDir("ubiquity-trial-zb-hook-"),
        persistSession: false,
        logger,
        hooks: { PreToolUse: [{ matcher: "Glob", hooks: [stuck], timeout: 0.05 }] },
      }),
    );
    const last = messages.at(-1);
    expect(last?.type === "result" && last.subtype).toBe("success");
    expect(messages.some((m) => m.type === "tool_result" && m.toolName === "Glob" && !m.output.isError)).toBe(true);
    expect(String(reason)).toContain("timed out after 0.05 s");
    expect(
      warnings.some((w) => w.includes("PreToolUse hook threw (skipped)") && w.includes("timed out after 0.05 s")),
    ).toBe(true);
  });
});

describe('settingSources: ["project"], that SDK\'s way to read .claude/', () => {
  it("the warning about the unread .claude/settings.json names the option of summon(), not only a config file and trust", async () => {
    const cwd = tempDir("ubiquity-trial-zb-claude-");
    mkdirSync(join(cwd, ".claude"));
    writeFileSync(join(cwd, ".claude", "settings.json"), JSON.stringify({ permissions: { deny: ["Bash(rm:*)"] } }));
    const { warnings, logger } = recorder();
    const model = scriptedModel([{ text: "done" }]);
    await collect(summon("go", { model, cwd, settingSources: ["project"], persistSession: false, logger }));
    const warning = warnings.find((w) => w.includes("Claude Code's settings file and is not read"));
    expect(warning).toContain(
      'In a program, with summon()\'s options: summon(prompt, { compat: ["claude"], settingSources: ["project"], … })',
    );
  });
});

describe("the sandbox's default, as the options page gives it", () => {
  it("a run with no sandbox option is not unsandboxed, and the options page does not say [off]", async () => {
    const messages = await collect(summon("hi", { model: "test", persistSession: false }));
    const init = messages[0];
    const status =
      init?.type === "system" && init.subtype === "init"
        ? (init as { sandbox?: { status?: string } }).sandbox?.status
        : undefined;
    expect(status).not.toBe("off"); // "on", or "unavailable" on a machine without one
    const page = readFileSync(join(repoRoot, "docs", "guide", "options.md"), "utf8");
    const given = /`sandbox` \[([^\]]*)\]/.exec(page)?.[1];
    expect(given).toMatch(/^on where/);
  });
});

describe("resume: a session id the app kept from the Claude Agent SDK", () => {
  const home = tempHome();
  it("is named as a Claude Code session whose transcript is not read, with the way on", async () => {
    const id = "3f2a1c4e-1111-4222-8333-444455556666";
    const transcript = join(home(), ".claude", "projects", "-srv-app", `${id}.jsonl`);
    mkdirSync(join(home(), ".claude", "projects", "-srv-app"), { recursive: true });
    writeFileSync(transcript, `${JSON.stringify({ type: "user", sessionId: id })}\n`);
    const sessionDir = tempDir("ubiquity-trial-zb-sessions-");
    const resultOf = async (resume: string) => {
      const last = (await collect(summon("go on", { model: "test", resume, sessionDir }))).at(-1);
      return last?.type === "result" ? last : undefined;
    };
    const claude = await resultOf(id);
    expect(claude?.subtype).toBe("error_configuration");
    expect(claude?.result).toContain(`it is a Claude Code session (${transcript})`);
    expect(claude?.result).toContain("Leave resume out to start a new session");
    // Another unknown id keeps the plain advice.
    const other = await resultOf("9e8d7c6b-1111-4222-8333-444455556666");
    expect(other?.result).toContain("check the id (ubiquity sessions list) and sessionDir");
  });
});

describe("the Query controls, as the live-sessions guide lists them", () => {
  it("every method of Query has a row, and none is said not to be offered", () => {
    const facade = readFileSync(join(repoRoot, "sdk", "facade.ts"), "utf8");
    const body = /export interface Query<[^>]*> extends AsyncGenerator<M> \{([\s\S]*?)\n\}/.exec(facade)?.[1] ?? "";
    const methods = [...body.matchAll(/^ {2}(\w+)\(/gm)].map((m) => m[1]!);
    expect(methods).toContain("supportedCommands");
    const guide = readFileSync(join(repoRoot, "docs", "guide", "live-sessions.md"), "utf8");
    const table = /\| control \| what it does \|([\s\S]*?)\n\n/.exec(guide)?.[1] ?? "";
    const rows = [...table.matchAll(/`(\w+)\(/g)].map((m) => m[1]!);
    expect(methods.filter((m) => !rows.includes(m))).toEqual([]);
    expect(guide).not.toMatch(/supportedCommands\(\)` is not offered/);
  });
});

describe("the ported app's types, on the packed package", () => {
  it("a streaming input as that SDK's docs write it, a tool() body and a canUseTool keyed by the call and agent, type-check", () => {
    const dir = tempDir("ubiquity-trial-zb-types-");
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "agent-service", private: true, type: "module" }));
    installPacked(dir);
    // docs/getting-started.md's tsconfig.json
    const compilerOptions = {
      strict: true,
      module: "nodenext",
      target: "es2023",
      noEmit: true,
      allowImportingTsExtensions: true,
      skipLibCheck: true,
      types: ["node"],
    };
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions }));
    const file = join(dir, "service.ts");
    writeFileSync(
      file,
      `import { defineTool, summon, type CanUseToolContext, type UserInput } from "ubiquity";
import { z } from "zod";

async function* generateMessages(image: string): AsyncGenerator<UserInput> {
  yield { type: "user", message: { role: "user", content: "Analyze this codebase" }, parent_tool_use_id: null };
  yield {
    type: "user",
    message: {
      role: "user",
      content: [
        { type: "text", text: "Review this diagram" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: image } },
      ],
    },
    parent_tool_use_id: null,
    session_id: "",
  };
}

// The in-process MCP server's tool(), its handler body kept.
export const forecast = defineTool({
  name: "get_forecast",
  description: "Forecast for a city",
  inputSchema: z.object({ city: z.string() }),
  execute: async (args) => ({ content: [{ type: "text", text: \`Sunny in \${args.city}\` }] }),
});

const pending = new Map<string, (allow: boolean) => void>();
const key = (options: CanUseToolContext): string => \`\${options.agentId ?? "main"}:\${options.toolUseId}\`;

export const session = summon(generateMessages("aGVsbG8="), {
  model: "test",
  canUseTool: (toolName, input, options) =>
    new Promise((resolve) =>
      pending.set(key(options), (allow) =>
        resolve(allow ? { behavior: "allow", updatedInput: input } : { behavior: "deny", message: \`\${toolName}: \${options.decisionReason ?? "no"}\` }),
      ),
    ),
});
`,
    );
    const config = ts.parseJsonConfigFileContent({ compilerOptions }, ts.sys, dir);
    const program = ts.createProgram([file], config.options);
    const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    expect(problems).toEqual([]);
  }, 180_000);
});
