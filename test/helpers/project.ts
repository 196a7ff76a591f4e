/** Temporary projects on disk and the real `ubiquity` bin, for config and CLI tests. */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
export const binPath = join(repoRoot, "bin", "ubiquity.mjs");
const made: string[] = [];

/** Write `files` (path → content) into a fresh temp folder; returns its real path. */
export function tempProject(
  files: Record<string, string>,
  {
    packageJson = { name: "tmp-project", private: true, type: "module" },
    linkUbiquity = false,
  }: { packageJson?: object | false; linkUbiquity?: boolean } = {},
): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "ubiquity-test-")));
  made.push(dir);
  if (packageJson) writeFileSync(join(dir, "package.json"), JSON.stringify(packageJson, null, 2));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  if (linkUbiquity) {
    // What `npm i ubiquity` gives a user, minus the copy: `ubiquity` resolves to this repo's dist/.
    mkdirSync(join(dir, "node_modules"), { recursive: true });
    symlinkSync(repoRoot, join(dir, "node_modules", "ubiquity"), "dir");
  }
  return dir;
}

/** Remove every temp project made so far (call from afterAll). */
export function removeTempProjects(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Fail with a clear message when the build the bin (and `import "ubiquity"`) needs is missing. */
export function requireDist(): void {
  if (
    !existsSync(join(repoRoot, "dist", "runner", "cli.mjs")) ||
    !existsSync(join(repoRoot, "dist", "sdk", "index.mjs"))
  ) {
    throw new Error(
      "dist/ is missing: these tests run the built package. Run `npm run build` first (`npm test` does it in pretest).",
    );
  }
}

/** The outcome of one CLI run. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** What the child gets on stdin: text (then the end), nothing (the end at once) [default], or a pipe left open and idle. */
export interface CliInput {
  input?: string;
  /** Keep stdin an open, idle pipe (what a CI job often gives a process). */
  keepStdinOpen?: boolean;
}

/**
 * Run the real bin with the Node running the tests (Node 24 from the repo's pinned devDependency).
 * The temp projects these tests make are trusted (`UBIQUITY_TRUST=1`): they test what a config
 * does. The trust tests (test/security) pass `UBIQUITY_TRUST: ""` and a temp HOME. Stdin is
 * closed at once unless `input` or `keepStdinOpen` says otherwise.
 */
export function runCli(
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
  stdin: CliInput = {},
): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [binPath, ...args],
      { cwd, env: { ...process.env, DEBUG: "", NO_COLOR: "1", UBIQUITY_TRUST: "1", ...env }, timeout: 240_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    if (stdin.keepStdinOpen) return;
    child.stdin?.end(stdin.input ?? "");
  });
}

/** The messages of a `--output-format stream-json` run's stdout, one per line. */
export function streamMessages(stdout: string) {
  return stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}
