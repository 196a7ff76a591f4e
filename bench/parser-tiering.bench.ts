/**
 * The bash grammar's wasm with V8's default tiering against the tier-up the permission engine
 * holds back (plugins/permissions/shell/parser.ts): a child process parses 1,000 compound
 * commands, waits 1.5 s (tier-up runs in the background) and exits; its wall time, CPU and peak
 * RSS (/usr/bin/time) are compared, alternating.
 */
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";

const CHILD = `
import { setFlagsFromString } from "node:v8";
if (process.argv[1] === "held") setFlagsFromString("--wasm-tier-up-filter=1000000000");
const { Language, Parser } = await import(${JSON.stringify("web-tree-sitter")});
await Parser.init();
const p = new Parser();
p.setLanguage(await Language.load(process.argv[2]));
const cmds = ["git status", "git -C sub log --oneline -n 5 | head -3 && git diff --stat HEAD~1 -- src/ || echo none", "for f in $(ls *.ts); do echo \\"$f\\"; done", "cd x && make -j4 CFLAGS='-O2' all > log.txt 2>&1; echo $?", "if [ -f a ]; then x=$(( 1 + 2 )); fi; case $x in a|b) echo \${x:-d};; esac"];
for (let i = 0; i < 1000; i++) p.parse(cmds[i % cmds.length]).delete();
// Tier-up runs in the background: wait for it, so the peak counts it.
await new Promise((r) => setTimeout(r, 1500));
`;

export default async function bench(): Promise<void> {
  const grammar = createRequire(import.meta.url).resolve("tree-sitter-bash/tree-sitter-bash.wasm");
  for (let round = 1; round <= 3; round++) {
    const line: string[] = [];
    for (const mode of ["default", "held"]) {
      const started = performance.now();
      // /usr/bin/time reports the child's own peak RSS.
      const run = spawnSync(
        "/usr/bin/time",
        ["-f", "%U %M", process.execPath, "--input-type=module", "-e", CHILD, mode, grammar],
        { encoding: "utf8", cwd: process.cwd() },
      );
      const wall = (performance.now() - started) / 1000;
      const [user, kb] = run.stderr.trim().split("\n").at(-1)!.split(" ");
      line.push(`${mode} ${wall.toFixed(2)} s wall, ${user} s user, ${Math.round(Number(kb) / 1024)} MB peak`);
    }
    console.log(`round ${round}: ${line.join(" | ")}`);
  }
}
