/**
 * What the switcher trial (the packed package in an empty project, a private HOME) met at the
 * first step, through the built bin:
 * - a Claude Code user whose `.claude/settings.json` sets `"model": "claude-sonnet-4-5"` ran
 *   `ubiquity -p "…"` and got "No model configured" alone, with the model in plain sight in the
 *   file: the error now says that model is not read here and which --model it means;
 * - a Codex user whose ~/.codex/config.toml sets `model = "gpt-5-codex"` met the same error: it
 *   now says the file is read with --compat codex, or which --model to pass;
 * - `claude mcp add fs -- npx …` typed as `ubiquity mcp add …` listed the subcommands: now it
 *   prints the .mcp.json entry that command line describes;
 * - `claude --resume` / `codex resume` habits: `--resume` without an id said Node's "Option '-r,
 *   --resume <value>' argument missing", `ubiquity resume` "unknown command"; both say where the
 *   ids are and that --continue takes the latest.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeTempProjects, requireDist, runCli, tempProject } from "../helpers/project";

afterAll(removeTempProjects);
beforeAll(requireDist);

describe.concurrent("a Claude Code user's first run", () => {
  it("no model: the error names the model .claude/settings.json sets and the --model it means", async () => {
    const dir = tempProject({ ".claude/settings.json": JSON.stringify({ model: "claude-sonnet-4-5" }) });
    const env = { HOME: join(dir, "home"), UBIQUITY_MODEL: "", ANTHROPIC_API_KEY: "" };
    const { code, stderr } = await runCli(["-p", "what is this project?"], dir, env);
    expect(code).toBe(2);
    expect(stderr).toContain("No model configured: pass --model");
    expect(stderr).toContain(
      `Claude Code's "model": "claude-sonnet-4-5" in ${dir}/.claude/settings.json is not read here (a model string names its provider): pass --model anthropic:claude-sonnet-4-5`,
    );
  });

  it("the user's ~/.claude/settings.json shorthand (sonnet) is named too; a folder without one gets no such line", async () => {
    const dir = tempProject({ "home/.claude/settings.json": JSON.stringify({ model: "sonnet" }) });
    const env = { HOME: join(dir, "home"), UBIQUITY_MODEL: "", ANTHROPIC_API_KEY: "" };
    const named = await runCli(["-p", "hi"], dir, env);
    expect(named.code).toBe(2);
    expect(named.stderr).toContain(`"model": "sonnet" in ${dir}/home/.claude/settings.json is not read here`);
    expect(named.stderr).toContain("pass --model anthropic:claude-sonnet-4-5");
    const plain = tempProject({});
    const none = await runCli(["-p", "hi"], plain, { HOME: join(plain, "home"), UBIQUITY_MODEL: "" });
    expect(none.code).toBe(2);
    expect(none.stderr).not.toContain("Claude Code's");
  });
});

describe.concurrent("a Codex user's first run", () => {
  it("no model: the error names ~/.codex/config.toml's model, --compat codex and the --model it means", async () => {
    const dir = tempProject({
      "home/.codex/config.toml":
        'model = "gpt-5-codex"\nmodel_reasoning_effort = "high"\n\n[tui]\nmodel = "not-this"\n',
    });
    const env = { HOME: join(dir, "home"), UBIQUITY_MODEL: "", OPENAI_API_KEY: "" };
    const { code, stderr } = await runCli(["-p", "fix it"], dir, env);
    expect(code).toBe(2);
    expect(stderr).toContain(
      `Codex's model = "gpt-5-codex" in ${dir}/home/.codex/config.toml is read with --compat codex (or compat: ["codex"] in the config); or pass --model openai:gpt-5-codex`,
    );
  });
});

describe.concurrent("habits from the other tools' command lines", () => {
  it("ubiquity mcp add <name> -- <command…> prints the .mcp.json entry to write; the entry works as printed", async () => {
    const dir = tempProject({});
    const env = { HOME: join(dir, "home") };
    const add = await runCli(["mcp", "add", "fs", "--", "no-such-mcp-7d1f", "-y", "."], dir, env);
    expect(add.code).toBe(2);
    const entry = '{"mcpServers":{"fs":{"command":"no-such-mcp-7d1f","args":["-y","."]}}}';
    expect(add.stderr).toContain("Claude Code keeps local servers in ~/.claude.json, which is not read here");
    expect(add.stderr).toContain(`put ${entry} there`);
    const remote = await runCli(["mcp", "add", "--transport", "http", "docs", "https://example.com/mcp"], dir, env);
    expect(remote.stderr).toContain('{"mcpServers":{"docs":{"type":"http","url":"https://example.com/mcp"}}}');
    const remove = await runCli(["mcp", "remove", "fs"], dir, env);
    expect(remove.code).toBe(2);
    expect(remove.stderr).toContain(`remove "fs" from the project's .mcp.json`);
    expect(existsSync(join(dir, ".mcp.json"))).toBe(false);
    // Following the message as written: the server is configured (it fails to start, as it does not exist).
    writeFileSync(join(dir, ".mcp.json"), entry);
    const listed = await runCli(["mcp", "list"], dir, env);
    expect(listed.stdout).toContain("fs (stdio: no-such-mcp-7d1f -y .)");
  });

  it("claude mcp add's flags (-s project, -t, -e, -H) write the project's .mcp.json as Claude Code does", async () => {
    const dir = tempProject({ ".mcp.json": JSON.stringify({ mcpServers: { old: { command: "kept" } }, other: 1 }) });
    const env = { HOME: join(dir, "home") };
    const stdio = await runCli(
      ["mcp", "add", "-s", "project", "-e", "API_KEY=abc", "-e", "MODE=x", "fs", "--", "no-such-mcp-7d1f", "-y", "."],
      dir,
      env,
    );
    expect(stdio.stderr).toBe("");
    expect(stdio.code).toBe(0);
    expect(stdio.stdout).toContain(`Added stdio MCP server "fs" to ${dir}/.mcp.json`);
    const http = await runCli(
      ["mcp", "add", "--scope", "project", "-t", "http", "docs", "https://example.com/mcp", "-H", "X-Team: a b"],
      dir,
      env,
    );
    expect(http.code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, ".mcp.json"), "utf8"))).toEqual({
      mcpServers: {
        old: { command: "kept" },
        fs: { command: "no-such-mcp-7d1f", args: ["-y", "."], env: { API_KEY: "abc", MODE: "x" } },
        docs: { type: "http", url: "https://example.com/mcp", headers: { "X-Team": "a b" } },
      },
      other: 1,
    });
    // A name taken, a provider key handed to a server, a bad transport: refused, the file unchanged.
    const before = readFileSync(join(dir, ".mcp.json"), "utf8");
    for (const args of [
      ["-s", "project", "fs", "--", "x"],
      ["-s", "project", "-e", "K=${OPENAI_API_KEY}", "leak", "--", "x"],
      ["-s", "project", "-t", "ws", "w", "wss://example.com"],
    ]) {
      const refused = await runCli(["mcp", "add", ...args], dir, env);
      expect(refused.code, args.join(" ")).toBe(2);
    }
    expect(readFileSync(join(dir, ".mcp.json"), "utf8")).toBe(before);
    const listed = await runCli(["mcp", "list", "--trust"], dir, env);
    expect(listed.stdout).toContain("fs (stdio: no-such-mcp-7d1f -y .)");
    expect(listed.stdout).toContain("docs (http: https://example.com/mcp)");
  });

  it("--resume without an id, and ubiquity resume, say where the ids are and that --continue takes the latest", async () => {
    const dir = tempProject({});
    const env = { HOME: join(dir, "home") };
    const flag = await runCli(["-p", "--resume"], dir, env);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("--resume needs a value: --resume <id> (");
    expect(flag.stderr).toContain("`ubiquity sessions list` shows the ids, and --continue takes the latest");
    const command = await runCli(["resume"], dir, env);
    expect(command.code).toBe(2);
    expect(command.stderr).toContain("pass --resume <id> (`ubiquity sessions list` shows the ids) or --continue");
  });
});
