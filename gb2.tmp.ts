import { mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { glob } from "tinyglobby";
import { spawn } from "node:child_process";
import { SKIPPED_FOLDERS } from "./plugins/tool-glob/skipped-folders";
import { findRipgrep } from "./plugins/tool-grep/rg-binary";
import { GlobTool } from "./plugins/tool-glob/index";
import { ignorePatterns, skippedFor, skippingReaddir } from "./plugins/tool-glob/skipped-folders";
const root = realpathSync(mkdtempSync(join(tmpdir(), "gb-")));
writeFileSync(join(root, ".gitignore"), "build/\n*.log\n");
for (let d = 0; d < 250; d++) { const dir = join(root, `pkg${d % 10}`, `mod${d}`); mkdirSync(dir, { recursive: true }); for (let f = 0; f < 84; f++) writeFileSync(join(dir, `file${f}${[".ts", ".js", ".md", ".json"][f % 4]}`), "x\n"); }
mkdirSync(join(root, "build")); for (let i = 0; i < 50; i++) writeFileSync(join(root, "build", `out${i}.js`), "x");
const quiet = () => {};
const ctx: any = { cwd: root, roots: [root], abortSignal: new AbortController().signal, sessionId: "b", toolUseId: "b", env: {}, logger: { debug: quiet, info: quiet, warn: quiet, error: quiet } };
const tool = new GlobTool();
const rg = (await findRipgrep())!;
function rgFiles(args: string[]): Promise<string[]> {
  return new Promise((res) => { const c = spawn(rg, args, { cwd: root, stdio: ["ignore", "pipe", "ignore"] }); let out = ""; c.stdout.setEncoding("utf8"); c.stdout.on("data", (d) => (out += d)); c.on("close", () => res(out.split("\n").filter(Boolean))); });
}
const skipGlobs = (p: string) => SKIPPED_FOLDERS.filter((f) => !p.split("/").includes(f)).flatMap((f) => ["-g", `!${f}/`]);
const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
async function cmp(fns: Record<string, () => Promise<unknown>>) { const names = Object.keys(fns); const out: Record<string, number[]> = {}; for (const n of names) { await fns[n]!(); out[n] = []; }
  for (let i = 0; i < 15; i++) for (const n of i % 2 ? [...names].reverse() : names) { const t = performance.now(); await fns[n]!(); out[n]!.push(performance.now() - t); }
  return Object.fromEntries(names.map((n) => [n, median(out[n]!)])); }
for (const pattern of ["**/*.ts", "**/*", "pkg3/**/*"]) {
  const opts = { cwd: root, onlyFiles: true, dot: true, followSymbolicLinks: false };
  const r = await cmp({
    tool: () => tool.call({ pattern }, ctx),
    same: () => glob(pattern, { ...opts, ignore: ignorePatterns(pattern) }),
    bare: () => glob(pattern, opts),
    rgStat: async () => { const files = await rgFiles(["--files", "--hidden", "--no-ignore", "--no-config", "-j1", ...skipGlobs(pattern), "-g", pattern]); const t = files.map((f) => statSync(`${root}/${f}`, { throwIfNoEntry: false })?.mtimeMs ?? 0); return files.map((_, i) => i).sort((a, b) => t[b]! - t[a]!); },
    rgSortr: () => rgFiles(["--files", "--hidden", "--no-ignore", "--no-config", ...skipGlobs(pattern), "-g", pattern, "--sortr", "modified"]),
    walkFs: () => glob(pattern, { ...opts, fs: { readdir: skippingReaddir(skippedFor(pattern)) } as any }),
  });
  console.log(pattern.padEnd(12), Object.entries(r).map(([k, v]) => `${k} ${v.toFixed(1)}`).join("  "), " tool/same", (r.tool! / r.same!).toFixed(2), " tool/bare", (r.tool! / r.bare!).toFixed(2));
}
rmSync(root, { recursive: true, force: true });
