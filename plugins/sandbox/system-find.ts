/**
 * The system's folders read by find(1) for privateSystemPaths (secrets.ts): which of their entries
 * not everyone may read. The same rules as the walk in Node, and its stats done in C: on a machine
 * with ~12,000 entries under /etc, /var, /opt and /usr/local, ~35 ms of CPU (most of it the
 * kernel's) against ~125 ms for the Node walk in a fresh process (a `ubiquity run`), whose code
 * runs cold for each of its thousands of stats (bench/suite-time.md, 2026-12-07 evening).
 *
 * find only narrows: it prints the candidates (a folder not everyone may list, a sticky folder
 * everyone may write, a file not everyone may read, a file with a secret's name), a superset of
 * what the rules hide; each is judged again by the caller with its own stat. Anything short of a
 * clean run (no find, an error on any folder, a signal, a timeout, too much output) gives
 * undefined, and the Node walk reads the folders instead (fail closed).
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

/** Where find is looked for: the system's own, never one on PATH (a writable folder may be on it). */
const FIND_PROGRAMS = ["/usr/bin/find", "/bin/find"] as const;

/** The system's find, when it has one. */
export function systemFind(): string | undefined {
  return FIND_PROGRAMS.find((p) => existsSync(p));
}

/**
 * SYSTEM_SECRET_NAME's names as find's `-name` patterns. A superset: a pattern's `*` also matches a
 * line break, which the expression's `.` does not; the caller tests each name with the expression.
 */
export const SYSTEM_SECRET_GLOBS = [
  ".env",
  ".env.*",
  "id_rsa",
  "id_ed25519",
  "id_ecdsa",
  "id_dsa",
  "?*.key",
  ".npmrc",
  ".pypirc",
  ".netrc",
  ".git-credentials",
  ".pgpass",
] as const;

/** A path as a `-path` pattern that matches only itself (fnmatch's special characters escaped). */
const literal = (path: string) => path.replace(/[\\*?[\]]/g, "\\$&");

/** `-o`-joined primaries: `a -o b -o c`. */
const either = (primary: string, values: readonly string[]) =>
  values.flatMap((v, i) => [...(i > 0 ? ["-o"] : []), primary, v]);

/** find's arguments for `findCandidates`; undefined when a root is not absolute (it would be read as an expression). */
function findArgs(roots: readonly string[], skip: readonly string[]): string[] | undefined {
  if (!roots.every((r) => r.startsWith("/"))) return undefined;
  return [
    // Each root is a path, never an option or an expression (absolute: it starts with "/").
    ...roots,
    "-mindepth",
    "1",
    // A folder not everyone may list and search, or a sticky one everyone may write: printed, not
    // entered. Before the skipped ones, as the walk in Node judges a folder (a skipped scratch folder
    // is still laid over, then the run's own folder bound on it; a private one is not hidden).
    ...["-type", "d", "(", "!", "-perm", "-005", "-o", "-perm", "-1002", ")", "-print0", "-prune", "-o"],
    ...(skip.length > 0 ? ["(", ...either("-path", skip.map(literal)), ")", "-prune", "-o"] : []),
    ...["-type", "f", "(", "!", "-perm", "-004", "-o", ...either("-name", SYSTEM_SECRET_GLOBS), ")", "-print0"],
  ];
}

/** How find ended and what it printed. */
interface FindRun {
  failed: boolean;
  stdout: Buffer;
  stderr: Buffer;
}

/** The candidates find printed, or undefined when it did not run cleanly. */
function candidatesOf(run: FindRun): string[] | undefined {
  // find says a folder it could not read, or an entry gone between its listing and its stat, on
  // stderr and exits 1: what it did not read is not known.
  if (run.failed || run.stderr.length > 0) return undefined;
  const out = run.stdout.toString("utf8");
  // A name that is not UTF-8 would be judged at another path: the Node walk reads the folders then.
  if (!Buffer.from(out, "utf8").equals(run.stdout)) return undefined;
  return out.split("\0").filter((p) => p !== "");
}

const FIND_OPTIONS = { env: { LC_ALL: "C" }, stdio: ["ignore", "pipe", "pipe"] as ["ignore", "pipe", "pipe"] };
const FIND_MAX_OUTPUT = 64 * 1024 * 1024;

/**
 * The candidates below `roots` (not the roots themselves), `skip`'s folders not entered, links
 * not followed; undefined when find did not run cleanly.
 */
export function findCandidates(
  program: string,
  roots: readonly string[],
  skip: readonly string[],
  timeoutMs: number,
): string[] | undefined {
  if (roots.length === 0) return [];
  const args = findArgs(roots, skip);
  if (!args) return undefined;
  const result = spawnSync(program, args, { ...FIND_OPTIONS, timeout: timeoutMs, maxBuffer: FIND_MAX_OUTPUT });
  return candidatesOf({
    failed: !!result.error || result.status !== 0 || !!result.signal,
    stdout: result.stdout,
    stderr: result.stderr,
  });
}

/**
 * findCandidates without blocking: the same find, the same reading of what it printed, while the
 * process goes on (the sandbox's warm-up runs it as the model writes its first command). `signal`
 * ends it (the run ended first): undefined then, as for any run that was not clean.
 */
export function findCandidatesAsync(
  program: string,
  roots: readonly string[],
  skip: readonly string[],
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<string[] | undefined> {
  if (roots.length === 0) return Promise.resolve([]);
  const args = findArgs(roots, skip);
  if (!args || signal?.aborted) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const child = spawn(program, args, { ...FIND_OPTIONS, timeout: timeoutMs, signal });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    let failed = false;
    child.stdout.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > FIND_MAX_OUTPUT) {
        failed = true;
        child.kill("SIGKILL");
      } else out.push(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.on("error", () => {
      failed = true;
    });
    // Ended by its bound or the signal: not clean, whatever a process it started still holds open.
    child.on("exit", (_code, sig) => {
      if (sig === null && !failed) return;
      child.stdout.destroy();
      child.stderr.destroy();
      resolve(undefined);
    });
    child.on("close", (code, sig) =>
      resolve(
        candidatesOf({
          failed: failed || code !== 0 || sig !== null,
          stdout: Buffer.concat(out),
          stderr: Buffer.concat(err),
        }),
      ),
    );
  });
}
