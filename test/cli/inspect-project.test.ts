/**
 * The acceptance scenario: a project whose ubiquity.config.ts imports `ubiquity`, uses the
 * default preset, adds a local plugin (which imports another local .ts file) and replaces a
 * built-in by name; `npx ubiquity inspect` is run as a real process against the built package.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expandPlugins } from "../../src/index";
import defaultPreset from "ubiquity/presets/default";
import headlessPreset from "ubiquity/presets/headless";
import type { InspectReport } from "../../runner/inspect";
import { removeTempProjects, requireDist, runCli, tempProject, type CliRun } from "../helpers/project";

// The plugin to replace: the default preset's first built-in, or the house preset's first
// plugin while the default preset is still empty.
const builtins = expandPlugins({ presets: [defaultPreset] }).plugins.map((p) => p.plugin.name);
const target = builtins[0] ?? "acme:alpha";

const files = {
  // Wraps every plugin of a preset so its apply() is logged: proof of which apply ran.
  "spy.ts": `
import { appendFileSync } from "node:fs";
import type { Plugin, PluginEntry, Preset, PresetEntry } from "ubiquity";

const log = (line: string) => appendFileSync(process.env.APPLY_LOG!, line + "\\n");

function spyPlugin(entry: PluginEntry): PluginEntry {
  if (!entry || typeof entry === "string" || Array.isArray(entry)) return entry;
  const plugin: Plugin = typeof entry === "function" ? entry() : entry;
  return { ...plugin, apply: (kernel, context) => { log(plugin.name); plugin.apply(kernel, context); } };
}

export function spyPreset(preset: Preset): Preset {
  const nested = (p: PresetEntry) => (p && typeof p === "object" && !Array.isArray(p) ? spyPreset(p) : p);
  return { ...preset, presets: preset.presets?.map(nested), plugins: preset.plugins?.map(spyPlugin) };
}
`,
  "plugins/util.ts": `
export const SECTION_ID: string = "acme-local";
export function shout(text: string): string { return text.toUpperCase(); }
`,
  "plugins/local.ts": `
import { definePlugin, SYSTEM_STAGE } from "ubiquity/plugin";
import { SECTION_ID, shout } from "./util.ts";

export default definePlugin(() => ({
  name: "acme:local",
  apply(kernel) {
    kernel.hooks.turn.system.tap({ name: "acme:local", stage: SYSTEM_STAGE.FEATURES }, (sections) => [...sections, { id: SECTION_ID, text: shout("local rules") }]);
    // Registered a second time under "Shout": this registration (later) wins over acme:shout's.
    kernel.registries.tools.register("Shout", { name: "Shout", owner: "local" } as never, "acme:local");
  },
}));
`,
  "ubiquity.config.ts": `
import { appendFileSync } from "node:fs";
import { defineConfig, definePreset } from "ubiquity";
import { SYSTEM_STAGE } from "ubiquity/plugin";
import defaultPreset from "ubiquity/presets/default";
import local from "./plugins/local.ts";
import { spyPreset } from "./spy.ts";

const house = definePreset({
  name: "acme:house",
  plugins: [
    { name: "acme:alpha", apply() {} },
    { name: "acme:beta", apply() {} },
    { name: "acme:shout", apply(kernel) { kernel.registries.tools.register("Shout", { name: "Shout", owner: "house" } as never, "acme:shout"); } },
  ],
});

// The plugin to replace (the test computes it: the default preset's first built-in).
const target = ${JSON.stringify(target)};

export default defineConfig({
  model: "test",
  apiKey: "sk-test-SECRET-1",
  providerSettings: { baseURL: "http://127.0.0.1:9", authToken: "tok-SECRET-2" },
  maxTokens: 2048,
  presets: [spyPreset(defaultPreset), spyPreset(house)],
  plugins: [
    local(),
    {
      name: target,
      apply(kernel) {
        appendFileSync(process.env.APPLY_LOG!, "replacement\\n");
        kernel.hooks.turn.system.tap({ name: "acme:replacement", stage: SYSTEM_STAGE.APPEND }, (s) => s);
      },
    },
  ],
  disable: ["acme:beta"],
});
`,
};

let dir: string;
let text: CliRun;
let json: CliRun;
let report: InspectReport;
const applied = () => readFileSync(join(dir, "applied.log"), "utf8").split("\n").filter(Boolean);

beforeAll(async () => {
  requireDist();
  dir = tempProject(files, { linkUbiquity: true });
  text = await runCli(["inspect"], dir, { APPLY_LOG: join(dir, "applied.log") });
  json = await runCli(["inspect", "--json"], dir, { APPLY_LOG: join(dir, "applied.log") });
  report = JSON.parse(json.stdout || "null") as InspectReport;
});
afterAll(removeTempProjects);

describe("npx ubiquity inspect in a project with ubiquity.config.ts", () => {
  it("succeeds and names the config file", () => {
    expect(text.stderr).toBe("");
    expect(text.code).toBe(0);
    expect(json.code).toBe(0);
    expect(report.configFile).toBe(join(dir, "ubiquity.config.ts"));
    expect(text.stdout).toContain(`config: ${join(dir, "ubiquity.config.ts")}`);
  });

  it("lists the plugins in the documented order with their origins, the replacement at the built-in's position", () => {
    const expected = [
      ...builtins.map((name) => [name, "preset ubiquity:default"]),
      ["acme:alpha", "preset acme:house"],
      ["acme:shout", "preset acme:house"],
      ["acme:local", "config"],
    ].map(([name, origin]) => (name === target ? [name, "config"] : [name, origin]));
    expect(report.plugins.map((p) => [p.name, p.origin])).toEqual(expected);
    const replaced = report.plugins.find((p) => p.name === target)!;
    expect(replaced.replaced).toEqual([builtins.length ? "preset ubiquity:default" : "preset acme:house"]);

    // The text form shows the same order, one numbered line per plugin.
    const lines = text.stdout.split("\n").filter((l) => /^ +\d+\. /.test(l));
    expect(lines.map((l) => l.trim().split(/\s+/)[1])).toEqual(expected.map(([name]) => name));
    expect(lines.find((l) => l.includes(` ${target} `))).toMatch(
      /config {2}\(replaces the one from preset \S+; its apply never ran\)/,
    );
  });

  it("never ran the replaced built-in's apply (the replacement's ran in its place)", () => {
    const log = applied();
    expect(log).not.toContain(target);
    expect(log).toContain("replacement");
    // Every other spied plugin did apply, so the spy works. Two inspect runs → each twice.
    const others = [...builtins, "acme:alpha", "acme:shout"].filter((n) => n !== target);
    for (const name of others) expect(log.filter((l) => l === name)).toHaveLength(2);
  });

  it("removes the disabled plugin and says so", () => {
    expect(report.plugins.map((p) => p.name)).not.toContain("acme:beta");
    expect(report.disabled).toEqual([{ name: "acme:beta", origin: "preset acme:house", replaced: [] }]);
    expect(applied()).not.toContain("acme:beta");
    expect(text.stdout).toMatch(/disabled:\n +- acme:beta +preset acme:house/);
  });

  it("shows a tool registered twice under one name with its winner and loser", () => {
    expect(report.registries.tools).toContainEqual({ name: "Shout", winner: "acme:local", losers: ["acme:shout"] });
    expect(text.stdout).toMatch(/tools\n(?: {4}.*\n)*? {4}Shout: acme:local {2}\(overrides acme:shout\)/);
  });

  it("shows each hook's taps in run order with their stage", () => {
    const system = report.hooks["turn.system"]!;
    const local = system.findIndex((t) => t.plugin === "acme:local");
    const replacement = system.findIndex((t) => t.tap === "acme:replacement");
    expect(system[local]).toMatchObject({ plugin: "acme:local", stage: 0 });
    expect(system[replacement]).toMatchObject({ plugin: target, stage: 400 });
    expect(replacement).toBeGreaterThan(local);
    // Taps with `order: "first"` run before every staged tap, `order: "last"` after; the rest by stage.
    const rank = (t: { order?: string }) => (t.order === "first" ? 0 : t.order === "last" ? 2 : 1);
    const ranks = system.map(rank);
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    const stages = system.filter((t) => rank(t) === 1).map((t) => t.stage);
    expect(stages).toEqual([...stages].sort((a, b) => a - b));
    expect(
      system.some((t) => rank(t) !== 1),
      "telemetry's first tap is shown with its order",
    ).toBe(true);
    expect(text.stdout).toMatch(/turn\.system\n(?: {4}.*\n)*? {8}0 {2}acme:local\n/);
  });

  it("redacts the API key and secret provider settings, keeps the rest", () => {
    for (const out of [text.stdout, json.stdout]) {
      expect(out).not.toContain("SECRET");
      expect(out).toContain("[redacted]");
    }
    expect(report.options).toMatchObject({
      apiKey: "[redacted]",
      providerSettings: { baseURL: "http://127.0.0.1:9", authToken: "[redacted]" },
      maxTokens: 2048,
      model: "test",
    });
  });
});

describe("a YAML config naming a built-in preset by its package subpath", () => {
  it("resolves ubiquity/presets/headless from the project's node_modules, nested origins and preset defaults included", async () => {
    const yamlDir = tempProject(
      { ".ubiquityrc.yaml": "presets: [ubiquity/presets/headless]\nmaxTurns: 5\n" },
      { linkUbiquity: true },
    );
    const { code, stdout, stderr } = await runCli(["inspect", "--json"], yamlDir);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const yamlReport = JSON.parse(stdout) as InspectReport;
    const expected = expandPlugins({ presets: [headlessPreset] }).plugins.map((p) => [p.plugin.name, p.origin]);
    expect(yamlReport.plugins.map((p) => [p.name, p.origin])).toEqual(expected);
    if (expected.length) expect(expected[0]![1]).toBe("preset ubiquity:headless > ubiquity:default");
    expect(yamlReport.options).toMatchObject({ permissionMode: "dontAsk", maxTurns: 5 });
  });
});
