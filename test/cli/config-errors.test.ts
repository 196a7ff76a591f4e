import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeTempProjects, repoRoot, requireDist, runCli, tempProject } from "../helpers/project";

afterAll(removeTempProjects);
beforeAll(requireDist);

/** [what, files, the config file the message must name, the problem it must state] */
const failures: [string, Record<string, string>, string, RegExp][] = [
  [
    "a TypeScript syntax error",
    { "ubiquity.config.ts": "export default {\n  maxTurns: 3,\n  model: <\n};\n" },
    "ubiquity.config.ts",
    /: syntax error at line \d+, column \d+: Unexpected token$/,
  ],
  [
    "an unknown top-level key",
    { "ubiquity.config.ts": `export default { modle: "openai:gpt-5" };\n` },
    "ubiquity.config.ts",
    /: invalid configuration: ✖ Unrecognized key: "modle" → "modle" \(did you mean "model"\?\)$/,
  ],
  [
    "a wrong value type",
    { ".ubiquityrc.yaml": "maxTurns: forty\n" },
    ".ubiquityrc.yaml",
    /: invalid configuration: ✖ Invalid input: expected number, received string → at maxTurns$/,
  ],
  [
    "a plugin entry that is neither a plugin nor a factory",
    { ".ubiquityrc.yaml": "plugins: [./not-a-plugin.ts]\n", "not-a-plugin.ts": "export default { nam: 'typo' };\n" },
    ".ubiquityrc.yaml",
    /: plugins\[0\] "\.\/not-a-plugin\.ts" is neither a plugin nor a plugin factory: .* got an object with keys \{nam\}$/,
  ],
  [
    "a plugin package that is not installed",
    { ".ubiquityrc.json": `{ "plugins": ["ubiquity-plugin-nope"] }` },
    ".ubiquityrc.json",
    /: plugins\[0\] "ubiquity-plugin-nope": package ubiquity-plugin-nope is not installed; run `npm i ubiquity-plugin-nope`$/,
  ],
  [
    "a built-in preset by its bare name (as --preset takes it)",
    { ".ubiquityrc.json": `{ "presets": ["minimal"] }` },
    ".ubiquityrc.json",
    /: presets\[0\] "minimal": the built-in preset is the module "ubiquity\/presets\/minimal" \(a bare name is a package, which is not installed\)$/,
  ],
  [
    "a built-in preset by its preset name",
    { ".ubiquityrc.yaml": "presets: [ubiquity:headless]\n" },
    ".ubiquityrc.yaml",
    /: presets\[0\] "ubiquity:headless": the built-in preset is the module "ubiquity\/presets\/headless"$/,
  ],
  [
    "two config files in one folder",
    { "ubiquity.config.ts": "export default {};\n", ".ubiquityrc.yaml": "maxTurns: 2\n" },
    "",
    /: 2 config files in one folder: ubiquity\.config\.ts, \.ubiquityrc\.yaml; keep one/,
  ],
  [
    "a plugin that depends on a missing plugin",
    {
      ".ubiquityrc.yaml": "plugins: [./needy.ts]\n",
      "needy.ts": "export default { name: 'acme:needy', dependsOn: ['acme:helper'], apply() {} };\n",
    },
    ".ubiquityrc.yaml",
    /: plugin acme:needy depends on acme:helper, which is not in the plugin list/,
  ],
];

describe.concurrent("config failures through `ubiquity inspect`", () => {
  it.each(failures)("%s: exit 2, one line naming the file and the problem", async (_what, files, file, problem) => {
    const dir = tempProject(files);
    const { code, stdout, stderr } = await runCli(["inspect"], dir);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    const lines = stderr.split("\n").filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.startsWith(`error: ${join(dir, file)}`.replace(/\/$/, ""))).toBe(true);
    expect(lines[0]).toMatch(problem);
  });

  // The config imports the same ubiquity as the runner, so definePlugin's ConfigError is the
  // runner's own class: it must still be pinned to the config file.
  it("a plugin factory given bad options in ubiquity.config.ts: exit 2, one line naming the file and the plugin", async () => {
    const config = [
      `import { definePlugin, defineConfig } from "ubiquity";`,
      `import { z } from "zod";`,
      `const banner = definePlugin("acme:banner", z.object({ text: z.string() }), () => ({ name: "acme:banner", apply() {} }));`,
      `export default defineConfig({ plugins: [banner({ text: 3 as never })] });`,
    ].join("\n");
    const dir = tempProject({ "ubiquity.config.ts": config }, { linkUbiquity: true });
    symlinkSync(join(repoRoot, "node_modules", "zod"), join(dir, "node_modules", "zod"), "dir");
    const { code, stdout, stderr } = await runCli(["inspect"], dir);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr.split("\n").filter(Boolean)).toEqual([
      `error: ${join(dir, "ubiquity.config.ts")}: invalid options for plugin acme:banner: ✖ Invalid input: expected string, received number → at text`,
    ]);
  });

  it("options given where an object-form plugin is listed: exit 2, naming the plugin and where its options go", async () => {
    const plugin = [
      `import { definePlugin } from "ubiquity";`,
      `import { z } from "zod";`,
      `export default definePlugin({ name: "acme:greeter", options: z.object({ greeting: z.string().optional() }), apply() {} });`,
    ].join("\n");
    const dir = tempProject(
      { "greeter.ts": plugin, ".ubiquityrc.yaml": "plugins:\n  - [./greeter.ts, { greeting: hello }]\n" },
      { linkUbiquity: true },
    );
    symlinkSync(join(repoRoot, "node_modules", "zod"), join(dir, "node_modules", "zod"), "dir");
    const { code, stdout, stderr } = await runCli(["inspect"], dir);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain(`error: ${join(dir, ".ubiquityrc.yaml")}: plugins[0] "./greeter.ts"`);
    expect(stderr).toContain(
      "plugin acme:greeter takes no options where it is listed (it declares no factoryOptions); set the options it declares (greeting) at the top level of the config instead",
    );
    // Where they belong, they apply.
    const fixed = tempProject(
      { "greeter.ts": plugin, ".ubiquityrc.yaml": "plugins: [./greeter.ts]\ngreeting: hello\n" },
      { linkUbiquity: true },
    );
    symlinkSync(join(repoRoot, "node_modules", "zod"), join(fixed, "node_modules", "zod"), "dir");
    const ok = await runCli(["inspect"], fixed);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain("acme:greeter");
  });

  it("--config naming a missing file: exit 2, names the file", async () => {
    const dir = tempProject({});
    const { code, stderr } = await runCli(["inspect", "--config", "nope.yaml"], dir);
    expect(code).toBe(2);
    expect(stderr).toBe(`error: ${join(dir, "nope.yaml")}: config file not found (given with --config / configFile)\n`);
  });
});
