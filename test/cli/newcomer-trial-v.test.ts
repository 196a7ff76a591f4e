/**
 * What a newcomer's trial (v, 2026-12-06: the packed package in an empty folder, the README and
 * the docs followed as written, `claude -p` habits, fake provider servers on 127.0.0.1) met:
 * - `--input-format stream-json` took only the text of a user line: an image block a script sent
 *   (as to `claude -p`) never reached the model, and nothing said so. The line's message now goes
 *   to the live session as it is, so its images are sent; a block it cannot read is exit 2 naming it;
 * - an image in a user message (stream-json, a live session, ACP) made the AI SDK print a
 *   DeprecationWarning ("The "image" content part type is deprecated") on stderr for every request,
 *   and `--message-format claude --replay-user-messages` echoed it in the AI SDK's shape, not Claude's;
 * - `ANTHROPIC_BASE_URL=http://gateway:4000` (Claude Code's way, which adds `/v1` itself; LiteLLM's
 *   and the hosted Anthropic-compatible endpoints' docs write it so) sent requests to `/messages`:
 *   "HTTP 404: Not Found", naming nothing. The error now names the URL asked and the setting to write;
 * - `ANTHROPIC_AUTH_TOKEN` (Claude Code's bearer token for a gateway) was not read: "Anthropic API
 *   key is missing". It is now sent as `Authorization: Bearer` when no key is set; and an exported
 *   `ANTHROPIC_MODEL` was not named by "No model configured": it is now, with the model string meant;
 * - `--mcp-config` with `server-filesystem .` (the server's README) in a folder not trusted served
 *   the home folder: such a server starts outside the folder, so `.` is the home folder. A warning
 *   now names the server, where it starts and the fixes;
 * - `.ubiquity/commands/review.md` (the slash-commands guide's first line) in a trusted folder: `/review`
 *   "is not a command of this run (it has none)", and `ubiquity trust .` had said the folder "now
 *   applies". Our own command, skill and agent folders are read only with `commandSources` (…)
 *   asking: the warning names the file and the option, and trust says `(with commandSources: …)`;
 * - a Claude Agent SDK program's `createSdkMcpServer()` server in `mcpServers` ended "Invalid input
 *   at mcpServers.calc": the error now says what its `tool()`s are here (defineTool, `tools`); and
 *   that SDK's `allowDangerouslySkipPermissions`, `enableFileCheckpointing`, `resumeSessionAt`,
 *   `betas`, `spawnClaudeCodeProcess`, `agent` and `tools` (names, or the claude_code preset) were
 *   a bare "Unrecognized key" or "expected a Tool": each now names what to write here;
 * - a hook callback ported from that SDK, `async (input, toolUseID, { signal })`, did not type-check,
 *   and in JavaScript it threw (called with one argument): skipped, so the `rm` it denied ran.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { summon, type HookCallback, type Message } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { startProviderServer } from "ubiquity/testing";
import { removeTempProjects, repoRoot, requireDist, runCli, tempProject } from "../helpers/project";

afterAll(removeTempProjects);
beforeAll(requireDist);

const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex").toString("base64");
const imageLine = (text?: string) =>
  JSON.stringify({
    type: "user",
    message: {
      role: "user",
      content: [
        ...(text ? [{ type: "text", text }] : []),
        { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
      ],
    },
  });
const stream = ["-p", "--input-format", "stream-json", "--output-format", "stream-json"];
/** A run on the Anthropic wire of `baseURL`, with a temp HOME and no key but the ones given. */
const anthropicEnv = (baseURL: string, extra: Record<string, string> = {}) => ({
  HOME: tempProject({}, { packageJson: false }),
  ANTHROPIC_BASE_URL: baseURL,
  ANTHROPIC_API_KEY: "",
  ANTHROPIC_AUTH_TOKEN: "",
  UBIQUITY_MODEL: "",
  ...extra,
});
const MODEL = ["--model", "anthropic:claude-sonnet-4-5"];

describe.concurrent("--input-format stream-json with an image block (as claude -p reads it)", () => {
  it("sends the image to the model with the line's text; an image alone is a prompt too", async () => {
    const server = await startProviderServer(["a PNG", "still a PNG"]);
    try {
      const dir = tempProject({});
      const input = `${imageLine("what is this?")}\n${imageLine()}\n`;
      const out = await runCli(
        [...stream, ...MODEL],
        dir,
        anthropicEnv(server.baseURL, { ANTHROPIC_API_KEY: "sk-test" }),
        { input },
      );
      expect(out.code, out.stderr).toBe(0);
      expect(server.requests).toHaveLength(2);
      const first = JSON.stringify((server.requests[0]!.body as { messages: unknown }).messages);
      expect(first).toContain("what is this?");
      expect(first).toContain(PNG);
      // The second line's image is the second prompt's, beside the first one's in the history.
      const second = (server.requests[1]!.body as { messages: { role: string; content: unknown }[] }).messages;
      expect(JSON.stringify(second.at(-1))).toContain(PNG);
    } finally {
      await server.close();
    }
  });

  it("prints no AI SDK DeprecationWarning for the image on stderr", async () => {
    const server = await startProviderServer(["a PNG"]);
    try {
      const dir = tempProject({});
      const env = anthropicEnv(server.baseURL, { ANTHROPIC_API_KEY: "sk-test" });
      const out = await runCli([...stream, ...MODEL], dir, env, { input: `${imageLine("what is this?")}\n` });
      expect(out.code, out.stderr).toBe(0);
      expect(JSON.stringify(server.requests[0]!.body)).toContain(PNG);
      expect(out.stderr).not.toMatch(/DeprecationWarning|deprecated/i);
    } finally {
      await server.close();
    }
  });

  it("--message-format claude --replay-user-messages echoes the image as Claude Code's block, as it came in", async () => {
    const server = await startProviderServer(["a PNG"]);
    try {
      const dir = tempProject({});
      const env = anthropicEnv(server.baseURL, { ANTHROPIC_API_KEY: "sk-test" });
      const args = [...stream, "--message-format", "claude", "--replay-user-messages", ...MODEL];
      const out = await runCli(args, dir, env, { input: `${imageLine("what is this?")}\n` });
      expect(out.code, out.stderr).toBe(0);
      const user = out.stdout
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { type: string; message?: { content: unknown } })
        .find((m) => m.type === "user");
      expect(user?.message?.content).toEqual(JSON.parse(imageLine("what is this?")).message.content);
    } finally {
      await server.close();
    }
  });

  it("a block it cannot read (a document) is exit 2 naming the block type; nothing is sent", async () => {
    const server = await startProviderServer(["never"]);
    try {
      const dir = tempProject({});
      const line = JSON.stringify({
        type: "user",
        message: { role: "user", content: [{ type: "document", source: { type: "text", data: "x" } }] },
      });
      const out = await runCli(
        [...stream, ...MODEL],
        dir,
        anthropicEnv(server.baseURL, { ANTHROPIC_API_KEY: "sk-test" }),
        {
          input: `${line}\n`,
        },
      );
      expect(out.code).toBe(2);
      expect(out.stdout + out.stderr).toContain('"document"');
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  });
});

/** A gateway as LiteLLM serves Claude Code: the Anthropic API under /v1 (passed on to `upstream`), "Not Found" anywhere else. */
async function gateway(upstream: string): Promise<{ url: string; paths: string[]; close(): Promise<void> }> {
  const paths: string[] = [];
  const body = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };
  const server = createServer(async (req, res) => {
    paths.push(req.url ?? "");
    if (!req.url?.startsWith("/v1/")) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ detail: "Not Found" }));
      return;
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers))
      if (typeof v === "string" && !["host", "content-length", "connection"].includes(k)) headers[k] = v;
    const answer = await fetch(new URL(req.url, upstream), { method: req.method, headers, body: await body(req) });
    res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" });
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, paths, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe.concurrent("a Claude Code gateway set-up (ANTHROPIC_BASE_URL, ANTHROPIC_AUTH_TOKEN)", () => {
  it("ANTHROPIC_BASE_URL without /v1: the 404 names the URL asked and the setting to write, which works", async () => {
    const server = await startProviderServer(["through the gateway"]);
    const gw = await gateway(server.baseURL);
    try {
      const dir = tempProject({});
      const out = await runCli(["-p", ...MODEL, "hi"], dir, anthropicEnv(gw.url, { ANTHROPIC_API_KEY: "sk-test" }));
      expect(out.code).toBe(1);
      expect(out.stderr).toContain("HTTP 404");
      expect(out.stderr).toContain(`${gw.url}/messages`);
      expect(out.stderr).toContain(`ANTHROPIC_BASE_URL=${gw.url}/v1`);
      // Doing what it says.
      const fixed = await runCli(
        ["-p", ...MODEL, "hi"],
        dir,
        anthropicEnv(`${gw.url}/v1`, { ANTHROPIC_API_KEY: "sk-test" }),
      );
      expect(fixed.code, fixed.stderr).toBe(0);
      expect(fixed.stdout).toContain("through the gateway");
      expect(gw.paths.at(-1)).toBe("/v1/messages");
    } finally {
      await gw.close();
      await server.close();
    }
  });

  it("--base-url without /v1 (an OpenAI-compatible server): the 404 names the URL asked and --base-url", async () => {
    const server = await startProviderServer([]);
    const gw = await gateway(server.baseURL);
    try {
      const dir = tempProject({});
      const out = await runCli(["-p", "--base-url", gw.url, "--model", "qwen", "hi"], dir, anthropicEnv(gw.url));
      expect(out.code).toBe(1);
      expect(out.stderr).toContain(`${gw.url}/chat/completions`);
      expect(out.stderr).toContain(`OPENAI_COMPATIBLE_BASE_URL=${gw.url}/v1 (or providerSettings.baseURL, --base-url)`);
    } finally {
      await gw.close();
      await server.close();
    }
  });

  it("ANTHROPIC_AUTH_TOKEN alone is sent as a bearer token, as Claude Code sends it, and never printed", async () => {
    const server = await startProviderServer(["token accepted"]);
    try {
      const dir = tempProject({});
      const env = anthropicEnv(server.baseURL, { ANTHROPIC_AUTH_TOKEN: "gw-token-5150" });
      const out = await runCli(["-p", ...MODEL, "--output-format", "stream-json", "hi"], dir, env);
      expect(out.code, out.stderr).toBe(0);
      expect(out.stdout).toContain("token accepted");
      expect(server.requests[0]!.headers.authorization).toBe("Bearer gw-token-5150");
      expect(server.requests[0]!.headers["x-api-key"]).toBeUndefined();
      expect(out.stdout + out.stderr).not.toContain("gw-token-5150");
    } finally {
      await server.close();
    }
  });

  it("ANTHROPIC_MODEL without --model: the error names the model string it means, and that string runs", async () => {
    const server = await startProviderServer(["glm here"]);
    try {
      const dir = tempProject({});
      const env = anthropicEnv(server.baseURL, { ANTHROPIC_AUTH_TOKEN: "gw-token-5150", ANTHROPIC_MODEL: "glm-4.6" });
      const missing = await runCli(["-p", "hi"], dir, env);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain("ANTHROPIC_MODEL=glm-4.6 is not read here");
      expect(missing.stderr).toContain("UBIQUITY_MODEL=anthropic:glm-4.6");
      // The example is the provider whose credential is set, the gateway's token included.
      expect(missing.stderr).toContain("--model anthropic:claude-sonnet-4-5 (ANTHROPIC_AUTH_TOKEN is set)");
      expect(server.requests).toHaveLength(0);
      const out = await runCli(["-p", "hi"], dir, { ...env, UBIQUITY_MODEL: "anthropic:glm-4.6" });
      expect(out.code, out.stderr).toBe(0);
      expect(out.stdout).toContain("glm here");
      expect((server.requests[0]!.body as { model: string }).model).toBe("glm-4.6");
    } finally {
      await server.close();
    }
  });

  it("with ANTHROPIC_API_KEY set too, the key is sent and the token is not (the control)", async () => {
    const server = await startProviderServer(["key accepted"]);
    try {
      const dir = tempProject({});
      const env = anthropicEnv(server.baseURL, { ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_AUTH_TOKEN: "gw-token-5150" });
      const out = await runCli(["-p", ...MODEL, "hi"], dir, env);
      expect(out.code, out.stderr).toBe(0);
      expect(server.requests[0]!.headers["x-api-key"]).toBe("sk-test");
      expect(server.requests[0]!.headers.authorization).toBeUndefined();
    } finally {
      await server.close();
    }
  });
});

describe("--mcp-config's stdio server with a relative path, in a folder not trusted", () => {
  const filesystem = join(repoRoot, "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js");
  const setup = () => {
    // The scripted model lives in a config outside the project (the user's own, applied untrusted).
    const config = tempProject(
      {
        "agent.config.mjs": `import { scriptedModel } from "ubiquity/testing";
export default {
  marketPricing: false,
  model: scriptedModel([{ toolCalls: [{ toolName: "mcp__fs__list_allowed_directories", input: {} }] }, { text: "listed" }]),
};
`,
      },
      { linkUbiquity: true },
    );
    const dir = tempProject({
      "mcp.json": JSON.stringify({ mcpServers: { fs: { command: process.execPath, args: [filesystem, "."] } } }),
    });
    const home = tempProject({}, { packageJson: false });
    const args = ["-p", "--config", join(config, "agent.config.mjs"), "--mcp-config", "mcp.json"];
    const run = (extra: string[]) =>
      runCli([...args, ...extra, "--allowedTools", "mcp__fs", "--output-format", "stream-json", "go"], dir, {
        HOME: home,
        UBIQUITY_TRUST: "",
        UBIQUITY_MODEL: "",
      });
    const served = (stdout: string) =>
      stdout
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { type: string; output?: { content: string } })
        .find((m) => m.type === "tool_result")?.output?.content;
    return { dir, home, run, served };
  };

  it("warns that it starts in the home folder, naming the argument and the fixes; trusted, it serves the project quietly", async () => {
    const { dir, home, run, served } = setup();
    const untrusted = await run([]);
    expect(untrusted.code, untrusted.stderr).toBe(0);
    expect(served(untrusted.stdout)).toContain(home); // what it did: "." was the home folder
    expect(untrusted.stderr).toContain(`MCP server "fs" starts in ${home}, not in ${dir}`);
    expect(untrusted.stderr).toContain('"."');
    expect(untrusted.stderr).toContain("ubiquity trust .");
    const trusted = await run(["--trust"]);
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(served(trusted.stdout)).toContain(dir);
    expect(trusted.stderr).not.toContain('MCP server "fs" starts in');
  });
});

describe.concurrent("a slash command in .ubiquity/commands (the guide's first line), run by the bin", () => {
  const files = { ".ubiquity/commands/review.md": "---\ndescription: Review a file\n---\nReview $1 carefully.\n" };

  it("without commandSources: the warning names the file and the option that reads it; with it the command runs", async () => {
    const dir = tempProject(files);
    const env = { HOME: tempProject({}, { packageJson: false }), UBIQUITY_MODEL: "" };
    const unread = await runCli(["-p", "--model", "test", "/review src/x.ts"], dir, env);
    expect(unread.code, unread.stderr).toBe(0);
    expect(unread.stderr).toContain(
      `${join(dir, ".ubiquity", "commands", "review.md")} is read with commandSources: ["project"]`,
    );
    const read = tempProject({ ...files, ".ubiquityrc.json": '{"commandSources": ["project"]}' });
    const out = await runCli(["-p", "--model", "test", "/review src/x.ts"], read, env);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain("Review src/x.ts carefully.");
    expect(out.stderr).not.toContain("is not a command");
  });

  it("ubiquity trust . says the folder applies with commandSources, not unconditionally", async () => {
    const dir = tempProject(files);
    const out = await runCli(["trust", "."], dir, {
      HOME: tempProject({}, { packageJson: false }),
      UBIQUITY_TRUST: "",
    });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout + out.stderr).toContain(".ubiquity/commands (adds slash commands");
    expect(out.stdout + out.stderr).toContain('(with commandSources: ["project"])');
  });
});

describe("a Claude Agent SDK program's in-process MCP server (createSdkMcpServer)", () => {
  it("ends in a configuration result naming defineTool and tools, not a bare 'Invalid input'", async () => {
    // What createSdkMcpServer({ name, tools }) returns, passed as that SDK's docs pass it.
    const calc = { type: "sdk", name: "calc", instance: { connect() {}, close() {} } };
    const options = { model: "test", persistSession: false, mcpServers: { calc } } as unknown as Parameters<
      typeof summon
    >[1];
    const messages: Message[] = [];
    for await (const m of summon("add 2 and 3", options)) messages.push(m);
    const last = messages.at(-1);
    expect(last?.type === "result" && last.subtype).toBe("error_configuration");
    const text = last?.type === "result" ? last.result : "";
    expect(text).toContain("mcpServers.calc is the Claude Agent SDK's in-process server");
    expect(text).toContain("defineTool(");
    expect(text).toContain("tools: [...builtinTools(), myTool]");
  });
});

describe("other Claude Agent SDK options in a ported program", () => {
  const resultOf = async (options: Record<string, unknown>) => {
    let text = "";
    const all = { model: "test", persistSession: false, ...options } as unknown as Parameters<typeof summon>[1];
    for await (const m of summon("hi", all)) if (m.type === "result") text = `${m.subtype}: ${m.result}`;
    return text;
  };

  it.each([
    ["allowDangerouslySkipPermissions", true, 'permissionMode: "bypassPermissions" alone is the switch'],
    ["enableFileCheckpointing", true, "checkpoints: true"],
    ["resumeSessionAt", "0b5e", "rewindConversation(sessionId, messageUuid)"],
    ["betas", ["context-1m-2025-08-07"], '"anthropic-beta"'],
    ["spawnClaudeCodeProcess", () => {}, "ubiquity runs in your process"],
  ])("%s names what to write here", async (key, value, fix) => {
    const text = await resultOf({ [key]: value });
    expect(text).toMatch(/^error_configuration: /);
    expect(text).toContain(`"${key}" is the Claude Agent SDK's option: here it is`);
    expect(text).toContain(fix);
  });

  it("agent (the main thread as a named agent) is an option here too: an unknown name says where agents are defined", async () => {
    const text = await resultOf({ agent: "reviewer" });
    expect(text).toMatch(/^error_configuration: No agent named "reviewer"/);
    expect(text).toContain('define it under "agents"');
    const defined = await resultOf({
      agent: "reviewer",
      agents: { reviewer: { description: "Reviews", prompt: "Review" } },
    });
    expect(defined).toMatch(/^success: /);
  });

  it("tools as names or as the claude_code preset names availableTools / leaving it out; availableTools runs", async () => {
    expect(await resultOf({ tools: ["Read", "Grep"] })).toContain(
      'here availableTools: ["Read", …] limits the built-in tools',
    );
    expect(await resultOf({ tools: { type: "preset", preset: "claude_code" } })).toContain("here leave tools out");
    expect(await resultOf({ availableTools: ["Read", "Grep"] })).toMatch(/^success: /);
  });
});

describe("a hook callback ported from the Claude Agent SDK: (input, toolUseID, { signal })", () => {
  it("is called with that SDK's arguments, so its deny stops the command; the type takes it", async () => {
    const dir = tempProject({ "keep.txt": "x" });
    const seen: unknown[] = [];
    const guard: HookCallback = async (input, toolUseID, { signal }) => {
      seen.push(toolUseID, signal.aborted);
      return {
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "deny",
          permissionDecisionReason: `no ${String(input.toolInput?.command)}`,
        },
      };
    };
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Bash", input: { command: "rm keep.txt" } }] },
      { text: "ok" },
    ]);
    const messages: Message[] = [];
    for await (const m of summon("clean", {
      model,
      cwd: dir,
      persistSession: false,
      sandbox: false,
      permissionMode: "bypassPermissions",
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [guard] }] },
    }))
      messages.push(m);
    expect(existsSync(join(dir, "keep.txt"))).toBe(true);
    const result = messages.find((m) => m.type === "tool_result");
    expect(result?.type === "tool_result" && result.output.content).toContain("no rm keep.txt");
    const call = messages.find((m) => m.type === "tool_use");
    expect(seen).toEqual([call?.type === "tool_use" ? call.toolUseId : "?", false]);
  });
});
