/**
 * A switcher's trial: scripts written for `claude -p` run with `ubiquity` in its place, through
 * the built bin and a scripted model (test/helpers/scripted-project):
 * - `--message-format claude` (or UBIQUITY_MESSAGE_FORMAT=claude) prints Claude Code's message
 *   shapes: `session_id`, `is_error`, `num_turns`, `total_cost_usd`, `usage.input_tokens`,
 *   `assistant.message.content` with `tool_use` blocks, tool results as `user` lines, deltas as
 *   `stream_event.event`; a usage error's JSON too;
 * - claude's variadic list flags (`--allowedTools Read Grep`, `--add-dir a b`, `--mcp-config a b`)
 *   take their words and leave the prompt alone;
 * - `--system-prompt-file`, `--append-system-prompt-file`, `--agents`, `--permission-mode manual`,
 *   `--allow-dangerously-skip-permissions` work; a claude-only flag's error names the fix;
 * - SIGTERM ends the run as Ctrl-C does: the result is printed, exit 143.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeTempProjects, requireDist, runCli } from "../helpers/project";
import { SCRIPTED_CONFIG, SCRIPTED_CONFIG_FILE, scriptedProject as project } from "../helpers/scripted-project";

afterAll(removeTempProjects);
beforeAll(requireDist);

const claude = ["-p", "--message-format", "claude"];
const stream = ["--output-format", "stream-json"];
type Line = Record<string, unknown> & { type: string; message?: { content: Record<string, unknown>[] } };
const linesOf = (messages: Record<string, unknown>[]) => messages as Line[];

describe.concurrent("--message-format claude: Claude Code's message shapes", () => {
  it("json: the result has claude -p's fields, and its session_id resumes the session", async () => {
    const p = project();
    const first = await p.run([...claude, "--output-format", "json", "remember plums"]);
    expect(first.code, first.stderr).toBe(0);
    // One line, as claude prints it.
    expect(first.stdout.trimEnd().split("\n")).toHaveLength(1);
    const result = JSON.parse(first.stdout) as Record<string, unknown>;
    expect(result).toMatchObject({
      type: "result",
      subtype: "success",
      is_error: false,
      num_turns: 1,
      result: "answer to remember plums",
      session_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      duration_ms: expect.any(Number),
      usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number) },
      permission_denials: [],
    });
    expect(result).toHaveProperty("total_cost_usd");
    for (const camel of ["isError", "sessionId", "numTurns", "totalCostUsd", "durationMs"])
      expect(result).not.toHaveProperty(camel);
    // With --verbose, claude's json is every message, as one array.
    const verbose = await p.run([...claude, "--output-format", "json", "--verbose", "hi"]);
    expect(verbose.code, verbose.stderr).toBe(0);
    const all = JSON.parse(verbose.stdout) as Line[];
    expect(all.map((m) => m.type)).toEqual(["system", "assistant", "result"]);
    expect(all[2]).toMatchObject({ is_error: false, result: "answer to hi" });
    // claude's --verbose is no diagnostics switch: stderr stays quiet (a script may merge it into the JSON).
    expect(verbose.stderr).not.toContain("[verbose]");
    // The habit: session=$(claude -p … --output-format json | jq -r .session_id); claude -p -r "$session" …
    const again = await p.run([...claude, "--output-format", "json", "-r", String(result.session_id), "and pears"]);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).session_id).toBe(result.session_id);
    expect(again.requests[0]!.users).toEqual(["remember plums", "and pears"]);
  });

  it("stream-json: init, assistant with a tool_use block, the tool result as a user line, result; no tool_use lines", async () => {
    const p = project();
    const out = await p.run([...claude, ...stream, "--allowedTools", "Bash(echo:*)", "echo please"]);
    expect(out.code, out.stderr).toBe(0);
    const lines = linesOf(out.messages);
    expect(lines.map((l) => l.type)).toEqual(["system", "assistant", "user", "assistant", "result"]);
    const [init, call, toolResult, , result] = lines;
    expect(init).toMatchObject({ subtype: "init", session_id: expect.any(String), tools: expect.any(Array) });
    const block = call!.message!.content.find((b) => b.type === "tool_use")!;
    expect(block).toMatchObject({ name: "Bash", input: { command: "echo hi" }, id: expect.any(String) });
    expect(toolResult!.message!.content[0]).toMatchObject({
      type: "tool_result",
      tool_use_id: block.id,
      is_error: false,
      content: expect.stringContaining("hi"),
    });
    expect(toolResult).toMatchObject({ parent_tool_use_id: null, session_id: init!.session_id });
    expect(result).toMatchObject({ is_error: false, num_turns: 2, session_id: init!.session_id });
    // Each assistant line carries its own request's usage, in Anthropic's meaning; together they are the result's.
    const usages = lines
      .filter((l) => l.type === "assistant")
      .map((l) => (l.message as unknown as { usage: Record<string, number> }).usage);
    expect(usages.every((u) => u.output_tokens! > 0 && u.input_tokens! > 0)).toBe(true);
    const total = result!.usage as Record<string, number>;
    for (const key of ["input_tokens", "output_tokens", "cache_read_input_tokens"])
      expect(
        usages.reduce((sum, u) => sum + u[key]!, 0),
        key,
      ).toBe(total[key]);
  });

  it("UBIQUITY_MESSAGE_FORMAT=claude does it for every run; partial messages are stream_event lines with Anthropic deltas", async () => {
    const p = project();
    const out = await p.run(
      ["-p", ...stream, "--include-partial-messages", "tell me"],
      {},
      { UBIQUITY_MESSAGE_FORMAT: "claude" },
    );
    expect(out.code, out.stderr).toBe(0);
    // As the Agent SDK's guide reads them: the content_block_delta events among the stream's.
    const deltas = linesOf(out.messages).filter(
      (l) => l.type === "stream_event" && (l.event as { type: string }).type === "content_block_delta",
    );
    expect(deltas.length).toBeGreaterThan(1);
    const text = deltas
      .map((l) => (l.event as { delta: { type: string; text: string } }).delta)
      .filter((d) => d.type === "text_delta")
      .map((d) => d.text)
      .join("");
    expect(text).toBe("answer to tell me");
    const bad = await p.run(["-p", "hi"], {}, { UBIQUITY_MESSAGE_FORMAT: "clade" });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("UBIQUITY_MESSAGE_FORMAT must be ubiquity, claude or codex");
  });

  it("--input-format stream-json: one result per line in claude's shape; --replay-user-messages echoes the inputs", async () => {
    const p = project();
    const input = ["first", "second"]
      .map((t) => JSON.stringify({ type: "user", message: { role: "user", content: t } }))
      .join("\n");
    const out = await p.run([...claude, ...stream, "--input-format", "stream-json", "--replay-user-messages"], {
      input: `${input}\n`,
    });
    expect(out.code, out.stderr).toBe(0);
    const lines = linesOf(out.messages);
    expect(lines.filter((l) => l.type === "result").map((l) => [l.result, l.is_error])).toEqual([
      ["answer to first", false],
      ["answer to second", false],
    ]);
    expect(lines.filter((l) => l.type === "user").map((l) => (l.message as { content: unknown }).content)).toEqual([
      "first",
      "second",
    ]);
  });

  it("a usage error prints claude's error result on stdout (is_error, subtype) and exits 2", async () => {
    const p = project();
    const out = await p.run([...claude, "--output-format", "json", "--no-such-flag", "hi"]);
    expect(out.code).toBe(2);
    expect(JSON.parse(out.stdout)).toMatchObject({
      type: "result",
      subtype: "error_configuration",
      is_error: true,
      result: expect.stringContaining("unknown flag --no-such-flag"),
    });
  });
});

describe.concurrent("claude -p's flags as scripts write them", () => {
  it("--allowedTools Read Grep 'Bash(echo:*)' (variadic): the words are rules, the prompt stays the prompt", async () => {
    const p = project();
    const out = await p.run(["-p", ...stream, "echo please", "--allowedTools", "Read", "Grep", "Bash(echo:*)"]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.requests[0]!.users).toEqual(["echo please"]);
    // Bash(echo:*) was taken as a rule: the call ran without a question.
    const result = out.messages.find((m) => m.type === "tool_result") as { output: { isError: boolean } };
    expect(result.output.isError).toBe(false);
    // After the flags, a sentence is the prompt.
    const after = await p.run(["-p", "--disallowedTools", "Write", "Edit", "tell me"]);
    expect(after.requests[0]!.users).toEqual(["tell me"]);
    expect(after.requests[0]!.tools).not.toContain("Edit");
    expect(after.requests[0]!.tools).toContain("Read");
  });

  it("--add-dir a b and --mcp-config a.json b.json take every existing folder and config; the prompt stays", async () => {
    const p = project();
    mkdirSync(join(p.dir, "a"));
    mkdirSync(join(p.dir, "b"));
    writeFileSync(join(p.dir, "one.json"), JSON.stringify({ mcpServers: {} }));
    const out = await p.run(["-p", "--add-dir", "a", "b", "--mcp-config", "one.json", '{"mcpServers":{}}', "tell me"]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.requests[0]!.users).toEqual(["tell me"]);
    // Both folders reached the run: the system prompt lists the working directories.
    expect(out.requests[0]!.system).toContain(join(p.dir, "b"));
  });

  it("--strict-mcp-config: only the servers of --mcp-config start, not the project's .mcp.json nor the config file's", async () => {
    const server = (marker: string) => ({ command: "sh", args: ["-c", `touch ${marker}`] });
    const configured = `mcpServers: { configured: ${JSON.stringify(server("config-started"))} },`;
    const p = project({
      [SCRIPTED_CONFIG_FILE]: SCRIPTED_CONFIG.replace("marketPricing: false,", `marketPricing: false, ${configured}`),
      ".mcp.json": JSON.stringify({ mcpServers: { project: server("project-started") } }),
      "extra.json": JSON.stringify({ mcpServers: { flagged: server("flag-started") } }),
    });
    const names = (out: { messages: Record<string, unknown>[] }) => {
      const init = out.messages.find((m) => m.type === "system" && m.subtype === "init") as {
        extra?: { mcpServers?: { name: string }[] };
      };
      return (init.extra?.mcpServers ?? []).map((s) => s.name).sort();
    };
    const loose = await p.run(["-p", ...stream, "--trust", "--mcp-config", "extra.json", "hi"]);
    expect(loose.code, loose.stderr).toBe(0);
    expect(names(loose)).toEqual(["configured", "flagged", "project"]);
    const strict = await p.run(["-p", ...stream, "--trust", "--strict-mcp-config", "--mcp-config", "extra.json", "hi"]);
    expect(strict.code, strict.stderr).toBe(0);
    expect(names(strict)).toEqual(["flagged"]);
    // Alone, it starts none (claude's meaning: no other MCP configuration counts).
    const none = await p.run(["-p", ...stream, "--trust", "--strict-mcp-config", "hi"]);
    expect(none.code, none.stderr).toBe(0);
    expect(names(none)).toEqual([]);
  });

  it("--settings: Claude Code settings from a file or inline JSON apply above the settings files", async () => {
    const p = project({ "ci-settings.json": JSON.stringify({ permissions: { deny: ["Bash(echo:*)"] } }) });
    const ran = (out: { messages: Record<string, unknown>[] }) =>
      out.messages
        .filter((m) => m.type === "tool_result")
        .map((m) => (m as { output: { isError: boolean } }).output.isError === false);
    // Without a rule, -p cannot ask: the call is refused.
    const plain = await p.run(["-p", ...stream, "echo please"]);
    expect(ran(plain)).toEqual([false]);
    const allowed = await p.run([
      "-p",
      ...stream,
      "--settings",
      '{"permissions":{"allow":["Bash(echo:*)"]}}',
      "echo please",
    ]);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(ran(allowed)).toEqual([true]);
    // A file's deny rule holds against an allow given on the command line.
    const denied = await p.run([
      "-p",
      ...stream,
      "--allowedTools",
      "Bash(echo:*)",
      "--settings",
      "ci-settings.json",
      "echo please",
    ]);
    expect(denied.code, denied.stderr).toBe(0);
    expect(ran(denied)).toEqual([false]);
    for (const [spec, said] of [
      ["missing.json", "--settings missing.json: no such file"],
      ["{not json", "--settings: not valid JSON"],
    ]) {
      const bad = await p.run(["-p", "--settings", spec!, "hi"]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain(said);
    }
  });

  it("--effort <level> sets the reasoning effort of every request; an unknown level is exit 2 naming the levels", async () => {
    const p = project();
    const out = await p.run(["-p", "--effort", "xhigh", "hi"]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.requests.map((r) => r.reasoning)).toEqual(["xhigh"]);
    const plain = await p.run(["-p", "hi"]);
    expect(plain.requests.map((r) => r.reasoning)).toEqual([undefined]);
    const bad = await p.run(["-p", "--effort", "extreme", "hi"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--effort must be one of none, minimal, low, medium, high, xhigh, max");
  });

  it("--plugin-dir loads a Claude Code plugin folder for the run: its commands answer to /plugin:command", async () => {
    // anthropics/claude-code's feature-dev plugin, unmodified (test/fixtures/compat/plugins/feature-dev/SOURCE.md).
    const plugin = join(import.meta.dirname, "..", "fixtures", "compat", "plugins", "feature-dev");
    const p = project();
    const out = await p.run(["-p", "--plugin-dir", plugin, "/feature-dev:feature-dev add a login page"]);
    expect(out.code, out.stderr).toBe(0);
    const said = out.requests[0]!.users.join("\n");
    expect(said).toContain("# Feature Development");
    expect(said).toContain("add a login page");
    const without = await p.run(["-p", "/feature-dev:feature-dev add a login page"]);
    expect(without.requests.flatMap((r) => r.users).join("\n")).not.toContain("# Feature Development");
    const missing = await p.run(["-p", "--plugin-dir", "no-such-plugin", "hi"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--plugin-dir no-such-plugin: no such folder");
  });

  it("stream-json's init names the slash commands, skills, agents and plugins that loaded, as claude's does", async () => {
    // A script checks `.slash_commands`, `.skills` or `.agents` of the init line to see that its
    // command or agent loaded: they were always [] (or absent) here.
    const p = project({
      "kit/.claude-plugin/plugin.json": JSON.stringify({ name: "kit" }),
      "kit/commands/review.md": "---\ndescription: Review the diff\n---\nReview $ARGUMENTS\n",
      "kit/skills/changelog/SKILL.md": "---\nname: changelog\ndescription: Write a changelog entry\n---\nWrite it.\n",
      "kit/agents/checker.md": "---\nname: checker\ndescription: Checks things\n---\nYou check.\n",
    });
    const out = await p.run([...claude, ...stream, "--plugin-dir", join(p.dir, "kit"), "hi"]);
    expect(out.code, out.stderr).toBe(0);
    const init = linesOf(out.messages)[0]!;
    expect(init).toMatchObject({ type: "system", subtype: "init" });
    expect(init.slash_commands).toEqual(["kit:changelog", "kit:review"]);
    expect(init.skills).toEqual(["kit:changelog"]);
    expect(init.agents).toEqual(["kit:checker"]);
    // claude's `plugins` are the Claude Code plugins that loaded, as { name, path } (a script reads .plugins[].name).
    expect(init.plugins).toEqual([{ name: "kit", path: join(p.dir, "kit") }]);
    // Ubiquity's own shape has them in `extra`.
    const own = await p.run(["-p", ...stream, "--plugin-dir", join(p.dir, "kit"), "hi"]);
    expect(own.messages[0]).toMatchObject({
      extra: { slashCommands: ["kit:changelog", "kit:review"], skills: ["kit:changelog"], agents: ["kit:checker"] },
    });
    // Nothing loaded: empty lists, as claude prints them.
    const none = await p.run([...claude, ...stream, "hi"]);
    expect(linesOf(none.messages)[0]).toMatchObject({ slash_commands: [], skills: [], agents: [], plugins: [] });
  });

  it("--permission-prompt-tool: an MCP tool decides the calls that need approval, in Claude Code's JSON; anything else denies", async () => {
    const server = join(import.meta.dirname, "..", "mcp", "fixtures", "approver-server.mjs");
    const p = project();
    const log = join(p.dir, "approver.log");
    const config = (mode: string) =>
      JSON.stringify({ mcpServers: { approver: { command: process.execPath, args: [server, mode, log] } } });
    const results = (out: { messages: Record<string, unknown>[] }) =>
      out.messages
        .filter((m) => m.type === "tool_result")
        .map((m) => (m as { output: { content: string; isError: boolean } }).output);
    const tool = ["--permission-prompt-tool", "mcp__approver__approve"];
    // Allowed, with the input the tool rewrote: the command that ran is the tool's.
    const allowed = await p.run(["-p", ...stream, "--mcp-config", config("echo"), ...tool, "echo please"]);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(results(allowed)).toEqual([
      expect.objectContaining({ isError: false, content: expect.stringContaining("approved") }),
    ]);
    const asked = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(asked).toEqual([
      { tool_name: "Bash", input: expect.objectContaining({ command: "echo hi" }), tool_use_id: expect.any(String) },
    ]);
    // Denied in the tool's words.
    const denied = await p.run(["-p", ...stream, "--mcp-config", config("echo"), ...tool, "background please"]);
    expect(results(denied)).toEqual([
      expect.objectContaining({ isError: true, content: expect.stringContaining("approver: Bash is not on the list") }),
    ]);
    // An answer that is no decision, a failing tool, a tool that is not there: denied.
    for (const [mode, said] of [
      ["garbage", "answered neither"],
      ["fail", "approver is down"],
    ] as const) {
      const out = await p.run(["-p", ...stream, "--mcp-config", config(mode), ...tool, "echo please"]);
      expect(results(out)).toEqual([
        expect.objectContaining({ isError: true, content: expect.stringContaining(said) }),
      ]);
    }
    const missing = await p.run(["-p", ...stream, "--permission-prompt-tool", "mcp__nobody__approve", "echo please"]);
    expect(results(missing)).toEqual([
      expect.objectContaining({ isError: true, content: expect.stringContaining("is not available") }),
    ]);
  });

  it("--system-prompt-file and --append-system-prompt-file read their files; a missing file is exit 2 naming it", async () => {
    const p = project({ "base.txt": "You are a pirate.", "tail.txt": "Always answer in French." });
    const out = await p.run([
      "-p",
      "--system-prompt-file",
      "base.txt",
      "--append-system-prompt-file",
      "tail.txt",
      "hi",
    ]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.requests[0]!.system.startsWith("You are a pirate.")).toBe(true);
    expect(out.requests[0]!.system.trimEnd().endsWith("Always answer in French.")).toBe(true);
    const missing = await p.run(["-p", "--system-prompt-file", "nope.txt", "hi"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--system-prompt-file nope.txt: cannot read the file");
    const both = await p.run(["-p", "--system-prompt", "x", "--system-prompt-file", "base.txt", "hi"]);
    expect(both.code).toBe(2);
  });

  it("--agents JSON defines subagents; --permission-mode manual is default; --allow-dangerously-skip-permissions is accepted", async () => {
    const p = project();
    const agents = JSON.stringify({ reviewer: { description: "Reviews code for bugs", prompt: "You review code." } });
    const out = await p.run([
      "-p",
      ...stream,
      "--agents",
      agents,
      "--permission-mode",
      "manual",
      "--allow-dangerously-skip-permissions",
      "hi",
    ]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.requests[0]!.tools).toContain("Agent");
    expect(out.messages[0]).toMatchObject({ type: "system", subtype: "init", permissionMode: "default" });
    const bad = await p.run(["-p", "--agents", '{"reviewer":{"prompt":"no description"}}', "hi"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("agents.reviewer.description");
  });

  it("a claude -p flag ubiquity does not take names the difference and the fix (exit 2)", async () => {
    const p = project();
    for (const [flag, fix] of [[["--debug"], "DEBUG=ubiquity*"]] as const) {
      const out = await p.run(["-p", ...flag, "hi"]);
      expect(out.code).toBe(2);
      expect(out.stderr).toContain(`${flag[0]} is a claude -p flag ubiquity does not take`);
      expect(out.stderr).toContain(fix);
    }
    // codex exec's habit: the error names the command to use, not "run `exec` as a prompt".
    const exec = await runCli(["exec", "fix the tests"], p.dir);
    expect(exec.code).toBe(2);
    expect(exec.stderr).toContain('codex exec "…" is ubiquity -p "…"');
  });
});

describe("signals", () => {
  it("SIGTERM (timeout, a cancelled CI job) ends the run as Ctrl-C does: the result is printed, exit 143", async () => {
    const p = project();
    const { code, stdout } = await p.signalled([...claude, ...stream, "--replay-user-messages", "be slow"], "SIGTERM");
    expect(code).toBe(143);
    const result = stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Line)
      .find((l) => l.type === "result");
    expect(result).toMatchObject({ is_error: true, subtype: "error_during_execution" });
  });
});
