/**
 * Which remote repositories a worker clones. A job's repository is a queue writer's string, and
 * the worker clones it with its own git credentials (ssh keys, credential helpers, tokens in its
 * git config): without a limit, anyone who can write to the queue can have a private repository
 * the worker can reach checked out, worked on and shown in `fleet status --diff` and
 * `fleet logs`, or make the worker fetch from a host on its own network. `allowRepositories`
 * (`--allow-repos`) names the ones it may clone, as `host/path` patterns.
 */
import { UbiquityError, redactText, urlPasswords } from "../../src/index";

/** A URL (`scheme://…`); `file://` is one too, but a local one. */
const URL_FORM = /^[a-z][a-z0-9+.-]*:\/\//i;
/** scp-like `user@host:path`: nothing before the host's colon but a user without `/`, `:` or `@` (else git reads a local path, or another host). */
const SCP_FORM = /^[^@/:]+@[^@/:]+:/;

/**
 * True when git reads `repository` as a remote repository (a URL other than file://, or
 * scp-like `user@host:path`): the one test the allow-list, --allow-cwd and the checkout share,
 * so a string is never a local path to one and a remote to another.
 */
export function isRemote(repository: string): boolean {
  return (URL_FORM.test(repository) && !/^file:/i.test(repository)) || SCP_FORM.test(repository);
}

/** A URL decoded the way git decodes one (every %XX but %00, bytes as UTF-8; `+` stays). */
export function gitUrlDecode(text: string): string {
  if (!text.includes("%")) return text;
  const bytes = Buffer.from(text, "utf8").toString("latin1");
  return Buffer.from(
    bytes.replace(/%([0-9a-f]{2})/gi, (all, hex: string) =>
      hex === "00" ? all : String.fromCharCode(parseInt(hex, 16)),
    ),
    "latin1",
  ).toString("utf8");
}

/** The local path git reads in a file:// URL: the URL decoded first, then the host segment dropped. */
export function fileUrlPath(repository: string): string {
  return gitUrlDecode(repository).replace(/^file:\/\/[^/]*/i, "") || "/";
}

/** A host as a name or a bracketed IPv6 address, with an optional port. */
const HOST = /^(?:[a-z0-9][a-z0-9_.-]*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;
/** A URL's user and password: no `%` (git decodes the URL before it finds the host), `#`, `?`, brackets. */
const USERINFO = /^[a-z0-9._~!$&'()*+,;=:-]*$/i;

/**
 * `host[:port]/path` of a remote repository (scheme, user, password and a trailing `.git`
 * dropped); undefined for a local path, and for a remote whose host git could read otherwise
 * than this does (control characters or whitespace, `?`, `#`, `%` or more than one `@` before
 * the path, an empty host, brackets in an scp-like string).
 */
export function remoteName(repository: string): string | undefined {
  if (!isRemote(repository) || /[\0-\x20\x7f?#]/.test(repository)) return undefined;
  let host: string;
  let path: string;
  const url = /^[a-z][a-z0-9+.-]*:\/\/(?:([^@/]*)@)?([^@/]*)(\/.*)?$/is.exec(repository);
  const scp = /^[^@/:[\]]+@([a-z0-9][a-z0-9_.-]*):([^[\]]*)$/is.exec(repository);
  if (url) {
    if ((url[1] !== undefined && !USERINFO.test(url[1])) || !HOST.test(url[2]!)) return undefined;
    host = url[2]!;
    // git (git://, ssh://) and the server (http) decode a URL's path once.
    path = gitUrlDecode(url[3] ?? "");
  } else if (scp) {
    host = scp[1]!;
    // An scp-like path goes to the server as written.
    path = scp[2]!;
  } else {
    return undefined;
  }
  if (/[\0-\x1f\x7f\\]/.test(path)) return undefined;
  const segments = path.split("/").filter(Boolean);
  const last = segments.at(-1);
  if (last?.endsWith(".git")) segments[segments.length - 1] = last.slice(0, -4);
  return [host.toLowerCase(), ...segments].join("/");
}

/** True when `pattern` (`host/path`, `*` standing for one whole segment) names `name` or a folder above it. */
export function matchesPattern(pattern: string, name: string): boolean {
  const want = pattern
    .replace(/\.git$/, "")
    .split("/")
    .filter(Boolean);
  const have = name.split("/");
  if (want.length === 0 || want.length > have.length) return false;
  return want.every(
    (segment, i) => segment === "*" || (i === 0 ? segment.toLowerCase() === have[0] : segment === have[i]),
  );
}

/**
 * Throw unless the worker may clone `repository`: any remote when `allowed` is unset (as before),
 * else one matching a pattern, with no `.`/`..` segment and no backslash (git would resolve them
 * to another repository than the one matched).
 */
export function checkRemote(repository: string, allowed: readonly string[] | undefined): void {
  if (allowed === undefined || !isRemote(repository)) return;
  const name = remoteName(repository);
  const shown = redactText(repository, urlPasswords(repository));
  if (name === undefined) {
    throw new UbiquityError(
      `this worker does not clone ${JSON.stringify(shown)}: with --allow-repos set, a remote repository is a plain URL or user@host:path ` +
        `(no whitespace or control characters, ?, #, %-escapes or a second @ before the path, brackets only around an IPv6 host), so git reads the host the list was checked against`,
    );
  }
  const segments = name.split("/").slice(1);
  if (repository.includes("\\") || segments.some((s) => s === "." || s === "..")) {
    throw new UbiquityError(
      `this worker does not clone ${shown}: a repository with "." or ".." in its path (or a backslash) is refused when --allow-repos is set`,
    );
  }
  if (allowed.some((pattern) => matchesPattern(pattern, name))) return;
  throw new UbiquityError(
    `this worker does not clone ${shown} (${name}): a job's remote repository must match ${allowed.join(", ")} (--allow-repos; allowRepositories in startWorker())`,
  );
}
