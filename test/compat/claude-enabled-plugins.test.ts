/**
 * Claude Code's `enabledPlugins` (`{"name@marketplace": true}` in a settings file): the plugins
 * Claude Code installed, found through `~/.claude/plugins/installed_plugins.json` (its version 2
 * shape: a list of installs by scope; version 1: one install), load as if `ubiquity plugin add`
 * had recorded them, so a switching user's plugins come along. One enabled but not installed is
 * reported; one set to false is not loaded.
 */
import { cpSync, mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { collect } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { tempHome } from "../helpers/temp-home";

const FIXTURE = fileURLToPath(new URL("../fixtures/compat/plugins/commit-commands/", import.meta.url));
const home = tempHome();
const temp = tempDirs();

/** Claude Code's plugin folder with commit-commands installed; its record in `version`'s shape. */
function installed(version: 1 | 2, scope = "user"): string {
  const plugins = join(home(), ".claude", "plugins");
  const folder = join(plugins, "cache", "claude-plugins-official", "commit-commands", "1.0.0");
  mkdirSync(folder, { recursive: true });
  cpSync(FIXTURE, folder, { recursive: true });
  const install = { scope, installPath: folder, version: "1.0.0" };
  const id = "commit-commands@claude-plugins-official";
  writeFileSync(
    join(plugins, "installed_plugins.json"),
    JSON.stringify({ version, plugins: { [id]: version === 2 ? [install] : install } }),
  );
  return folder;
}

async function run(enabled: unknown) {
  writeFileSync(join(home(), ".claude", "settings.json"), JSON.stringify({ enabledPlugins: enabled }));
  const warnings: string[] = [];
  const query = summon("hi", {
    model: scriptedModel(["ok"]),
    cwd: realpathSync(temp("ubq-enabled-plugins-")),
    sandbox: false,
    persistSession: false,
    compat: ["claude"],
    settingSources: ["user"],
    logger: { debug() {}, info() {}, error() {}, warn: (...m: unknown[]) => void warnings.push(m.join(" ")) },
  });
  const names = (await query.supportedCommands()).map((c) => c.name);
  await collect(query);
  return { names, warnings: warnings.join("\n") };
}

describe("Claude Code's enabledPlugins", () => {
  it("loads the plugins Claude Code installed (installed_plugins.json, version 2)", async () => {
    installed(2);
    const { names, warnings } = await run({ "commit-commands@claude-plugins-official": true });
    expect(names).toContain("commit-commands:commit");
    expect(warnings).not.toContain("enabledPlugins");
  });

  it("reads version 1's record too; a plugin set to false is not loaded", async () => {
    installed(1);
    expect((await run({ "commit-commands@claude-plugins-official": true })).names).toContain("commit-commands:commit");
    expect((await run({ "commit-commands@claude-plugins-official": false })).names).not.toContain(
      "commit-commands:commit",
    );
  });

  it("a plugin enabled but not installed (or installed for another project) is reported, the others load", async () => {
    installed(2, "project");
    const { names, warnings } = await run({
      "commit-commands@claude-plugins-official": true,
      "ghost@claude-plugins-official": true,
    });
    expect(names).not.toContain("commit-commands:commit");
    expect(warnings).toContain("enabledPlugins.ghost@claude-plugins-official (not installed in ~/.claude/plugins");
    expect(warnings).toContain("enabledPlugins.commit-commands@claude-plugins-official (not installed");
  });
});
