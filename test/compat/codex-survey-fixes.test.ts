/**
 * What the Codex part of the compat survey (docs/guide/compat-survey.md, "Codex files") found
 * ubiquity misreading, on the real files (test/fixtures/compat/codex/survey, see SOURCE.md there):
 * spec-kit's Codex prompts, named `speckit.<step>.md` (PaulSchweizer/flowpipe), and a Codex plugin
 * that brings an app (`apps`, `.app.json`: openai/plugins' daloopa), and nested AGENTS.md files
 * over Codex's 32 KiB (vercel-labs/agent-skills).
 */
import { copyFileSync, cpSync, mkdirSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { collect, resultOf } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { tempHome } from "../helpers/temp-home";
import { loadCodexPrompts } from "../../plugins/commands/codex-prompts";
import { readClaudePlugin, unrunParts } from "../../plugins/_kits/sources/index";
import { loadMemory } from "../../plugins/memory/index";

const SURVEY = fileURLToPath(new URL("../fixtures/compat/codex/survey/", import.meta.url));
const temp = tempDirs();
const home = tempHome();

describe("spec-kit's Codex prompts (`speckit.taskstoissues.md`)", () => {
  const install = () => {
    mkdirSync(join(home(), ".codex", "prompts"), { recursive: true });
    copyFileSync(
      join(SURVEY, "flowpipe/prompts/speckit.taskstoissues.md"),
      join(home(), ".codex", "prompts", "speckit.taskstoissues.md"),
    );
  };

  it("load as /prompts:speckit.taskstoissues, as Codex names them (the file's name with its dot)", async () => {
    install();
    const reports: string[] = [];
    const prompts = await loadCodexPrompts(join(home(), ".codex", "prompts"), (m) => reports.push(m));
    expect(reports).toEqual([]);
    expect(prompts.map((p) => [p.name, p.description])).toEqual([
      [
        "prompts:speckit.taskstoissues",
        "Convert existing tasks into actionable, dependency-ordered GitHub issues for the feature based on available design artifacts.",
      ],
    ]);
  });

  it("`/prompts:speckit.taskstoissues <words>` sends the body with $ARGUMENTS filled", async () => {
    install();
    const model = scriptedModel(["done"]);
    const messages = await collect(
      summon("/prompts:speckit.taskstoissues only the P1 tasks", {
        model,
        cwd: realpathSync(temp("ubq-codex-survey-")),
        sandbox: false,
        persistSession: false,
        compat: ["codex"],
      }),
    );
    const result = resultOf(messages);
    expect(result.isError, result.result).toBe(false);
    const sent = JSON.stringify(model.requests.at(-1)!.prompt);
    expect(sent).toContain("```text\\nonly the P1 tasks\\n```");
    expect(sent).toContain("For each task in the list, use the GitHub MCP server");
    expect(sent).not.toContain("Convert existing tasks"); // the frontmatter is not sent
    expect(sent).not.toContain("$ARGUMENTS");
  });
});

describe("a Codex plugin's apps (openai/plugins' daloopa)", () => {
  it("are said not to be applied, naming the plugin; its skills folder is still read", () => {
    const root = join(realpathSync(temp("ubq-codex-plugin-")), "daloopa");
    cpSync(join(SURVEY, "daloopa"), root, { recursive: true });
    const reports: string[] = [];
    const plugin = readClaudePlugin(root, (m) => reports.push(m));
    expect(plugin).toMatchObject({ name: "daloopa", kind: "codex", skillsDirs: [join(root, "skills")] });
    expect(reports).toHaveLength(1);
    expect(reports[0]).toContain("plugin daloopa");
    expect(reports[0]).toContain("apps (apps, .app.json) are not applied");
  });

  it("a marketplace entry naming apps is said too", () => {
    const manifest = JSON.parse(readFileSync(join(SURVEY, "daloopa/.codex-plugin/plugin.json"), "utf8"));
    expect(unrunParts(undefined, manifest).join("\n")).toContain("apps (apps, .app.json) are not applied");
  });
});

describe("nested AGENTS.md over Codex's 32 KiB (vercel-labs/agent-skills)", () => {
  it("the instructions stop at 32 KiB in all, as Codex's project_doc_max_bytes: the nested file is cut", async () => {
    const project = realpathSync(temp("ubq-codex-agents-"));
    cpSync(join(SURVEY, "agent-skills"), project, { recursive: true });
    mkdirSync(join(project, ".git"));
    const cwd = join(project, "skills", "react-view-transitions");
    const reports: string[] = [];
    const files = await loadMemory(
      { compat: ["codex"], memorySources: [], compatSources: ["project"] },
      { cwd, home: realpathSync(temp("ubq-codex-home-")) },
      (m) => reports.push(m),
    );
    const root = readFileSync(join(project, "AGENTS.md"), "utf8");
    const nested = readFileSync(join(cwd, "AGENTS.md"));
    expect(files.map((f) => [f.path, f.cut])).toEqual([
      [join(project, "AGENTS.md"), false],
      [join(cwd, "AGENTS.md"), true],
    ]);
    expect(files[0]!.content).toBe(root.trimEnd());
    // 3,281 bytes of the root file leave 29,487 of the 32,768 for the nested one (32,301 long).
    const left = 32 * 1024 - Buffer.byteLength(root);
    const kept = nested.subarray(0, left).toString("utf8");
    expect(files[1]!.content.startsWith(kept)).toBe(true);
    expect(files[1]!.content).not.toContain(nested.subarray(left, left + 200).toString("utf8"));
    expect(files[1]!.content).toContain("32,768 bytes");
    expect(reports).toEqual([]);
  });
});
