/**
 * The installed closure of a project's config (issue 36): the packages `ubiquity run` loads at
 * its next start, kept read-only in the sandbox. Real folders laid out as npm lays them out.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { installedClosure, installedConfigClosure, ownModuleFolders } from "../../loader/installed-code";

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

  it("pnpm: a linked package's dependencies are found from where the link leads, as Node finds them", () => {
    const store = join(ws, "node_modules", ".pnpm");
    pkg(join(store, "a@1", "node_modules", "a"), "a", { b: "1" });
    pkg(join(store, "b@1", "node_modules", "b"), "b");
    // pnpm's layout: the project's node_modules/a links into the store, and a's own dependencies
    // are links beside it there (not in the project's node_modules).
    symlinkSync(join(store, "a@1", "node_modules", "a"), join(ws, "node_modules", "a"));
    symlinkSync(join(store, "b@1", "node_modules", "b"), join(store, "a@1", "node_modules", "b"));
    writeFileSync(join(ws, "ubiquity.config.mjs"), 'import a from "a";\nexport default {};\n');
    expect(rel(installedClosure(join(ws, "ubiquity.config.mjs")))).toEqual([
      "node_modules/.pnpm/a@1/node_modules/a",
      "node_modules/.pnpm/b@1/node_modules/b",
    ]);
  });

  it("reads a JSON config's plugins and preset by package name, and keeps only folders inside the workspace", () => {
    pkg(join(ws, "node_modules", "plug"), "plug");
    pkg(join(ws, "node_modules", "pre"), "pre");
    writeFileSync(
      join(ws, ".ubiquityrc.json"),
      JSON.stringify({ preset: "pre", plugins: [["plug", {}], "./local.js"] }),
    );
    const closure = rel(installedConfigClosure(ws, [ws], join(ws, "no-home")));
    expect(closure.filter((p) => p.startsWith("node_modules"))).toEqual(["node_modules/plug", "node_modules/pre"]);
    // The plugin file it names, missing: a file made there would be loaded (red team zp, ZP2).
    expect(closure).toEqual(expect.arrayContaining(["local.js", "local.ts", "local.js/index.js"]));
    expect(installedConfigClosure(ws, [join(ws, "elsewhere")], join(ws, "no-home"))).toEqual([]);
  });

  it("is empty without a config", () => {
    pkg(join(ws, "node_modules", "a"), "a");
    expect(installedConfigClosure(ws, [ws], join(ws, "no-home"))).toEqual([]);
  });
});

describe("the node_modules folders ubiquity's own dependencies load from (ownModuleFolders)", () => {
  /** ubiquity's manifest in `dir`, depending on a, with an optional peer that is not installed. */
  const ubiquity = (dir: string) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "package.json"),
      JSON.stringify({ name: "ubiquity", dependencies: { a: "1" }, peerDependencies: { missing: "1" } }),
    );
    return dir;
  };
  const home = () => join(ws, "home");

  it("npm: the project's node_modules, every node_modules above it, and the global CommonJS folders; one folder each", () => {
    const proj = join(ws, "proj");
    const dir = ubiquity(join(proj, "node_modules", "ubiquity"));
    pkg(join(proj, "node_modules", "a"), "a", { b: "1" });
    pkg(join(proj, "node_modules", "b"), "b");
    const found = ownModuleFolders(home(), dir);
    // One folder for the whole project (not a, b and ubiquity's own), and each one above it.
    expect(found.filter((p) => p.startsWith(`${ws}/`))).toEqual(
      [
        join(proj, "node_modules"),
        join(ws, "home", ".node_libraries"),
        join(ws, "home", ".node_modules"),
        join(ws, "node_modules"),
      ].sort(),
    );
    expect(found).toContain(join(dirname(ws), "node_modules"));
  });

  it("pnpm: the links in .pnpm lead inside the project's node_modules, which covers them", () => {
    const proj = join(ws, "proj");
    const store = join(proj, "node_modules", ".pnpm");
    const dir = ubiquity(join(store, "ubiquity@1", "node_modules", "ubiquity"));
    pkg(join(store, "a@1", "node_modules", "a"), "a");
    symlinkSync(join(store, "a@1", "node_modules", "a"), join(store, "ubiquity@1", "node_modules", "a"));
    const found = ownModuleFolders(home(), dir);
    expect(found).toContain(join(proj, "node_modules"));
    expect(found.filter((p) => p.startsWith(`${proj}/`))).toEqual([join(proj, "node_modules")]);
  });

  it("a dependency linked from a folder outside any node_modules: that folder itself", () => {
    const proj = join(ws, "proj");
    const dir = ubiquity(join(proj, "node_modules", "ubiquity"));
    pkg(join(ws, "linked-a"), "a");
    symlinkSync(join(ws, "linked-a"), join(proj, "node_modules", "a"));
    const found = ownModuleFolders(home(), dir);
    expect(found).toContain(join(ws, "linked-a"));
    expect(found).toContain(join(proj, "node_modules"));
  });

  it("the program the process was started by, as named (`npm link`: the project's node_modules/.bin/ubiquity leads elsewhere)", () => {
    const proj = join(ws, "proj");
    const dir = ubiquity(join(ws, "checkout"));
    mkdirSync(join(proj, "node_modules", ".bin"), { recursive: true });
    const found = ownModuleFolders(home(), dir, join(proj, "node_modules", ".bin", "ubiquity"));
    expect(found).toContain(join(proj, "node_modules"));
    expect(ownModuleFolders(home(), dir, join(ws, "app.mjs"))).not.toContain(join(proj, "node_modules"));
  });
});
