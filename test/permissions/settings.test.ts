/** Settings files: read only when asked; local > project > user; explicit options win; permission rules are unioned; a broken file stops the run. */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createKernel } from "ubiquity";
import permissions from "ubiquity/plugins/permissions";
import settings, { getSettingsApi } from "ubiquity/plugins/settings";
import mcp from "ubiquity/plugins/mcp";
import { builtinTools } from "../../plugins/tools/index";
import { probeTool, runCalls, tempDir } from "./helpers";

type Files = { user?: unknown; project?: unknown; local?: unknown };

/** A project and a home folder holding the given settings files (a string is written as is). */
function fixture(files: Files) {
  const cwd = tempDir();
  const home = tempDir();
  const put = (dir: string, name: string, content: unknown) => {
    mkdirSync(join(dir, ".ubiquity"), { recursive: true });
    writeFileSync(join(dir, ".ubiquity", name), typeof content === "string" ? content : JSON.stringify(content));
  };
  if (files.user !== undefined) put(home, "settings.json", files.user);
  if (files.project !== undefined) put(cwd, "settings.json", files.project);
  if (files.local !== undefined) put(cwd, "settings.local.json", files.local);
  return { cwd, home };
}

function kernelFor(files: Files, options: Record<string, unknown> = {}) {
  const { cwd, home } = fixture(files);
  const warnings: string[] = [];
  const logger = { debug() {}, info() {}, warn: (m: string) => void warnings.push(m), error() {} };
  const kernel = createKernel({ presets: [], plugins: [settings({ home }), permissions()], cwd, logger, ...options });
  return { kernel, warnings, cwd, home };
}

describe("settings files", () => {
  it("reads nothing unless settingSources asks", () => {
    const { kernel } = kernelFor({ project: { model: "openai:from-file", permissions: { defaultMode: "plan" } } });
    expect(kernel.options.model).toBeUndefined();
    expect(kernel.options.permissionMode).toBe("default");
    expect(getSettingsApi(kernel).files).toEqual([]);
  });

  it("local beats project beats user; explicit options beat all three", () => {
    const files = {
      user: {
        model: "a:user",
        env: { A: "user", U: "1" },
        permissions: { defaultMode: "plan", additionalDirectories: ["../u"] },
      },
      project: { model: "a:project", env: { A: "project", P: "1" }, permissions: { defaultMode: "acceptEdits" } },
      local: { model: "a:local", env: { A: "local", L: "1" } },
    };
    const all = ["user", "project", "local"] as const;
    const { kernel } = kernelFor(files, { settingSources: [...all] });
    expect(kernel.options).toMatchObject({
      model: "a:local",
      permissionMode: "acceptEdits",
      additionalDirectories: ["../u"],
      env: { A: "local", U: "1", P: "1", L: "1" },
    });
    const explicit = kernelFor(files, {
      settingSources: [...all],
      model: "b:mine",
      permissionMode: "default",
      env: { A: "mine" },
      additionalDirectories: [],
    }).kernel;
    expect(explicit.options).toMatchObject({
      model: "b:mine",
      permissionMode: "default",
      additionalDirectories: [],
      env: { A: "mine", U: "1", P: "1", L: "1" },
    });
    expect(kernelFor(files, { settingSources: ["user"] }).kernel.options.model).toBe("a:user");
  });

  it("permission rules are unioned with the options' own lists", async () => {
    const { cwd, home } = fixture({
      user: { permissions: { deny: ["Bash(curl:*)"] } },
      project: { permissions: { deny: ["Bash(wget:*)"], ask: ["Bash(git push:*)"] } },
    });
    const { results } = await runCalls(
      [
        { toolName: "Bash", input: { command: "curl -s example.com" } },
        { toolName: "Bash", input: { command: "wget example.com" } },
        { toolName: "Bash", input: { command: "rm -rf build" } },
        { toolName: "Bash", input: { command: "git push" } },
      ],
      {
        cwd,
        tools: builtinTools(),
        plugins: [settings({ home }), permissions()],
        settingSources: ["user", "project"],
        permissionMode: "bypassPermissions",
        disallowedTools: ["Bash(rm:*)"],
      },
    );
    expect(results.map((r) => r.output.content)).toEqual([
      `Permission denied: the rule Bash(curl:*) in settings (user: ${join(home, ".ubiquity", "settings.json")}) forbids this (curl -s example.com).`,
      `Permission denied: the rule Bash(wget:*) in settings (project: ${join(cwd, ".ubiquity", "settings.json")}) forbids this (wget example.com).`,
      "Permission denied: the rule Bash(rm:*) in disallowedTools forbids this (rm -rf build).",
      expect.stringContaining("No canUseTool handler is configured"),
    ]);
  });

  it("a settings allow rule pre-approves without limiting which tools are offered; a bare deny removes the tool", async () => {
    const { cwd, home } = fixture({ project: { permissions: { allow: ["Probe"], deny: ["Other"] } } });
    const probe = probeTool();
    const other = probeTool("Other");
    const extra = probeTool("Extra");
    const { messages, results } = await runCalls([{ toolName: "Probe", input: { value: "v" } }], {
      cwd,
      tools: [probe.tool, other.tool, extra.tool],
      plugins: [settings({ home }), permissions()],
      settingSources: ["project"],
    });
    expect((messages[0] as { tools: string[] }).tools).toEqual(["Probe", "Extra"]);
    expect(results[0]!.output).toMatchObject({ isError: false, content: "ran v" });
  });

  // Fail closed: skipping a broken file would silently drop its deny rules.
  it.each([
    [
      "bad JSON (with line and column)",
      { user: '{\n  "permissions": {\n    "deny": ["Bash(rm:*)"],\n  }\n}' },
      "user",
      /settings\.json: the settings file is not valid JSON: .*line 4 column 3/,
    ],
    [
      "a wrong type",
      { project: { permissions: { defaultMode: "yolo" } } },
      "project",
      /settings\.json: the settings file does not match the settings format[\s\S]*defaultMode/,
    ],
    [
      "a malformed rule",
      { local: { permissions: { deny: ["Bash(rm:*"] } } },
      "local",
      /settings\.local\.json: .*"Bash\(rm:\*" is not a permission rule/,
    ],
  ])("a file with %s stops the kernel, naming the file", (_what, files, source, message) => {
    expect(() => kernelFor(files as Files, { settingSources: [source] })).toThrow(message);
  });

  it("a FIFO, a folder or an oversized file in a settings file's place is refused without blocking", () => {
    for (const [kind, make] of [
      ["FIFO", (p: string) => execFileSync("mkfifo", [p])],
      ["folder", (p: string) => mkdirSync(p)],
      ["oversized file", (p: string) => writeFileSync(p, Buffer.alloc(2 * 1024 * 1024, 32))],
    ] as const) {
      const cwd = tempDir();
      mkdirSync(join(cwd, ".ubiquity"));
      make(join(cwd, ".ubiquity", "settings.json"));
      const run = () =>
        createKernel({
          presets: [],
          plugins: [settings({ home: tempDir() }), permissions()],
          cwd,
          settingSources: ["project"],
        });
      expect(run, kind).toThrow(
        /settings\.json: the settings file cannot be used: it is (a FIFO|a folder|\d+ bytes, over)/,
      );
    }
  });

  it("trust: false keeps only a project file's deny and ask rules (and reads the user's file whole)", () => {
    const hooks = { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: "touch x" }] }] };
    const { kernel, cwd, home } = kernelFor(
      {
        user: { model: "a:user" },
        project: {
          model: "a:project",
          env: { BASH_ENV: "/evil" },
          hooks,
          permissions: {
            allow: ["Bash(rm:*)"],
            deny: ["Bash(curl:*)"],
            ask: ["Read"],
            defaultMode: "bypassPermissions",
          },
        },
      },
      { settingSources: ["user", "project"], trust: false },
    );
    expect(kernel.options.model).toBe("a:user");
    expect(kernel.options.permissionMode).toBe("default");
    expect(kernel.options.env).toBeUndefined();
    expect(getSettingsApi(kernel).files).toEqual([
      { source: "user", path: join(home, ".ubiquity", "settings.json"), settings: { model: "a:user" } },
      {
        source: "project",
        path: join(cwd, ".ubiquity", "settings.json"),
        settings: { permissions: { deny: ["Bash(curl:*)"], ask: ["Read"] } },
      },
    ]);
  });

  it("the settings option (claude's --settings): a file or an object, above every file, whole even where the folder is not trusted", async () => {
    const local = { env: { A: "local" }, permissions: { deny: ["Bash(curl:*)"] } };
    const own = { env: { A: "flag", B: "1" }, permissions: { deny: ["Bash(wget:*)"] } };
    const { kernel, cwd, home } = kernelFor({ local }, { settingSources: ["local"], trust: false, settings: own });
    expect(kernel.options.env).toEqual({ A: "flag", B: "1" });
    expect(getSettingsApi(kernel).files.map((f) => [f.source, f.path])).toEqual([
      ["local", join(cwd, ".ubiquity", "settings.local.json")],
      ["user", "the settings option"],
    ]);
    // The rules join: the untrusted local file's deny stays, the caller's applies too.
    const { results } = await runCalls(
      [
        { toolName: "Bash", input: { command: "curl -s example.com" } },
        { toolName: "Bash", input: { command: "wget example.com" } },
      ],
      {
        cwd,
        tools: builtinTools(),
        plugins: [settings({ home }), permissions()],
        settingSources: ["local"],
        trust: false,
        settings: own,
        permissionMode: "bypassPermissions",
      },
    );
    expect(results.map((r) => r.output.content)).toEqual([
      `Permission denied: the rule Bash(curl:*) in settings (local: ${join(cwd, ".ubiquity", "settings.local.json")}) forbids this (curl -s example.com).`,
      "Permission denied: the rule Bash(wget:*) in settings (user: the settings option) forbids this (wget example.com).",
    ]);
    // A path is read from the cwd; one that does not exist stops the run naming it.
    writeFileSync(join(cwd, "ci.json"), JSON.stringify(own));
    const read = createKernel({ presets: [], plugins: [settings({ home })], cwd, settings: "ci.json" });
    expect(read.options.env).toEqual({ A: "flag", B: "1" });
    expect(() => createKernel({ presets: [], plugins: [settings({ home })], cwd, settings: "nope.json" })).toThrow(
      /does not exist/,
    );
  });

  it("reads a trusted project's .mcp.json servers (options win a name); an untrusted one is not read", () => {
    const cwd = tempDir();
    writeFileSync(
      join(cwd, ".mcp.json"),
      JSON.stringify({ mcpServers: { a: { command: "from-file" }, b: { command: "from-file" } } }),
    );
    const make = (trust: boolean) =>
      createKernel({
        presets: [],
        plugins: [settings({ home: tempDir() }), permissions(), mcp()],
        cwd,
        settingSources: ["project"],
        trust,
        mcpServers: { b: { command: "from-options" } },
      });
    expect(make(true).options.mcpServers).toEqual({ a: { command: "from-file" }, b: { command: "from-options" } });
    expect(make(false).options.mcpServers).toEqual({ b: { command: "from-options" } });
    writeFileSync(join(cwd, ".mcp.json"), "{ nope");
    expect(() => make(true)).toThrow(/\.mcp\.json: the MCP config file is not valid JSON/);
  });

  it("keeps every key of a file readable through getSettingsApi (hooks for the hooks plugin)", () => {
    const hooks = { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "echo hi" }] }] };
    const { kernel, cwd } = kernelFor({ project: { hooks, somethingNew: 1 } }, { settingSources: ["project"] });
    expect(getSettingsApi(kernel).files).toEqual([
      { source: "project", path: join(cwd, ".ubiquity", "settings.json"), settings: { hooks, somethingNew: 1 } },
    ]);
  });
});
