import { join } from "node:path";
import { mkdirSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, createKernel, loadConfig, type Plugin } from "ubiquity";
import { removeTempProjects, tempProject } from "../helpers/project";

afterAll(removeTempProjects);

const names = (plugins: unknown[] | undefined) => (plugins ?? []).map((p) => (p as Plugin).name);

describe("finding the config file", () => {
  const formats: [string, string][] = [
    [
      "ubiquity.config.ts",
      `import { turns } from "./settings.ts";\nconst config: { maxTurns: number } = { maxTurns: turns };\nexport default config;\n`,
    ],
    ["ubiquity.config.mts", `const n: number = 7;\nexport default { maxTurns: n };\n`],
    ["ubiquity.config.cts", `const n: number = 7;\nexport default { maxTurns: n };\n`],
    ["ubiquity.config.js", `export default { maxTurns: 7 };\n`],
    ["ubiquity.config.mjs", `export default { maxTurns: 7 };\n`],
    ["ubiquity.config.cjs", `module.exports = { maxTurns: 7 };\n`],
    [".ubiquityrc", `maxTurns: 7\n`],
    [".ubiquityrc.json", `{ "maxTurns": 7 }\n`],
    [".ubiquityrc.yaml", `# comment\nmaxTurns: 7\n`],
    [".ubiquityrc.yml", `maxTurns: 7\n`],
    [".config/ubiquityrc.yaml", `maxTurns: 7\n`],
    [".config/ubiquityrc.ts", `export default { maxTurns: 7 as number };\n`],
  ];

  it.each(formats)("loads %s", async (file, content) => {
    const dir = tempProject({ [file]: content, "settings.ts": "export const turns: number = 7;\n" });
    const loaded = await loadConfig({ trust: true, cwd: dir });
    expect(loaded.filepath).toBe(join(dir, file));
    expect(loaded.config).toEqual({ maxTurns: 7 });
  });

  it('loads the "ubiquity" key of package.json', async () => {
    const dir = tempProject({}, { packageJson: { name: "x", ubiquity: { maxTurns: 7 } } });
    expect(await loadConfig({ trust: true, cwd: dir })).toEqual({
      config: { maxTurns: 7 },
      filepath: join(dir, "package.json"),
      skipped: [],
    });
  });

  it("searches from a subfolder up to the project root", async () => {
    const dir = tempProject({ "ubiquity.config.ts": "export default { maxTurns: 3 };\n", "src/deep/x.txt": "" });
    const loaded = await loadConfig({ trust: true, cwd: join(dir, "src", "deep") });
    expect(loaded.filepath).toBe(join(dir, "ubiquity.config.ts"));
  });

  it("returns null config and filepath when there is none", async () => {
    const dir = tempProject({});
    expect(await loadConfig({ trust: true, cwd: dir })).toEqual({ config: null, filepath: null, skipped: [] });
  });

  it("configFile skips the search (even where two configs would be ambiguous)", async () => {
    const dir = tempProject({
      "ubiquity.config.ts": "export default { maxTurns: 1 };\n",
      ".ubiquityrc.yaml": "maxTurns: 2\n",
      "ci/other.yaml": "maxTurns: 9\n",
    });
    const loaded = await loadConfig({ trust: true, cwd: dir, configFile: "ci/other.yaml" });
    expect(loaded).toEqual({ config: { maxTurns: 9 }, filepath: join(dir, "ci", "other.yaml"), skipped: [] });
  });

  it("calls a function export with { cwd, command }", async () => {
    const dir = tempProject({
      "ubiquity.config.ts": `export default async (env: { cwd: string; command: string }) => ({ systemPrompt: env.command + "@" + env.cwd });\n`,
    });
    const loaded = await loadConfig({ trust: true, cwd: dir, command: "inspect" });
    expect(loaded.config?.systemPrompt).toBe(`inspect@${dir}`);
    expect((await loadConfig({ trust: true, cwd: dir })).config?.systemPrompt).toBe(`api@${dir}`);
  });

  it("reads an edited config again on the next load", async () => {
    const dir = tempProject({ "ubiquity.config.ts": "export default { maxTurns: 1 };\n" });
    expect((await loadConfig({ trust: true, cwd: dir })).config?.maxTurns).toBe(1);
    const { writeFileSync } = await import("node:fs");
    writeFileSync(join(dir, "ubiquity.config.ts"), "export default { maxTurns: 2 };\n");
    expect((await loadConfig({ trust: true, cwd: dir })).config?.maxTurns).toBe(2);
  });
});

describe("string plugin and preset specifiers", () => {
  const pluginFile = (name: string) => `export default { name: "${name}", apply() {} };\n`;

  it("resolves local plugin files relative to the config file, not the cwd", async () => {
    const dir = tempProject({
      "config/ubiquity.yaml": `plugins:\n  - ./plugins/one.ts\n  - [./plugins/factory.ts, { label: hello }]\n  - false\n`,
      "config/plugins/one.ts": pluginFile("acme:one"),
      "config/plugins/factory.ts": `export default (options: { label: string }) => ({ name: "acme:" + options.label, apply() {} });\n`,
    });
    const loaded = await loadConfig({ trust: true, cwd: dir, configFile: "config/ubiquity.yaml" });
    expect(names(loaded.config?.plugins?.filter(Boolean))).toEqual(["acme:one", "acme:hello"]);
    expect(loaded.config?.plugins?.[2]).toBe(false);
  });

  it("resolves installed packages from the config file's node_modules", async () => {
    const dir = tempProject({
      ".ubiquityrc.json": `{ "plugins": ["ubiquity-plugin-hello", ["@acme/ubiquity-plugin-scoped", { "n": 2 }]] }`,
      "node_modules/ubiquity-plugin-hello/package.json": `{ "name": "ubiquity-plugin-hello", "type": "module", "exports": "./index.js" }`,
      "node_modules/ubiquity-plugin-hello/index.js": pluginFile("ubiquity-plugin-hello"),
      "node_modules/@acme/ubiquity-plugin-scoped/package.json": `{ "name": "@acme/ubiquity-plugin-scoped", "main": "index.cjs" }`,
      "node_modules/@acme/ubiquity-plugin-scoped/index.cjs": `module.exports = (o) => ({ name: "scoped-" + o.n, apply() {} });\n`,
    });
    const loaded = await loadConfig({ trust: true, cwd: dir });
    expect(names(loaded.config?.plugins)).toEqual(["ubiquity-plugin-hello", "scoped-2"]);
  });

  it("resolves preset modules, and the strings inside a preset relative to the preset's own file", async () => {
    const dir = tempProject({
      ".ubiquityrc.yaml": `presets:\n  - ./presets/team.ts\nplugins:\n  - ./local.ts\n`,
      "local.ts": pluginFile("acme:local"),
      "presets/team.ts": `export default { name: "team", presets: ["./base.ts"], plugins: ["./team-plugin.ts"] };\n`,
      "presets/base.ts": `export default (o?: unknown) => ({ name: "base", plugins: [{ name: "acme:base", apply() {} }] });\n`,
      "presets/team-plugin.ts": pluginFile("acme:team"),
    });
    const loaded = await loadConfig({ trust: true, cwd: dir });
    const kernel = createKernel({ ...loaded.config, logger: { debug() {}, info() {}, warn() {}, error() {} } });
    expect(kernel.plugins.map((p) => [p.plugin.name, p.origin])).toEqual([
      ["acme:base", "preset team > base"],
      ["acme:team", "preset team"],
      ["acme:local", "config"],
    ]);
  });

  it("accepts top-level keys claimed by a plugin's configKey", async () => {
    const dir = tempProject({
      ".ubiquityrc.yaml": `plugins: [./p.ts]\nbanner: { text: hi }\n`,
      "p.ts": `export default { name: "acme:banner", configKey: "banner", apply() {} };\n`,
    });
    expect((await loadConfig({ trust: true, cwd: dir })).config).toMatchObject({ banner: { text: "hi" } });
  });

  it("asks the default presets for claimed keys when the config names no presets", async () => {
    const dir = tempProject({ ".ubiquityrc.yaml": `banner: { text: hi }\n` });
    const defaults = async () => [{ name: "d", plugins: [{ name: "acme:banner", configKey: "banner", apply() {} }] }];
    await expect(loadConfig({ trust: true, cwd: dir })).rejects.toThrow(/Unrecognized key: "banner"/);
    expect((await loadConfig({ trust: true, cwd: dir, defaultPresets: defaults })).config).toEqual({
      banner: { text: "hi" },
    });
  });
});

describe("config failures: one ConfigError naming the file and the problem", () => {
  const failures: [string, Record<string, string>, RegExp][] = [
    [
      "a TypeScript syntax error",
      { "ubiquity.config.ts": "export default {\n  maxTurns: 3,\n  model: <\n};\n" },
      /ubiquity\.config\.ts: syntax error at line \d+, column \d+/,
    ],
    [
      "a syntax error in a local file the config imports",
      {
        "ubiquity.config.ts": `import x from "./helper.ts";\nexport default { maxTurns: x };\n`,
        "helper.ts": "export default (;\n",
      },
      /ubiquity\.config\.ts: syntax error in .*helper\.ts at line 1/,
    ],
    [
      "an unknown top-level key",
      { ".ubiquityrc.yaml": "modle: openai:gpt-5\n" },
      /\.ubiquityrc\.yaml: invalid configuration:\n✖ Unrecognized key: "modle"/,
    ],
    [
      "a wrong value type",
      { "ubiquity.config.ts": `export default { maxTurns: "forty" };\n` },
      /ubiquity\.config\.ts: invalid configuration:\n✖ Invalid input: expected number, received string\n {2}→ at maxTurns/,
    ],
    [
      "a plugin entry that is neither a plugin nor a factory",
      { ".ubiquityrc.yaml": "plugins: [./not-a-plugin.ts]\n", "not-a-plugin.ts": "export default { nam: 'typo' };\n" },
      /\.ubiquityrc\.yaml: plugins\[0\] "\.\/not-a-plugin\.ts" is neither a plugin nor a plugin factory/,
    ],
    [
      "an inline entry that is neither a plugin nor a factory",
      { "ubiquity.config.ts": "export default { plugins: [{ nam: 'typo' }] };\n" },
      /ubiquity\.config\.ts: the plugin entry in config is not a plugin/,
    ],
    [
      "a factory returning something else",
      { ".ubiquityrc.yaml": "plugins: [./f.ts]\n", "f.ts": "export default () => 42;\n" },
      /plugins\[0\] "\.\/f\.ts": the factory returned number 42, not a plugin/,
    ],
    [
      "a plugin package that is not installed",
      { ".ubiquityrc.yaml": "plugins: [ubiquity-plugin-nope]\n" },
      /\.ubiquityrc\.yaml: plugins\[0\] "ubiquity-plugin-nope": package ubiquity-plugin-nope is not installed; run `npm i ubiquity-plugin-nope`/,
    ],
    [
      "a config importing a package that is not installed",
      { "ubiquity.config.ts": `import nope from "ubiquity-plugin-nope";\nexport default { plugins: [nope()] };\n` },
      /ubiquity\.config\.ts: it imports ubiquity-plugin-nope, which is not installed; run `npm i ubiquity-plugin-nope`/,
    ],
    [
      "a local plugin file that does not exist",
      { ".ubiquityrc.yaml": "plugins: [./missing.ts]\n" },
      /plugins\[0\] "\.\/missing\.ts": no file at .*missing\.ts/,
    ],
    [
      "a preset listed as a plugin",
      { ".ubiquityrc.yaml": "plugins: [./p.ts]\n", "p.ts": "export default { name: 'team', plugins: [] };\n" },
      /is a preset \(team\), not a plugin; list it under "presets"/,
    ],
    [
      "two config files in one folder",
      { "ubiquity.config.ts": "export default {};\n", ".ubiquityrc.yaml": "maxTurns: 2\n" },
      /2 config files in one folder: ubiquity\.config\.ts, \.ubiquityrc\.yaml; keep one/,
    ],
    [
      "a config in .config/ next to one in the root",
      { ".config/ubiquityrc.json": "{}", ".ubiquityrc.yml": "maxTurns: 2\n" },
      /2 config files in one folder: \.ubiquityrc\.yml, \.config\/ubiquityrc\.json/,
    ],
    ["invalid YAML", { ".ubiquityrc.yaml": "plugins: [\n" }, /\.ubiquityrc\.yaml: invalid YAML: /],
    ["invalid JSON", { ".ubiquityrc.json": "{ maxTurns: }" }, /\.ubiquityrc\.json: invalid JSON: /],
    [
      "a config that throws while loading",
      { "ubiquity.config.ts": `throw new Error("no network");\n` },
      /ubiquity\.config\.ts: loading it threw: no network/,
    ],
    [
      "an export that is not an object",
      { "ubiquity.config.ts": `export default 42;\n` },
      /ubiquity\.config\.ts: the config must be an object \(or a function returning one\), got number 42/,
    ],
  ];

  it.each(failures)("%s", async (_what, files, message) => {
    const dir = tempProject(files);
    const error = await loadConfig({ trust: true, cwd: dir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message.startsWith(dir)).toBe(true);
  });

  it("names a config file given explicitly that does not exist", async () => {
    const dir = tempProject({});
    mkdirSync(join(dir, "sub"));
    await expect(loadConfig({ trust: true, cwd: dir, configFile: "sub/nope.ts" })).rejects.toThrow(
      `${join(dir, "sub", "nope.ts")}: config file not found`,
    );
  });
});
