/**
 * What a newcomer's trial (u, 2026-12-06: the packed package in empty folders, the README and the
 * docs followed as written, no model reachable) met writing tools, plugins, hooks, sessions and MCP:
 * - the tsconfig.json of docs/getting-started.md stopped `tsc` on a fresh install ("Could not find
 *   a declaration file for module 'json-schema'", in the AI SDK's declarations): it now keeps
 *   `skipLibCheck` on, as the one `ubiquity init` writes;
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeTempProjects, repoRoot, requireDist, tempProject } from "../helpers/project";

afterAll(removeTempProjects);
beforeAll(requireDist);

describe("docs/getting-started.md's tsconfig.json, on a fresh install", () => {
  it("checks the first program: no error from the AI SDK's declarations", () => {
    const doc = readFileSync(join(repoRoot, "docs", "getting-started.md"), "utf8");
    const block = /## TypeScript[\s\S]*?```json\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(block).toBeDefined();
    // What npm leaves after `npm i ubiquity @ai-sdk/openai`: no @types/json-schema (the repo's node_modules has none either).
    const dir = tempProject(
      {
        "tsconfig.json": block!,
        "agent.ts": `import { summon } from "ubiquity";\nfor await (const m of summon("hi", { model: "test" })) if (m.type === "result") console.log(m.result);\n`,
      },
      { linkUbiquity: true },
    );
    const parsed = ts.parseJsonConfigFileContent(JSON.parse(block!), ts.sys, dir);
    expect(parsed.errors).toEqual([]);
    const program = ts.createProgram([join(dir, "agent.ts")], parsed.options);
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((d) => `${d.file?.fileName ?? ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
    expect(problems).toEqual([]);
  });
});
