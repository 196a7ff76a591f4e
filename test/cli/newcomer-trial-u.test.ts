/**
 * What a newcomer's trial (u, 2026-12-06: the packed package in empty folders, the README and the
 * docs followed as written, no model reachable) met writing tools, plugins, hooks, sessions and MCP:
 * - the tsconfig.json of docs/getting-started.md stopped `tsc` on a fresh install ("Could not find
 *   a declaration file for module 'json-schema'", in the AI SDK's declarations): it now keeps
 *   `skipLibCheck` on, as the one `ubiquity init` writes;
 * - a plugin package developed beside the project and installed with `npm i ../ubiquity-plugin-x`
 *   (a link) without its own copy of ubiquity stopped the run with "ubiquity.config.ts: it imports
 *   ubiquity, which is not installed; run `npm i ubiquity`" — in a project that has it. The error
 *   now names the plugin, says why it cannot see the project's copy, and gives both fixes;
 * - `summon(prompt, { resume: id })` without a model ended "No model configured", where
 *   `ubiquity run --resume <id>` goes on with the session's model: the SDK now does the same;
 * - `@modelcontextprotocol/server-memory` from npm, set up by `.mcp.json` as its README says,
 *   answered every write with a bare "EROFS: read-only file system, open '…/node_modules/…/
 *   memory.jsonl'": stdio servers run in the sandbox (Claude Code runs them unsandboxed), and
 *   that server keeps its data beside its code. A sandboxed server's write error now says why,
 *   with the ways out;
 * - with `agents`, a program ported from the Claude Agent SDK (or the README's loop) took the
 *   subagent's own `result` for the run's: subagents' `system/init` and `result` come in the
 *   stream marked `agentId`, which no guide said. docs/guide/subagents.md shows how to read the
 *   run's own messages, and messages.md and the Agent SDK table say it;
 * - a typo in the provider (`--model opneai:gpt-5`) or a key's case (`providerSettings: { baseUrl }`)
 *   listed every provider or setting but not the one meant, where config keys say "did you mean";
 * - a live session fed the Claude Agent SDK's streaming input (`{ type: "user", message: { role:
 *   "user", content } }`, what `--input-format stream-json` reads) type-checked and ran, every
 *   prompt empty. `summon()` now reads that `message`, and refuses one it cannot read by name
 *   (three of this repository's own tests had sent `message: "…"`, so empty prompts, unnoticed);
 * - `ubiquity trust .` in a folder with CLAUDE.md and AGENTS.md said both "now apply" and "add
 *   instructions to the system prompt", and the untrusted run's warning listed them as skipped
 *   for want of trust; trusted, neither was read (they need `compat`) and nothing said so. Both
 *   now name the compat that reads them, and a run finding a CLAUDE.md it does not read says so
 *   as it does for .claude/settings.json.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installPacked, removePackedDirs } from "../helpers/packed";
import { summon, type Message } from "ubiquity";
import { completeTsBlocks } from "../docs/blocks";
import { tsNodeArgs } from "../helpers/ts-child";
import { sandboxAvailability } from "../../plugins/sandbox/availability";
import { scriptedModel } from "ubiquity/testing";
import { removeTempProjects, repoRoot, requireDist, runCli, tempProject } from "../helpers/project";

afterAll(() => {
  removeTempProjects();
  removePackedDirs();
});

beforeAll(requireDist);

describe("docs/getting-started.md's tsconfig.json, on a fresh install", () => {
  it("checks the first program: no error from the AI SDK's declarations", () => {
    const doc = readFileSync(join(repoRoot, "docs", "getting-started.md"), "utf8");
    const block = /## TypeScript[\s\S]*?```json\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(block).toBeDefined();
    // What npm leaves after `npm i ubiquity @ai-sdk/openai`: no @types/json-schema (the repo's node_modules has none either).
    const dir = tempProject({
      "tsconfig.json": block!,
      "agent.ts": `import { summon } from "ubiquity";\nfor await (const m of summon("hi", { model: "test" })) if (m.type === "result") console.log(m.result);\n`,
    });
    installPacked(dir);
    const parsed = ts.parseJsonConfigFileContent(JSON.parse(block!), ts.sys, dir);
    expect(parsed.errors).toEqual([]);
    const program = ts.createProgram([join(dir, "agent.ts")], { ...parsed.options, preserveSymlinks: true });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((d) => `${d.file?.fileName ?? ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
    expect(problems).toEqual([]);
  });
});

describe("a plugin package installed from a folder beside the project (npm i ../plugin: a link)", () => {
  const setup = () => {
    const plugin = tempProject(
      {
        "index.js": `import { definePlugin } from "ubiquity/plugin";\nexport default definePlugin({ name: "ubiquity-plugin-stamp", apply() {} });\n`,
      },
      { packageJson: { name: "ubiquity-plugin-stamp", version: "1.0.0", type: "module", main: "index.js" } },
    );
    const project = tempProject(
      {
        "ubiquity.config.ts": `import { defineConfig } from "ubiquity";\nimport stamp from "ubiquity-plugin-stamp";\nexport default defineConfig({ plugins: [stamp()] });\n`,
      },
      { linkUbiquity: true },
    );
    symlinkSync(plugin, join(project, "node_modules", "ubiquity-plugin-stamp"), "dir");
    return { plugin, project };
  };

  it("without ubiquity of its own: the error names the plugin's folder and the fixes, not a missing ubiquity", async () => {
    const { plugin, project } = setup();
    const run = await runCli(["-p", "--model", "test", "hi"], project);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`ubiquity-plugin-stamp (${join(plugin, "index.js")}), which imports ubiquity`);
    expect(run.stderr).toContain(`\`npm i -D ubiquity\` in ${plugin}`);
    expect(run.stderr).toContain(`npm i --install-links ${plugin}`);
    expect(run.stderr).not.toContain("which is not installed");
  });

  it("with its own copy (the first fix) the run goes on", async () => {
    const { plugin, project } = setup();
    mkdirSync(join(plugin, "node_modules"));
    symlinkSync(repoRoot, join(plugin, "node_modules", "ubiquity"), "dir");
    const run = await runCli(["-p", "--model", "test", "hi"], project);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
  });

  it("a package nobody installed is still 'not installed; run npm i'", async () => {
    const project = tempProject(
      { "ubiquity.config.ts": `import x from "ubiquity-plugin-nowhere";\nexport default { plugins: [x()] };\n` },
      { linkUbiquity: true },
    );
    const run = await runCli(["-p", "--model", "test", "hi"], project);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      "it imports ubiquity-plugin-nowhere, which is not installed; run `npm i ubiquity-plugin-nowhere`",
    );
  });
});

describe("summon() resuming a session without naming a model", () => {
  const collect = async (iterable: AsyncIterable<Message>) => {
    const out: Message[] = [];
    for await (const m of iterable) out.push(m);
    return out;
  };
  const ends = (messages: Message[]) => {
    const init = messages[0];
    const last = messages.at(-1);
    return {
      model: init?.type === "system" && init.subtype === "init" ? init.model : undefined,
      subtype: last?.type === "result" ? last.subtype : undefined,
      result: last?.type === "result" ? last.result : undefined,
      sessionId: last?.sessionId,
    };
  };

  it("goes on with the model the session answered with, as ubiquity run --resume does", async () => {
    const cwd = tempProject({});
    const sessionDir = join(cwd, ".sessions");
    const first = ends(await collect(summon("remember banana", { model: "test", cwd, sessionDir, sandbox: false })));
    expect(first.subtype).toBe("success");
    const resumed = ends(
      await collect(summon("and now?", { resume: first.sessionId, cwd, sessionDir, sandbox: false })),
    );
    expect(resumed).toMatchObject({ model: "test", subtype: "success", sessionId: first.sessionId });
    expect(resumed.result).toContain('you said "and now?"');
    const continued = ends(
      await collect(summon("again", { continueConversation: true, cwd, sessionDir, sandbox: false })),
    );
    expect(continued).toMatchObject({ model: "test", subtype: "success", sessionId: first.sessionId });
  });

  it("a model named wins over the session's; a session whose model cannot be named again still says 'No model configured'", async () => {
    const cwd = tempProject({});
    const sessionDir = join(cwd, ".sessions");
    const scripted = ends(
      await collect(summon("hi", { model: scriptedModel([{ text: "hello" }]), cwd, sessionDir, sandbox: false })),
    );
    expect(scripted.subtype).toBe("success");
    const named = ends(
      await collect(
        summon("and now?", {
          model: scriptedModel([{ text: "again" }]),
          resume: scripted.sessionId,
          cwd,
          sessionDir,
          sandbox: false,
        }),
      ),
    );
    expect(named).toMatchObject({ subtype: "success", result: "again" });
    // "scripted:scripted" is a label, not a model string any provider knows.
    const bare = ends(
      await collect(summon("and now?", { resume: scripted.sessionId, cwd, sessionDir, sandbox: false })),
    );
    expect(bare.subtype).toBe("error_configuration");
    expect(bare.result).toContain("No model configured");
  });
});

const mcpSdk = join(repoRoot, "node_modules", "@modelcontextprotocol", "sdk", "dist", "esm", "server");

describe.skipIf(!sandboxAvailability().ok)("a stdio MCP server from npm that keeps its data beside its code", () => {
  // What @modelcontextprotocol/server-memory does: its file next to its own module unless MEMORY_FILE_PATH says where.
  const server = `import { McpServer } from ${JSON.stringify(join(mcpSdk, "mcp.js"))};
import { StdioServerTransport } from ${JSON.stringify(join(mcpSdk, "stdio.js"))};
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
const server = new McpServer({ name: "memory", version: "1.0.0" });
const file = process.env.MEMORY_FILE_PATH || join(import.meta.dirname, "memory.jsonl");
server.tool("remember", "Store a fact", { fact: z.string() }, async ({ fact }) => {
  appendFileSync(file, JSON.stringify({ fact }) + "\\n");
  return { content: [{ type: "text", text: "stored" }] };
});
await server.connect(new StdioServerTransport());
`;
  const run = async (env: (cwd: string) => Record<string, string>) => {
    const cwd = tempProject(
      {
        "node_modules/mem-server/package.json": '{"name":"mem-server","type":"module"}',
        "node_modules/mem-server/index.mjs": server,
      },
      { linkUbiquity: true },
    );
    symlinkSync(join(repoRoot, "node_modules", "zod"), join(cwd, "node_modules", "zod"), "dir");
    const model = scriptedModel([
      { toolCalls: [{ toolName: "mcp__memory__remember", input: { fact: "Ada likes TS" } }] },
      { text: "ok" },
    ]);
    const messages: Message[] = [];
    for await (const m of summon("remember", {
      model,
      cwd,
      persistSession: false,
      permissionMode: "bypassPermissions",
      mcpServers: { memory: { command: process.execPath, args: ["node_modules/mem-server/index.mjs"], env: env(cwd) } },
    }))
      messages.push(m);
    const result = messages.find((m) => m.type === "tool_result");
    return { cwd, output: result?.type === "tool_result" ? result.output : undefined };
  };

  it("its refused write says the sandbox refused it, and what to do", async () => {
    const { output } = await run(() => ({}));
    expect(output?.isError).toBe(true);
    expect(output?.content).toMatch(/EROFS|read-only file system/i);
    expect(output?.content).toContain('MCP server "memory" runs in the OS sandbox');
    expect(output?.content).toContain("sandbox.filesystem.allowWrite");
  });

  it("pointed at the project (the fix), it stores; a success carries no note", async () => {
    const { cwd, output } = await run((dir) => ({ MEMORY_FILE_PATH: join(dir, "memory.jsonl") }));
    expect(output).toMatchObject({ isError: false, content: "stored" });
    expect(readFileSync(join(cwd, "memory.jsonl"), "utf8")).toContain("Ada likes TS");
  });
});

describe("docs/guide/subagents.md: reading the run's own messages", () => {
  it("prints the subagent's answer once and the run's result once, not the subagent's", () => {
    const block = completeTsBlocks(join(repoRoot, "docs", "guide", "subagents.md")).find((b) =>
      b.code.includes("agentId"),
    );
    expect(block).toBeDefined();
    expect(block!.code).toContain('model: "openai:gpt-5"');
    const dir = tempProject({});
    const scripted = `model: scriptedModel([
      { toolCalls: [{ toolName: "Agent", input: { subagent_type: "reviewer", description: "review", prompt: "review HEAD" } }] },
      { text: "no defects" },
      { text: "reviewed" },
    ]), cwd: ${JSON.stringify(dir)}, persistSession: false`;
    const path = join(dir, "review.ts");
    writeFileSync(
      path,
      `import { scriptedModel } from "ubiquity/testing";\n${block!.code.replace('model: "openai:gpt-5"', scripted)}`,
    );
    const out = execFileSync(process.execPath, [...tsNodeArgs, join(repoRoot, "test", "docs", "run-block.ts"), path], {
      cwd: repoRoot,
      encoding: "utf8",
    });
    expect(out.trim().split("\n")).toEqual(["reviewer: no defects", "success reviewed"]);
  });
});

describe("a misspelt provider or provider setting", () => {
  it("--model opneai:gpt-5 names the model string meant; an unknown one still lists them all", async () => {
    const dir = tempProject({});
    const typo = await runCli(["-p", "--model", "opneai:gpt-5", "hi"], dir);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('unknown provider "opneai" (did you mean "openai:gpt-5"?)');
    const far = await runCli(["-p", "--model", "acme:claude-sonnet-4-5-20250929", "hi"], dir);
    expect(far.code).toBe(2);
    expect(far.stderr).toContain('unknown provider "acme". Known providers: openai, anthropic');
    expect(far.stderr).not.toContain("did you mean");
  });

  it("providerSettings.baseUrl names baseURL", async () => {
    const messages: Message[] = [];
    for await (const m of summon("hi", {
      model: "openai:gpt-5",
      apiKey: "sk-test",
      providerSettings: { baseUrl: "http://127.0.0.1:9/v1" },
      persistSession: false,
    }))
      messages.push(m);
    const last = messages.at(-1);
    expect(last?.type === "result" && last.subtype).toBe("error_configuration");
    expect(last?.type === "result" && last.result).toContain(
      'providerSettings.baseUrl is not a setting of provider "openai" (@ai-sdk/openai) (did you mean "baseURL"?)',
    );
  });
});

describe("a live session fed the Claude Agent SDK's SDKUserMessage shape", () => {
  const live = async (messages: unknown[]) => {
    async function* input() {
      for (const m of messages) yield m as Parameters<typeof summon>[0] extends AsyncIterable<infer U> ? U : never;
    }
    const model = scriptedModel([{ text: "one" }, { text: "two" }]);
    const out: Message[] = [];
    for await (const m of summon(input(), {
      model,
      persistSession: false,
      modelCapabilities: { "scripted:*": { images: true } },
    }))
      out.push(m);
    return { out, requests: model.requests.map((r) => JSON.stringify(r.prompt)) };
  };

  it("reads message.content, as text or as blocks (an image too)", async () => {
    const png = Buffer.from("89504e470d0a1a0a", "hex").toString("base64");
    const { out, requests } = await live([
      { type: "user", message: { role: "user", content: "first question" }, parent_tool_use_id: null, session_id: "" },
      {
        type: "user",
        message: {
          role: "user",
          content: [
            { type: "text", text: "second question" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: png } },
          ],
        },
        parent_tool_use_id: null,
        session_id: "",
      },
    ]);
    expect(out.filter((m) => m.type === "user").map((m) => (m.type === "user" ? m.text : ""))).toEqual([
      "first question",
      "second question",
    ]);
    // Both may enter one stretch together (queued before it began): what matters is what the model was sent.
    const sent = requests.join("\n");
    expect(sent).toContain("first question");
    expect(sent).toContain("second question");
    expect(sent).toContain(png);
  });

  it("a message it cannot read ends the session naming the shape, not an empty prompt", async () => {
    const { out, requests } = await live([{ type: "user", message: "start it" }]);
    const last = out.at(-1);
    expect(last?.type === "result" && last.isError).toBe(true);
    expect(last?.type === "result" && last.result).toContain('{ type: "user", text?, content?, interrupt? }');
    expect(requests).toEqual([]);
  });
});

describe("a Claude Code user's CLAUDE.md (and a Codex user's AGENTS.md) without compat", () => {
  const folder = () => {
    const dir = tempProject({ "CLAUDE.md": "Always answer in French.\n", "AGENTS.md": "Use tabs.\n" });
    const home = tempProject({}, { packageJson: false });
    return { dir, env: { HOME: home, UBIQUITY_TRUST: "" } };
  };

  it("the untrusted run's warning and `ubiquity trust .` name the compat that reads each", async () => {
    const { dir, env } = folder();
    const untrusted = await runCli(["-p", "--model", "test", "hi"], dir, env);
    expect(untrusted.stderr).toContain("CLAUDE.md (read with --compat claude), AGENTS.md (read with --compat codex)");
    const trusted = await runCli(["trust", "."], dir, env);
    expect(trusted.stdout).toContain('CLAUDE.md (adds instructions to the system prompt (with compat: ["claude"]))');
    expect(trusted.stdout).toContain('AGENTS.md (adds instructions to the system prompt (with compat: ["codex"]))');
  });

  it("trusted, a run that does not read CLAUDE.md says so and how; with --compat claude, no warning", async () => {
    const { dir, env } = folder();
    await runCli(["trust", "."], dir, env);
    const plain = await runCli(["-p", "--model", "test", "hi"], dir, env);
    expect(plain.code).toBe(0);
    expect(plain.stderr).toContain(`${join(dir, "CLAUDE.md")} is Claude Code's memory file and is not read`);
    expect(plain.stderr).toContain("--compat claude");
    const compat = await runCli(["-p", "--model", "test", "--compat", "claude", "hi"], dir, env);
    expect(compat.code).toBe(0);
    expect(compat.stderr).toBe("");
  });
});
