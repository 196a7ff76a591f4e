import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMMANDS, main } from "../../runner/cli";
import { removeTempProjects, repoRoot, requireDist, runCli, tempProject } from "../helpers/project";

const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string };

/** Run main() in-process, capturing output. */
async function inProcess(argv: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await main(argv, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) });
  return { code, stdout, stderr };
}

afterAll(removeTempProjects);

describe("the ubiquity bin (real process)", () => {
  let cwd: string;
  beforeAll(() => {
    requireDist();
    cwd = tempProject({});
  });

  it.concurrent.each([["--help"], ["-h"]])("%s lists the commands and exits 0", async (flag) => {
    const { code, stdout } = await runCli([flag], cwd);
    expect(code).toBe(0);
    expect(stdout).toContain("Usage: ubiquity <command> [flags]");
    for (const name of ["inspect", "schema"]) expect(stdout).toMatch(new RegExp(`^  ${name} +\\S`, "m"));
  });

  it.concurrent.each(["--version", "-v", "inspect --version", "schema -v"])(
    "ubiquity %s prints the package version",
    async (args) => {
      const { code, stdout } = await runCli(args.split(" "), cwd);
      expect(code).toBe(0);
      expect(stdout.trim()).toBe(pkg.version);
    },
  );

  it.concurrent("inspect --help shows the command's own flags", async () => {
    const { code, stdout } = await runCli(["inspect", "--help"], cwd);
    expect(code).toBe(0);
    expect(stdout).toContain("Usage: ubiquity inspect [flags]");
    expect(stdout).toMatch(/--config <file> +Use this config file/);
    expect(stdout).toMatch(/--json +Print the report as JSON/);
    expect(stdout).toMatch(/-v, --version/);
  });

  it.concurrent("schema prints the committed JSON Schema", async () => {
    const { code, stdout } = await runCli(["schema"], cwd);
    expect(code).toBe(0);
    expect(stdout).toBe(readFileSync(join(repoRoot, "schema", "ubiquity.config.schema.json"), "utf8"));
  });

  it.concurrent("an unknown command is a usage error (exit 2) with one error line naming the near command", async () => {
    const { code, stdout, stderr } = await runCli(["inspcet"], cwd);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toBe(
      'error: unknown command "inspcet" (did you mean "inspect"?); run `ubiquity --help` for the list\n',
    );
  });

  it.concurrent("a prompt in the command's place (`claude \"…\"`'s habit) names `ubiquity -p`", async () => {
    const { code, stderr } = await runCli(["what does this project do?"], cwd);
    expect(code).toBe(2);
    expect(stderr).toBe(
      'error: unknown command "what does this project do?"; to run it as a prompt: ubiquity -p "what does this project do?"; run `ubiquity --help` for the list\n',
    );
  });

  it.concurrent("an unknown flag exits 2, names the near flag and points at the command's help", async () => {
    const { code, stderr } = await runCli(["inspect", "--jsn"], cwd);
    expect(code).toBe(2);
    expect(stderr).toBe('error: unknown flag --jsn (did you mean "--json"?); see `ubiquity inspect --help`\n');
    const run = await runCli(["run", "--modle", "test", "hi"], cwd);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('error: unknown flag --modle (did you mean "--model"?); see `ubiquity run --help`\n');
    // Nothing near: no guess (and not Node's advice to pass it as a positional after `--`).
    const far = await runCli(["run", "--zzzzzz", "hi"], cwd);
    expect(far.stderr).toBe("error: unknown flag --zzzzzz; see `ubiquity run --help`\n");
  });

  // The built package resolves each built-in preset's file (the import once lacked its extension).
  it.concurrent.each([
    ["default", "ubiquity:tool-write"],
    ["minimal", "ubiquity:tool-read"],
    ["headless", "ubiquity:tool-read"],
  ])("run --preset %s runs with that preset's plugins", async (preset, plugin) => {
    const { code, stdout, stderr } = await runCli(
      ["run", "--preset", preset, "--model", "test", "--output-format", "stream-json", "hi"],
      cwd,
    );
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const init = JSON.parse(stdout.split("\n")[0]!) as { subtype: string; plugins: string[] };
    expect(init.subtype).toBe("init");
    expect(init.plugins).toContain(plugin);
    if (preset === "minimal") expect(init.plugins).not.toContain("ubiquity:tool-write");
  });

  it.concurrent("run --preset with a typo of a built-in names it, not a package to npm i (exit 2); a missing module says --preset", async () => {
    const typo = await runCli(["run", "--preset", "mnimal", "--model", "test", "hi"], cwd);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe(
      'error: --preset mnimal: no such preset (did you mean "minimal"?); the built-in presets are default, minimal, headless, harness, or name a module\n',
    );
    // A bare name near no built-in may be a package, or a built-in misremembered: both are said.
    const bare = await runCli(["run", "--preset", "nope", "--model", "test", "hi"], cwd);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(
      /^error: --preset nope: .*npm i nope.* \(the built-in presets are default, minimal, headless, harness\)\n$/,
    );
    const file = await runCli(["run", "--preset", "./nope.ts", "--model", "test", "hi"], cwd);
    expect(file.code).toBe(2);
    expect(file.stderr).toMatch(/^error: --preset \.\/nope\.ts: no file at /);
    // The preset's own name, as inspect lists it, is the built-in.
    const named = await runCli(
      ["run", "--preset", "ubiquity:minimal", "--model", "test", "--output-format", "stream-json", "hi"],
      cwd,
    );
    expect(named.code).toBe(0);
    expect((JSON.parse(named.stdout.split("\n")[0]!) as { plugins: string[] }).plugins).not.toContain(
      "ubiquity:tool-write",
    );
  });

  it.concurrent("inspect without a config shows the default preset", async () => {
    const { code, stdout } = await runCli(["inspect"], cwd);
    expect(code).toBe(0);
    expect(stdout).toContain("config: (none found; the default preset applies)");
  });
});

describe("the command table", () => {
  it("gives every command a summary shown in the main help", async () => {
    const { stdout } = await inProcess(["--help"]);
    for (const [name, command] of Object.entries(COMMANDS)) {
      expect(command.summary.length).toBeGreaterThan(10);
      expect(stdout).toContain(`${name}`);
      expect(stdout).toContain(command.summary);
    }
  });

  it("prints the help when run without arguments", async () => {
    const { code, stdout } = await inProcess([]);
    expect(code).toBe(0);
    expect(stdout).toContain("Commands:");
  });

  it("resolves a relative cwd in the config against the config's folder; --cwd wins over it", async () => {
    const dir = tempProject({ "conf/.ubiquityrc.yaml": "cwd: ./work\n" });
    const report = async (...extra: string[]) => {
      const { code, stdout, stderr } = await inProcess([
        "inspect",
        "--json",
        "--config",
        join(dir, "conf", ".ubiquityrc.yaml"),
        ...extra,
      ]);
      expect(stderr).toBe("");
      expect(code).toBe(0);
      return JSON.parse(stdout) as { options: { cwd: string } };
    };
    expect((await report()).options.cwd).toBe(join(dir, "conf", "work"));
    expect((await report("--cwd", dir)).options.cwd).toBe(dir);
  });
});
