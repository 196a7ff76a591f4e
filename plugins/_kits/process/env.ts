/**
 * The environment a subprocess starts with. Bash, command hooks and stdio MCP servers all build
 * their child's environment here, so the three never disagree. It is an allow-list: a variable
 * passes only when it is named below (or is in a family named below) and is not a credential;
 * everything else — `SENTRY_DSN`, `DB_PASS`, `SLACK_WEBHOOK_URL`, `GH_PAT`, whatever a name
 * pattern would miss — stays behind. The user's `env` adds what their tools need. The credential
 * predicate is the kernel's (`isCredentialName`, `urlPasswords`), the one redaction masks with.
 * Pure functions: the caller passes the parent environment (a sandbox wrapper can take the result
 * as it is).
 */
import { realpathSync } from "node:fs";
import { basename, delimiter, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { isCredentialName, urlPasswords, urlQueryValues, type SubprocessEnvMode } from "../../../src/index";
import { noteSecretForms } from "./secret-forms";
import { isPassedName, PASSED_VARIABLES } from "../env-names/index";

/** The allow-list lives in the env-names kit, which the permission engine reads without this one. */
export { isPassedName, PASSED_VARIABLES };

/**
 * True when a variable is a credential: by its name, or because its value is a URL carrying a
 * password (DATABASE_URL=postgres://app:pw@db, HTTPS_PROXY=http://me:pw@proxy).
 */
export function isCredentialVariable(name: string, value?: string): boolean {
  return isCredentialName(name) || (value !== undefined && urlPasswords(value).length > 0);
}

/** True when a subprocess does not get this variable from its parent (unless `env` names it). */
export function isScrubbedVariable(name: string, value?: string): boolean {
  return !isPassedName(name) || isCredentialVariable(name, value);
}

/**
 * `PATH` with only absolute entries: an empty or relative entry (`.`, `node_modules/.bin`, `bin`)
 * is looked up in whatever folder the command runs in, so a repository's own `ls` would run.
 */
export function absolutePath(path: string): string {
  return path
    .split(delimiter)
    .filter((dir) => dir !== "" && isAbsolute(dir))
    .join(delimiter);
}

/**
 * Folders the agent can write: the run's roots (cwd, additionalDirectories), the sandbox's
 * writable folders and workspaces, its private /tmp. Registered by the plugins that know them
 * (permissions, sandbox) for the life of the process: a folder once writable stays on the list,
 * which only ever makes a host program's PATH shorter (fail closed).
 */
const agentWritable = new Set<string>();

/** Say that the agent can write `paths` (absolute): no host program is looked up in them from now on. */
export function markAgentWritable(...paths: readonly string[]): void {
  for (const path of paths) if (isAbsolute(path)) agentWritable.add(resolve(path));
}

/** The folders registered with markAgentWritable (for tests and diagnostics). */
export function agentWritableFolders(): readonly string[] {
  return [...agentWritable];
}

/** `path` with its symlinks resolved as far as it exists (a missing tail is kept as written). */
function realish(path: string): string {
  let head = resolve(path);
  const tail: string[] = [];
  for (;;) {
    try {
      return join(realpathSync(head), ...tail);
    } catch {
      const up = dirname(head);
      if (up === head) return resolve(path);
      tail.unshift(basename(head));
      head = up;
    }
  }
}

/** True when `inner` is `outer` or inside it. */
function within(inner: string, outer: string): boolean {
  const rel = relative(outer, inner);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * True when a program in `dir` could have been put there by the agent: `dir` is (or is inside,
 * by its path or by where its links lead) the process's working folder, a folder in `writable`,
 * or one registered with markAgentWritable.
 */
export function agentCanWrite(dir: string, writable: readonly string[] = []): boolean {
  return agentWritableTest(writable)(dir);
}

/**
 * agentCanWrite for many folders at once: the roots' spellings (a `realpath` each) are found once,
 * not again for every folder asked about (every entry of `PATH`).
 */
export function agentWritableTest(writable: readonly string[] = []): (dir: string) => boolean {
  const roots = [process.cwd(), ...writable.filter((w) => isAbsolute(w)), ...agentWritable].flatMap((root) => [
    resolve(root),
    realish(root),
  ]);
  return (dir) => [resolve(dir), realish(dir)].some((s) => roots.some((r) => within(s, r)));
}

/**
 * The `PATH` of a program Ubiquity itself starts outside the sandbox: its absolute entries that
 * are not in a folder the agent can write (agentCanWrite). A sandboxed command, or a Write the
 * engine allows, can leave a `git`, `find`, `rg` or `bwrap` in the workspace; with
 * `PATH=/home/u/proj/bin:…` the host would then run it unsandboxed (red team j, J1).
 */
export function hostPath(path: string, writable: readonly string[] = []): string {
  const agentWrote = agentWritableTest(writable);
  return absolutePath(path)
    .split(delimiter)
    .filter((dir) => !agentWrote(dir))
    .join(delimiter);
}

/**
 * What a program Ubiquity starts itself gets beyond the subprocess allow-list: git's own settings
 * (`GIT_SSH_COMMAND`, `GIT_CONFIG_GLOBAL`, …), the SSH agent a clone over ssh signs in with, the
 * session bus and runtime folder a credential helper (libsecret, Git Credential Manager) reaches
 * the keyring through, and ripgrep's config file. These programs are the user's tools run for the
 * user with arguments Ubiquity chose (a clone, a checkpoint), so these capabilities pass here where
 * Bash and hooks do not get them.
 */
const HOST_PASSED = /^(?:GIT_[A-Z0-9_]+|SSH_AUTH_SOCK|DBUS_SESSION_BUS_ADDRESS|XDG_RUNTIME_DIR|RIPGREP_CONFIG_PATH)$/;

/**
 * The environment of a program Ubiquity itself starts outside the sandbox (git for checkpoints,
 * worktrees, clones and plugin installs, find, ripgrep, the sandbox's own trial runs):
 * - an allow-list like a subprocess's (isPassedName, plus HOST_PASSED), never a credential: git
 *   and its helpers never need a provider key, and a `SENTRY_DSN` no name pattern calls a secret
 *   stays behind too (secrets never reach a subprocess's environment);
 * - `PATH` made absolute and left without the folders the agent can write (hostPath; `writable`
 *   adds the caller's own, such as the folder the program runs in). A relative entry (`./bin`,
 *   `.`) is looked up in the folder the program starts in, where the repository, or a sandboxed
 *   command, can leave a `git` of its own (red team i, I4); an absolute one inside the workspace is
 *   the same place (red team j, J1).
 */
export function hostEnv(parent: NodeJS.ProcessEnv = process.env, writable: readonly string[] = []): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined || isCredentialVariable(name, value)) continue;
    if (isPassedName(name) || HOST_PASSED.test(name)) out[name] = value;
  }
  if (out.PATH !== undefined) out.PATH = hostPath(out.PATH, writable);
  return out;
}

/** The run options that shape a subprocess's environment. */
export interface SubprocessEnvOptions {
  /** Variables every subprocess gets; they win over the parent's and are never scrubbed. */
  env?: Readonly<Record<string, string>>;
  /** ["scrubbed"] */
  subprocessEnv?: SubprocessEnvMode;
}

/**
 * The environment a subprocess starts with: the parent's allow-listed, non-credential variables
 * (all of them when `subprocessEnv` is "inherit" and `inherit` is not turned off by the caller),
 * then `options.env`, then `add` (a server's own `env`, a hook's project-dir variables). `PATH`
 * never keeps a relative entry, whoever set it.
 */
export function buildSubprocessEnv(
  options: SubprocessEnvOptions,
  {
    parent = process.env,
    add = [],
    inherit = options.subprocessEnv === "inherit",
  }: {
    parent?: Readonly<Record<string, string | undefined>>;
    add?: readonly (Readonly<Record<string, string>> | undefined)[];
    inherit?: boolean;
  } = {},
): Record<string, string> {
  const out: Record<string, string> = {};
  noteProcessHeaderLists(parent);
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    if (!inherit && isScrubbedVariable(name, value)) continue;
    out[name] = value;
  }
  // Every layer is judged, a server's own `env` as the run's: `{ ...process.env, API_KEY }` in an
  // MCP server's config is the same copy (red team zj, ZJ1).
  for (const given of [options.env, ...add]) {
    if (!given) continue;
    const layer = inherit ? given : withoutParentCopy(given, parent);
    Object.assign(out, layer);
    noteEnvSecrets(layer);
  }
  for (const name of Object.keys(out)) if (name.toUpperCase() === "PATH") out[name] = absolutePath(out[name]!);
  return out;
}

/**
 * The variables of this process's environment that `env` holds only because it is a copy of it:
 * the Claude Agent SDK's `env: { ...process.env, APP: "x" }` (that SDK's `env` replaces the
 * environment, and its docs spread `process.env` into it). Here `env` is added on top of the
 * allow-list and wins, so such a copy handed every provider key and token to Bash, hooks and
 * servers. `env` is a copy when it holds at least half of `parent`'s variables with the same
 * value, three at least (the two a hook's layer adds, its project folder, are never one): a spread
 * with a variable changed (`{ ...process.env, PATH: \`/opt/bin:…\` }`), left out or filtered is as
 * much a copy as a whole one (red team zj, ZJ1). The answer is the variables the allow-list keeps
 * back that it holds with the parent's value (one it sets to another value it means), credentials
 * first; `[]` when it is no copy (an `env` listing a token by name holds far less than half the
 * environment).
 */
export function copiedParentVariables(
  env: Readonly<Record<string, string | undefined>>,
  parent: Readonly<Record<string, string | undefined>> = process.env,
): string[] {
  // Against this process's environment, decided once per `env` object (the run's, from its first
  // subprocess or its start): a variable the program sets later must not turn a copy into a list.
  const own = parent === process.env;
  const known = own ? copiesOfProcessEnv.get(env) : undefined;
  if (known) return known;
  const entries = Object.entries(parent).filter((e): e is [string, string] => e[1] !== undefined);
  const same = entries.filter(([name, value]) => env[name] === value);
  const copied =
    same.length >= 3 && same.length * 2 >= entries.length
      ? same
          .filter(([name, value]) => isScrubbedVariable(name, value))
          // Credentials first: they are why a copy is not passed whole, and the warnings name the first few.
          .sort(([a, x], [b, y]) => Number(isCredentialVariable(b, y)) - Number(isCredentialVariable(a, x)))
          .map(([name]) => name)
      : [];
  if (own) copiesOfProcessEnv.set(env, copied);
  return copied;
}

/** copiedParentVariables' answers for `process.env`, by the `env` object asked about. */
const copiesOfProcessEnv = new WeakMap<object, string[]>();

/** `env` without the variables it holds only as a copy of `parent` (copiedParentVariables): the allow-list judges those. */
function withoutParentCopy(
  env: Readonly<Record<string, string>>,
  parent: Readonly<Record<string, string | undefined>>,
): Readonly<Record<string, string>> {
  const copied = copiedParentVariables(env, parent);
  if (copied.length === 0) return env;
  const out = { ...env };
  for (const name of copied) delete out[name];
  return out;
}

/**
 * Register as secrets the values of an environment the configuration hands programs (the run's
 * `env`, a server's) that may be credentials (see `mayBeCredential`). Called when the options are
 * resolved, not only when a program starts: a value learned at the first Bash call was shown
 * unmasked until then — the model's Read of the config that holds it printed it in the stream and
 * the transcript, and the same Read after one Bash call showed `[redacted]` (red team zh, ZH6).
 */
export function noteEnvSecrets(env: Readonly<Record<string, string | undefined>> | undefined): void {
  for (const [name, value] of Object.entries(env ?? {})) {
    if (value === undefined) continue;
    // Named a credential: whatever its shape (a 13-character password, a passphrase of words).
    if (mayBeCredential(value) || isCredentialSpelling(name)) noteSecretForms(value);
    // Each header of a header list (`k=v,k2=v2` as OpenTelemetry writes it, `Name: value` lines as
    // Claude Code's ANTHROPIC_CUSTOM_HEADERS): shown alone, it is masked too — and as the program
    // sends and logs it, percent-decoded (OpenTelemetry's values are: `Bearer%20…`; red team zq, ZQ2).
    if (/(?:^|_)HEADERS$/i.test(name))
      for (const header of value.split(/[,\n]/)) headerSecrets(/[=:](.*)$/s.exec(header)?.[1]?.trim());
    // A key as a URL's user (Sentry's DSN `https://<key>@o1.ingest.sentry.io/2`): its password and
    // query values are the kernel's already.
    const user = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#@:\s]+)(?::[^/?#@\s]*)?@/.exec(value)?.[1];
    if (user !== undefined && mayBeCredential(user)) noteSecretForms(user);
  }
}

/**
 * Register the header lists of this process's own environment (`OTEL_EXPORTER_OTLP_HEADERS` set for
 * Claude Code's telemetry): no subprocess gets them, but an unsandboxed command reading
 * `/proc/<pid>/environ` printed them unmasked while the provider keys beside them were masked
 * (red team zq, ZQ7). Registered as the run's `env`'s are: whole, and header by header.
 */
export function noteProcessHeaderLists(env: Readonly<Record<string, string | undefined>> = process.env): void {
  const lists: Record<string, string | undefined> = {};
  for (const name of Object.keys(env)) if (/(?:^|_)HEADERS$/i.test(name)) lists[name] = env[name];
  noteEnvSecrets(lists);
}

/** Register a header's value, and its percent-decoded form when that differs (`Bearer%20abc` is sent as `Bearer abc`). */
function headerSecrets(value: string | undefined): void {
  noteSecretForms(value);
  if (value === undefined || !value.includes("%")) return;
  try {
    noteSecretForms(decodeURIComponent(value));
  } catch {
    // Not percent-encoding (a lone `%`): the value is what is sent.
  }
}

/** Name segments of a credential that the kernel's names leave out (see `isCredentialSpelling`). */
const SHORT_CREDENTIAL = /(?:^|_)(?:PASS|PWD|PAT|DSN|COOKIE|HEADERS)(?:_|$)/;

/**
 * Whether a variable of an environment the configuration hands programs is named as a credential:
 * the kernel's names (`isCredentialName`: API_KEY, TOKEN, SECRET, PASSWORD, …) or the short
 * spellings configs use as often — `DB_PASS`, `SMTP_PASS`, `DB_PWD`, `GH_PAT`, `SENTRY_DSN`,
 * `SESSION_COOKIE`. Its value was masked only when it looked like a key (16 characters or more,
 * letters and digits), so `SMTP_PASS=Sup3rS3cret!x` and a passphrase of words came back from
 * `printenv` unmasked (red team zl, ZL5). `PWD` and `OLDPWD` alone are the shell's folders.
 * A list of request headers (`OTEL_EXPORTER_OTLP_HEADERS="Authorization=Bearer …"`,
 * `ANTHROPIC_CUSTOM_HEADERS`) carries an exporter's or a gateway's credential as often as not.
 */
export function isCredentialSpelling(name: string): boolean {
  const upper = name.toUpperCase();
  if (upper === "PWD" || upper === "OLDPWD") return false;
  return isCredentialName(name) || SHORT_CREDENTIAL.test(upper);
}

/**
 * Register as secrets the values a program's command line hands it after an option (`--api-key
 * KEY`, `--token=KEY`, `--header "Authorization: Bearer KEY"`) that may be credentials (see
 * `mayBeCredential`): an MCP server configured `npx -y some-server --api-key KEY` echoed KEY on
 * stderr into the run's messages (red team zc, ZC6).
 */
export function noteArgumentSecrets(args: readonly string[]): void {
  const note = (option: string, value: string) => {
    // A header option's value after its name (`Authorization: Bearer KEY`), as a header's is.
    const header = /^(?:-H|--?headers?)$/i.test(option) ? /^[A-Za-z][\w-]*:\s*(.+)$/s.exec(value)?.[1] : undefined;
    if (header !== undefined) noteSecretForms(header);
    else if (mayBeCredential(value)) noteSecretForms(value);
  };
  args.forEach((arg, i) => {
    const glued = /^(-[^=]*)=(.*)$/s.exec(arg);
    if (glued) note(glued[1]!, glued[2]!);
    const previous = args[i - 1];
    if (previous !== undefined && /^-[^=]*$/.test(previous)) note(previous, arg);
  });
}

/**
 * Registers as secrets what of a configured endpoint's URL (a remote MCP server's, an HTTP hook's,
 * a search backend's) may be a credential: its password, its query values, and each part of its
 * path and host name that may be one (mayBeCredential), raw and percent-decoded. Services put the
 * key in the path as often as in the query (Zapier's `/mcp/sk-ak-…/sse`, Pipedream's
 * `/<uuid>/gmail`, Slack's `/services/T…/B…/<secret>` webhooks), and a server's error echoes its
 * request line: `Cannot POST /mcp/sk-ak-…/sse` showed in the run's init message, its warnings and
 * the log while a query's `?key=` was masked (red team zf, ZF3).
 */
export function noteUrlSecrets(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return; // not a URL: nothing is sent to it
  }
  for (const value of [...urlPasswords(url), ...urlQueryValues(url)]) noteSecretForms(value);
  const parts = [...parsed.pathname.split("/"), ...parsed.hostname.split("."), parsed.username];
  for (const raw of parts) {
    let decoded = raw;
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      // not percent-encoded
    }
    for (const value of new Set([raw, decoded])) if (mayBeCredential(value)) noteSecretForms(value);
  }
}

/**
 * Whether a value the configuration hands a program (the run's `env`, a server's or a hook's own)
 * may be a credential, whatever its variable's name: one word of 16 characters or more, with
 * letters and digits, that is no path, no URL and no option (a URL's password and query values are masked
 * by their own rule). Such a value is masked wherever it shows up, as a header's value is: an
 * MCP server's `MYTOK`, `GH_PAT` or `AZURE_DEVOPS_EXT_PAT` was echoed unmasked in its failure, the
 * run's init message, the warnings and the log, while `API_TOKEN` was masked (red team zc, ZC6).
 */
export function mayBeCredential(value: string): boolean {
  return (
    value.length >= 16 &&
    !/\s/.test(value) &&
    /[A-Za-z]/.test(value) &&
    /\d/.test(value) &&
    // A path, a URL, or options for a program (`--max-old-space-size=4096` in NODE_OPTIONS).
    !/^(?:[/~-]|\.\.?\/|[A-Za-z][A-Za-z0-9+.-]*:\/\/)/.test(value) &&
    !value.includes(`${delimiter}/`)
  );
}
