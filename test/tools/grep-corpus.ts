/** A test corpus exercising what decides Grep's file selection and line output. */
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const FILES: Record<string, string | Buffer> = {
  ".gitignore": "build/\n*.log\n!keep.log\n/root-only.txt\ndocs/*.tmp\n# a comment\n",
  ".ignore": "ignored-by-dot-ignore.txt\n",
  "ignored-by-dot-ignore.txt": "TODO hidden by .ignore\n",
  "src/app.ts":
    "import x from 'y';\n// TODO: first\nfunction foo() {\n  return Foo;\n}\n// todo lower\nexport const again = 'foo again';\n",
  "src/app.test.ts": "// TODO test\nfoo();\n",
  "src/util.js": "function   bar(a, b) {\n  // TODO util\n}\n",
  "src/debug.log": "TODO in a log\n",
  "src/nested/.gitignore": "generated.ts\n",
  "src/nested/generated.ts": "// TODO generated\n",
  "src/nested/real.ts": "// TODO real\nconst foo = 1;\n",
  "build/out.ts": "// TODO built\n",
  "app.log": "TODO app log\n",
  "keep.log": "TODO keep log\n",
  "root-only.txt": "TODO root only\n",
  "sub/root-only.txt": "TODO sub root only\n",
  "docs/readme.md": "# Docs\nSee TODO list.\n",
  "docs/a.tmp": "TODO tmp\n",
  "docs/deep/b.tmp": "TODO deep tmp\n",
  ".hidden/secret.ts": "// TODO hidden dir\n",
  ".git/config": "[core]\n# TODO in git\n",
  "bin.dat": Buffer.concat([Buffer.from("TODO\0\0\x01binary"), Buffer.alloc(64, 7)]),
  "crlf.txt": "start\r\nTODO crlf\r\nend\r\n",
  "unicode.txt": "naïve café TODO\nÜber\n",
  Makefile: "all:\n\techo TODO make\n",
  "multi.txt": "start\nfoo\nbar baz\nend\nfoo\nbar\nx\ny\nz\nfoo\n",
  "wide.txt": `${"w".repeat(800)} TODO wide\n`,
};

/** Write the corpus under `dir`, each file with its own modification time (stable newest-first order). */
export function writeCorpus(dir: string): void {
  const base = Date.now() / 1000 - 10_000;
  Object.entries(FILES).forEach(([name, content], i) => {
    const path = join(dir, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
    utimesSync(path, base + i * 10, base + i * 10);
  });
}
