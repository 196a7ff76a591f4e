/** A Read deny stops Grep and Glob for each file they would return, not only the folder searched. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { builtinTools } from "../../plugins/tools/index";
import { runCalls, tempDir } from "./helpers";

function project() {
  const cwd = tempDir();
  mkdirSync(join(cwd, "sub"));
  writeFileSync(join(cwd, "a.txt"), "SECRET=public\n");
  writeFileSync(join(cwd, ".env"), "SECRET=hunter2\n");
  writeFileSync(join(cwd, "sub", ".env"), "SECRET=hunter3\n");
  return cwd;
}

describe("Read deny rules and search results", () => {
  it.each([
    ["Grep files", { toolName: "Grep", input: { pattern: "SECRET" } }],
    ["Grep content", { toolName: "Grep", input: { pattern: "SECRET", output_mode: "content" } }],
    ["Grep count", { toolName: "Grep", input: { pattern: "SECRET", output_mode: "count" } }],
    ["Glob", { toolName: "Glob", input: { pattern: "**/*" } }],
  ])("%s: denied files are left out as if absent, the others shown", async (_name, call) => {
    const cwd = project();
    const { results } = await runCalls([call], { cwd, tools: builtinTools(), disallowedTools: ["Read(.env)"] });
    const content = results[0]!.output.content;
    expect(content).toContain("a.txt");
    expect(content).not.toContain(".env");
    expect(content).not.toContain("hunter");
    // No note and no total counts them: whether a denied file matched must not show (red team i, I1).
    expect(content).not.toMatch(/withheld/);
    if ("output_mode" in call.input && call.input.output_mode === "count")
      expect(content).toContain("[1 matching lines in 1 files]");
  });

  it("without a Read deny nothing is withheld", async () => {
    const cwd = project();
    const { results } = await runCalls([{ toolName: "Grep", input: { pattern: "SECRET", output_mode: "content" } }], {
      cwd,
      tools: builtinTools(),
    });
    expect(results[0]!.output.content).toContain("hunter2");
  });
});
