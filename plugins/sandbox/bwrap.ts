/**
 * The bubblewrap command line for one sandboxed process. Mount order matters (later binds win
 * over earlier ones): the system's folders read-only (SYSTEM_ROOTS; nothing else of / is shown),
 * private /tmp and /run, the writable folders,
 * then on top of them the protected paths read-only and the secrets unreadable.
 */
import { existsSync, readlinkSync, realpathSync } from "node:fs";
import type { NetworkPolicy } from "./config";
import type { RootLayout } from "./protect";
import { BLOCK_FD, INFO_FD, PROXY_PORT, SYNC_FD } from "./bridge";
import { FILTER_FD } from "./seccomp";
import { BASH_FLAGS } from "./pin";

/** Everything that shapes one sandbox. */
export interface Profile {
  /** Writable folders that exist. */
  writable: string[];
  /**
   * How each writable folder and each pinned git folder is bound: the descriptor bwrap gets it
   * on, and the folder's real path (see pin.ts). A path without one is not bound (fail closed).
   */
  byFd: ReadonlyMap<string, { fd: number; check: number; dest: string }>;
  layouts: RootLayout[];
  /** Files of the writable folders with other names (hard links), and folders holding many: read-only (link-walk.ts). */
  linked?: string[];
  /** Existing paths made unreadable; a `scratch` folder (`/var/tmp`) is replaced with a private empty one instead. */
  secrets: { path: string; dir: boolean; scratch?: true }[];
  /** Paths readable again inside a secret folder. */
  allowRead: string[];
  /** Host folder bound at /tmp (lives as long as the run). */
  privateTmp: string;
  /** Read-only empty folder standing in for missing protected folders. */
  emptyDir: string;
  /** Mode-000 file and folder laid over secrets. */
  unreadableFile: string;
  unreadableDir: string;
  network: NetworkPolicy;
  home: string;
  /** Paths of the home folder that stay readable (the rest is hidden); undefined: the whole home stays. */
  homeReadable?: string[];
  /** Files bound read-only over a path of the hidden home (a filtered git config). */
  homeStandIns?: { source: string; path: string }[];
  /** Folders under the real /tmp that stay visible, read-only, over the private /tmp: the program's own files. */
  programRoots?: string[];
  /** The seccomp filter is open on FILTER_FD for bwrap to apply (the machine has one). */
  seccomp?: boolean;
}

const under = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);

/**
 * The folders of / a sandboxed command sees, read-only, where they exist: the system's programs,
 * libraries and their configuration. The rest of / is not shown (fail closed, red team u): other
 * users' homes, /srv, /mnt, /media, a data disk, other projects and their .env files. What a
 * spawn runs from elsewhere is shown by its own folder (`programRootsOf`), the PATH's folders by
 * theirs (`pathRoots`); the run's own folders are bound as they always were.
 */
export const SYSTEM_ROOTS = [
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/etc",
  "/opt",
  "/var",
  "/sys",
  "/nix",
  "/snap",
  "/gnu",
];
const isSystem = (path: string) => SYSTEM_ROOTS.some((root) => under(path, root));

/** The folders that hold the PATH's folders outside the system's, /tmp and the home (`/home/linuxbrew`, another checkout's `node_modules/.bin`): shown read-only. */
export function pathRoots(path: string | undefined, home: string | undefined): string[] {
  const roots = new Set<string>();
  for (const dir of (path ?? "").split(":")) {
    // Under /tmp: the private /tmp stands there, as it always did for the PATH's folders.
    if (!dir.startsWith("/") || isSystem(dir) || under(dir, "/tmp") || !existsSync(dir)) continue;
    const root = rootBesideHome(dir, home);
    if (root) roots.add(root);
  }
  return [...roots];
}
/** What separates the paths a shell command's text names (quotes, `=`, operators). */
const SHELL_SEPARATORS = /[\s'"=:;|&()<>]+/;

/**
 * The folders directly under /tmp that hold the program a spawn starts (its command, resolved on
 * PATH, and the existing absolute paths among its arguments, symlinks followed): a server or
 * hook installed under /tmp must still find its own files behind the private /tmp. When that
 * folder holds the home folder (HOME=/tmp/t/home, the server in /tmp/t/node_modules), the
 * outermost folder on the way to the program that does not hold the home stands in for it
 * (/tmp/t/node_modules): binding /tmp/t would show the hidden home, and leaving the program out
 * made it fail with "Cannot find module". A program inside the home is the home's business
 * (`homeRootsNamed`). `named`: also the paths inside the arguments' text, as `homeRootsNamed` reads
 * them — for the user's own hook, whose command is one shell string (`"/tmp/sp/hooks/run-hook.cmd"
 * session-start`: a plugin cloned under /tmp found none of its files); never for the model's Bash,
 * nor for a server, whose arguments are a list (a path inside its `-e` code stays its own business).
 */
export function programRootsOf(
  command: string,
  args: readonly string[],
  path: string | undefined,
  home?: string,
  named = false,
): string[] {
  const candidates = [
    command.includes("/")
      ? command
      : (path ?? "")
          .split(":")
          .filter(Boolean)
          .map((d) => `${d}/${command}`)
          .find((p) => existsSync(p)),
    ...args.filter((a) => a.startsWith("/")),
    ...(named ? args.flatMap((a) => a.split(SHELL_SEPARATORS)).filter((w) => w.startsWith("/")) : []),
  ];
  const roots = new Set<string>();
  for (const candidate of candidates) {
    if (!candidate || !existsSync(candidate)) continue;
    for (const p of [candidate, realpathOrSelf(candidate)]) {
      const root = rootBesideHome(p, home);
      if (root) roots.add(root);
    }
  }
  return [...roots];
}

/**
 * The outermost folder two levels down or deeper on the way to `path` (`/tmp/x`, `/srv/app`) that
 * does not hold `home`; undefined when `path` is in the home, in the system's folders (shown
 * anyway), in the sandbox's own /dev, /proc or /run, or at the top of /.
 */
function rootBesideHome(path: string, home: string | undefined): string | undefined {
  const parts = path.split("/").filter(Boolean);
  if (isSystem(path) || parts.length < 2 || (home !== undefined && under(path, home))) return undefined;
  // The sandbox's own /dev, /proc and /run stand there (`2>/dev/null` in a hook's text names no program).
  if (parts[0] === "dev" || parts[0] === "proc" || parts[0] === "run") return undefined;
  for (let n = 2; n <= parts.length; n++) {
    const folder = `/${parts.slice(0, n).join("/")}`;
    if (home === undefined || !under(home, folder)) return folder;
  }
  return undefined;
}

/**
 * The folders of the home folder a spawn names (its program, a script among its arguments, a
 * path inside a hook's shell command): they stay readable behind the hidden home. The folder
 * directly under home (two levels under `.config`, `.local`), never one that holds credentials.
 */
export function homeRootsNamed(
  command: string,
  args: readonly string[],
  home: string,
  secret: readonly string[],
): string[] {
  const roots = new Set<string>();
  const words = [command, ...args.flatMap((a) => a.split(SHELL_SEPARATORS))];
  for (const word of words) {
    const rel = word.startsWith(`${home}/`)
      ? word.slice(home.length + 1)
      : word.startsWith("~/")
        ? word.slice(2)
        : word.startsWith("$HOME/")
          ? word.slice(6)
          : undefined;
    if (!rel) continue;
    const parts = rel.split("/").filter((p) => p && p !== "." && p !== "..");
    const plugin = installedPlugin(parts, home);
    if (plugin) {
      roots.add(plugin);
      continue;
    }
    const depth =
      parts[0] === ".local" && parts[1] === "share" ? 3 : parts[0] === ".config" || parts[0] === ".local" ? 2 : 1;
    if (parts.length <= depth - 1 || parts.length === 0) continue;
    const top = parts.slice(0, depth).join("/");
    if (secret.some((s) => s === top || s.startsWith(`${top}/`) || top.startsWith(`${s}/`))) continue;
    roots.add(`${home}/${top}`);
  }
  return [...roots];
}

/**
 * A plugin `ubiquity plugin add` put in `~/.ubiquity/plugins/<name>` (a git clone, a marketplace
 * entry's copy), named by a hook's command: its own folder, read-only, though the rest of
 * `~/.ubiquity` stays hidden (its scripts failed with "Permission denied"). Only a real folder
 * there: a link could lead anywhere.
 */
function installedPlugin(parts: readonly string[], home: string): string | undefined {
  if (parts[0] !== ".ubiquity" || parts[1] !== "plugins" || parts.length < 3) return undefined;
  const folder = `${home}/.ubiquity/plugins/${parts[2]}`;
  const real = realpathOrSelf(folder);
  return existsSync(folder) && real === `${realpathOrSelf(home)}/.ubiquity/plugins/${parts[2]}` ? folder : undefined;
}

/** Where the link at `path` leads (`/bin` → `usr/bin` on a merged /usr), or undefined when it is no link. */
function linkAt(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

function realpathOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/**
 * bwrap's arguments up to (not including) `--`; `checks` gets each folder bound by descriptor,
 * where, and the descriptor the check inside has it on.
 */
export function bwrapArgs(profile: Profile, cwd: string, checks: { dest: string; fd: number }[] = []): string[] {
  const args = ["--die-with-parent", "--new-session", "--unshare-all", "--cap-drop", "ALL"];
  if (profile.seccomp) args.push("--seccomp", String(FILTER_FD));
  if (profile.network.mode === "all") args.push("--share-net");
  // The proxy's bridge learns the sandbox's PID, and its lifetime, from these (bridge.ts).
  if (profile.network.mode === "proxy")
    args.push(
      "--unshare-user",
      "--info-fd",
      String(INFO_FD),
      "--sync-fd",
      String(SYNC_FD),
      "--userns-block-fd",
      String(BLOCK_FD),
    );
  for (const root of SYSTEM_ROOTS) {
    const link = linkAt(root);
    if (link !== undefined) args.push("--symlink", link, root);
    else if (existsSync(root)) args.push("--ro-bind", root, root);
  }
  args.push("--dev", "/dev", "--proc", "/proc");
  // /run holds the sockets that reach past any file rule (docker, dbus, the ssh agent).
  args.push("--tmpfs", "/run");
  if (profile.network.mode === "all" && existsSync("/run/systemd/resolve"))
    args.push("--ro-bind", "/run/systemd/resolve", "/run/systemd/resolve");
  args.push("--bind", profile.privateTmp, "/tmp");
  // The system's other scratch folders everyone writes (/var/tmp): private and empty like /tmp, laid
  // before the run's own folders so one inside is bound on top (red team zb, ZB1).
  for (const s of profile.secrets) if (s.scratch) args.push("--perms", "01777", "--tmpfs", s.path);
  // The home folder: hidden behind an empty folder, but for what stays readable (remounted
  // read-only at the end, once every mount point in it is made). Under /tmp it must be made
  // visible anyway, as the private /tmp covers it.
  const hideHome = profile.homeReadable !== undefined && profile.home !== "/" && existsSync(profile.home);
  // A home left whole (a writable folder holds it) is bound as it is; the home "/" never is.
  const homeShown = !hideHome && profile.home !== "/" && existsSync(profile.home);
  if (hideHome) {
    args.push("--tmpfs", profile.home);
    for (const p of profile.homeReadable!) if (existsSync(p)) args.push("--ro-bind", p, p);
    for (const s of profile.homeStandIns ?? []) args.push("--ro-bind", s.source, s.path);
  } else if (homeShown) args.push("--ro-bind", profile.home, profile.home);
  // A program's root under /tmp that is the home folder or holds it (HOME=/tmp/ci, a server
  // installed in it) would show the whole hidden home, secrets included: it is left out, and the
  // program's own folder in the home is shown as every spawn's is (homeReadable).
  const programRoots = (profile.programRoots ?? []).filter((root) => !(hideHome && under(profile.home, root)));
  for (const root of programRoots) args.push("--ro-bind", root, root);
  // A folder goes where its path is, unless that path is a symlink shown as on the host (bwrap
  // then finds the link, not the folder, where it mounted and stops): then at its real path,
  // which the link leads to. Under the private /tmp and /run and the hidden home bwrap makes it
  // (a folder bound back there shows the host's entries below it, but is itself a mount point).
  const shownBack = [...(hideHome ? profile.homeReadable! : homeShown ? [profile.home] : []), ...programRoots];
  const shown = (path: string) => shownBack.some((r) => path !== r && under(path, r)) || isSystem(path);
  // Seen from inside as on the host: the system's folders and what is bound back.
  const onHost = (path: string) => isSystem(path) || shownBack.some((r) => under(path, r));
  const bindFd = (path: string) => {
    const bound = profile.byFd.get(path);
    const dest = bound && (bound.dest === path || !shown(path) ? path : bound.dest);
    // One bind per place: the check inside (innerCommand) proves one mount at each.
    if (!bound || checks.some((c) => c.dest === dest)) return;
    args.push("--bind-fd", String(bound.fd), dest!);
    checks.push({ dest: dest!, fd: bound.check });
  };
  for (const root of profile.writable) bindFd(root);
  // A secret under a hidden home is already out of sight, unless something bound back exposes it.
  const visible = (path: string) =>
    !hideHome ||
    !under(path, profile.home) ||
    [...profile.homeReadable!, ...profile.writable, ...profile.allowRead].some((p) => under(path, p));
  // Where a protected path really is, seen from inside: /tmp is the private one and /run a tmpfs
  // (bar the folders bound in), a hidden home shows only what is bound back. A protected link
  // whose target is out of sight there (`.env -> ~/secrets/app.env`, the usual .env) dangles
  // inside, so there is nothing to bind over (bwrap cannot make the mount point and refused every
  // command); the link itself is checked after each command and put back, like every protected link.
  const boundIn = [...profile.writable, ...programRoots, ...(profile.homeStandIns ?? []).map((s) => s.path)];
  const inSight = (real: string) =>
    boundIn.some((r) => under(real, r)) ||
    (under(real, "/tmp")
      ? !hideHome && under(profile.home, "/tmp") && under(real, profile.home)
      : !under(real, "/run") && visible(real) && (onHost(real) || profile.allowRead.some((p) => under(real, p))));
  // A scratch folder of the system's (/var/tmp) is mounted empty and private elsewhere, not masked.
  const secrets = profile.secrets.filter((x) => !x.scratch && visible(x.path));
  // A protected path that is a secret too (`.env`) gets the secret's mask, mounted later on the same
  // place: the read-only bind under it would be covered whole, so it is left out (one mount less).
  const masked = new Set(secrets.map((x) => x.path));
  for (const layout of profile.layouts) {
    for (const p of layout.pinned) bindFd(p);
    for (const p of layout.readOnly)
      if (!masked.has(p) && inSight(realpathOrSelf(p))) args.push("--ro-bind", layout.standIns?.get(p) ?? p, p);
    for (const p of layout.placeholders) args.push("--ro-bind", profile.emptyDir, p);
  }
  // A write through one of these would change the same file's other names, outside (red team zb, ZB3).
  for (const p of profile.linked ?? []) args.push("--ro-bind", p, p);
  for (const s of secrets) {
    // A folder with an allowRead path inside gets an empty traverse-only tmpfs instead, so the
    // path can be bound back (bwrap makes its mount point inside, not in the real folder).
    if (s.dir && profile.allowRead.some((p) => under(p, s.path) && p !== s.path))
      args.push("--perms", "0111", "--tmpfs", s.path);
    else args.push("--ro-bind", s.dir ? profile.unreadableDir : profile.unreadableFile, s.path);
  }
  for (const p of profile.allowRead) if (existsSync(p)) args.push("--ro-bind", p, p);
  if (hideHome) args.push("--remount-ro", profile.home);
  // The top of / is bwrap's own folder now (the system's folders and the run's are mounted on it): read-only.
  args.push("--remount-ro", "/");
  args.push("--chdir", cwd);
  return args;
}

/**
 * With the network off, the package managers that would otherwise retry an unreachable registry
 * (npm waits out its retries, ~70 s for one `npx --yes`) are told they are offline: they answer
 * from their caches at once (a package run before with `npx` runs), or fail at once naming the
 * cache (ENOTCACHED). npm's variable is pnpm's too; yarn 2+ and uv have their own; pip retries once.
 * The user's own `env` wins.
 */
export const OFFLINE_ENV: Readonly<Record<string, string>> = Object.freeze({
  npm_config_offline: "true",
  YARN_ENABLE_OFFLINE_MODE: "1",
  UV_OFFLINE: "1",
  // pip has no offline switch: one retry, not five (~9 s per install), keeps the name-resolution
  // error that says why it failed (with none, pip only says "from versions: none").
  PIP_RETRIES: "1",
});

/** Variables that send HTTP clients to the proxy (both spellings: curl reads only the lower-case http_proxy). */
export function proxyEnv(url: string): Record<string, string> {
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    ALL_PROXY: url,
    all_proxy: url,
    NO_PROXY: "",
    no_proxy: "",
  };
}

/**
 * What each folder bound by descriptor must be, checked inside before the command starts:
 * bwrap mounts a descriptor by the path it reads from it and checks what it finds at the
 * destination by path again, so a folder flipped with a symlink while it sets up could get the
 * link's target mounted. Here each destination, opened once, must be the descriptor's folder
 * (device and inode, `-ef` through /proc/self/fd: no path looked up twice) and the root of a
 * mount (its `..` in another mount): that mount is then this bind's, and no other took its
 * place. The descriptors are closed before the command (one of the host's mounts, its `..`
 * leads out).
 */
const CHECK_FOLDERS = [
  "n=$1; shift",
  'while [ "$n" -gt 0 ]; do',
  "  m3= m4=",
  '  if exec 3<"$1" 4<"/proc/self/fd/3/.." && [ /proc/self/fd/3 -ef "/proc/self/fd/$2" ]; then',
  '    while read -r k v; do [ "$k" = mnt_id: ] && m3=$v; done </proc/self/fdinfo/3',
  '    while read -r k v; do [ "$k" = mnt_id: ] && m4=$v; done </proc/self/fdinfo/4',
  "  fi",
  '  if [ -z "$m3" ] || [ "$m3" = "$m4" ]; then',
  "    printf 'ubiquity:sandbox: %s is not the folder granted: it changed while the sandbox was set up, so the command did not run\\n' \"$1\" >&2",
  "    exit 125",
  "  fi",
  "  c=$2; exec {c}<&-; shift 2; n=$((n-1))",
  "done",
  "exec 3<&- 4<&-",
].join("\n");

/**
 * Every descriptor but stdin, stdout and stderr is closed before the command starts: bwrap and
 * the spawn pass on whatever this process inherited from the one that started it without
 * close-on-exec, and one of those (a folder's, a socket's, a pipe to a process outside) leads
 * out of the sandbox: a folder's let a sandboxed command read the hidden home and write anywhere
 * through /proc/self/fd/N (red team u, U3). Nothing the sandbox passes in on purpose is needed
 * by the command (bwrap has read its own, the checks closed theirs).
 */
const CLOSE_INHERITED =
  'for f in /proc/self/fd/*; do f=${f##*/}; if [ "$f" -gt 2 ] 2>/dev/null; then { exec {f}>&-; } 2>/dev/null; fi; done';

/** `text` as one shell word. */
const shellQuote = (text: string) => `'${text.replace(/'/g, "'\\''")}'`;

/**
 * The command as bwrap runs it, after the check of the folders bound by descriptor (`checks`)
 * and `notes` printed on stderr.
 * With the proxy, it starts once the bridge (started from the host side, bridge.ts) listens on
 * 127.0.0.1:PROXY_PORT, read from /proc/net/tcp so no network tool is needed inside.
 */
export function innerCommand(
  profile: Profile,
  command: string,
  args: readonly string[],
  checks: readonly { dest: string; fd: number }[],
  bash: string,
  notes: readonly string[] = [],
): string[] {
  const hexPort = PROXY_PORT.toString(16).toUpperCase().padStart(4, "0");
  const script = [
    // Said here when no launcher outside prints them (a spawn handed its descriptors directly).
    ...(notes.length > 0 ? [`printf '%s\\n' ${shellQuote(notes.join("\n"))} >&2`] : []),
    CHECK_FOLDERS,
    ...(profile.network.mode === "proxy"
      ? [
          // Shell builtins only: a grep per poll would cost more than the wait itself.
          `up() { while read -r _ a _; do [ "$a" = "0100007F:${hexPort}" ] && return 0; done < /proc/net/tcp; return 1; }`,
          "n=0; until up || [ $n -ge 20000 ]; do n=$((n+1)); done",
        ]
      : []),
    CLOSE_INHERITED,
    'exec "$@"',
  ].join("\n");
  return [
    bash,
    ...BASH_FLAGS,
    "-c",
    script,
    "ubiquity-sandbox",
    String(checks.length),
    ...checks.flatMap((c) => [c.dest, String(c.fd)]),
    command,
    ...args,
  ];
}
