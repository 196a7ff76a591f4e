/**
 * `ubiquity init` in an empty project with the packed tarball installed (what a newcomer does):
 * the scaffold's own `npm test` passes at once on the scripted model, its files type-check with
 * tsc, and a second `init` refuses to overwrite them.
 */
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/project";
import { npmInstall, packedTarball, removePackedDirs, tempDir } from "../helpers/packed";

let app: string;
// The scaffold's scripts run on the Node running the tests (the repo's pinned Node 24).
const env = {
  ...process.env,
  PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}`,
  NO_COLOR: "1",
  DEBUG: "",
};

function run(
  command: string,
  args: string[],
  cwd: string,
  extra: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env: { ...env, ...extra }, timeout: 240_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

beforeAll(() => {
  app = tempDir("ubiquity-scaffold-");
  writeFileSync(
    join(app, "package.json"),
    JSON.stringify(
      { name: "my-agent", version: "1.0.0", scripts: { test: 'echo "Error: no test specified" && exit 1' } },
      null,
      2,
    ),
  );
  npmInstall(app, [packedTarball(), "zod@4"]);
}, 600_000);
afterAll(removePackedDirs);

describe("ubiquity init", () => {
  it("scaffolds a project whose test passes at once", async () => {
    const bin = join(app, "node_modules", "ubiquity", "bin", "ubiquity.mjs");
    const init = await run(process.execPath, [bin, "init"], app);
    expect(init.stderr).toBe("");
    expect(init.code).toBe(0);
    for (const file of [
      "ubiquity.config.ts",
      "tools/word-count.ts",
      "plugins/word-count.ts",
      "test/agent.test.ts",
      "tsconfig.json",
    ])
      expect(init.stdout).toContain(`wrote ${file}`);
    const manifest = JSON.parse(readFileSync(join(app, "package.json"), "utf8")) as {
      type: string;
      scripts: Record<string, string>;
    };
    expect(manifest.type).toBe("module");
    expect(manifest.scripts.test).toContain("node --test");

    const test = await run("npm", ["test"], app);
    expect(`${test.stdout}${test.stderr}`).toMatch(/pass 1\b/);
    expect(`${test.stdout}${test.stderr}`).toMatch(/fail 0\b/);
    expect(test.code).toBe(0);

    // The scaffold type-checks as the user's `npm run typecheck` would (their tsconfig.json).
    const parsed = ts.getParsedCommandLineOfConfigFile(
      join(app, "tsconfig.json"),
      { typeRoots: [join(repoRoot, "node_modules", "@types")] },
      { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
    )!;
    const program = ts.createProgram(parsed.fileNames, parsed.options);
    expect(ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))).toEqual(
      [],
    );

    const again = await run(process.execPath, [bin, "init"], app);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("init would overwrite ubiquity.config.ts");

    // The offline commands "Next:" names do what it says (the trust store and sessions in a HOME of their own).
    const home = { HOME: tempDir("ubiquity-scaffold-home-") };
    const next = init.stdout.split("\n").filter((line) => line.startsWith("  npx ubiquity "));
    expect(next.some((line) => line.includes("--model test"))).toBe(true);
    expect((await run(process.execPath, [bin, "trust"], app, home)).code).toBe(0);
    const inspect = await run(process.execPath, [bin, "inspect"], app, home);
    expect(inspect.stdout).toMatch(/WordCount: word-count/);
    const offline = next.find((line) => line.includes("--model test"))!.match(/"([^"]+)"/)![1]!;
    const tried = await run(process.execPath, [bin, "run", "--model", "test", offline], app, home);
    expect(tried.code, tried.stderr).toBe(0);
    expect(tried.stdout).toContain("ubiquity.config.ts");
    // A prompt typed where the command goes (`claude "…"`'s habit) is told how to run it.
    const habit = await run(process.execPath, [bin, "what does this project do?"], app, home);
    expect(habit.code).toBe(2);
    expect(habit.stderr).toContain('to run it as a prompt: ubiquity -p "what does this project do?"');
  }, 300_000);
});
