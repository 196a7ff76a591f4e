/**
 * Where `compat: ["codex"]` looks for AGENTS.md, and how it reads one, as Codex does
 * (codex-rs/core/src/agents_md.rs; developers.openai.com/codex/guides/agents-md): from the
 * project root — the nearest folder with a `.git`, a folder or a worktree's file — down to the
 * cwd, never above it, and only the cwd outside a repository; the text as written, an `@path`
 * line included (Codex follows no includes; Claude Code's CLAUDE.md does, and still does here).
 */
import { mkdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { summon, type Options } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import settingsPlugin from "ubiquity/plugins/settings";
import permissionsPlugin from "ubiquity/plugins/permissions";
import memoryPlugin from "ubiquity/plugins/memory";
import { collect, resultOf } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { tempHome, writeTree } from "../helpers/temp-home";
import { findFilesToPin } from "../../loader/index";

const temps = tempDirs();
const temp = () => realpathSync(temps("ubq-codex-walk-"));
const home = tempHome();

async function systemOf(cwd: string, options: Options = {}): Promise<string> {
  const model = scriptedModel(["done"]);
  const messages = await collect(
    summon("go", {
      presets: [],
      plugins: [settingsPlugin(), permissionsPlugin(), memoryPlugin()],
      model,
      cwd,
      compat: ["codex"],
      logger: { debug() {}, info() {}, error() {}, warn() {} },
      ...options,
    }),
  );
  expect(resultOf(messages).isError).toBe(false);
  return (model.requests[0]?.prompt ?? [])
    .filter((m) => m.role === "system")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
    .join("\n");
}

describe("where Codex's AGENTS.md files are looked for", () => {
  it("from the git root down to the cwd: a file above the repository is not read", async () => {
    const outer = temp();
    writeTree(outer, {
      "AGENTS.md": "Above the repository ABOVE-MARKER.\n",
      "repo/.git/HEAD": "ref: refs/heads/main\n",
      "repo/AGENTS.md": "Repository root ROOT-MARKER.\n",
      "repo/pkg/AGENTS.md": "Package PKG-MARKER.\n",
    });
    mkdirSync(join(outer, "repo", "pkg", "src"));
    const system = await systemOf(join(outer, "repo", "pkg", "src"));
    expect(system).toContain("ROOT-MARKER");
    expect(system).toContain("PKG-MARKER");
    expect(system.indexOf("ROOT-MARKER")).toBeLessThan(system.indexOf("PKG-MARKER"));
    expect(system).not.toContain("ABOVE-MARKER");
  });

  it("a worktree's .git file marks the root as a .git folder does", async () => {
    const outer = temp();
    writeTree(outer, {
      "AGENTS.md": "Above the worktree ABOVE-MARKER.\n",
      "wt/.git": "gitdir: /elsewhere/.git/worktrees/wt\n",
      "wt/AGENTS.md": "Worktree root WT-MARKER.\n",
    });
    mkdirSync(join(outer, "wt", "sub"));
    const system = await systemOf(join(outer, "wt", "sub"));
    expect(system).toContain("WT-MARKER");
    expect(system).not.toContain("ABOVE-MARKER");
  });

  it("outside a repository only the cwd's file is read, not its parents'", async () => {
    const outer = temp();
    writeTree(outer, { "AGENTS.md": "Parent PARENT-MARKER.\n", "here/AGENTS.md": "The cwd CWD-MARKER.\n" });
    const system = await systemOf(join(outer, "here"));
    expect(system).toContain("CWD-MARKER");
    expect(system).not.toContain("PARENT-MARKER");
  });

  it("trust lists the files the walk reads, not the one above the repository", () => {
    const outer = temp();
    writeTree(outer, {
      "AGENTS.md": "above\n",
      "repo/.git/HEAD": "ref: refs/heads/main\n",
      "repo/AGENTS.md": "root\n",
    });
    const listed = findFilesToPin(join(outer, "repo"), home(), [memoryPlugin()]).map((f) => f.path);
    expect(listed).toContain(join(outer, "repo", "AGENTS.md"));
    expect(listed).not.toContain(join(outer, "AGENTS.md"));
  });
});

describe("an @path line in AGENTS.md", () => {
  const files = {
    ".git/HEAD": "ref: refs/heads/main\n",
    "AGENTS.md": "Follow the notes:\n@notes.md\nAGENTS-MARKER.\n",
    "notes.md": "Included text INCLUDED-MARKER.\n",
  };

  it("is text, as Codex reads it: the named file is not read into the prompt", async () => {
    const dir = temp();
    writeTree(dir, files);
    const system = await systemOf(dir);
    expect(system).toContain("AGENTS-MARKER");
    expect(system).toContain("@notes.md");
    expect(system).not.toContain("INCLUDED-MARKER");
    // Nor is it a file trusting the folder approves as an include.
    const listed = findFilesToPin(dir, home(), [memoryPlugin()]).map((f) => f.path);
    expect(listed).toContain(join(dir, "AGENTS.md"));
    expect(listed).not.toContain(join(dir, "notes.md"));
  });

  it("~/.codex/AGENTS.md's @path lines are text too", async () => {
    writeTree(home(), {
      ".codex/AGENTS.md": "User rule USER-MARKER.\n@notes.md\n",
      ".codex/notes.md": "USER-INCLUDED-MARKER\n",
    });
    const system = await systemOf(temp());
    expect(system).toContain("USER-MARKER");
    expect(system).not.toContain("USER-INCLUDED-MARKER");
  });

  it("CLAUDE.md's include of the same file is still followed, as Claude Code follows it", async () => {
    const dir = temp();
    writeTree(dir, { ...files, "CLAUDE.md": "See @notes.md too. CLAUDE-MARKER.\n" });
    const system = await systemOf(dir, { compat: ["claude", "codex"] });
    expect(system).toContain("CLAUDE-MARKER");
    expect(system).toContain("INCLUDED-MARKER");
  });
});
