/**
 * The installed closure of a project's config (issue 36): the packages `ubiquity run` loads at
 * its next start, kept read-only in the sandbox. Real folders laid out as npm lays them out.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { installedClosure, installedConfigClosure } from "../../plugins/sandbox/installed";

let ws = "";
beforeEach(() => void (ws = realpathSync(mkdtempSync(join(tmpdir(), "ubq-installed-")))));
afterEach(() => rmSync(ws, { recursive: true, force: true }));

const pkg = (dir: string, name: string, deps: Record<string, string> = {}, peer: Record<string, string> = {}) => {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, dependencies: deps, peerDependencies: peer }));
  writeFileSync(join(dir, "index.js"), "module.exports = {};\n");
};
const rel = (dirs: string[]) => dirs.map((d) => d.slice(ws.length + 1)).sort();

describe("the installed closure of a config", () => {
  it("follows the config's local imports to packages, then dependencies (hoisted and nested) and peers; nothing else", () => {
    pkg(join(ws, "node_modules", "a"), "a", { b: "1" });
    pkg(join(ws, "node_modules", "b"), "b", { c: "1" });
    pkg(join(ws, "node_modules", "b", "node_modules", "c"), "c", {}, { "@s/p": "1" });
    pkg(join(ws, "node_modules", "c"), "c"); // a different c: not the one b loads
    pkg(join(ws, "node_modules", "@s", "p"), "@s/p");
    pkg(join(ws, "node_modules", "unrelated"), "unrelated");
    pkg(join(ws, "node_modules", "via-helper"), "via-helper");
    writeFileSync(join(ws, "helper.mjs"), 'export { x } from "via-helper/sub/path.js";\n');
    writeFileSync(
      join(ws, "ubiquity.config.mjs"),
      'import a from "a";\nimport { x } from "./helper.mjs";\nimport fs from "node:fs";\nexport default {};\n',
    );
    expect(rel(installedClosure(join(ws, "ubiquity.config.mjs")))).toEqual([
      "node_modules/@s/p",
      "node_modules/a",
      "node_modules/b",
      "node_modules/b/node_modules/c",
      "node_modules/via-helper",
    ]);
  });

  it("reads a JSON config's plugins and preset by package name, and keeps only folders inside the workspace", () => {
    pkg(join(ws, "node_modules", "plug"), "plug");
    pkg(join(ws, "node_modules", "pre"), "pre");
    writeFileSync(
      join(ws, ".ubiquityrc.json"),
      JSON.stringify({ preset: "pre", plugins: [["plug", {}], "./local.js"] }),
    );
    expect(rel(installedConfigClosure(ws, [ws], join(ws, "no-home")))).toEqual([
      "node_modules/plug",
      "node_modules/pre",
    ]);
    expect(installedConfigClosure(ws, [join(ws, "elsewhere")], join(ws, "no-home"))).toEqual([]);
  });

  it("is empty without a config", () => {
    pkg(join(ws, "node_modules", "a"), "a");
    expect(installedConfigClosure(ws, [ws], join(ws, "no-home"))).toEqual([]);
  });
});
