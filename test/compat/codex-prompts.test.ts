/**
 * Codex's custom prompts (`~/.codex/prompts/*.md`) as `/prompts:<name>` under `compat: ["codex"]`,
 * expanded Codex's way, through `summon()`. The real prompt is Quantisan/dotfiles' commit.md
 * (test/fixtures/compat/SOURCE.md); `draftpr.md` is the example of Codex's custom-prompts docs.
 */
import { copyFileSync, mkdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { summon, type Options } from "ubiquity";
import { scriptedModel, type ScriptedModel } from "ubiquity/testing";
import { collect, ofType, resultOf } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { tempHome, writeTree } from "../helpers/temp-home";
import { expandCodexPrompt, namedPlaceholders, shellWords } from "../../plugins/commands/codex-prompts";

const FIXTURE = fileURLToPath(new URL("../fixtures/compat/codex-prompts/quantisan/commit.md", import.meta.url));
const temp = tempDirs();
const home = tempHome();

const DRAFTPR = `---
description: Prep a branch, commit, and open a draft PR
argument-hint: [FILES=<paths>] [PR_TITLE="<title>"]
---

Create a branch named \`dev/<feature_name>\` for this work.
If files are specified, stage them first: $FILES.
Commit the staged changes with a clear message.
Open a draft PR on the same branch. Use $PR_TITLE when supplied; otherwise write a concise summary yourself.
`;

function lastUserText(model: ScriptedModel): string {
  const user = model.requests
    .at(-1)!
    .prompt.filter((m) => m.role === "user")
    .at(-1)!;
  return (user.content as { type: string; text?: string }[]).map((p) => p.text ?? "").join("\n");
}

async function run(prompt: string, options: Options = {}) {
  const model = scriptedModel(["done"]);
  const cwd = realpathSync(temp("ubq-codex-prompts-"));
  const query = summon(prompt, {
    model,
    cwd,
    sandbox: false,
    persistSession: false,
    compat: ["codex"],
    ...options,
  });
  const listed = await query.supportedCommands();
  const messages = await collect(query);
  return { model, messages, listed, result: resultOf(messages) };
}

describe("~/.codex/prompts as /prompts:<name>", () => {
  it("Quantisan's commit.md: sent as written (frontmatter off), listed with its description", async () => {
    mkdirSync(join(home(), ".codex", "prompts"), { recursive: true });
    copyFileSync(FIXTURE, join(home(), ".codex", "prompts", "commit.md"));
    const { model, listed, result } = await run("/prompts:commit");
    expect(result.isError, result.result).toBe(false);
    expect(lastUserText(model)).toContain("Review `git diff --cached` (staged changes only).");
    expect(lastUserText(model)).not.toContain("description:");
    expect(listed).toContainEqual({
      name: "prompts:commit",
      description: "Suggest a commit message for staged changes",
      argumentHint: "",
    });
  });

  it("named placeholders come from KEY=value arguments (quotes group); a missing one blocks the prompt, naming it", async () => {
    writeTree(home(), { ".codex/prompts/draftpr.md": DRAFTPR });
    const ok = await run('/prompts:draftpr FILES="src/a.ts src/b.ts" PR_TITLE="Fix the parser"');
    expect(ok.result.isError, ok.result.result).toBe(false);
    expect(lastUserText(ok.model)).toContain("stage them first: src/a.ts src/b.ts.");
    expect(lastUserText(ok.model)).toContain("Use Fix the parser when supplied");
    const missing = await run("/prompts:draftpr FILES=a.ts");
    expect(missing.result.isError).toBe(true);
    expect(missing.result.result).toContain("Missing required args for /prompts:draftpr: PR_TITLE");
    expect(missing.model.requests).toHaveLength(0);
  });

  it("$1…$9 and $ARGUMENTS from the words; $$ stays; no shell line runs, no @file is read, allowed-tools grant nothing", async () => {
    writeTree(home(), {
      ".codex/prompts/pos.md":
        "---\nallowed-tools: Bash\n---\nFirst $1, second $2, missing [$3], all: $ARGUMENTS; cost $$5. Run !`echo pwned` and read @README.md\n",
    });
    const { model, messages, result } = await run('/prompts:pos alpha "beta gamma"');
    expect(result.isError, result.result).toBe(false);
    expect(lastUserText(model)).toContain(
      "First alpha, second beta gamma, missing [], all: alpha beta gamma; cost $$5. Run !`echo pwned` and read @README.md",
    );
    expect(ofType(messages, "tool_use")).toEqual([]);
  });

  it("not read without compat: codex; a subfolder's files are not prompts; our own command wins the name", async () => {
    writeTree(home(), {
      ".codex/prompts/commit.md": "Codex commit prompt CODEX-MARKER.\n",
      ".codex/prompts/nested/deep.md": "Deep DEEP-MARKER.\n",
      ".ubiquity/commands/prompts/commit.md": "Ours OURS-MARKER.\n",
    });
    expect(lastUserText((await run("/prompts:commit", { compat: [] })).model)).toBe("/prompts:commit");
    expect(lastUserText((await run("/prompts:deep")).model)).toBe("/prompts:deep");
    expect(lastUserText((await run("/prompts:commit")).model)).toContain("CODEX-MARKER");
    const ours = await run("/prompts:commit", { commandSources: ["user"] });
    expect(lastUserText(ours.model)).toContain("OURS-MARKER");
  });
});

describe("Codex's expansion rules", () => {
  it("$$NAME is not a placeholder; $ARGUMENTS is positional; words split as shlex splits them", () => {
    expect(shellWords(`A="x y" B='z' c\\ d "e\\"f"`)).toEqual(["A=x y", "B=z", "c d", 'e"f']);
    expect(namedPlaceholders("literal $$USER and $REAL, $ARGUMENTS")).toEqual(["REAL"]);
    expect(expandCodexPrompt("literal $$USER", "", "prompts:x")).toBe("literal $$USER");
    expect(() => expandCodexPrompt("Review $USER", "USER=Alice stray", "prompts:x")).toThrow(
      "expected key=value but found 'stray'",
    );
  });
});
