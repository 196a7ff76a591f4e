/**
 * One Claude Code plugin with every part — commands, agents, skills, hooks and an MCP server — built
 * from unmodified real files (test/fixtures/compat, see SOURCE.md) in a plugin folder whose manifest
 * writes hooks and mcpServers inline and names one agent file and one command file, as Claude Code
 * allows; a plugin folder inside the project applies under trust pins only while unchanged; and
 * `ubiquity plugin add <git-url>` clones a plugin (or a marketplace's plugin) into the user's
 * folder, from a real git repository served over file://.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { summon, type Options } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import commandsPlugin from "ubiquity/plugins/commands";
import { collect, ofType, resultOf } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { tempHome, writeTree } from "../helpers/temp-home";
import { EVERYTHING_BIN } from "../mcp/helpers";
import { digestsOf, findFilesToPin, TrustPins } from "../../loader/index";
import { commandsCommands } from "../../plugins/commands/cli";
import { isGitUrl } from "../../plugins/commands/plugin-command";

const FIXTURES = fileURLToPath(new URL("../fixtures/compat/", import.meta.url));
const temp = tempDirs();
const home = tempHome();

/** A plugin named `toolkit` made of real files, its manifest inline. */
function toolkit(root: string): string {
  const dir = join(root, "toolkit");
  cpSync(join(FIXTURES, "plugins/commit-commands/commands/commit.md"), join(dir, "cmds/commit.md"));
  cpSync(join(FIXTURES, "plugins/feature-dev/agents/code-explorer.md"), join(dir, "agents/code-explorer.md"));
  cpSync(
    join(FIXTURES, "claude-plugins-official/agents/silent-failure-hunter.md"),
    join(dir, "reviewers/silent-failure-hunter.md"),
  );
  cpSync(join(FIXTURES, "superpowers/skills/systematic-debugging"), join(dir, "skills/systematic-debugging"), {
    recursive: true,
  });
  cpSync(
    join(FIXTURES, "plugins/explanatory-output-style/hooks-handlers/session-start.sh"),
    join(dir, "hooks-handlers/session-start.sh"),
  );
  writeTree(dir, {
    ".claude-plugin/plugin.json": JSON.stringify(
      {
        name: "toolkit",
        commands: "./cmds/commit.md",
        agents: ["./reviewers/silent-failure-hunter.md"],
        hooks: {
          SessionStart: [
            {
              hooks: [
                { type: "command", command: "bash", args: ["${CLAUDE_PLUGIN_ROOT}/hooks-handlers/session-start.sh"] },
              ],
            },
          ],
        },
        mcpServers: { everything: { command: process.execPath, args: [EVERYTHING_BIN, "stdio"] } },
      },
      null,
      2,
    ),
  });
  return dir;
}

const base: Options = { sandbox: false, persistSession: false, persistTodos: false, marketPricing: false };

describe("a plugin with every part, manifest inline", () => {
  it("commands, agents (folder and named file), skills, an exec-form hook and an inline MCP server all load, namespaced", async () => {
    const dir = toolkit(realpathSync(temp("ubq-plugin-parts-")));
    const cwd = realpathSync(temp("ubq-plugin-cwd-"));
    const model = scriptedModel(({ request }) =>
      request.prompt.at(-1)?.role === "tool"
        ? "done"
        : { toolCalls: [{ toolName: "mcp__plugin_toolkit_everything__echo", input: { message: "from the plugin" } }] },
    );
    const query = summon("hello", {
      ...base,
      model,
      cwd,
      claudePlugins: [dir],
      canUseTool: () => ({ behavior: "allow" as const }),
    });
    const commands = (await query.supportedCommands()).map((c) => c.name);
    const messages = await collect(query);
    const result = resultOf(messages);
    expect(result.isError, result.result).toBe(false);
    expect(commands).toEqual(expect.arrayContaining(["toolkit:commit", "toolkit:systematic-debugging"]));
    const tools = model.requests[0]!.tools!;
    const agent = tools.find((t) => t.name === "Agent") as { description?: string } | undefined;
    expect(agent?.description).toContain("toolkit:code-explorer");
    expect(agent?.description).toContain("toolkit:silent-failure-hunter");
    const skill = tools.find((t) => t.name === "Skill") as { description?: string } | undefined;
    expect(skill?.description).toContain("toolkit:systematic-debugging");
    // The inline SessionStart hook (exec form, ${CLAUDE_PLUGIN_ROOT} in its args) gave its context.
    expect(JSON.stringify(model.requests[0]!.prompt)).toContain("explanatory");
    // The inline MCP server's tool, named as Claude Code names a plugin's.
    expect(tools.map((t) => t.name)).toContain("mcp__plugin_toolkit_everything__echo");
    expect(
      ofType(messages, "tool_result")
        .map((m) => m.output.content)
        .join("\n"),
    ).toContain("Echo: from the plugin");
  });
});

describe("a plugin folder inside the project, under trust pins", () => {
  it("applies while its files are the approved ones; a changed hook script stops the whole plugin", async () => {
    const cwd = realpathSync(temp("ubq-plugin-project-"));
    const dir = toolkit(join(cwd, "plugins"));
    const plugins = [commandsPlugin()];
    const pinned = findFilesToPin(cwd, home(), plugins);
    expect(pinned.map((f) => f.path)).toContain(dir);
    const trust = new TrustPins(digestsOf(pinned), home());
    const listed = async () => {
      const query = summon("hi", {
        ...base,
        model: scriptedModel(["ok"]),
        cwd,
        claudePlugins: ["./plugins/toolkit"],
        trust,
        mcpServers: {},
      });
      const names = (await query.supportedCommands()).map((c) => c.name);
      await collect(query);
      return names;
    };
    expect(await listed()).toContain("toolkit:commit");
    writeFileSync(join(dir, "hooks-handlers/session-start.sh"), "#!/usr/bin/env bash\ntouch /tmp/ubq-should-not-run\n");
    expect(await listed()).not.toContain("toolkit:commit");
  });
});

describe("ubiquity plugin add <git-url>", () => {
  const git = (cwd: string, ...args: string[]) =>
    execFileSync("git", args, {
      cwd,
      encoding: "utf8",
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: "t",
        GIT_AUTHOR_EMAIL: "t@e",
        GIT_COMMITTER_NAME: "t",
        GIT_COMMITTER_EMAIL: "t@e",
      },
    });
  /** A bare repository holding `files`, as a file:// URL. */
  function repo(name: string, fill: (dir: string) => void): string {
    const root = realpathSync(temp("ubq-git-"));
    const work = join(root, "work");
    git(root, "init", "-q", "-b", "main", work);
    fill(work);
    git(work, "add", "-A");
    git(work, "commit", "-q", "-m", "plugin");
    git(root, "clone", "-q", "--bare", work, join(root, `${name}.git`));
    return `file://${join(root, `${name}.git`)}`;
  }
  const io = () => {
    const out: string[] = [];
    return { out, io: { stdout: (t: string) => void out.push(t), stderr: (t: string) => void out.push(t) } };
  };
  const run = (positionals: string[], sink: ReturnType<typeof io>["io"]) =>
    commandsCommands.plugin!.run({ positionals, flags: {} } as never, sink as never);

  it("clones a plugin into ~/.ubiquity/plugins, records it, and removes the clone with it", async () => {
    const url = repo("toolkit", (dir) => cpSync(join(FIXTURES, "plugins/commit-commands"), dir, { recursive: true }));
    expect(isGitUrl(url)).toBe(true);
    const { out, io: sink } = io();
    expect(await run(["add", url], sink)).toBe(0);
    const clone = join(home(), ".ubiquity", "plugins", "toolkit");
    expect(existsSync(join(clone, ".claude-plugin", "plugin.json"))).toBe(true);
    const settings = JSON.parse(readFileSync(join(home(), ".ubiquity", "settings.json"), "utf8")) as {
      claudePlugins: string[];
    };
    expect(settings.claudePlugins).toEqual([clone]);
    expect(out.join("")).toContain("Added the plugin commit-commands");
    // A run that reads user settings has its command.
    const query = summon("hi", {
      ...base,
      model: scriptedModel(["ok"]),
      cwd: realpathSync(temp("ubq-cwd-")),
      settingSources: ["user"],
    });
    expect((await query.supportedCommands()).map((c) => c.name)).toContain("commit-commands:commit");
    await collect(query);
    expect(await run(["remove", "commit-commands"], sink)).toBe(0);
    expect(existsSync(clone)).toBe(false);
  });

  it("a marketplace's plugin whose source is a git URL is cloned too; a failed clone leaves nothing", async () => {
    const pluginUrl = repo("feature-dev", (dir) =>
      cpSync(join(FIXTURES, "plugins/feature-dev"), dir, { recursive: true }),
    );
    const marketUrl = repo("market", (dir) =>
      writeTree(dir, {
        ".claude-plugin/marketplace.json": JSON.stringify({
          name: "market",
          plugins: [
            { name: "feature-dev", source: { source: "url", url: pluginUrl } },
            { name: "gone", source: { source: "url", url: "file:///nonexistent/x.git" } },
          ],
        }),
      }),
    );
    const { io: sink } = io();
    expect(await run(["add", marketUrl, "feature-dev"], sink)).toBe(0);
    expect(existsSync(join(home(), ".ubiquity", "plugins", "feature-dev", "agents", "code-explorer.md"))).toBe(true);
    await expect(run(["add", "file:///nonexistent/repo.git"], sink)).rejects.toThrow(/git clone .* failed/);
    expect(existsSync(join(home(), ".ubiquity", "plugins", "repo"))).toBe(false);
  });

  /**
   * A repository holding two plugins in folders, in two commits: the first has the marketplace's
   * reviewed commit-commands, the second changes its command (the branch moved on).
   */
  function monorepo() {
    const url = repo("skills", (dir) => {
      cpSync(join(FIXTURES, "plugins/commit-commands"), join(dir, "plugins", "commits"), { recursive: true });
      cpSync(join(FIXTURES, "plugins/feature-dev"), join(dir, "plugins", "feature-dev"), { recursive: true });
    });
    const bare = url.slice("file://".length);
    const reviewed = git(bare, "rev-parse", "HEAD").trim();
    const work = join(bare, "..", "work");
    writeFileSync(
      join(work, "plugins", "commits", "commands", "commit.md"),
      "---\ndescription: changed\n---\nCHANGED AFTER REVIEW\n",
    );
    git(work, "commit", "-q", "-am", "moved on");
    git(work, "push", "-q", bare, "main");
    return { url, reviewed };
  }
  const market = (entries: unknown[]) =>
    repo("market", (dir) =>
      writeTree(dir, { ".claude-plugin/marketplace.json": JSON.stringify({ name: "market", plugins: entries }) }),
    );
  const settings = () =>
    existsSync(join(home(), ".ubiquity", "settings.json"))
      ? (JSON.parse(readFileSync(join(home(), ".ubiquity", "settings.json"), "utf8")) as { claudePlugins?: string[] })
      : {};

  it("a git-subdir source adds the plugin folder of the repository, at the commit the marketplace pins", async () => {
    const { url, reviewed } = monorepo();
    const marketUrl = market([
      { name: "commits", source: { source: "git-subdir", url, path: "plugins/commits", ref: "main", sha: reviewed } },
    ]);
    const { out, io: sink } = io();
    expect(await run(["add", marketUrl, "commits"], sink)).toBe(0);
    const folder = join(home(), ".ubiquity", "plugins", "skills", "plugins", "commits");
    expect(settings().claudePlugins).toEqual([folder]);
    expect(out.join("")).toContain("Added the plugin commit-commands");
    // The reviewed commit's command, not the branch's newer one.
    const command = readFileSync(join(folder, "commands", "commit.md"), "utf8");
    expect(command).not.toContain("CHANGED AFTER REVIEW");
    expect(command).toBe(readFileSync(join(FIXTURES, "plugins/commit-commands/commands/commit.md"), "utf8"));
    // Removing it removes the clone that holds it.
    expect(await run(["remove", "commit-commands"], sink)).toBe(0);
    expect(existsSync(join(home(), ".ubiquity", "plugins", "skills"))).toBe(false);
  });

  it("a strict: false entry's parts (the official LSP plugins') become the added plugin's manifest; the marketplace is not changed", async () => {
    const marketplace = realpathSync(temp("ubq-market-"));
    const lsp = {
      typescript: {
        command: "typescript-language-server",
        args: ["--stdio"],
        extensionToLanguage: { ".ts": "typescript" },
      },
    };
    writeTree(marketplace, {
      "plugins/typescript-lsp/README.md": "# typescript-lsp\n",
      "plugins/styled/.claude-plugin/plugin.json": JSON.stringify({ name: "styled" }),
      "plugins/styled/.lsp.json": JSON.stringify({ go: { command: "gopls", extensionToLanguage: { ".go": "go" } } }),
      // The shape of the official marketplace's LSP entries (strict: false, lspServers in the entry).
      ".claude-plugin/marketplace.json": JSON.stringify({
        name: "market",
        plugins: [
          {
            name: "typescript-lsp",
            source: "./plugins/typescript-lsp",
            strict: false,
            category: "development",
            lspServers: lsp,
          },
          { name: "styled", source: "./plugins/styled" },
        ],
      }),
    });
    const { out, io: sink } = io();
    expect(await run(["add", marketplace, "typescript-lsp"], sink)).toBe(0);
    expect(await run(["add", marketplace, "styled"], sink)).toBe(0);
    expect(out.join("")).toContain("Added the plugin typescript-lsp");
    expect(out.join("")).not.toContain("not run");
    const [added, styled] = settings().claudePlugins as string[];
    expect(added).toMatch(new RegExp(`^${join(home(), ".ubiquity", "plugins")}/typescript-lsp-entry-[0-9a-f]{12}$`));
    expect(styled).toBe(join(marketplace, "plugins", "styled"));
    const manifest = JSON.parse(readFileSync(join(added!, ".claude-plugin", "plugin.json"), "utf8"));
    expect(manifest).toEqual({ name: "typescript-lsp", lspServers: lsp });
    expect(readFileSync(join(added!, "README.md"), "utf8")).toBe("# typescript-lsp\n");
    expect(existsSync(join(marketplace, "plugins", "typescript-lsp", ".claude-plugin"))).toBe(false);
  });

  it("a source written without ./ starts at the marketplace's metadata.pluginRoot (4lt7ab/touchstone); it stays inside the marketplace", async () => {
    const marketplace = realpathSync(temp("ubq-market-"));
    cpSync(join(FIXTURES, "survey/touchstone"), marketplace, { recursive: true });
    const { out, io: sink } = io();
    expect(await run(["add", marketplace, "scaffold-touchstone-app"], sink)).toBe(0);
    expect(out.join("")).toContain("scaffold-touchstone-app");
    expect(settings().claudePlugins).toEqual([join(marketplace, "plugin", "scaffold-touchstone-app")]);
    // A pluginRoot does not let a source climb out of the marketplace.
    writeTree(marketplace, {
      ".claude-plugin/marketplace.json": JSON.stringify({
        name: "market",
        metadata: { pluginRoot: "./plugin" },
        plugins: [{ name: "climb", source: "a/../../../outside" }],
      }),
    });
    await expect(run(["add", marketplace, "climb"], sink)).rejects.toThrow(/leads outside the marketplace/);
  });

  it("a pinned commit the repository does not have, or a path out of it, adds nothing and leaves no clone", async () => {
    const { url } = monorepo();
    const marketUrl = market([
      { name: "gone", source: { source: "git-subdir", url, path: "plugins/commits", sha: "0".repeat(40) } },
      { name: "short", source: { source: "url", url, sha: "abc123" } },
      { name: "out", source: { source: "git-subdir", url, path: "../../.." } },
    ]);
    const { io: sink } = io();
    await expect(run(["add", marketUrl, "gone"], sink)).rejects.toThrow(
      /pins gone to commit 0{40}, which .* does not have; nothing was added/,
    );
    await expect(run(["add", marketUrl, "short"], sink)).rejects.toThrow(/"sha" "abc123" is not a full commit id/);
    await expect(run(["add", marketUrl, "out"], sink)).rejects.toThrow(/leads outside its repository/);
    expect(existsSync(join(home(), ".ubiquity", "plugins", "skills"))).toBe(false);
    expect(settings().claudePlugins ?? []).toEqual([]);
  });
});
