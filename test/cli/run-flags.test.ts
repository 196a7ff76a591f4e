/**
 * Every `ubiquity run` flag through the built bin, asserting the option reached the run: the
 * project's config injects a scripted model that logs what each request carried (system prompt,
 * tools offered, the user's text), and the stream-json messages and session files show the rest.
 */
import { openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SessionStore } from "ubiquity";
import { binPath, removeTempProjects, requireDist, runCli, tempProject } from "../helpers/project";
import { scriptedProject as project, type Logged } from "../helpers/scripted-project";
import { applyRunFlags, runFlagTable, runUsage } from "../../runner/flags";
import { splitRules } from "../../plugins/permissions/cli";
import { expandPlugins } from "../../src/preset";
import defaultPreset from "../../presets/default";
import { userInputOf } from "../../runner/run";

afterAll(removeTempProjects);
beforeAll(requireDist);

const EVERYTHING = join(
  process.cwd(),
  "node_modules",
  "@modelcontextprotocol",
  "server-everything",
  "dist",
  "index.js",
);

const json = ["--output-format", "stream-json"];
const resultOf = (messages: Record<string, unknown>[]) =>
  messages.find((m) => m.type === "result") as {
    isError: boolean;
    result: string;
    sessionId: string;
    subtype: string;
    numTurns: number;
    modelUsage: Record<string, unknown>;
  };
const toolResults = (messages: Record<string, unknown>[]) =>
  messages.filter((m) => m.type === "tool_result") as { output: { isError: boolean; content: string } }[];

describe.concurrent("ubiquity run flags reach the run", () => {
  it("--system-prompt replaces the system prompt; --append-system-prompt adds to its end", async () => {
    const p = project();
    const replaced = await p.run([...json, "--system-prompt", "You are a pirate.", "hi"]);
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(replaced.requests[0]!.system.startsWith("You are a pirate.")).toBe(true);
    const appended = await p.run([...json, "--append-system-prompt", "Always answer in French.", "hi"]);
    expect(appended.requests[0]!.system.trimEnd().endsWith("Always answer in French.")).toBe(true);
    expect(appended.requests[0]!.system.length).toBeGreaterThan(200);
  });

  it("--allowedTools pre-approves and never limits the tools offered (--tools does); a rule pre-approves a call", async () => {
    const p = project();
    const limited = await p.run([...json, "--tools", "Read,Glob", "hi"]);
    expect(limited.requests[0]!.tools.sort()).toEqual(["Glob", "Read"]);
    const denied = await p.run([...json, "echo please"]);
    expect(toolResults(denied.messages)[0]!.output.isError).toBe(true);
    // One run: the rules for Read and Glob take no tool away, and the rule for the command approves its call.
    const allowed = await p.run([
      ...json,
      "--allowedTools",
      "Read,Glob",
      "--allowedTools",
      "Bash(echo hi:*)",
      "echo please",
    ]);
    expect(allowed.requests[0]!.tools).toEqual(expect.arrayContaining(["Glob", "Read", "Write", "Edit", "Bash"]));
    expect(toolResults(allowed.messages)[0]!.output).toMatchObject({
      isError: false,
      content: expect.stringContaining("hi"),
    });
  });

  it("--disallowedTools removes a tool; --askTools makes a call ask even in bypassPermissions (headless: denied)", async () => {
    const p = project();
    const removed = await p.run([...json, "--disallowedTools", "Bash", "--disallowedTools", "Write", "hi"]);
    expect(removed.requests[0]!.tools).not.toContain("Bash");
    expect(removed.requests[0]!.tools).not.toContain("Write");
    expect(removed.requests[0]!.tools).toContain("Read");
    const bypass = await p.run([...json, "--permission-mode", "bypassPermissions", "echo please"]);
    expect(toolResults(bypass.messages)[0]!.output.isError).toBe(false);
    const asked = await p.run([
      ...json,
      "--permission-mode",
      "bypassPermissions",
      "--askTools",
      "Bash(echo:*)",
      "echo please",
    ]);
    expect(toolResults(asked.messages)[0]!.output.isError).toBe(true);
  });

  it("--add-dir (repeatable) adds directories the run may use", async () => {
    const p = project();
    const a = tempProject({});
    const b = tempProject({});
    const out = await p.run([...json, "--add-dir", a, "--add-dir", b, "hi"]);
    expect(out.requests[0]!.system).toContain(`Additional directories you may use: ${a}, ${b}`);
  });

  it("--fallback-model answers when the model fails", async () => {
    const p = project();
    const without = await p.run([...json, "please fail"]);
    expect(without.code).toBe(1);
    const out = await p.run([...json, "--fallback-model", "test", "please fail"]);
    expect(out.code, out.stderr).toBe(0);
    expect(Object.keys(resultOf(out.messages).modelUsage)).toContain("test");
  });

  it("--max-turns stops the run after n model turns", async () => {
    const p = project();
    const out = await p.run([...json, "--max-turns", "2", "loop forever"]);
    expect(out.code).toBe(1);
    expect(resultOf(out.messages)).toMatchObject({ subtype: "error_max_turns", numTurns: 2 });
    // The fix, in the terms of the command line it was typed on.
    expect(resultOf(out.messages).result).toContain("--max-turns");
  });

  it("--input-format stream-json runs each stdin message in one session", async () => {
    const p = project();
    const input = [
      JSON.stringify({ type: "user", message: { role: "user", content: "first question" } }),
      JSON.stringify({ type: "user", message: { role: "user", content: [{ type: "text", text: "second question" }] } }),
      "",
    ].join("\n");
    const out = await p.run([...json, "--input-format", "stream-json"], { input });
    expect(out.code, out.stderr).toBe(0);
    const results = out.messages.filter((m) => m.type === "result") as { sessionId: string }[];
    expect(results).toHaveLength(2);
    expect(results[1]!.sessionId).toBe(results[0]!.sessionId);
    expect(out.requests[1]!.users).toEqual(["first question", "second question"]);
  });

  it("--no-session-persistence writes no transcript; without it one is written", async () => {
    const p = project();
    const off = await p.run([...json, "--no-session-persistence", "hi"]);
    expect(off.code).toBe(0);
    expect(await new SessionStore({ dir: p.sessions }).list()).toEqual([]);
    const on = await p.run([...json, "hi"]);
    expect((await new SessionStore({ dir: p.sessions }).list()).map((s) => s.sessionId)).toEqual([
      resultOf(on.messages).sessionId,
    ]);
  });

  it("--session-id names the new session; a stored id is refused; a non-UUID is a usage error", async () => {
    const p = project();
    const id = "3f2b8c1e-0d4a-4e8b-9c1f-2a6d7e8f9b0c";
    const out = await p.run([...json, "--session-id", id, "hi"]);
    expect(resultOf(out.messages).sessionId).toBe(id);
    expect(await new SessionStore({ dir: p.sessions }).get(id)).toBeDefined();
    const again = await p.run([...json, "--session-id", id, "hi"]);
    // Found before any request: a configuration error.
    expect(again.code).toBe(2);
    expect(resultOf(again.messages).result).toContain(`a session with id ${id} is already stored`);
    const bad = await p.run(["--session-id", "nope", "hi"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--session-id must be a UUID");
  });

  it("-c continues, -r resumes, --fork-session continues in a new session and leaves the stored one", async () => {
    const p = project();
    const first = resultOf((await p.run([...json, "remember papaya"])).messages).sessionId;
    const continued = await p.run([...json, "-c", "what was it?"]);
    expect(resultOf(continued.messages).sessionId).toBe(first);
    expect(continued.requests[0]!.users).toEqual(["remember papaya", "what was it?"]);
    const resumed = await p.run([...json, "-r", first, "and now?"]);
    expect(resultOf(resumed.messages).sessionId).toBe(first);
    const store = new SessionStore({ dir: p.sessions });
    const before = (await store.get(first))!.records.length;
    const forked = await p.run([...json, "--resume", first, "--fork-session", "branch off"]);
    const forkId = resultOf(forked.messages).sessionId;
    expect(forkId).not.toBe(first);
    expect(forked.requests[0]!.users).toEqual(["remember papaya", "what was it?", "and now?", "branch off"]);
    expect((await store.get(first))!.records.length).toBe(before);
    const lone = await p.run(["--fork-session", "x"]);
    expect(lone.code).toBe(2);
  });

  it("--mcp-config adds the servers of a .mcp.json-shaped file", async () => {
    const p = project();
    const file = join(p.dir, "servers.json");
    writeFileSync(
      file,
      JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING] } } }),
    );
    const out = await p.run([...json, "--mcp-config", file, "hi"]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.requests[0]!.tools).toContain("mcp__everything__echo");
    const broken = await p.run([...json, "--mcp-config", join(p.dir, "missing.json"), "hi"]);
    expect(broken.code).toBe(2);
  });

  it("--setting-sources picks which settings files apply", async () => {
    const p = project({ ".ubiquity/settings.json": JSON.stringify({ permissions: { allow: ["Bash(echo hi:*)"] } }) });
    const all = await p.run([...json, "echo please"]);
    expect(toolResults(all.messages)[0]!.output.isError).toBe(false);
    const userOnly = await p.run([...json, "--setting-sources", "user", "echo please"]);
    expect(toolResults(userOnly.messages)[0]!.output.isError).toBe(true);
    const bad = await p.run(["--setting-sources", "user,team", "hi"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--setting-sources must be one of user, project, local");
  });

  it("--include-partial-messages adds stream_event deltas to stream-json; --verbose prints plugins, taps and events to stderr; without them there are none", async () => {
    const p = project();
    const plain = await p.run([...json, "hello"]);
    expect(plain.messages.some((m) => m.type === "stream_event")).toBe(false);
    expect(plain.stderr).toBe("");
    // One run with both: one flag's output is stdout's, the other's stderr's.
    const both = await p.run([...json, "--include-partial-messages", "--verbose", "hello"]);
    expect(both.code, both.stderr).toBe(0);
    expect(both.messages.filter((m) => m.type === "stream_event").length).toBeGreaterThan(1);
    expect(both.stderr).toMatch(/^\[verbose\] plugins: .*ubiquity:sessions/m);
    expect(both.stderr).toMatch(/^\[verbose\] hook turn\.system: /m);
    expect(both.stderr).toMatch(/^\[verbose\] message result success$/m);
  });

  it("--verbose prints a plugin's warning once, as the run without it does", async () => {
    const p = project({ ".claude/settings.json": JSON.stringify({ statusLine: { type: "command", command: "x" } }) });
    const quiet = await p.run([...json, "--compat", "claude", "hi"]);
    const loud = await p.run([...json, "--compat", "claude", "--verbose", "hi"]);
    expect(quiet.stderr.match(/ignored "statusLine"/g)).toHaveLength(1);
    expect(loud.stderr.match(/ignored "statusLine"/g)).toHaveLength(1);
  });

  it("--permission-mode, --model, --config and --cwd reach the run", async () => {
    const p = project();
    const out = await runCli(
      ["run", ...json, "--cwd", p.dir, "--permission-mode", "plan", "--model", "test", "hi"],
      tempProject({}),
    );
    const init = JSON.parse(out.stdout.split("\n")[0]!) as { permissionMode: string; model: string; cwd: string };
    expect(init).toMatchObject({ permissionMode: "plan", model: "test", cwd: p.dir });
    const other = tempProject({ "elsewhere.yaml": "maxTurns: 1\n" });
    const configured = await runCli(
      ["run", ...json, "--config", join(other, "elsewhere.yaml"), "--model", "test", "list the files"],
      other,
    );
    expect(JSON.parse(configured.stdout.trim().split("\n").at(-1)!)).toMatchObject({
      subtype: "error_max_turns",
      numTurns: 1,
    });
  });

  it("-p runs once, with `run` or without it", async () => {
    const p = project();
    const bare = await runCli(["-p", "--output-format", "json", "hello there"], p.dir, {
      UBQ_LOG: join(p.dir, "p.log"),
      UBQ_SESSIONS: p.sessions,
    });
    expect(bare.code, bare.stderr).toBe(0);
    expect(JSON.parse(bare.stdout)).toMatchObject({ type: "result", result: "answer to hello there" });
    const withRun = await p.run(["-p", "--output-format", "json", "hello again"]);
    expect(JSON.parse(withRun.stdout)).toMatchObject({ result: "answer to hello again" });
  });
});

describe.concurrent("standard input", () => {
  it("piped text goes with the prompt; alone it is the prompt", async () => {
    const p = project();
    const both = await p.run([...json, "review this"], { input: "diff --git a/x b/x\n+added line\n" });
    expect(both.requests[0]!.users.at(-1)).toBe("review this\n\n<stdin>\ndiff --git a/x b/x\n+added line\n</stdin>");
    const alone = await p.run(json, { input: "just the prompt\n" });
    expect(alone.requests[0]!.users.at(-1)).toBe("just the prompt");
  });

  it("an idle open pipe does not hang a run that has a prompt", async () => {
    // The pipe never ends: that the run exits 0 with the prompt alone is the proof (a hang fails on the timeout).
    const p = project();
    const out = await p.run([...json, "hi"], { keepStdinOpen: true });
    expect(out.code, out.stderr).toBe(0);
    expect(out.requests[0]!.users.at(-1)).toBe("hi");
  });

  it("a regular file on stdin is read whole", async () => {
    const p = project();
    const file = join(p.dir, "notes.txt");
    writeFileSync(file, "notes from a file\n");
    const log = join(p.dir, "file.log");
    writeFileSync(log, "");
    const code = await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, [binPath, "run", ...json, "summarize"], {
        cwd: p.dir,
        env: { ...process.env, UBIQUITY_TRUST: "1", NO_COLOR: "1", DEBUG: "", UBQ_LOG: log, UBQ_SESSIONS: p.sessions },
        stdio: [openSync(file, "r"), "ignore", "ignore"],
      });
      child.on("exit", (c) => resolve(c ?? 1));
    });
    expect(code).toBe(0);
    expect((JSON.parse(readFileSync(log, "utf8").split("\n")[0]!) as Logged).users.at(-1)).toBe(
      "summarize\n\n<stdin>\nnotes from a file\n</stdin>",
    );
  });
});

describe.concurrent("exit codes", () => {
  it("2 for a usage error; with --output-format json a configuration error is a JSON object on stdout", async () => {
    const p = project();
    const usage = await p.run(["--max-turns", "zero", "hi"]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("--max-turns must be a positive integer");
    const unknown = await p.run(["--output-format", "json", "--bogus", "hi"]);
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stdout)).toMatchObject({
      type: "result",
      isError: true,
      exitCode: 2,
      subtype: "error_configuration",
    });
    const notTerminal = await runCli(["chat"], p.dir);
    expect(notTerminal.code).toBe(2);
    expect(notTerminal.stderr).toContain("the terminal mode needs a terminal");
    const dir = tempProject({ ".ubiquityrc.yaml": "maxTurns: forty\n" });
    const config = await runCli(["run", "--output-format", "json", "--model", "test", "hi"], dir);
    expect(config.code).toBe(2);
    expect(JSON.parse(config.stdout)).toMatchObject({
      isError: true,
      exitCode: 2,
      result: expect.stringContaining(join(dir, ".ubiquityrc.yaml")),
    });
  });

  it("1 for a failed run; 130 when interrupted", async () => {
    const p = project();
    const failed = await p.run([...json, "please fail"]);
    expect(failed.code).toBe(1);
    const { code } = await p.signalled(["run", ...json, "be slow"], "SIGINT");
    expect(code).toBe(130);
  });
});

describe("the flag table", () => {
  const table = runFlagTable(expandPlugins({ presets: [defaultPreset] }).plugins.map((p) => p.plugin));

  it("splits rules on commas and spaces, never inside parentheses", () => {
    expect(splitRules(["Read,Bash(git log:*)", "Edit Bash(npm run build, test)"])).toEqual([
      "Read",
      "Bash(git log:*)",
      "Edit",
      "Bash(npm run build, test)",
    ]);
    expect(() => splitRules(["Bash(git"])).toThrow(/unbalanced parenthesis/);
  });

  it("--sandbox switches the sandbox option on, keeping its other settings", () => {
    const on: Record<string, unknown> = {};
    applyRunFlags(on, { sandbox: true }, table);
    expect(on.sandbox).toBe(true);
    const kept: Record<string, unknown> = { sandbox: { network: false } };
    applyRunFlags(kept, { sandbox: true }, table);
    expect(kept.sandbox).toEqual({ network: false, enabled: true });
  });

  it("help lists every flag under its group", () => {
    const help = runUsage(table);
    for (const name of Object.keys(table)) expect(help).toContain(`--${name}`);
    expect(help).toMatch(/^Sessions:$/m);
    expect(help).toContain("--max-budget-usd <usd>");
    // The budget plugin's flag is listed, so the help must not say it does not exist.
    expect(help).not.toMatch(/no --max-budget-usd|no spending budget/);
  });

  it("reads Claude Code's and Ubiquity's user-message lines", () => {
    const line = '{"type":"user","message":{"role":"user","content":"hi"}}';
    expect(userInputOf(line)).toEqual({ type: "user", message: { role: "user", content: "hi" } });
    expect(userInputOf('{"type":"user","text":"hello"}')).toEqual({ type: "user", text: "hello" });
    expect(() => userInputOf("{nope")).toThrow(/not JSON/);
  });
});
