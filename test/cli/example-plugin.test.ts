/**
 * "Publishing a plugin", shown: examples/ubiquity-plugin-house-rules is packed with `npm pack`,
 * installed from the tarball into a fresh project with `npm install`, named by its package
 * string in a YAML config, and used — through the real bin and through loadConfig().
 */
import { execFile } from "node:child_process";
import { readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKernel, loadConfig } from "ubiquity";
import type { RunContext } from "ubiquity/plugin";
import type { InspectReport } from "../../runner/inspect";
import { removeTempProjects, repoRoot, requireDist, runCli, tempProject } from "../helpers/project";

const exec = promisify(execFile);
const example = join(repoRoot, "examples", "ubiquity-plugin-house-rules");
const npm = (args: string[], cwd: string) =>
  exec("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd,
    env: { ...process.env, npm_config_update_notifier: "false" },
  });

let project: string;

beforeAll(async () => {
  requireDist();
  const packDir = tempProject({}, { packageJson: false });
  const { stdout } = await npm(["pack", "--json", "--pack-destination", packDir, example], packDir);
  const [{ filename }] = JSON.parse(stdout) as [{ filename: string }];
  project = tempProject({
    ".ubiquityrc.yaml": `presets: []\nplugins:\n  - [ubiquity-plugin-house-rules, { rules: ["Run npm test before you finish", "Never edit dist/"] }]\n`,
  });
  // Installed the way a user installs it. `ubiquity` itself is not on the registry under this
  // name yet, so the peer is linked to this repo afterwards instead of being fetched
  // (--legacy-peer-deps stops npm from trying, --offline proves nothing is downloaded).
  await npm(["install", join(packDir, filename), "--legacy-peer-deps", "--offline", "--ignore-scripts"], project);
  symlinkSync(repoRoot, join(project, "node_modules", "ubiquity"), "dir");
});
afterAll(removeTempProjects);

describe("the example third-party plugin, installed from its tarball", () => {
  it("is installed as a package with the ubiquity-plugin keyword and ubiquity as a peer", () => {
    const pkg = JSON.parse(
      readFileSync(join(project, "node_modules", "ubiquity-plugin-house-rules", "package.json"), "utf8"),
    ) as {
      keywords: string[];
      peerDependencies: Record<string, string>;
      dependencies?: Record<string, string>;
    };
    expect(pkg.keywords).toContain("ubiquity-plugin");
    expect(pkg.peerDependencies).toHaveProperty("ubiquity");
    expect(pkg.dependencies?.ubiquity).toBeUndefined();
    const manifest = JSON.parse(readFileSync(join(project, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(manifest.dependencies)).toEqual(["ubiquity-plugin-house-rules"]);
  });

  it("shows up in `ubiquity inspect` with origin config and its turn.system tap", async () => {
    const { code, stdout, stderr } = await runCli(["inspect", "--json"], project);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as InspectReport;
    expect(report.plugins).toEqual([{ name: "ubiquity-plugin-house-rules", origin: "config", replaced: [] }]);
    expect(report.hooks["turn.system"]).toEqual([{ plugin: "ubiquity-plugin-house-rules", stage: 0, type: "sync" }]);
  });

  it("adds its section to the system prompt when the hook runs", async () => {
    const { config } = await loadConfig({ cwd: project, trust: true });
    const kernel = createKernel({ ...config, logger: { debug() {}, info() {}, warn() {}, error() {} } });
    const sections = await kernel.hooks.turn.system.promise([{ id: "guidance", text: "base" }], {} as RunContext);
    expect(sections).toEqual([
      { id: "guidance", text: "base" },
      {
        id: "house-rules",
        text: "# House rules\nFollow these rules of this repository:\n- Run npm test before you finish\n- Never edit dist/",
      },
    ]);
  });

  it("rejects bad options at the config line, naming the plugin and the fix", async () => {
    const dir = tempProject({ ".ubiquityrc.yaml": "plugins: [[ubiquity-plugin-house-rules, { rules: [] }]]\n" });
    symlinkSync(join(project, "node_modules"), join(dir, "node_modules"), "dir");
    const { code, stderr } = await runCli(["inspect"], dir);
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /^error: .*\.ubiquityrc\.yaml: plugins\[0\] "ubiquity-plugin-house-rules": the plugin factory threw: ubiquity-plugin-house-rules: options\.rules must be a non-empty array of strings/,
    );
  });
});
