/**
 * What a newcomer's trial (t, 2026-12-06: the packed package in empty folders, the README and the
 * docs followed as written, no model reachable) met as a Claude Code user, an SDK developer and a
 * plugin author:
 * - a hook callback ported from the Claude Agent SDK, answering `{ hookSpecificOutput: {
 *   permissionDecision: "deny" } }`, was ignored: the `rm -rf` it denied ran. Callbacks' answers
 *   are now read as a command hook's JSON is, and `HookOutput` types the field;
 * - a key a plugin's `factoryOptions` (a plain `z.object`) does not have — `[plugin, { lod: true }]`
 *   in a JSON config — was dropped without a word, where the config's own keys and the built-ins'
 *   options are errors naming the key meant;
 * - a `claude -p` user had no documented way to try their rules and hooks on chosen tool calls
 *   without a key (`--model test` lists files whatever the setup): docs/testing.md shows a
 *   scripted model in `ubiquity.config.ts`, and the block runs as written;
 * - the README's first program printed an empty line for every turn that only called tools.
 */
import { existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { definePlugin } from "../../sdk/plugin";
import { summon, type HookCallback, type Message, type CanUseToolResult } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { ConfigError } from "../../src/errors";
import { completeTsBlocks } from "../docs/blocks";
import { typeCheckBlocks, writeBlocks } from "../docs/typecheck";
import { tsNodeArgs } from "../helpers/ts-child";
import { removeTempProjects, repoRoot, requireDist, runCli, tempProject } from "../helpers/project";

afterAll(removeTempProjects);
beforeAll(requireDist);

async function collect(iterable: AsyncIterable<Message>): Promise<Message[]> {
  const out: Message[] = [];
  for await (const m of iterable) out.push(m);
  return out;
}

describe("a hook callback answering the Claude Agent SDK's hookSpecificOutput", () => {
  const run = async (hook: HookCallback, logged: string[] = []) => {
    const dir = tempProject({ "build/keep.txt": "x" });
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Bash", input: { command: "rm -rf build" } }] },
      { text: "ok" },
    ]);
    const messages = await collect(
      summon("clean", {
        model,
        cwd: dir,
        persistSession: false,
        sandbox: false,
        permissionMode: "bypassPermissions",
        logger: { ...console, warn: (m: unknown) => logged.push(String(m)), debug: () => {}, info: () => {} },
        hooks: { PreToolUse: [{ matcher: "Bash", hooks: [hook] }] },
      }),
    );
    const result = messages.find((m) => m.type === "tool_result");
    return {
      kept: existsSync(join(dir, "build", "keep.txt")),
      content: result?.type === "tool_result" ? result.output.content : "",
    };
  };

  it("permissionDecision deny blocks the call with its reason; the command does not run", async () => {
    const { kept, content } = await run(async () => ({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: "no rm here",
      },
    }));
    expect(kept).toBe(true);
    expect(content).toContain("no rm here");
  });

  it("without an opinion the command runs (the control)", async () => {
    const { kept } = await run(async () => ({ hookSpecificOutput: { hookEventName: "PreToolUse" } }));
    expect(kept).toBe(false);
  });

  it("a JavaScript hook reading the SDK's input names (input.tool_input.command) sees the command and blocks it", async () => {
    const ported = (async (input: { tool_name: string; tool_input: { command: string } }) =>
      input.tool_name === "Bash" && /\brm\b/.test(input.tool_input.command)
        ? {
            hookSpecificOutput: {
              hookEventName: "PreToolUse",
              permissionDecision: "deny",
              permissionDecisionReason: "rm is blocked",
            },
          }
        : undefined) as unknown as HookCallback;
    const { kept, content } = await run(ported);
    expect(kept).toBe(true);
    expect(content).toContain("rm is blocked");
  });

  it("the SDK's names are not enumerated: a spread or JSON of the input is ours alone", async () => {
    let seen: string[] = [];
    await run((input) => {
      seen = Object.keys(JSON.parse(JSON.stringify(input)) as object);
      return undefined;
    });
    expect(seen).toContain("toolInput");
    expect(seen).not.toContain("tool_input");
  });

  it("a key no hook reads is named, with the key meant", async () => {
    const logged: string[] = [];
    // A JavaScript caller's typo: the type would refuse it.
    const typo = (async () => ({ decison: "block" })) as unknown as HookCallback;
    await run(typo, logged);
    expect(logged.join("\n")).toContain(
      'PreToolUse hook callback answered "decison", which no hook reads; it was ignored (did you mean "decision"?)',
    );
  });
});

describe("a plugin's factory options with a key its schema does not have", () => {
  const plugin = definePlugin({
    name: "acme:dry-bash",
    factoryOptions: z.object({ loud: z.boolean().default(false) }),
    apply() {},
  });

  it("is an error naming the plugin and the key meant; the right key is taken", () => {
    expect(() => plugin({ lod: true } as never)).toThrow(ConfigError);
    expect(() => plugin({ lod: true } as never)).toThrow(
      'invalid options for plugin acme:dry-bash: unknown key "lod" (did you mean "loud"?); it takes "loud"',
    );
    expect(plugin({ loud: true }).name).toBe("acme:dry-bash");
  });

  it("a z.looseObject schema keeps such keys, as its author chose", () => {
    const loose = definePlugin({
      name: "acme:loose",
      factoryOptions: z.looseObject({ a: z.string().optional() }),
      apply() {},
    });
    expect(loose({ b: 1 } as never).name).toBe("acme:loose");
  });

  it("through the bin: a JSON config's [plugin, { lod: true }] stops the run (exit 2) naming it", async () => {
    const dir = tempProject(
      {
        "dry-bash.mjs": `import { definePlugin } from "ubiquity/plugin";\nimport { z } from "zod";\nexport default definePlugin({ name: "acme:dry-bash", factoryOptions: z.object({ loud: z.boolean().default(false) }), apply() {} });\n`,
        ".ubiquityrc.json": JSON.stringify({ plugins: [["./dry-bash.mjs", { lod: true }]] }),
      },
      { linkUbiquity: true },
    );
    symlinkSync(join(repoRoot, "node_modules", "zod"), join(dir, "node_modules", "zod"), "dir");
    const r = await runCli(["-p", "--model", "test", "hi"], dir);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('unknown key "lod" (did you mean "loud"?)');
  });
});

describe("docs/testing.md: ubiquity -p on a scripted model, from the config", () => {
  it("the documented config plays its tool calls through the project's rules and hooks", async () => {
    const file = join(repoRoot, "docs", "testing.md");
    const block = completeTsBlocks(file).find((b) => b.code.startsWith("// ubiquity.config.ts"));
    expect(block, "the ubiquity.config.ts block of docs/testing.md").toBeDefined();
    const dir = tempProject(
      {
        "ubiquity.config.ts": block!.code,
        ".env": "SECRET=1\n",
        ".claude/settings.json": JSON.stringify({
          permissions: { allow: ["Bash(ls:*)"], deny: ["Read(./.env)"] },
          hooks: {
            PreToolUse: [
              { matcher: "Bash", hooks: [{ type: "command", command: "echo 'no shell today' >&2; exit 2" }] },
            ],
          },
        }),
      },
      { linkUbiquity: true },
    );
    const r = await runCli(["-p", "--output-format", "stream-json", "go"], dir);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Message);
    const results = lines.flatMap((m) => (m.type === "tool_result" ? [String(m.output.content)] : []));
    expect(results[0]).toBe("no shell today");
    expect(results[1]).toContain("the rule Read(./.env) in settings");
    const last = lines.at(-1);
    expect(last?.type === "result" && last.result).toBe("done");
  });
});

describe("the README's first program", () => {
  it("prints the answer and the result, and no empty line for a turn that only calls tools", async () => {
    const readme = completeTsBlocks(join(repoRoot, "README.md"))[0]!;
    expect(readme.code).toContain('{ model: "openai:gpt-5" }');
    const dir = tempProject({ "a.txt": "a" });
    const program = `import { scriptedModel } from "ubiquity/testing";\n${readme.code.replace(
      '{ model: "openai:gpt-5" }',
      `{ model: scriptedModel([{ toolCalls: [{ toolName: "Glob", input: { pattern: "*" } }] }, { text: "one file" }]), cwd: ${JSON.stringify(dir)}, persistSession: false }`,
    )}`;
    const path = join(dir, "first.ts");
    writeFileSync(path, program);
    const { execFileSync } = await import("node:child_process");
    const out = execFileSync(process.execPath, [...tsNodeArgs, join(repoRoot, "test", "docs", "run-block.ts"), path], {
      cwd: repoRoot,
      encoding: "utf8",
    });
    const lines = out.split("\n");
    expect(lines[0]).toBe("one file");
    expect(lines[1]).toMatch(/^success /);
    expect(readFileSync(path, "utf8")).toContain("scriptedModel");
  });
});

describe("a scripted model asked for more turns than it has", () => {
  it("says how many it has in words that agree, and the fix", async () => {
    const model = scriptedModel([{ text: "only one" }]);
    const first = await collect(summon("one", { model, persistSession: false }));
    expect(first.at(-1)?.type === "result" && first.at(-1)).toMatchObject({ subtype: "success" });
    const second = await collect(summon("two", { model, persistSession: false }));
    const last = second.at(-1);
    expect(last?.type === "result" && last.result).toContain(
      "the script has 1 turn and call #2 asked for another: add a turn for it (model.requests[1] is what the run sent)",
    );
    expect(model.requests[1]).toBeDefined();
  });
});

describe("the docs that ship in the package, on the example plugin", () => {
  it("say the example lives in the repository, not in the package a reader has", () => {
    const shipped = ["plugins.md", ...readdirSync(join(repoRoot, "docs", "plugins")).map((f) => `plugins/${f}`)];
    const mentions = shipped.flatMap((name) =>
      readFileSync(join(repoRoot, "docs", name), "utf8")
        .split("\n\n")
        .filter((paragraph) => paragraph.includes("examples/ubiquity-plugin-house-rules"))
        .map((paragraph) => ({ name, paragraph })),
    );
    expect(mentions.length).toBeGreaterThan(0);
    for (const { name, paragraph } of mentions) expect(paragraph, name).toMatch(/not in the\s+(npm\s+)?package/);
  });
});

describe("a program ported from the Claude Agent SDK's query()", () => {
  const result = async (extra: Record<string, unknown>) => {
    const messages = await collect(
      summon("hi", { model: scriptedModel([{ text: "a" }]), persistSession: false, logger: quiet, ...extra } as never),
    );
    const last = messages.at(-1);
    return last?.type === "result" ? last : undefined;
  };
  const quiet = { debug() {}, info() {}, warn() {}, error() {} };

  it.each([
    [{ abortController: new AbortController() }, "here it is abortSignal: controller.signal"],
    [{ continue: true }, "here it is continueConversation: true"],
    [
      { systemPrompt: { type: "preset", preset: "claude_code", append: "Be terse." } },
      'pass appendSystemPrompt: "<append>"',
    ],
    [
      { plugins: [{ type: "local", path: "./my-plugin" }] },
      'Claude Code plugin folders go in claudePlugins: ["<path>"]',
    ],
  ])("%o: the configuration error names what to write here", async (extra, fix) => {
    const r = await result(extra);
    expect(r?.subtype).toBe("error_configuration");
    expect(r?.result).toContain(fix);
  });

  it("our own option names run (the control), and a plain typo gets no SDK line", async () => {
    expect((await result({ abortSignal: new AbortController().signal }))?.subtype).toBe("success");
    const typo = await result({ maxTurnz: 3 });
    expect(typo?.result).toContain('"maxTurnz" (did you mean "maxTurns"?)');
    expect(typo?.result).not.toContain("Claude Agent SDK");
  });

  it("summon({ prompt, options }) says it is summon(prompt, options) here", () => {
    expect(() => summon({ prompt: "hi", options: {} } as never)).toThrow(
      "(the Claude Agent SDK's query({ prompt, options }) is summon(prompt, options) here)",
    );
  });
});

describe('canUseTool answering updatedPermissions (the Claude Agent SDK\'s "always allow")', () => {
  const twice = async (answer: (suggestions: string[]) => CanUseToolResult, extra: Record<string, unknown> = {}) => {
    const dir = tempProject({});
    const asked: string[] = [];
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Bash", input: { command: "ls" } }] },
      { toolCalls: [{ toolName: "Bash", input: { command: "ls -a" } }] },
      { text: "done" },
    ]);
    const messages = await collect(
      summon("check", {
        model,
        cwd: dir,
        persistSession: false,
        sandbox: false,
        canUseTool: (_tool, input, { suggestions }) => {
          asked.push(String(input.command));
          return answer(suggestions);
        },
        ...extra,
      }),
    );
    const results = messages.flatMap((m) => (m.type === "tool_result" ? [m.output.isError] : []));
    return { asked, results };
  };

  it("the suggestions given back hold for the rest of the session: the second call is not asked", async () => {
    const { asked } = await twice((suggestions) => ({ behavior: "allow", updatedPermissions: suggestions }));
    expect(asked).toEqual(["ls"]);
  });

  it("the SDK's { type: 'addRules' } entries are read as rules", async () => {
    const { asked } = await twice(() => ({
      behavior: "allow",
      updatedPermissions: [
        {
          type: "addRules",
          behavior: "allow",
          rules: [{ toolName: "Bash", ruleContent: "ls:*" }],
          destination: "session",
        },
      ],
    }));
    expect(asked).toEqual(["ls"]);
  });

  it("without them every call is asked (the control); a deny rule still wins over them", async () => {
    expect((await twice(() => ({ behavior: "allow" }))).asked).toEqual(["ls", "ls -a"]);
    const denied = await twice((s) => ({ behavior: "allow", updatedPermissions: s }), {
      disallowedTools: ["Bash(ls -a)"],
    });
    expect(denied.results).toEqual([false, true]);
  });
});

describe("the types, for code ported from the Claude Agent SDK", () => {
  it("take a hook's hookSpecificOutput and canUseTool's updatedPermissions; a wrong decision is a tsc error", () => {
    const block = {
      file: join(repoRoot, "test", "cli", "newcomer-trial-t.test.ts"),
      line: 0,
      code: `import { summon, type HookInput } from "ubiquity";
const reason: string | undefined = process.env.WHY;
export const q = summon("clean up", {
  model: "openai:gpt-5",
  hooks: {
    PreToolUse: [{ matcher: "Bash", hooks: [async (input: HookInput) => ({
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: reason },
    })] }],
  },
  canUseTool: async (_name, input, { suggestions }) => ({ behavior: "allow", updatedInput: input, updatedPermissions: suggestions }),
});
export const wrong = summon("x", {
  model: "openai:gpt-5",
  hooks: {
    // @ts-expect-error: a permissionDecision is allow, deny or ask
    PreToolUse: [{ hooks: [async () => ({ hookSpecificOutput: { permissionDecision: "maybe" } })] }],
  },
});
`,
    };
    const { fileOf, dispose } = writeBlocks([block]);
    try {
      expect(typeCheckBlocks(fileOf)).toEqual([]);
    } finally {
      dispose();
    }
  }, 120_000);
});
