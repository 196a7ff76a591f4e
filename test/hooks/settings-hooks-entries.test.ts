/**
 * Settings-file hooks are read entry by entry: an unknown event, an unknown handler type or a
 * malformed entry is skipped with a warning naming it, and the file's other hooks still run.
 * The `rm -rf` guard case goes through the real bin: a settings file with one unknown event
 * still blocks `rm -rf`, checked by a marker file that must survive.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { readFileHooks } from "../../plugins/hooks/settings-hooks";
import { removeTempProjects, requireDist, runCli, tempProject } from "../helpers/project";

const GUARD = {
  type: "command",
  command: `if grep -q 'rm -rf'; then echo "rm -rf is blocked by the guard hook" >&2; exit 2; fi`,
};

describe("readFileHooks: one entry at a time", () => {
  it("an unknown event is skipped by name; the file's other events are kept", () => {
    const reports: string[] = [];
    const hooks = readFileHooks(
      {
        TeammateIdle: [{ hooks: [{ type: "command", command: "true" }] }],
        PreToolUse: [{ matcher: "Bash", hooks: [GUARD] }],
      },
      (m) => reports.push(m),
    );
    expect(hooks.PreToolUse).toEqual([{ matcher: "Bash", hooks: [GUARD] }]);
    expect(Object.keys(hooks)).toEqual(["PreToolUse"]);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toContain('"TeammateIdle"');
  });

  it("prompt, agent and http handlers are read beside command hooks; an unknown handler type is skipped by name", () => {
    const reports: string[] = [];
    const hooks = readFileHooks(
      {
        Stop: [
          {
            hooks: [
              { type: "prompt", prompt: "Is the work done? $ARGUMENTS", model: "haiku" },
              { type: "agent", prompt: "Check the tests pass", timeout: 90 },
              {
                type: "http",
                url: "http://127.0.0.1:9/hook",
                headers: { Authorization: "Bearer $T" },
                allowedEnvVars: ["T"],
              },
              { type: "webhook", url: "http://x" },
              { type: "command", command: "echo stop" },
            ],
          },
        ],
        PreToolUse: [
          { matcher: "Bash", hooks: [GUARD, { type: "http", url: "file:///etc/passwd" }, { type: "prompt" }] },
        ],
      },
      (m) => reports.push(m),
    );
    expect(hooks.Stop).toEqual([
      {
        hooks: [
          { type: "prompt", prompt: "Is the work done? $ARGUMENTS", model: "haiku" },
          { type: "agent", prompt: "Check the tests pass", timeout: 90 },
          {
            type: "http",
            url: "http://127.0.0.1:9/hook",
            headers: { Authorization: "Bearer $T" },
            allowedEnvVars: ["T"],
          },
          { type: "command", command: "echo stop" },
        ],
      },
    ]);
    expect(hooks.PreToolUse).toEqual([{ matcher: "Bash", hooks: [GUARD] }]);
    expect(reports).toEqual([
      expect.stringContaining('hooks.Stop[0].hooks[3]: unknown handler type "webhook"'),
      expect.stringContaining('hooks.PreToolUse[0].hooks[1]: an http hook whose "url" is not http(s)'),
      expect.stringContaining('hooks.PreToolUse[0].hooks[2]: a prompt hook without a "prompt" string'),
    ]);
  });

  it("malformed groups and handlers are skipped one by one, each named", () => {
    const reports: string[] = [];
    const hooks = readFileHooks(
      {
        PreToolUse: [
          "not a group",
          { matcher: 3, hooks: [GUARD] },
          {
            matcher: "Bash",
            hooks: [
              { type: "command" },
              { type: "command", command: "x", timeout: -1 },
              { type: "scrpt", command: "y" },
              GUARD,
            ],
          },
        ],
        PostToolUse: { matcher: "*" },
      },
      (m) => reports.push(m),
    );
    expect(hooks).toEqual({ PreToolUse: [{ matcher: "Bash", hooks: [GUARD] }] });
    expect(reports.join("\n")).toContain("hooks.PreToolUse[0]");
    expect(reports.join("\n")).toContain("hooks.PreToolUse[1].matcher");
    expect(reports.join("\n")).toContain("hooks.PreToolUse[2].hooks[1]: timeout -1");
    expect(reports.join("\n")).toContain('unknown handler type "scrpt"');
    expect(reports.join("\n")).toContain("hooks.PostToolUse is not a list");
    expect(reports).toHaveLength(6);
  });
});

describe("the rm -rf guard through the bin", () => {
  beforeAll(() => requireDist());
  afterAll(() => removeTempProjects());

  const CONFIG = `
import { scriptedModel } from "ubiquity/testing";
export default {
  settingSources: ["project"],
  sessionDir: "./sessions",
  persistTodos: false,
  marketPricing: false,
  model: scriptedModel(({ request }) =>
    request.prompt.at(-1).role === "tool" ? "done" : { toolCalls: [{ toolName: "Bash", input: { command: "rm -rf victim" } }] },
  ),
};
`;

  async function runWith(hooks: unknown, where: "ubiquity" | "claude" = "ubiquity") {
    const files: Record<string, string> =
      where === "ubiquity"
        ? { "ubiquity.config.ts": CONFIG, ".ubiquity/settings.json": JSON.stringify({ hooks }) }
        : {
            "ubiquity.config.ts": CONFIG.replace('settingSources: ["project"],', 'compat: ["claude"],'),
            ".claude/settings.json": JSON.stringify({ hooks }),
          };
    const dir = tempProject({ ...files, "victim/marker": "still here" }, { linkUbiquity: true });
    const out = await runCli(
      ["run", "--permission-mode", "bypassPermissions", "--output-format", "stream-json", "delete it"],
      dir,
    );
    return { dir, out, marker: existsSync(join(dir, "victim", "marker")) };
  }

  it("a settings file with one unknown event still blocks rm -rf, and the warning names the event", async () => {
    const { out, marker } = await runWith({
      TeammateIdle: [{ hooks: [{ type: "command", command: "true" }] }],
      PreToolUse: [{ matcher: "Bash", hooks: [GUARD] }],
    });
    expect(marker).toBe(true);
    expect(out.stdout).toContain("rm -rf is blocked by the guard hook");
    expect(out.stderr).toContain("TeammateIdle");
  });

  it('the same in a Claude Code .claude/settings.json under compat: ["claude"]', async () => {
    const { out, marker } = await runWith(
      {
        TeammateIdle: [{ hooks: [{ type: "command", command: "true" }] }],
        PreToolUse: [{ matcher: "Bash", hooks: [GUARD] }],
      },
      "claude",
    );
    expect(marker).toBe(true);
    expect(out.stdout).toContain("rm -rf is blocked by the guard hook");
  });

  it("a prompt-type hook beside the guard does not disable it", async () => {
    const { marker } = await runWith({
      Stop: [{ hooks: [{ type: "prompt", prompt: "Check the work." }] }],
      PreToolUse: [{ matcher: "Bash", hooks: [GUARD] }],
    });
    expect(marker).toBe(true);
  });

  it("without the guard the same run deletes the marker (the check can fail)", async () => {
    const { marker } = await runWith({ TeammateIdle: [{ hooks: [{ type: "command", command: "true" }] }] });
    expect(marker).toBe(false);
  });
});
