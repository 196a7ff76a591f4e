/**
 * What a newcomer's trial (x, 2026-12-07: a TypeScript developer writes a third-party plugin — a
 * tool calling an HTTP API, a permission vote, a system-prompt section, a `tool.afterCall` tap,
 * typed options — installs it with the packed package into an empty project, runs it with the bin
 * and with `summon()`, overrides a built-in by order, disables one, and checks the config in tsc
 * and an editor) met:
 * - a plugin whose `factoryOptions` require a key (`baseUrl`) typed its factory's options as
 *   optional: `weather()` passed tsc and failed only when the run started. It is a tsc error now;
 * - the plugin's own `tsc` (skipLibCheck off, as a hand-written tsconfig has it) failed on the AI
 *   SDK's declarations (`json-schema` has no types installed), and no page gave a plugin package's
 *   package.json or tsconfig.json: docs/plugins/publishing.md has both, built here;
 * - no page said how to write a `tool.permission` vote (what the first verdict is, how to abstain,
 *   what a deny does): docs/plugins.md has a vote and an output rewrite now, run here as written;
 * - after an edit of a trusted folder's config, "No model configured" said the file was skipped
 *   "because the folder is not trusted" (and an unknown flag the same): it was trusted, the file
 *   had changed. Both now say so;
 * - `ubiquity schema` in the project printed the built-ins' schema, without the plugin's options,
 *   although `inspect` there showed the plugin: it now reads the config it finds, as `inspect` does;
 * - `--config <file>` in an untrusted folder loaded the file (the caller's) and still warned that
 *   the folder's files, that one first, "were not applied": the warning leaves it (and the local
 *   modules it imports) out.
 */
import { execFile } from "node:child_process";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installPacked, removePackedDirs } from "../helpers/packed";
import { removeTempProjects, repoRoot, requireDist, runCli, tempProject } from "../helpers/project";

let server: Server;
let baseUrl = "";

beforeAll(async () => {
  requireDist();
  server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ temp: url.searchParams.get("units") === "imperial" ? 70 : 21 }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  removeTempProjects();
  removePackedDirs();
});

/** The plugin package as its author's `tsc` emitted it (index.js + index.d.ts), what `npm pack` ships. */
const PLUGIN = {
  "package.json": JSON.stringify({
    name: "ubiquity-plugin-weather",
    version: "1.0.0",
    type: "module",
    keywords: ["ubiquity-plugin"],
    exports: { ".": { types: "./dist/index.d.ts", import: "./dist/index.js" } },
    peerDependencies: { ubiquity: "^0.1.0", zod: "^4" },
  }),
  "dist/index.js": `import { definePlugin, defineTool, SYSTEM_STAGE } from "ubiquity/plugin";
import { z } from "zod";
const NAME = "ubiquity-plugin-weather";
export const weatherOptions = z.object({
  weatherUnits: z.enum(["metric", "imperial"]).optional().describe("Units the Weather tool reports in"),
});
export default definePlugin({
  name: NAME,
  options: weatherOptions,
  factoryOptions: z.object({ baseUrl: z.string().url() }),
  apply(kernel, context) {
    const weather = defineTool({
      name: "Weather",
      description: "Current weather for a city.",
      inputSchema: z.object({ city: z.string() }),
      isReadOnly: true,
      async execute({ city }, ctx) {
        const units = context.optionsOf(ctx.run).weatherUnits ?? "metric";
        const res = await fetch(\`\${context.factoryOptions.baseUrl}/weather?city=\${encodeURIComponent(city)}&units=\${units}\`);
        return \`\${city}: \${(await res.json()).temp}° (\${units})\`;
      },
    });
    kernel.registries.tools.register("Weather", weather, NAME);
    kernel.hooks.turn.system.tap({ name: NAME, stage: SYSTEM_STAGE.FEATURES }, (sections) => [
      ...sections,
      { id: "weather", text: "Use the Weather tool for weather questions." },
    ]);
  },
});
`,
  "dist/index.d.ts": `import { z } from "zod";
export declare const weatherOptions: z.ZodObject<{
    weatherUnits: z.ZodOptional<z.ZodEnum<{ metric: "metric"; imperial: "imperial" }>>;
}, z.core.$strip>;
declare global {
    namespace Ubiquity {
        interface PluginOptions extends z.input<typeof weatherOptions> {}
    }
}
import { definePlugin } from "ubiquity/plugin";
declare const factoryOptions: z.ZodObject<{ baseUrl: z.ZodString }, z.core.$strip>;
declare const _default: ReturnType<typeof definePlugin<typeof weatherOptions, undefined, undefined, typeof factoryOptions>>;
export default _default;
`,
};

/** The permission vote and output rewrite of docs/plugins.md, as written there. */
function docsVoteBlock(): string {
  const doc = readFileSync(join(repoRoot, "docs", "plugins.md"), "utf8");
  const block = /### A permission vote and an output rewrite[\s\S]*?```ts\n([\s\S]*?)```/.exec(doc)?.[1];
  expect(block, "docs/plugins.md has no permission-vote example").toBeDefined();
  return block!;
}

const CONFIG = (url: string) => `import { defineConfig, definePlugin, defineTool } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import minimal from "ubiquity/presets/minimal";
import weather from "ubiquity-plugin-weather";
import cityGuard from "./city-guard.ts";
import { z } from "zod";

// Named as the built-in: it takes the built-in Glob plugin's place.
const fakeGlob = definePlugin({
  name: "ubiquity:tool-glob",
  apply(kernel) {
    const glob = defineTool({ name: "Glob", description: "Pretend glob", inputSchema: z.object({ pattern: z.string() }), isReadOnly: true, execute: ({ pattern }) => \`fake glob for \${pattern}\` });
    kernel.registries.tools.register("Glob", glob, "ubiquity:tool-glob");
  },
});

export default defineConfig({
  presets: [minimal],
  model: scriptedModel([
    { toolCalls: [{ toolName: "Weather", input: { city: "Paris" } }] },
    { toolCalls: [{ toolName: "Weather", input: { city: "Mordor" } }] },
    { toolCalls: [{ toolName: "Glob", input: { pattern: "*.ts" } }] },
    { toolCalls: [{ toolName: "Grep", input: { pattern: "x" } }] },
    { text: "done" },
  ]),
  weatherUnits: "imperial",
  plugins: [weather({ baseUrl: "${url}" }), cityGuard({ blockedCities: ["Mordor"] }), fakeGlob()],
  disable: ["ubiquity:tool-grep"],
});
`;

const AGENT = `import { loadConfig, summon, type Message } from "ubiquity";
const loaded = await loadConfig();
if (!loaded.config) throw new Error("no config: " + loaded.skipped.join(", "));
const out: Message[] = [];
for await (const m of summon("weather?", loaded.config)) out.push(m);
console.log(JSON.stringify(out.filter((m) => m.type === "tool_result" || m.type === "result")));
`;

let app: string | undefined;
/** The user's project, made once: the packed package and the plugin package installed, the config and a script. */
function project(): string {
  if (app) return app;
  const dir = tempProject({
    "ubiquity.config.ts": CONFIG(baseUrl),
    "city-guard.ts": docsVoteBlock(),
    "agent.ts": AGENT,
  });
  installPacked(dir);
  const plugin = tempProject(PLUGIN, { packageJson: false });
  cpSync(plugin, join(dir, "node_modules", "ubiquity-plugin-weather"), { recursive: true });
  app = dir;
  return dir;
}

/** The bin the project installed, on the Node running the tests. */
function runInstalled(args: string[], cwd: string, env: Record<string, string> = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const bin = join(cwd, "node_modules", "ubiquity", "bin", "ubiquity.mjs");
    const child = execFile(
      process.execPath,
      [bin, ...args],
      { cwd, env: { ...process.env, DEBUG: "", NO_COLOR: "1", UBIQUITY_TRUST: "1", ...env }, timeout: 120_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end("");
  });
}

/** tsc's diagnostics for `files` of the project (strict, nodenext, what `tsc --noEmit` reports). */
function typeErrors(dir: string, files: string[]): string[] {
  const program = ts.createProgram(
    files.map((f) => join(dir, f)),
    {
      strict: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      noEmit: true,
      skipLibCheck: true,
      allowImportingTsExtensions: true,
      preserveSymlinks: true,
    },
  );
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file && !d.file.fileName.includes("node_modules"))
    .map((d) => `${d.file!.fileName.slice(dir.length + 1)}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`);
}

describe("a plugin's required factory options (tsc on the project's config)", () => {
  it("weather() without its required baseUrl is a tsc error, as it is a run-time one; the full config checks clean", () => {
    const dir = project();
    writeFileSync(
      join(dir, "neg.ts"),
      `import { defineConfig } from "ubiquity";
import weather from "ubiquity-plugin-weather";
import cityGuard from "./city-guard.ts";
export const a = defineConfig({ plugins: [weather()] });
export const b = defineConfig({ plugins: [cityGuard()] });
export const d = defineConfig({ weatherUnits: "kelvin", plugins: [weather({ baseUrl: "http://x" })] });
`,
    );
    // One program for the three files (each a module, so each checks as it would alone): the
    // declarations are read and bound once, not once a file list.
    const errors = typeErrors(dir, ["neg.ts", "ubiquity.config.ts", "agent.ts"]);
    const neg = errors.filter((e) => e.startsWith("neg.ts: "));
    expect(neg).toHaveLength(3);
    expect(neg.join("\n")).toMatch(/Expected 1 arguments, but got 0/);
    expect(neg.join("\n")).toMatch(/"kelvin"/);
    expect(errors.filter((e) => !e.startsWith("neg.ts: "))).toEqual([]);
  });
});

describe("docs/plugins/publishing.md's package of a TypeScript plugin", () => {
  it("its tsconfig.json builds the docs' plugin on a fresh install, and the declarations keep the options required", () => {
    const doc = readFileSync(join(repoRoot, "docs", "plugins", "publishing.md"), "utf8");
    const [pkg, tsconfig] = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(tsconfig, "publishing.md has no tsconfig.json").toBeDefined();
    // What npm leaves after `npm i -D ubiquity typescript zod`: no @types/json-schema.
    const dir = tempProject({ "src/index.ts": docsVoteBlock(), "tsconfig.json": tsconfig! }, { packageJson: false });
    writeFileSync(join(dir, "package.json"), pkg!);
    installPacked(dir);
    const parsed = ts.parseJsonConfigFileContent(JSON.parse(tsconfig!), ts.sys, dir);
    expect(parsed.errors).toEqual([]);
    const program = ts.createProgram(parsed.fileNames, { ...parsed.options, preserveSymlinks: true });
    const emitted = program.emit();
    const problems = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics].map(
      (d) => `${d.file?.fileName ?? ""}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`,
    );
    expect(problems).toEqual([]);
    expect(readFileSync(join(dir, "dist", "index.d.ts"), "utf8")).toMatch(/\(options: \{\s*blockedCities: string\[\];/);
  });
});

describe("the trial's project, run as the docs say", () => {
  it("the bin: the plugin's tool with its option, the docs' vote and rewrite, a built-in replaced in place, one disabled", async () => {
    const dir = project();
    const out = await runInstalled(["-p", "--output-format", "stream-json", "weather?"], dir);
    expect(out.code, out.stderr).toBe(0);
    const messages = out.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const results = messages.filter((m) => m.type === "tool_result").map((m) => m.output);
    expect(results[0]).toMatchObject({ content: "[weather] Paris: 70° (imperial)", isError: false });
    expect(results[1]).toMatchObject({ content: "Mordor is blocked", isError: true });
    expect(results[2]).toMatchObject({ content: "fake glob for *.ts" });
    expect(results[3].content).toMatch(/Unknown tool "Grep"/);
    const result = messages.at(-1);
    expect(result).toMatchObject({ type: "result", subtype: "success", result: "done" });
    expect(result.permissionDenials).toEqual([
      expect.objectContaining({ toolName: "Weather", message: "Mordor is blocked" }),
    ]);
  });

  it("summon() from the user's own script, with the config loadConfig() finds", async () => {
    const dir = project();
    // Asynchronously: the weather server answering the script lives in this process.
    const { stdout } = await new Promise<{ stdout: string }>((resolve, reject) =>
      execFile(
        process.execPath,
        [join(dir, "agent.ts")],
        { cwd: dir, env: { ...process.env, DEBUG: "", UBIQUITY_TRUST: "1", HOME: dir }, timeout: 120_000 },
        (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve({ stdout })),
      ),
    );
    const messages = JSON.parse(stdout.trim().split("\n").at(-1)!);
    expect(messages.map((m: { output?: { content: string } }) => m.output?.content).slice(0, 2)).toEqual([
      "[weather] Paris: 70° (imperial)",
      "Mordor is blocked",
    ]);
    expect(messages.at(-1)).toMatchObject({ type: "result", subtype: "success" });
  });
});

describe("ubiquity schema in the project", () => {
  it("prints the options of the plugins its config lists (trusted), the built-ins' otherwise", async () => {
    const dir = project();
    const trusted = await runInstalled(["schema"], dir);
    expect(trusted.code, trusted.stderr).toBe(0);
    const schema = JSON.parse(trusted.stdout);
    expect(schema.properties.weatherUnits).toMatchObject({
      enum: ["metric", "imperial"],
      description: "Units the Weather tool reports in",
    });
    // minimal's plugins: the sessions plugin's keys are not the config's.
    expect(schema.properties.persistSession).toBeUndefined();
    const home = tempProject({}, { packageJson: false });
    const untrusted = await runInstalled(["schema"], dir, { UBIQUITY_TRUST: "", HOME: home });
    expect(untrusted.code).toBe(0);
    expect(JSON.parse(untrusted.stdout).properties.weatherUnits).toBeUndefined();
    expect(untrusted.stderr).toMatch(/not trusted/);
  });

  it("--config in an untrusted folder: the named file applies, and no warning says it (or what it imports) was not applied", async () => {
    const dir = project();
    const home = tempProject({}, { packageJson: false });
    const named = await runInstalled(["schema", "--config", "ubiquity.config.ts"], dir, {
      UBIQUITY_TRUST: "",
      HOME: home,
    });
    expect(named.code, named.stderr).toBe(0);
    expect(JSON.parse(named.stdout).properties.weatherUnits).toBeDefined();
    expect(named.stderr).toBe("");
  });
});

describe("a trusted folder whose config changed since it was approved", () => {
  it("'No model configured' and an unknown flag say the file changed, not that the folder is untrusted", async () => {
    const home = tempProject({}, { packageJson: false });
    const dir = tempProject({ "ubiquity.config.mjs": `export default { model: "test" };\n` }, { linkUbiquity: true });
    const env = { HOME: home, UBIQUITY_TRUST: "", UBIQUITY_MODEL: "" };
    expect((await runCli(["trust", "."], dir, env)).code).toBe(0);
    expect((await runCli(["-p", "hi"], dir, env)).code).toBe(0);
    writeFileSync(join(dir, "ubiquity.config.mjs"), `export default { model: "test", maxTurns: 3 };\n`);
    const run = await runCli(["-p", "hi"], dir, env);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/No model configured/);
    expect(run.stderr).toContain(
      "ubiquity.config.mjs was skipped because the folder is trusted but the file is new or changed since it was approved",
    );
    expect(run.stderr).not.toContain("because the folder is not trusted");
    const flag = await runCli(["-p", "--greeting", "x", "hi"], dir, env);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("was not loaded, as the folder is trusted but the file is new or changed");
  });
});
