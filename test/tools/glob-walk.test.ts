/**
 * Glob's own walk (plugins/tool-glob/walk.ts) against tinyglobby as the oracle: for a grid of
 * patterns over one tree holding what trips walkers (hidden files and folders, links to files and
 * folders, a link out of the tree, skipped folders, a file named like a folder a pattern names,
 * names with spaces, brackets, braces and non-ASCII letters, a FIFO, an unreadable folder),
 * the walk finds exactly the files tinyglobby finds with the options the tool used to give it
 * (`onlyFiles`, `dot`, no links followed, the skipped folders dropped from each listing).
 */
import { execFileSync } from "node:child_process";
import { type Dirent, chmodSync, mkdirSync, readdir, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { glob } from "tinyglobby";
import { afterAll, describe, expect, it } from "vitest";
import { skippedFor } from "../../plugins/tool-glob/skipped-folders";
import { findFiles } from "../../plugins/tool-glob/walk";
import { tempDir } from "./helpers";

const root = tempDir();
const outsideDir = tempDir();
writeFileSync(join(outsideDir, "secret.txt"), "s");

const FILES = [
  "README.md",
  "package.json",
  ".env",
  ".github/workflows/ci.yml",
  ".hidden/deep/.x.ts",
  "src/index.ts",
  "src/app.tsx",
  "src/a/b/c/deep.ts",
  "src/a/x/one.ts",
  "src/b/c/two.ts",
  "src/mod1/f.js",
  "src/mod2/g.ts",
  "lib/util.js",
  "lib/util.d.ts",
  "docs/guide/intro.md",
  "docs/api.MD",
  "name with space/file one.txt",
  "brackets[1]/x.ts",
  "braces{a,b}/y.ts",
  "ünïcode/ß.ts",
  "node_modules/pkg/index.js",
  "dist/out.js",
  "pkg/dist/inner.js",
  "pkg/__pycache__/m.py",
  ".git/config",
  "coverage/lcov.info",
  "src2",
  "build.ts",
  "a.b.c/d.e",
  "locked/inside.ts",
];
for (const file of FILES) {
  mkdirSync(dirname(join(root, file)), { recursive: true });
  writeFileSync(join(root, file), file);
}
symlinkSync("src", join(root, "srclink"));
symlinkSync("README.md", join(root, "readme-link.md"));
symlinkSync(outsideDir, join(root, "out"));
symlinkSync("missing", join(root, "dangling.ts"));
execFileSync("mkfifo", [join(root, "src", "pipe.ts")]);
chmodSync(join(root, "locked"), 0o000);
afterAll(() => chmodSync(join(root, "locked"), 0o755));

const PATTERNS = [
  "**/*",
  "**",
  "*",
  "**/*.ts",
  "*.ts",
  "*.md",
  "**/*.{ts,tsx}",
  "src/**",
  "src/**/*",
  "src",
  "src/",
  "./src/*.ts",
  "src/*",
  "src/*/",
  "src/**/c/*.ts",
  "src/{a,b}/**/*.ts",
  "src/{a/b,x}/**",
  "{src,lib}/**/*.js",
  "**/{index,util}.*",
  "s?c/**",
  "[sl]*/**/*.ts",
  "src/mod[0-9]/*",
  "+(src|lib)/**/*.js",
  "!(src)/**/*.ts",
  "**/.*",
  ".*",
  "**/.hidden/**",
  ".github/**/*.yml",
  "**/*.MD",
  "**/*.md",
  "dist/**/*.js",
  "**/dist/**",
  "node_modules/**",
  "pkg/__pycache__/*",
  "name with space/*",
  "brackets\\[1\\]/*",
  "braces\\{a,b\\}/*",
  "ünïcode/*",
  "a.b.c/*",
  "srclink/*",
  "srclink/**/*.ts",
  "out/*",
  "locked/**",
  "src/a/b/c/deep.ts",
  "missing/**",
  "**/pipe.ts",
  "*link*",
];

/** The tool's former walk: tinyglobby with each listing stripped of the skipped folders. */
function oracle(pattern: string): Promise<string[]> {
  const skipped = skippedFor(pattern);
  const filtered = (
    path: string,
    options: { withFileTypes: true },
    callback: (error: NodeJS.ErrnoException | null, entries: Dirent[]) => void,
  ) =>
    readdir(path, options, (error, entries) =>
      callback(error, error ? entries : entries.filter((e) => !(skipped.has(e.name) && e.isDirectory()))),
    );
  return glob(pattern, {
    cwd: root,
    onlyFiles: true,
    dot: true,
    followSymbolicLinks: false,
    fs: { readdir: filtered as unknown as typeof readdir },
  });
}

describe("Glob's walk finds what tinyglobby finds", () => {
  it.each(PATTERNS)("%s", async (pattern) => {
    const expected = (await oracle(pattern)).sort();
    const { files, folders } = await findFiles(root, pattern, skippedFor(pattern));
    expect(files.sort()).toEqual(expected);
    // Each file's folder is among the folders reported (the tool judges where those really are).
    for (const file of files) {
      const folder = file.includes("/") ? join(root, file.slice(0, file.lastIndexOf("/"))) : root;
      expect(folders).toContain(folder);
    }
  });

  it("the grid is not vacuous: most patterns find files, some none", async () => {
    const counts = await Promise.all(PATTERNS.map(async (p) => (await findFiles(root, p, skippedFor(p))).files.length));
    expect(counts.filter((n) => n > 0).length).toBeGreaterThan(35);
    expect(counts.some((n) => n === 0)).toBe(true);
  });

  it("reports the link's folder for a pattern that names a link to a folder outside", async () => {
    const { files, folders } = await findFiles(root, "out/*", skippedFor("out/*"));
    expect(files).toEqual(["out/secret.txt"]);
    expect(folders).toEqual([join(root, "out")]);
  });

  it("stops at an aborted signal and returns what it had", async () => {
    const controller = new AbortController();
    controller.abort();
    expect((await findFiles(root, "**/*", new Set(), controller.signal)).files).toEqual([]);
  });
});
