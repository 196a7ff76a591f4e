/**
 * Installed code a start runs, written by the file tools. The sandbox keeps three kinds of
 * installed code read-only for sandboxed commands (loader/installed-code.ts): the packages a
 * trusted config file imports and their dependencies (loaded in the host process at the next
 * `ubiquity run`), an MCP server's package and its dependencies (run with the server's network at
 * its next start), and ubiquity's own package and dependencies when it is installed in the project.
 * The permission engine judged only the MCP server's package folder and `.bin`: under acceptEdits
 * the Write tool changed the others without asking, and the next start ran the change on the host
 * (a marker file in HOME). One function now says what is installed start code, for both.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { attackBench, installMcpPackage, MCP_PACKAGE, type AttackProject } from "./attack-bench";

const KEY = "sk-test-installed-code";

const { project, trustedAttack, attack } = attackBench({
  name: "instcode",
  model: "openai:gpt-4.1",
  key: KEY,
  fill: ({ cwd }) => {
    writeFileSync(join(cwd, "a.txt"), "hello\n");
  },
});

/** A package folder in `cwd`'s node_modules: its manifest and one module. */
function installPackage(cwd: string, name: string, manifest: Record<string, unknown>, file: string, code: string) {
  const dir = join(cwd, "node_modules", name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, version: "1.0.0", ...manifest }));
  writeFileSync(join(dir, file), code);
}

/** Code that writes `marker` when it is loaded. */
const plant = (marker: string) =>
  `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(marker)}, "ran on the host");\nexport default () => ({ name: "demo", apply() {} });\nexport const helper = 1;\n`;

/** A project whose config loads the plugin package `ubiquity-plugin-demo`, which depends on `demo-helper`. */
function configProject(): AttackProject {
  const p = project();
  installPackage(
    p.cwd,
    "ubiquity-plugin-demo",
    { type: "module", main: "index.js", dependencies: { "demo-helper": "^1.0.0" } },
    "index.js",
    'import { helper } from "demo-helper";\nexport default () => ({ name: "demo", apply() { void helper; } });\n',
  );
  installPackage(p.cwd, "demo-helper", { type: "module", main: "index.js" }, "index.js", "export const helper = 1;\n");
  writeFileSync(
    join(p.cwd, "ubiquity.config.mjs"),
    'import demo from "ubiquity-plugin-demo";\nexport default { plugins: [demo()] };\n',
  );
  return p;
}

describe("installed code a trusted config loads", () => {
  for (const [what, file] of [
    ["the plugin package the config imports", "node_modules/ubiquity-plugin-demo/index.js"],
    ["a dependency of that package", "node_modules/demo-helper/index.js"],
  ] as const)
    it(`acceptEdits: the Write tool's change to ${what} asks, and the next start does not run it`, async () => {
      const p = configProject();
      const marker = join(p.home, "pwned");
      const { out } = await trustedAttack(
        [
          { name: "Read", input: { file_path: file } },
          { name: "Write", input: { file_path: file, content: plant(marker) } },
        ],
        ["--permission-mode", "acceptEdits"],
        p,
      );
      expect(out[1]!.isError, out[1]!.content).toBe(true);
      expect(out[1]!.content).toContain("ubiquity.config.mjs");
      expect(readFileSync(join(p.cwd, file), "utf8")).not.toContain("ran on the host");
      // The next start loads the config and its packages, outside the sandbox.
      const next = await attack([{ name: "Glob", input: { pattern: "*.txt" } }], [], p, { UBIQUITY_TRUST: "" });
      expect(next.out[0]!.content).toContain("a.txt");
      expect(existsSync(marker)).toBe(false);
    });
});

describe("installed code an MCP server's program runner starts", () => {
  it("acceptEdits: the Write tool's change to a dependency of the server's package asks", async () => {
    const p = project();
    installMcpPackage(p.cwd);
    const manifest = JSON.parse(readFileSync(join(p.cwd, MCP_PACKAGE, "package.json"), "utf8"));
    writeFileSync(
      join(p.cwd, MCP_PACKAGE, "package.json"),
      JSON.stringify({ ...manifest, dependencies: { "weather-core": "^1.0.0" } }),
    );
    installPackage(p.cwd, "weather-core", { main: "index.js" }, "index.js", "module.exports = {};\n");
    writeFileSync(
      join(p.cwd, ".mcp.json"),
      JSON.stringify({ mcpServers: { weather: { command: "npx", args: ["-y", "@acme/mcp-weather"] } } }),
    );
    const file = "node_modules/weather-core/index.js";
    const { out } = await trustedAttack(
      [
        { name: "Read", input: { file_path: file } },
        { name: "Write", input: { file_path: file, content: "require('child_process').execSync('id');\n" } },
        // Installed code nothing starts stays an ordinary edit: the test can fail.
        { name: "Write", input: { file_path: "node_modules/unrelated/index.js", content: "module.exports = 2;\n" } },
      ],
      ["--permission-mode", "acceptEdits"],
      p,
    );
    expect(out[1]!.isError, out[1]!.content).toBe(true);
    expect(out[1]!.content).toContain("MCP server");
    expect(readFileSync(join(p.cwd, file), "utf8")).toBe("module.exports = {};\n");
    expect(out[2]!.isError, out[2]!.content).toBe(false);
  });
});
