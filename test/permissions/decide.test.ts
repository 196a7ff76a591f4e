/** decidePermission() reaches the verdict a run with the same options reaches before any handler is asked. */
import { describe, expect, it } from "vitest";
import { decidePermission } from "ubiquity/plugins/permissions";
import type { PermissionMode } from "ubiquity";
import { builtinTools } from "../../plugins/tools/index";
import { recordingHandler, runCalls, tempDir } from "./helpers";

interface Scenario {
  command: string;
  rules: { allow?: string[]; deny?: string[]; ask?: string[] };
  mode: PermissionMode;
}

const SCENARIOS: Scenario[] = [
  { command: "echo a && echo b", rules: { allow: ["Bash(echo:*)"] }, mode: "default" },
  { command: "echo a && ls", rules: { allow: ["Bash(echo:*)"] }, mode: "default" },
  { command: "echo a; rm -f nothing", rules: { deny: ["Bash(rm:*)"] }, mode: "bypassPermissions" },
  { command: "echo a", rules: { ask: ["Bash(echo:*)"] }, mode: "bypassPermissions" },
  { command: "echo a > out.txt", rules: {}, mode: "bypassPermissions" },
  { command: "echo a > .env", rules: {}, mode: "bypassPermissions" },
  { command: "ls", rules: {}, mode: "dontAsk" },
  { command: "ls", rules: {}, mode: "plan" },
  { command: "ls | sh", rules: { allow: ["Bash"] }, mode: "acceptEdits" },
];

describe("decidePermission", () => {
  it.each(SCENARIOS.map((s) => [`${s.mode}: ${s.command} ${JSON.stringify(s.rules)}`, s] as const))(
    "%s — same verdict as a run",
    async (_name, s) => {
      const cwd = tempDir();
      const decided = await decidePermission({
        toolName: "Bash",
        input: { command: s.command },
        rules: s.rules,
        mode: s.mode,
        cwd,
      });
      const { handler, asked } = recordingHandler({ behavior: "deny", message: "handler said no" });
      const { results } = await runCalls([{ toolName: "Bash", input: { command: s.command } }], {
        cwd,
        tools: builtinTools(),
        permissionMode: s.mode,
        allowedTools: s.rules.allow,
        disallowedTools: s.rules.deny,
        askTools: s.rules.ask,
        canUseTool: handler,
      });
      const observed =
        asked.length > 0
          ? "ask"
          : results[0]!.output.isError && results[0]!.output.content === decided.message
            ? "deny"
            : "allow";
      expect(observed).toBe(decided.behavior);
      if (decided.behavior === "deny") expect(results[0]!.output.content).toBe(decided.message);
    },
  );

  it("returns { behavior, message, rule? }", async () => {
    const cwd = tempDir();
    expect(
      await decidePermission({
        toolName: "Bash",
        input: { command: "git status" },
        rules: { allow: ["Bash(git:*)"] },
        cwd,
      }),
    ).toEqual({
      behavior: "allow",
      message: "Allowed by Bash(git:*).",
      rule: "Bash(git:*)",
    });
    expect(await decidePermission({ toolName: "Bash", input: { command: "rm x" }, cwd })).toEqual({
      behavior: "ask",
      message: "Bash needs approval: it is not pre-approved (permission mode default).",
    });
  });

  it("applies the workspace check a run applies: a read outside the permitted folders is refused, with or without the tool", async () => {
    const cwd = tempDir();
    const outside = tempDir();
    const read = builtinTools().find((t) => t.name === "Read")!;
    const input = { file_path: `${outside}/secret.txt` };
    const withTool = await decidePermission({ toolName: "Read", input, cwd, tool: read });
    const bare = await decidePermission({ toolName: "Read", input, cwd });
    expect(withTool.behavior).toBe("deny");
    expect(bare.behavior).toBe("deny");
    const { results } = await runCalls([{ toolName: "Read", input }], { cwd, tools: builtinTools() });
    expect(results[0]!.output.isError).toBe(true);
    expect(results[0]!.output.content).toBe(withTool.message);
    expect((await decidePermission({ toolName: "Read", input, cwd, additionalDirectories: [outside] })).behavior).toBe(
      "allow",
    );
  });
});
