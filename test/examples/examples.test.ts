/**
 * The runnable examples in examples/*.ts run to completion on the scripted model (as a user runs
 * them: `npx jiti examples/<name>.ts`, with `ubiquity` resolving to this repository) and print
 * what they promise; they type-check with the rest of the repository (tsconfig.json includes them).
 */
import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/project";
import { tsNodeArgs } from "../helpers/ts-child";

const expected: Record<string, RegExp[]> = {
  "scripted-agent.ts": [/→ Weather/, /← Lisbon: 21°C, clear/, /success after 2 turns/],
  "permissions.ts": [/Write: refused — .*notes\//, /Write: ok/, /denied: Write/, /notes\/todo.md: "- ship it\\n"/],
  "plugin.ts": [/Shout → hello!!!/, /system prompt has the plugin's section: true/],
};

describe("examples", () => {
  it("every example is listed here", () => {
    expect(
      readdirSync(join(repoRoot, "examples"))
        .filter((f) => f.endsWith(".ts"))
        .sort(),
    ).toEqual(Object.keys(expected).sort());
  });

  it.each(Object.entries(expected))("%s runs and prints what it shows", async (name, patterns) => {
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        [...tsNodeArgs, join(repoRoot, "test", "docs", "run-block.ts"), join(repoRoot, "examples", name)],
        { cwd: repoRoot, timeout: 240_000, env: { ...process.env, DEBUG: "", NO_COLOR: "1" } },
        (_error, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }),
      );
    });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    for (const pattern of patterns) expect(run.stdout).toMatch(pattern);
  });
});
