/**
 * Claude Code settings files' permission rules, read as Claude Code reads them. A file rule's
 * `/path` starts at the project root (`//path` is absolute): `Edit(/CLAUDE.md)`, `Edit(/.claude/**)`,
 * `Read(/.env)` are common deny and ask rules in public `.claude/settings.json` files, and the
 * permission docs' own example is `Edit(/src/**)`. Minimal inputs of our own (the files seen were
 * in repositories without an open licence; see test/fixtures/compat/settings/SOURCE.md).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import permissions from "ubiquity/plugins/permissions";
import settings from "ubiquity/plugins/settings";
import { builtinTools } from "../../plugins/tools/index";
import { readClaudeSettingsFile } from "../../plugins/settings/claude";
import { runCalls, tempDir } from "../permissions/helpers";

function project(claudeSettings: unknown) {
  const cwd = tempDir();
  const home = tempDir();
  mkdirSync(join(cwd, ".claude"));
  writeFileSync(join(cwd, ".claude", "settings.json"), JSON.stringify(claudeSettings));
  mkdirSync(join(cwd, "data"));
  writeFileSync(join(cwd, "data", "holdout.csv"), "secret,1\n");
  return { cwd, home };
}

const options = (cwd: string, home: string) => ({
  cwd,
  tools: builtinTools(),
  plugins: [settings({ home }), permissions()],
  compat: ["claude" as const],
  settingSources: ["project" as const],
});

describe("Claude Code settings: a file rule's /path starts at the project root", () => {
  it("deny rules protect the project's files (they named nothing when /path was read as absolute)", async () => {
    const { cwd, home } = project({
      permissions: { deny: ["Edit(/protected/**)", "Read(/data/holdout.csv)"] },
    });
    const { results } = await runCalls(
      [
        { toolName: "Read", input: { file_path: "data/holdout.csv" } },
        { toolName: "Write", input: { file_path: "protected/rules.json", content: "{}" } },
        { toolName: "Write", input: { file_path: "strategy/a.py", content: "x = 1\n" } },
      ],
      { ...options(cwd, home), permissionMode: "acceptEdits" },
    );
    expect(results[0]!.output).toMatchObject({ isError: true });
    expect(results[0]!.output.content).toContain("Read(//");
    expect(results[0]!.output.content).not.toContain("secret,1");
    expect(results[1]!.output).toMatchObject({ isError: true });
    expect(existsSync(join(cwd, "protected", "rules.json"))).toBe(false);
    // What no rule names still follows the mode.
    expect(readFileSync(join(cwd, "strategy", "a.py"), "utf8")).toBe("x = 1\n");
  });

  it("an allow rule allows below the project's folder", async () => {
    const { cwd, home } = project({ permissions: { allow: ["Edit(/src/**)"] } });
    const { results } = await runCalls(
      [
        { toolName: "Write", input: { file_path: "src/a.ts", content: "export {};\n" } },
        { toolName: "Write", input: { file_path: "docs/a.md", content: "# a\n" } },
      ],
      options(cwd, home),
    );
    expect(results[0]!.output).toMatchObject({ isError: false });
    expect(readFileSync(join(cwd, "src", "a.ts"), "utf8")).toBe("export {};\n");
    // Headless, a write no rule allows is refused.
    expect(results[1]!.output).toMatchObject({ isError: true });
  });

  it("//path stays absolute", async () => {
    const { cwd, home } = project({});
    writeFileSync(
      join(cwd, ".claude", "settings.json"),
      JSON.stringify({ permissions: { deny: [`Read(/${join(cwd, "data", "holdout.csv")})`] } }),
    );
    const { results } = await runCalls(
      [{ toolName: "Read", input: { file_path: "data/holdout.csv" } }],
      options(cwd, home),
    );
    expect(results[0]!.output).toMatchObject({ isError: true });
    expect(results[0]!.output.content).not.toContain("secret,1");
  });
});

describe('Claude Code settings: "disableBypassPermissionsMode": "disable"', () => {
  // Claude Code's own example settings (anthropics/claude-code examples/settings, not an open licence) set it.
  it.each([
    ["a trusted folder", true],
    ["an untrusted folder (it only takes power away)", false],
  ])("keeps the run out of bypassPermissions in %s", async (_, trust) => {
    const { cwd, home } = project({ permissions: { disableBypassPermissionsMode: "disable" } });
    const warnings: string[] = [];
    const { results } = await runCalls([{ toolName: "Write", input: { file_path: "a.txt", content: "a\n" } }], {
      ...options(cwd, home),
      permissionMode: "bypassPermissions",
      trust,
      logger: { debug() {}, info() {}, error() {}, warn: (m: string) => void warnings.push(m) },
    });
    // Headless, the default mode asks and nobody answers: refused.
    expect(results[0]!.output).toMatchObject({ isError: true });
    expect(existsSync(join(cwd, "a.txt"))).toBe(false);
    expect(warnings.join("\n")).toContain('"disableBypassPermissionsMode": "disable" refuses bypassPermissions');
  });
});

describe("Claude Code settings: sandbox.allowUnsandboxedCommands", () => {
  // Our Bash tool has no unsandboxed retry: `false` (Claude Code's strict mode) is what it does, `true` is not applied.
  it("false is taken without a report; true is reported as ignored", () => {
    const reports: string[] = [];
    const dir = tempDir();
    const write = (value: boolean) => {
      writeFileSync(
        join(dir, "s.json"),
        JSON.stringify({ sandbox: { enabled: true, allowUnsandboxedCommands: value } }),
      );
      return readClaudeSettingsFile(join(dir, "s.json"), (m) => reports.push(m), dir);
    };
    expect(write(false)?.sandbox).toMatchObject({ enabled: true });
    expect(reports).toEqual([]);
    write(true);
    expect(reports.join("\n")).toContain('"sandbox.allowUnsandboxedCommands"');
  });
});
