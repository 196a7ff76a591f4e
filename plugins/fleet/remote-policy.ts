/**
 * Which remote repositories a worker clones. A job's repository is a queue writer's string, and
 * the worker clones it with its own git credentials (ssh keys, credential helpers, tokens in its
 * git config): without a limit, anyone who can write to the queue can have a private repository
 * the worker can reach checked out, worked on and shown in `fleet status --diff` and
 * `fleet logs`, or make the worker fetch from a host on its own network. `allowRepositories`
 * (`--allow-repos`) names the ones it may clone, as `host/path` patterns.
 */
import { UbiquityError, redactText, urlPasswords } from "../../src/index";

/** `host[:port]/path` of a remote repository URL (scheme, user, password and a trailing `.git` dropped); undefined for a local path. */
export function remoteName(repository: string): string | undefined {
  let host: string;
  let path: string;
  const url = /^([a-z][a-z0-9+.-]*):\/\/(?:[^@/]*@)?([^/]+)(\/.*)?$/i.exec(repository);
  const scp = /^(?:[^@/]+@)?([^:/]+):(?!\/\/)(.*)$/.exec(repository);
  if (url) {
    if (url[1]!.toLowerCase() === "file") return undefined;
    host = url[2]!;
    path = url[3] ?? "";
  } else if (scp && /@/.test(repository.split(":")[0]!)) {
    host = scp[1]!;
    path = scp[2]!;
  } else {
    return undefined;
  }
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    decoded = path;
  }
  const segments = decoded.split("/").filter(Boolean);
  const last = segments.at(-1);
  if (last?.endsWith(".git")) segments[segments.length - 1] = last.slice(0, -4);
  return [host.toLowerCase(), ...segments].join("/");
}

/** True when `pattern` (`host/path`, `*` standing for one whole segment) names `name` or a folder above it. */
export function matchesPattern(pattern: string, name: string): boolean {
  const want = pattern.replace(/\.git$/, "").split("/").filter(Boolean);
  const have = name.split("/");
  if (want.length === 0 || want.length > have.length) return false;
  return want.every((segment, i) => segment === "*" || (i === 0 ? segment.toLowerCase() === have[0] : segment === have[i]));
}

/**
 * Throw unless the worker may clone `repository`: any remote when `allowed` is unset (as before),
 * else one matching a pattern, with no `.`/`..` segment and no backslash (git would resolve them
 * to another repository than the one matched).
 */
export function checkRemote(repository: string, allowed: readonly string[] | undefined): void {
  if (allowed === undefined) return;
  const name = remoteName(repository);
  if (name === undefined) return;
  const shown = redactText(repository, urlPasswords(repository));
  const segments = name.split("/").slice(1);
  if (repository.includes("\\") || segments.some((s) => s === "." || s === "..")) {
    throw new UbiquityError(`this worker does not clone ${shown}: a repository with "." or ".." in its path (or a backslash) is refused when --allow-repos is set`);
  }
  if (allowed.some((pattern) => matchesPattern(pattern, name))) return;
  throw new UbiquityError(`this worker does not clone ${shown} (${name}): a job's remote repository must match ${allowed.join(", ")} (--allow-repos)`);
}
