/**
 * Config mistakes are `tsc` errors, in a user's project with the packed tarball installed: an
 * unknown key (`maxTurnz`), an unknown hook event (`PreToolUze`) and a wrong type for a
 * third-party plugin's option. The plugin is a local folder installed with plain
 * `npm i ../plugin`, keeping its own `node_modules/ubiquity` (another version, so TypeScript
 * cannot merge the two copies): its plugin and its `Ubiquity.PluginOptions` merge still fit.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { npmInstall, packedTarball, removePackedDirs, tempDir } from "../helpers/packed";

let app: string;

beforeAll(() => {
  const tarball = packedTarball();
  const root = tempDir("ubiquity-types-");
  const plugin = join(root, "plugin");
  app = join(root, "app");
  mkdirSync(plugin);
  mkdirSync(app);
  writeFileSync(
    join(plugin, "package.json"),
    JSON.stringify({
      name: "ubiquity-plugin-greeter",
      version: "0.0.1",
      type: "module",
      exports: { ".": { types: "./index.d.ts", import: "./index.js" } },
      peerDependencies: { ubiquity: "*" },
    }),
  );
  writeFileSync(
    join(plugin, "index.js"),
    'import { definePlugin } from "ubiquity";\nimport { z } from "zod";\nexport default definePlugin({ name: "ubiquity-plugin-greeter", options: z.strictObject({ greeting: z.string().optional() }), apply() {} });\n',
  );
  writeFileSync(
    join(plugin, "index.d.ts"),
    [
      'import type { Plugin } from "ubiquity";',
      "declare global {",
      "  namespace Ubiquity {",
      "    interface PluginOptions {",
      "      /** What the greeter says. */",
      "      greeting?: string;",
      "    }",
      "  }",
      "}",
      "declare const greeter: () => Plugin;",
      "export default greeter;",
      "",
    ].join("\n"),
  );
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
  npmInstall(app, [tarball, "../plugin"]);
  // The plugin author's own copy, as `npm i -D ubiquity` in the plugin folder gives it: the same
  // tarball and dependencies, so the app's install copied (one `npm install` of ~7 CPU-s, not two),
  // without the app's link to the plugin and npm's record of the app's tree.
  cpSync(join(app, "node_modules"), join(plugin, "node_modules"), {
    recursive: true,
    verbatimSymlinks: true,
    filter: (from) => !/\/node_modules\/(ubiquity-plugin-greeter|\.package-lock\.json)$/.test(from),
  });
  const copy = join(plugin, "node_modules", "ubiquity", "package.json");
  writeFileSync(copy, readFileSync(copy, "utf8").replace(/"version": "[^"]+"/, '"version": "0.0.0-plugin-copy"'));
  expect(JSON.parse(readFileSync(join(app, "node_modules", "ubiquity", "package.json"), "utf8")).version).not.toBe(
    "0.0.0-plugin-copy",
  );
}, 600_000);
afterAll(removePackedDirs);

const options: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2023,
  skipLibCheck: true,
  types: [],
};
const host = ts.createCompilerHost(options);

const header =
  'import { defineConfig, summon, type Plugin } from "ubiquity";\nimport greeter from "ubiquity-plugin-greeter";\n';

const good =
  header +
  'export default defineConfig({ maxTurns: 3, greeting: "hello", hooks: { PreToolUse: [] }, plugins: [greeter()] });\n' +
  'export const fn = defineConfig(({ command }) => ({ maxTurns: command === "run" ? 5 : 3 }));\n' +
  "export const typed = defineConfig<{ shout?: boolean }>({ shout: true, maxTurns: 2 });\n" +
  'const plugin: Plugin = greeter();\nsummon("hi", { plugins: [plugin], greeting: "hi", persistSession: false });\n' +
  // system/init's fields plugins add, typed: the MCP servers' statuses and the permission mode.
  'export async function init() { for await (const m of summon("hi")) if (m.type === "system" && m.subtype === "init") { const s = m.mcpServers?.[0]; const n: number | undefined = s?.status === "connected" ? s.tools : undefined; const e: string | undefined = s?.status === "failed" ? s.error : undefined; const mode: string | undefined = m.permissionMode; return [n, e, mode]; } return []; }\n';

/** What each rejected config is, its file, its line and the error it must give. */
const rejected: [string, string, string, RegExp][] = [
  ["an unknown key", "max-turnz.ts", "defineConfig({ maxTurnz: 3 });", /'maxTurnz' does not exist/],
  ["an unknown key in a function config", "fn-turnz.ts", "defineConfig(() => ({ maxTurnz: 3 }));", /maxTurnz/],
  [
    "an unknown hook event",
    "hook.ts",
    "defineConfig({ hooks: { PreToolUze: [] } });",
    /'PreToolUze' does not exist[\s\S]*Did you mean to write 'PreToolUse'\?/,
  ],
  [
    "a wrong third-party option type",
    "greeting.ts",
    "defineConfig({ greeting: 42, plugins: [greeter()] });",
    /Type 'number' is not assignable to type 'string'/,
  ],
  [
    "a wrong type for an option given by the typed generic",
    "generic.ts",
    'defineConfig<{ shout?: boolean }>({ shout: "yes" });',
    /Type 'string' is not assignable to type 'boolean( \| undefined)?'/,
  ],
  [
    "a wrong use of an MCP server's status in system/init",
    "mcp-status.ts",
    'for await (const m of summon("hi")) if (m.type === "system" && m.subtype === "init") { const s = m.mcpServers?.[0]; if (s?.status === "connected") { const tools: string = s.tools; void tools; } }',
    /Type 'number' is not assignable to type 'string'/,
  ],
  [
    "a wrong option type in summon()",
    "summon.ts",
    'summon("hi", { greeting: 42 });',
    /Type 'number' is not assignable to type 'string'/,
  ],
];

/** The fixture files of the app (name → source), written when the first test checks them. */
const fixtures = new Map<string, string>([
  ["good.ts", good],
  ...rejected.map(([, name, line]): [string, string] => [name, `${header}${line}\nexport type Unused = Plugin;\n`]),
]);
let checked: ts.Program | undefined;

/**
 * The `tsc` errors of one file of the app (strict, nodenext, as a user's project). One program
 * checks every fixture (~1 CPU-s a program, most of it binding the package's declarations): each
 * file is a module with its own scope and none declares anything global, so a file's errors are
 * the ones it has alone.
 */
function tscErrors(name: string): string[] {
  if (!checked) {
    for (const [file, source] of fixtures) writeFileSync(join(app, file), source);
    checked = ts.createProgram(
      [...fixtures.keys()].map((file) => join(app, file)),
      options,
      host,
    );
  }
  const file = checked.getSourceFile(join(app, name));
  if (!file) throw new Error(`${name} is not a fixture of the program`);
  return ts.getPreEmitDiagnostics(checked, file).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

describe("config types in a user's project", () => {
  it("accept a correct config with a local plugin built against another copy of ubiquity", () => {
    expect(tscErrors("good.ts")).toEqual([]);
  });

  it.each(rejected)("reject %s", (_what, name, _line, message) => {
    const errors = tscErrors(name);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.join("\n")).toMatch(message);
  });
});
