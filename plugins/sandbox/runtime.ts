/**
 * One run's sandbox: its private folders, the filtering proxy, the secrets found at start, and
 * the wrapping of each spawn into bwrap (or sandbox-exec). Also the clean-up: placeholder
 * folders removed, protected files a command created removed and reported.
 */
import {
  accessSync,
  constants,
  appendFileSync,
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir, userInfo } from "node:os";
import { dirname, join, relative } from "node:path";
import type { SandboxAvailability } from "./availability";
import {
  bwrapArgs,
  homeRootsNamed,
  innerCommand,
  OFFLINE_ENV,
  pathRoots,
  programRootsOf,
  proxyEnv,
  type Profile,
} from "./bwrap";
import { BRIDGE_HINT, bridgedLaunch, bridgeTools, PROXY_PORT, PROXY_SOCKET_NAME } from "./bridge";
import { isExcluded, type SandboxSettings } from "./config";
import { hardLinkedProtected, layoutRoot, type RootLayout } from "./protect";
import { WorkspaceGuard, type Quarantined } from "./guard";
import { fewFiles, HostRuns } from "./host-runs";
import {
  FOLDER_FD_BASE,
  folderDescriptors,
  folderLaunch,
  pinFolder,
  pinnedAt,
  systemBash,
  unpin,
  type FolderPin,
} from "./pin";
import type { FilteringProxy, ProxyDenial } from "./proxy";
import {
  homeConfigCopies,
  gitConfigWithoutCredentials,
  HOME_READABLE,
  privateSystemPaths,
  privateSystemPathsAsync,
  type SystemPrivatePath,
  SENSITIVE_HOME,
  SECRET_PATTERNS,
  shownSecretPaths,
  secretPaths,
  writeRuleMatcher,
} from "./secrets";
import { LinkWalk, linkBinds } from "./link-walk";
import { SecretWalk } from "./secret-walk";
import { seatbeltProfile } from "./seatbelt";
import { SocketFilters } from "./seccomp";
import type { Violation } from "./violations";
import { isProcessAlive, markAgentWritable } from "../_kits/process/index";
import {
  configuredFiles,
  configuredPackageFolders,
  installedConfigClosure,
  ownCode,
  ownModuleFolders,
  ownState,
  readRegularFileSync,
} from "../../loader/index";

/** A process to start: what `child_process.spawn` (or the MCP SDK's stdio transport) receives. */
export interface SpawnSpec {
  command: string;
  args: string[];
  cwd: string;
  /** Variables for the process (the MCP SDK adds its safe defaults to these). */
  env?: Record<string, string | undefined>;
  /** Set by the sandbox when every process the spawn starts ends with it (bubblewrap's PID namespace). */
  contained?: boolean;
  /**
   * Descriptors the process must get: `fds[n]`, when set, is this process's descriptor to hand it
   * as n (child_process spawn's stdio array). Only for a use with `passFds`; without them bwrap
   * refuses to start.
   */
  fds?: (number | undefined)[];
  /** Call once the process is started (or will not be): closes what the sandbox opened for `fds`. */
  release?: () => void;
}

/** Who is spawning, for excludedCommands, violation reports and events. */
export interface SpawnUse {
  kind: "bash" | "hook" | "mcp" | "lsp";
  /** The Bash command or hook command as written. */
  subject?: string;
  /** The tool call, for Bash: its violations are reported in its result. */
  toolUseId?: string;
  /**
   * The caller spawns at once with the returned spec's `fds` and then calls its `release`: bwrap
   * gets the folders' and the filter's descriptors straight from this process, without the
   * launcher shell that reopens them by path for a caller that can pass only a command line.
   */
  passFds?: boolean;
}

/** The absolute path of `command` (on PATH's absolute entries when it has no slash); ENOENT when there is none. */
export function programOnPath(command: string, path: string, cwd: string): string {
  if (command.includes("/")) return command;
  for (const dir of path.split(":")) {
    if (!dir.startsWith("/")) continue;
    const candidate = join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  throw Object.assign(new Error(`spawn ${command} ENOENT (not found on PATH's absolute folders; cwd ${cwd})`), {
    code: "ENOENT",
    errno: -2,
    syscall: `spawn ${command}`,
    path: command,
  });
}

/** Private folders are named with the owning pid, so a later run can remove those of a process that died (SIGKILL). */
const PRIVATE_PREFIX = "ubiquity-sandbox-";

/** The descriptors bwrap and the check inside get each folder on, in the launcher's order (pin.ts's folderLaunch). */
function descriptorNumbers(folders: ReadonlyMap<string, { dest: string }>): Profile["byFd"] {
  const at = (i: number) => ({ fd: FOLDER_FD_BASE + i, check: FOLDER_FD_BASE + folders.size + i });
  return new Map([...folders].map(([path, f], i) => [path, { ...at(i), dest: f.dest }]));
}

/** Remove the private folders of dead processes (ours only: same owner). */
export function removeStalePrivateDirs(dir = tmpdir()): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    const m = new RegExp(`^${PRIVATE_PREFIX}(\\d+)-`).exec(name);
    if (!m || alive(Number(m[1]))) continue;
    const path = join(dir, name);
    const info = lstatSync(path, { throwIfNoEntry: false });
    if (!info?.isDirectory() || info.uid !== process.getuid?.()) continue;
    // The placeholder folders it made in workspaces: rmdir removes only the ones still empty.
    for (const p of readTextOr(join(path, PLACEHOLDER_LOG)).split("\n").filter(Boolean)) {
      try {
        rmdirSync(p);
      } catch {
        // filled since, or gone
      }
    }
    try {
      chmodSync(join(path, "unreadable.d"), 0o700);
    } catch {
      // already gone
    }
    try {
      rmSync(path, { recursive: true, force: true });
      removed.push(path);
    } catch {
      // Still in use (the dead run's sandboxed processes have not all ended yet): the next start removes it.
    }
  }
  return removed;
}

const PLACEHOLDER_LOG = "placeholders";

function readTextOr(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

const alive = isProcessAlive;

interface CallRecord {
  watched: string[];
  links: { path: string; target: string }[];
  started: number;
  subject?: string;
}

/** The sandbox of one kernel. */
export class SandboxRuntime {
  readonly #settings: SandboxSettings;
  /** Each writable folder, held open since the sandbox was set up (undefined: it was no folder then). */
  readonly #granted: Map<string, FolderPin | undefined>;
  /** Folders bound writable that had no grant's pin, held open since first bound; and those replaced since. */
  #seen = new Map<string, FolderPin>();
  #retired: FolderPin[] = [];
  readonly #availability: SandboxAvailability;
  readonly #readRules: readonly string[];
  readonly #onDenied: (denial: ProxyDenial, toolUseId: string | undefined) => void;
  #dirs: { root: string; tmp: string; empty: string; unreadableFile: string; unreadableDir: string } | undefined;
  #secrets: { path: string; dir: boolean }[] | undefined;
  /** The guard's change count when the secrets were last worked out. */
  #secretsAt = -1;
  #proxy: FilteringProxy | undefined;
  #proxyPort: number | undefined;
  #filters: SocketFilters | undefined;
  #placeholders = new Set<string>();
  #calls = new Map<string, CallRecord>();
  #guard: WorkspaceGuard | undefined;
  /** The installed packages the project's config loads (read-only: `ubiquity run` executes them at its next start). */
  #installed: string[] | undefined;
  /** ubiquity's own code inside the writable folders (loader/installed-code.ts, ownCode). */
  #ownCode: Set<string> | undefined;
  /** ubiquity's own state inside the writable folders (loader/installed-code.ts, ownState). */
  #ownState: string[] | undefined;
  /** Protected entries removed by a sweep that no call has reported yet. */
  #unreported: Quarantined[] = [];
  #quarantineDir: string | undefined;
  #onExit = () => this.#cleanSync();
  readonly #hostRuns = new HostRuns(
    // The writable folders and workspaces (not the MCP servers' own cache: no excluded command runs from it).
    () =>
      [...new Set([...this.#settings.writable, ...this.#seen.keys()])].filter(
        (p) => p !== this.#cacheDir && existsSync(p),
      ),
    () => this.#dirs!.root,
  );

  constructor(
    settings: SandboxSettings,
    availability: SandboxAvailability,
    readRules: readonly string[],
    onDenied: (denial: ProxyDenial, toolUseId: string | undefined) => void,
  ) {
    this.#settings = settings;
    this.#granted = new Map(settings.writable.map((p) => [p, pinFolder(p)]));
    this.#availability = availability;
    this.#readRules = readRules;
    this.#onDenied = onDenied;
  }

  get settings(): SandboxSettings {
    return this.#settings;
  }

  /** Paths made unreadable (known once started). */
  get secrets(): readonly string[] {
    return [...(this.#secrets ?? []), ...(this.#systemPrivate ?? []).filter((s) => !s.scratch)].map((s) => s.path);
  }

  /** Would this Bash command run sandboxed? */
  sandboxes(command: string): boolean {
    return !isExcluded(command, this.#settings.excludedCommands);
  }

  /** Make the private folders, find the secrets, start the proxy. */
  async start(): Promise<void> {
    const net = this.#settings.network;
    // Without the proxy nothing is needed before the first spawn: a run that starts no process
    // pays nothing for the sandbox (the private folders and the secrets' walk come with the first).
    if (net.mode === "proxy" && !this.#proxy) {
      this.#prepare();
      // node:http loads with the proxy: importing it statically costs every run Node's fetch stack.
      const { FilteringProxy } = await import("./proxy");
      const proxy = new FilteringProxy(net.allowedDomains, net.deniedDomains, (denial) =>
        this.#onDenied(denial, this.#inFlight()),
      );
      if (this.#availability.backend === "seatbelt") {
        await proxy.listenTcp();
        this.#proxyPort = proxy.port;
      } else {
        // In the private folder, not its tmp/ (the sandbox's /tmp): no sandboxed process sees the
        // socket; the bridge reaches it from the host side (bridge.ts).
        await proxy.listen(join(this.#dirs!.root, PROXY_SOCKET_NAME));
      }
      this.#proxy = proxy;
    }
  }

  #prepare() {
    if (this.#dirs) return;
    removeStalePrivateDirs();
    const root = mkdtempSync(join(tmpdir(), `${PRIVATE_PREFIX}${process.pid}-`));
    chmodSync(root, 0o700);
    markAgentWritable(root);
    const dirs = {
      root,
      tmp: join(root, "tmp"),
      empty: join(root, "empty"),
      unreadableFile: join(root, "unreadable"),
      unreadableDir: join(root, "unreadable.d"),
    };
    mkdirSync(dirs.tmp, { mode: 0o700 });
    mkdirSync(dirs.empty);
    chmodSync(dirs.empty, 0o555);
    writeFileSync(dirs.unreadableFile, "");
    chmodSync(dirs.unreadableFile, 0o000);
    mkdirSync(dirs.unreadableDir);
    chmodSync(dirs.unreadableDir, 0o000);
    this.#dirs = dirs;
    this.#filters = new SocketFilters(root);
    const s = this.#settings;
    this.#guard = new WorkspaceGuard(
      s.writable.filter((p) => existsSync(p)),
      () => this.#quarantine(),
      (p) => this.#placeholders.has(p),
      writeRuleMatcher({ rules: s.writeRules ?? [], roots: s.writable, cwd: s.cwd, home: s.home }),
    );
    process.on("exit", this.#onExit);
    this.#refreshSecrets();
  }

  /**
   * The secrets to hide, worked out again whenever the guard's sweep saw the workspace's names
   * change: a `.pem` or a file a Read deny rule names that appeared after the first sandboxed
   * command (the user's own terminal, a checkout, a tool) was readable to every later one (red
   * team q, Q4). Fail closed: the list is as fresh as the last sweep, which runs before each spawn.
   */
  #refreshSecrets() {
    const changes = this.#guard?.changes ?? 0;
    if (this.#secrets !== undefined && changes === this.#secretsAt) return;
    this.#secretsAt = changes;
    const s = this.#settings;
    const found = secretPaths({
      home: s.home,
      roots: s.writable,
      readRules: this.#readRules,
      denyRead: s.denyRead,
      cwd: s.cwd,
      walk: (this.#secretWalk ??= new SecretWalk(SECRET_PATTERNS)),
    });
    this.#systemPrivate ??= this.#systemWalk();
    this.#secrets = found.map((path) => ({
      path,
      dir: statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false,
    }));
  }

  /**
   * What of the system's folders not everyone may read: walked once a run (they are not the run's
   * to change). Linux only: macOS's Seatbelt profile is not exercised here.
   */
  #systemWalk(): SystemPrivatePath[] {
    return this.#availability.backend === "bubblewrap" ? privateSystemPaths(...this.#systemWalkArgs()) : [];
  }

  #systemWalkArgs() {
    const s = this.#settings;
    const cache = join(s.home, ".ubiquity", "cache", "system-private.json");
    return [[...s.writable, s.home, ...s.allowRead], { cache }] as const;
  }

  /** The warm-up's walk of the system's folders, while it runs (see warm). */
  #systemWalking: Promise<void> | undefined;
  /** Ends the warm-up's find when the runtime closes first. */
  #warmAbort = new AbortController();

  /**
   * The first sandboxed spawn's one-time work that nothing in the workspace changes, done ahead
   * (the plugin calls it once the model has asked for a Bash command, so it runs while the call
   * is judged rather than after): the walk of the system's folders and ubiquity's own dependency
   * folders. The same results the first spawn would work out, so what it binds is unchanged; the
   * workspace's walks (the guard's, the secrets') stay with the spawn, whose sweep they anchor.
   */
  warm(): void {
    if (this.#availability.backend !== "bubblewrap" || this.#closed) return;
    // find reads the system's folders in a process of its own: the model's answer streams on and
    // the command is judged meanwhile (a 2-core machine does both at once), instead of waiting.
    if (!this.#systemPrivate && !this.#systemWalking) {
      const [skip, options] = this.#systemWalkArgs();
      this.#systemWalking = privateSystemPathsAsync(skip, { ...options, signal: this.#warmAbort.signal }).then(
        (found) => {
          if (!this.#closed) this.#systemPrivate ??= found;
        },
        () => {}, // the first spawn walks again, and its error is the call's
      );
    }
    ownModuleFolders(this.#settings.home);
  }

  /** Resolves once the warm-up's walk of the system's folders is done (at once when none runs). */
  ready(): Promise<void> {
    return this.#systemWalking ?? Promise.resolve();
  }

  /**
   * The system's private paths as they are now: one removed since the walk (a lock file, a rotated
   * log) has no place to hide, and bwrap refused every command that named it.
   */
  #systemPrivateNow(): SystemPrivatePath[] {
    const found = new Set(this.#secrets?.map((s) => s.path));
    return (this.#systemPrivate ?? []).flatMap((p) => {
      if (found.has(p.path)) return [];
      const now = lstatSync(p.path, { throwIfNoEntry: false });
      if (!now || now.isSymbolicLink()) return [];
      // A scratch folder is replaced only while it is one (a folder: bwrap mounts a tmpfs there).
      if (p.scratch) return now.isDirectory() ? [p] : [];
      return [{ path: p.path, dir: now.isDirectory() }];
    });
  }

  #systemPrivate: SystemPrivatePath[] | undefined;
  /** The walk of the writable folders for files with more than one name, kept between calls (link-walk.ts). */
  #linkWalk: LinkWalk | undefined;

  /**
   * What to bind read-only for the writable folders' files that have other names (red team zb,
   * ZB3): a write through one changed a file outside every writable folder (pnpm's store). `skip`:
   * folders already read-only whole (ubiquity's own code and modules).
   */
  #linkedBinds(writable: readonly string[], skip: ReadonlySet<string>): string[] {
    this.#linkWalk ??= new LinkWalk();
    const found = writable.flatMap((root) => this.#linkWalk!.walk(root, skip));
    const binds = linkBinds(found, writable);
    if (!binds)
      throw new Error(
        `ubiquity:sandbox: ${found.length} files of the writable folders have other names (hard links: ${found[0]}, …), through which a sandboxed command could change files outside them, and there are too many to keep read-only; remove the links (\`find <folder> -type f -links +1\` lists them) and run the command again`,
      );
    return binds;
  }
  /** The secret-name walk of the writable folders, each folder's reading kept by its stamp (secret-walk.ts). */
  /** The secrets by name in each folder shown for the PATH's programs: found once a run (red team zo, ZO3). */
  #shownSecrets = new Map<string, string[]>();

  /**
   * The secrets by name in the folders a spawn's PATH shows (pathRoots), each folder walked once a
   * run (read-only inside, not the run's to change), as they are now: one removed since the walk
   * has no place to hide, and bwrap refused every command that named it.
   */
  #withShown(spec: SpawnSpec, secrets: { path: string; dir: boolean }[]): { path: string; dir: boolean }[] {
    const path = spec.env?.PATH ?? process.env.PATH;
    // A toolchain folder of the account's own home that the home's list shows whole (`~/.pyenv`,
    // `~/.nvm`: HOME_READABLE) is shown as it is when HOME is that home: not walked. It is outside
    // HOME only when HOME was pointed elsewhere (a CI job's, a test's), and walking ~/.pyenv's
    // 130,000 entries cost every such run ~1.5 s at its first command. Any other dot-folder
    // (`~/.config`, `~/.cargo`, `~/.local`, of which the home shows parts) is walked: its .env
    // files and keys were readable (red team zq, ZQ5).
    const own = accountHome();
    const roots = pathRoots(path, this.#settings.home).filter(
      (root) => !own || dirname(root) !== own || !HOME_READABLE.includes(root.slice(own.length + 1)),
    );
    return [...secrets, ...this.#shownSecretsFor(roots, secrets)];
  }

  #shownSecretsFor(roots: readonly string[], known: readonly { path: string }[]): { path: string; dir: boolean }[] {
    const seen = new Set(known.map((s) => s.path));
    const out: { path: string; dir: boolean }[] = [];
    for (const root of roots) {
      let found = this.#shownSecrets.get(root);
      if (!found) this.#shownSecrets.set(root, (found = shownSecretPaths([root], this.#settings.writable)));
      for (const path of found) {
        const now = lstatSync(path, { throwIfNoEntry: false });
        if (!now || now.isSymbolicLink() || seen.has(path)) continue;
        seen.add(path);
        out.push({ path, dir: now.isDirectory() });
      }
    }
    return out;
  }
  #secretWalk: SecretWalk | undefined;

  /**
   * An excluded Bash command (excludedCommands): "outside" when it runs outside the sandbox as
   * configured; otherwise the note saying why it runs inside this time (what changed in the
   * writable folders since it was approved, host-runs.ts). Any other spawn: no note.
   */
  #excludedRun(use: SpawnUse): "outside" | string[] {
    if (use.kind !== "bash" || use.subject === undefined || this.sandboxes(use.subject)) return [];
    // A sandboxed process still running (a background shell) may have planted a protected file
    // since the last sweep: it leaves the workspace before a command runs outside the sandbox.
    if (this.#guard) this.#unreported.push(...this.#guard.sweep());
    const changed = this.#hostRuns.start(use.toolUseId ?? "");
    if (changed.files.length === 0 && changed.unchecked === undefined) return "outside";
    return [
      `ubiquity:sandbox: \`${use.subject}\` runs inside the sandbox this time, not outside it (excludedCommands): ${
        changed.files.length > 0
          ? `${fewFiles(changed.files, this.#settings.cwd)} changed in the writable folders since it was approved`
          : `the writable folders could not be checked for changes (${changed.unchecked})`
      }, and it may run what they hold`,
    ];
  }

  /**
   * Each writable folder's layout: what in it stays read-only (or is watched where missing) for
   * a sandboxed spawn, and ubiquity's own dependency folders among them.
   */
  #layouts(writable: readonly string[]) {
    this.#installed ??= installedConfigClosure(this.#settings.cwd, writable, this.#settings.home);
    // What ubiquity itself loads (its dependencies, now and at the next start) and the state that
    // decides what runs outside the sandbox: read-only whatever the writable folders are.
    const inside = (p: string) => writable.some((r) => p === r || p.startsWith(`${r}/`));
    const modules = ownModuleFolders(this.#settings.home).filter(inside);
    this.#ownState ??= ownState(this.#settings.home, writable);
    // What the config loads at the next start: read-only where it is, watched where it is missing
    // (a package made there would be loaded instead of the one found now).
    // And the configuration files the run was started with by path and the scripts their hooks
    // run (asked each time: a hook's scripts are noted when its settings are read).
    // And what an MCP server's runner loads by name from the project's node_modules (noted as it starts).
    const deep = [
      ...this.#guard!.protectedPaths().map((g) => g.path),
      ...this.#installed,
      ...configuredFiles(),
      ...configuredPackageFolders(writable),
    ];
    // These also when a writable folder is one of them (allowWrite: ["node_modules"]).
    const mine = [...modules, ...this.#ownState];
    const layouts = writable.map((root) =>
      layoutRoot(
        root,
        [
          ...this.#settings.denyWrite,
          ...deep.filter((p) => p.startsWith(`${root}/`)),
          // What the folder's trust pins (a skill folder, the config): the engine asks about a
          // write there, and so a sandboxed command cannot make it (red team l, L4).
          ...(this.#settings.trustPinned ?? []).filter((p) => p.startsWith(`${root}/`)),
          ...mine.filter((p) => p === root || p.startsWith(`${root}/`)),
        ],
        this.#settings.home,
      ),
    );
    return { layouts, modules };
  }

  /** The spawn, sandboxed (or as given, for an excluded Bash command); `workspaces` are writable for it too (see `addWorkspace`). */
  wrap(spec: SpawnSpec, use: SpawnUse, workspaces: readonly FolderPin[] = []): SpawnSpec {
    const hostNotes = this.#excludedRun(use);
    if (hostNotes === "outside") return spec;
    this.#prepare();
    this.#hostRuns.sandboxed();
    if (this.#settings.network.mode === "proxy" && !this.#proxy) {
      throw new Error(
        "ubiquity:sandbox: the network proxy is not running yet (kernel.ready has not run); call kernel.ready() before running commands",
      );
    }
    const dirs = this.#dirs!;
    const { folders, notes } = this.#writableFolders(workspaces);
    notes.unshift(...hostNotes);
    const writable = [...folders.keys()];
    // A language server runs the project's own code — cargo's build scripts and proc macros
    // (rust-analyzer), a tsconfig's plugins and the workspace's TypeScript (tsserver) — which a
    // sandboxed command may have written: with an MCP server's network (all, by default) a build
    // script a command without the network planted reached the host's ports when the LSP tool
    // started the server (red team zt, ZT2). So it has the commands' network, never more, and not
    // the MCP servers' cache either (what it wrote there, an MCP server's `npx` would run).
    const network = use.kind === "mcp" ? this.#settings.mcpNetwork : this.#settings.network;
    // An MCP server's package manager (npx, uvx) needs a cache it can write: one of the sandbox's
    // own, which only sandboxed MCP servers use, never the user's ~/.npm that commands outside run from.
    const cache = use.kind === "mcp" ? this.#mcpCache() : undefined;
    // What appeared since the last sweep is judged before the spawn can touch it; what stays is bound read-only.
    this.#unreported.push(...this.#guard!.sweep());
    this.#refreshSecrets();
    const inside = (p: string) => writable.some((r) => p === r || p.startsWith(`${r}/`));
    const { layouts, modules } = this.#layouts(writable);
    for (const layout of layouts) this.#repositoryConfigs(layout);
    // A protected file with another name in a writable folder is refused (refuseSharedProtected).
    this.#ownCode ??= new Set(ownCode(writable));
    refuseSharedProtected(layouts, new Set([...this.#ownCode, ...modules]));
    const linked = this.#linkedBinds(writable, new Set([...this.#ownCode, ...modules]));
    if (use.toolUseId) {
      this.#calls.set(use.toolUseId, {
        watched: layouts.flatMap((l) => l.watched),
        links: layouts.flatMap((l) => l.links),
        started: Date.now(),
        subject: use.subject,
      });
    }
    const env = {
      ...(network.mode === "none" ? OFFLINE_ENV : {}),
      ...spec.env,
      TMPDIR: "/tmp",
      ...(cache ? { npm_config_cache: join(cache, "npm"), XDG_CACHE_HOME: join(cache, "xdg") } : {}),
    };
    // The program is found here, on the absolute entries of PATH only, so a missing one fails as
    // a spawn does (ENOENT) rather than as bwrap's exit, and nothing is found through "." or "bin".
    spec = { ...spec, command: programOnPath(spec.command, spec.env?.PATH ?? process.env.PATH ?? "", spec.cwd) };
    if (this.#availability.backend === "seatbelt") {
      return this.#seatbelt(spec, writable, layouts, env);
    }
    for (const layout of layouts) for (const p of layout.placeholders) this.#placeholder(p);
    this.#innerFolders(folders, layouts, cache);
    // The proxy's bridge runs outside the sandbox (bridge.ts): Unix sockets stay blocked with it too.
    const filter = this.#filters!.path(this.#settings.unixSockets);
    const homeWritable = inside(this.#settings.home);
    const profile: Profile = {
      seccomp: filter !== undefined,
      writable: cache && folders.has(cache) ? [...writable, cache] : writable,
      byFd: descriptorNumbers(folders),
      layouts,
      linked,
      secrets: this.#withShown(spec, [...(this.#secrets ?? []), ...this.#systemPrivateNow()]),
      allowRead: this.#settings.allowRead,
      privateTmp: dirs.tmp,
      emptyDir: dirs.empty,
      unreadableFile: dirs.unreadableFile,
      unreadableDir: dirs.unreadableDir,
      network,
      home: this.#settings.home,
      // The home folder stays visible only when it is a writable folder itself, or inside one (the
      // secrets are hidden then): hidden, the writable bind above it covered the hiding, and bwrap
      // refused every command ("Can't remount readonly").
      homeStandIns: homeWritable ? undefined : this.#homeConfigs(),
      homeReadable: homeWritable
        ? undefined
        : [
            ...HOME_READABLE.map((p) => join(this.#settings.home, p)),
            // What the user's own hook or MCP server command names (never what a Bash command names: the model writes those).
            ...(use.kind === "bash"
              ? []
              : homeRootsNamed(spec.command, spec.args, this.#settings.home, SENSITIVE_HOME)),
          ],
      programRoots: this.#programRoots(spec, use.kind === "hook"),
    };
    const proxied = network.mode === "proxy" ? proxyEnv(`http://127.0.0.1:${PROXY_PORT}`) : {};
    const checks: { dest: string; fd: number }[] = [];
    const args = [...bwrapArgs(profile, spec.cwd, checks), "--"];
    const pins = [...folders.values()].map((f) => f.pin);
    // The proxy's bridge is started by its own launcher (bridge.ts): that spawn keeps the folders' launcher too.
    const direct = use.passFds === true && network.mode !== "proxy";
    args.push(...innerCommand(profile, spec.command, spec.args, checks, systemBash(), direct ? notes : []));
    const argv = [this.#availability.program!, ...args];
    return {
      ...(direct
        ? folderDescriptors(pins, argv, filter)
        : this.#launch(pins, notes, network.mode === "proxy", filter, argv)),
      cwd: spec.cwd,
      env: { ...env, ...proxied },
      contained: true,
    };
  }

  /**
   * The folders outside the system's that hold the spawn's program (under /tmp: shown over the
   * private /tmp; never the home's), and the PATH's; `named`: also those the text of the user's
   * own hook command (one shell string) names.
   */
  #programRoots(spec: SpawnSpec, named: boolean): string[] {
    const path = spec.env?.PATH ?? process.env.PATH;
    return [
      ...new Set([
        ...programRootsOf(spec.command, spec.args, path, this.#settings.home, named),
        ...pathRoots(path, this.#settings.home),
      ]),
    ];
  }

  /**
   * The writable folders to bind, each with its descriptor (pin.ts), and why any granted one is
   * not: a writable folder swapped for a link since the sandbox was set up (by a command that can
   * write the folder it is in) is not bound, as the bind would make where the link leads
   * writable; and as it is bound by descriptor, a swap after this check changes nothing either.
   */
  #writableFolders(workspaces: readonly FolderPin[]): {
    folders: Map<string, { pin: FolderPin; dest: string }>;
    notes: string[];
  } {
    const notes: string[] = [];
    const folders = new Map<string, { pin: FolderPin; dest: string }>();
    const grants = new Map<string, FolderPin | undefined>([
      ...this.#granted,
      ...workspaces.map((w) => [w.path, w] as const),
    ]);
    for (const [path, granted] of grants) {
      const found = this.#folder(path, granted);
      if (found && "refused" in found) notes.push(`ubiquity:sandbox: ${found.refused}`);
      else if (found) folders.set(path, found);
    }
    return { folders, notes };
  }

  /**
   * Add to `folders` the other writable binds: each git folder, bound onto itself so it cannot
   * be renamed away (the one really at that place in its writable folder's real path), and the
   * MCP servers' cache.
   */
  #innerFolders(
    folders: Map<string, { pin: FolderPin; dest: string }>,
    layouts: readonly RootLayout[],
    cache: string | undefined,
  ): void {
    [...folders.keys()].forEach((root, i) => {
      for (const p of layouts[i]!.pinned) {
        const found = this.#folder(folders.get(root)!.dest + p.slice(root.length), undefined);
        if (!found || "refused" in found)
          throw new Error(`ubiquity:sandbox: ${p} changed while the command was prepared; run the command again`);
        folders.set(p, found);
      }
    });
    if (cache) {
      const found = this.#folder(cache, undefined);
      if (found && !("refused" in found)) folders.set(cache, found);
    }
  }

  /**
   * The folder to bind writable at `path`: its grant's pin when it had one (and the path still
   * leads to it), else the folder really at `path` now (no symlink on the way), held from then
   * on; a reason when it is refused; undefined when there is nothing there.
   */
  #folder(
    path: string,
    granted: FolderPin | undefined,
  ): { pin: FolderPin; dest: string } | { refused: string } | undefined {
    if (granted) {
      const at = pinnedAt(granted);
      return "dest" in at ? { pin: granted, dest: at.dest } : at;
    }
    if (!existsSync(path)) return undefined;
    const now = pinFolder(path, true);
    if (!now)
      return { refused: `${path} is not a folder at its real path (a symlink on the way), so it is not writable` };
    const old = this.#seen.get(path);
    if (old && old.dev === now.dev && old.ino === now.ino) {
      unpin(now);
      return { pin: old, dest: path };
    }
    // A launcher made earlier may still reopen the one it replaces: closed with the sandbox.
    if (old) this.#retired.push(old);
    this.#seen.set(path, now);
    return { pin: now, dest: path };
  }

  /** bwrap started by the launcher that hands it the folders' descriptors (pin.ts), through the proxy's bridge when `proxied`. */
  #launch(
    pins: FolderPin[],
    notes: string[],
    proxied: boolean,
    filter: string | undefined,
    bwrap: string[],
  ): { command: string; args: string[] } {
    if (!proxied) return folderLaunch(pins, notes, bwrap, filter);
    const bridged = this.#bridged(filter, bwrap);
    return folderLaunch(pins, notes, [bridged.command, ...bridged.args]);
  }

  /** bwrap started with the proxy's bridge; refused when a program it needs is missing (never Unix sockets opened instead). */
  #bridged(filter: string | undefined, bwrapArgv: string[]): { command: string; args: string[] } {
    const found = bridgeTools();
    const socat = this.#availability.socat;
    if ("missing" in found || !socat)
      throw new Error(
        `ubiquity:sandbox: network.allowedDomains needs ${["missing" in found ? found.missing.join(", ") : "", socat ? "" : "socat"].filter(Boolean).join(", ")}, not found on PATH: ${BRIDGE_HINT}; or remove network.allowedDomains`,
      );
    return bridgedLaunch(filter, this.#dirs!.root, socat, found.tools, bwrapArgv);
  }

  #seatbelt(
    spec: SpawnSpec,
    writable: string[],
    layouts: RootLayout[],
    env: Record<string, string | undefined>,
  ): SpawnSpec {
    const isDir = (p: string) => statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false;
    // Seatbelt matches resolved paths (/tmp is /private/tmp, /var is /private/var on macOS).
    const real = (p: string) => (existsSync(p) ? realpathSync(p) : p);
    const existing = layouts.flatMap((l) => l.readOnly);
    const profile = seatbeltProfile({
      writable: writable.map(real),
      tmp: real(this.#dirs!.tmp),
      protectedFolders: [...layouts.flatMap((l) => l.placeholders), ...existing.filter(isDir)],
      protectedPaths: [...layouts.flatMap((l) => l.watched), ...existing.filter((p) => !isDir(p))],
      secrets: this.secrets.map(real),
      network: this.#settings.network,
      proxyPort: this.#proxyPort,
    });
    const proxied = this.#proxyPort ? proxyEnv(`http://127.0.0.1:${this.#proxyPort}`) : {};
    return {
      command: this.#availability.program!,
      args: ["-p", profile, spec.command, ...spec.args],
      cwd: spec.cwd,
      env: { ...env, TMPDIR: this.#dirs!.tmp, ...proxied },
    };
  }

  #placeholder(path: string) {
    if (this.#placeholders.has(path) && existsSync(path)) return;
    try {
      // The folder it is made in changes: that change is ours, not a sandboxed process's (host-runs.ts).
      this.#hostRuns.ownEntry(dirname(path), path, () => mkdirSync(path));
      this.#placeholders.add(path);
      appendFileSync(join(this.#dirs!.root, PLACEHOLDER_LOG), `${path}\n`);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }

  #inFlight(): string | undefined {
    return this.#calls.size === 1 ? [...this.#calls.keys()][0] : undefined;
  }

  /**
   * A sandboxed Bash call ended (and, with its PID namespace, everything it started): remove
   * the protected files it created, and report them with the proxy's refusals meanwhile.
   */
  finish(toolUseId: string): Violation[] | undefined {
    const call = this.#calls.get(toolUseId);
    if (!call) return undefined;
    this.#calls.delete(toolUseId);
    const out: Violation[] = [];
    for (const path of call.watched) {
      if (!lstatSync(path, { throwIfNoEntry: false })) continue;
      rmSync(path, { recursive: true, force: true });
      out.push({
        kind: "write",
        detail: `${relative(this.#settings.cwd, path) || path} is a protected file; the command created it and it was removed`,
      });
    }
    for (const link of call.links) {
      const now = lstatSync(link.path, { throwIfNoEntry: false });
      if (now?.isSymbolicLink() && readlinkSync(link.path) === link.target) continue;
      rmSync(link.path, { recursive: true, force: true });
      symlinkSync(link.target, link.path);
      // The guard's next sweep (just below) must not take the put-back link for a new entry.
      this.#guard?.restored(link.path, link.target);
      out.push({
        kind: "write",
        detail: `${relative(this.#settings.cwd, link.path) || link.path} is a protected link; the command replaced it and it was put back`,
      });
    }
    out.push(...this.settle());
    for (const d of this.#proxy?.denials ?? []) {
      if (d.at >= call.started)
        out.push({ kind: "network", detail: `network access to ${d.host}:${d.port} is not allowed (${d.reason})` });
    }
    return out;
  }

  /**
   * Sweep the workspace now (after a hook, an MCP tool call, at the end): protected entries a
   * sandboxed process created anywhere in it are moved out, and returned with the ones earlier
   * sweeps removed that no result has reported yet.
   */
  /** The host path of `path` as sandboxed processes see it: under /tmp, the run's private folder (bubblewrap). */
  hostPath(path: string): string {
    if (this.#availability.backend === "seatbelt" || (path !== "/tmp" && !path.startsWith("/tmp/"))) return path;
    this.#prepare();
    return join(this.#dirs!.tmp, path.slice("/tmp".length));
  }

  settle(): Violation[] {
    if (!this.#guard) return [];
    const removed = [...this.#unreported.splice(0), ...this.#guard.sweep()];
    return removed.map((q) => ({
      kind: "write" as const,
      detail: `${relative(this.#settings.cwd, q.path) || q.path} is protected (${q.reason}); it was made inside the sandbox, so it was removed from the workspace${q.movedTo ? ` (kept in ${q.movedTo})` : ""}${removalHint(q.reason)}`,
    }));
  }

  /** A file tool wrote `path`: the permission engine judged it, so the next sweep keeps it. */
  approve(path: string, sha256?: string): void {
    this.#guard?.approve(path, sha256);
    this.#hostRuns.approve(path, sha256);
  }

  /**
   * Excluded Bash call `id` is about to be judged: the files in the writable folders that changed
   * since sandboxed processes could write them (host-runs.ts), which it might run outside.
   */
  checkHostRun(id: string): { files: string[]; unchecked?: string } {
    return this.#hostRuns.check(id);
  }

  /** Excluded Bash call `id` ended (host-runs.ts). */
  endHostRun(id: string): void {
    this.#hostRuns.end(id);
  }

  #standIns: { source: string; path: string }[] | undefined;
  /** The user's git and mise configs, filtered (homeConfigCopies; made once per run, in the private folder). */
  #homeConfigs(): { source: string; path: string }[] {
    if (this.#standIns) return this.#standIns;
    this.#standIns = [];
    for (const { path, filter } of homeConfigCopies(this.#settings.home)) {
      // A regular file only, opened without blocking (the home may be a writable folder: a FIFO there).
      const read = readRegularFileSync(path, 16 * 1024 * 1024);
      if (!read.ok) continue;
      const text = read.text;
      const source = join(this.#dirs!.root, `home-${relative(this.#settings.home, path).replace(/\//g, "_")}`);
      writeFileSync(source, filter(text), { mode: 0o444 });
      this.#standIns.push({ source, path });
    }
    return this.#standIns;
  }

  /**
   * Each git folder's config in a writable folder, shown without its credentials as the user's
   * own git config is (GIT_CONFIGS): actions/checkout leaves the job's token in the project's
   * `.git/config` (`http.<url>.extraheader`), and a clone by a tokened URL keeps it in the remote's
   * `url`; every sandboxed command read both (red team q, Q6). Read at each spawn: git on the host
   * may change it between commands.
   */
  #repositoryConfigs(layout: RootLayout): void {
    for (const gitDir of layout.pinned) {
      const path = join(gitDir, "config");
      if (!layout.readOnly.includes(path)) continue;
      // Bound as it is when it cannot be read as a regular file (nothing read, nothing shown that was not before).
      const read = readRegularFileSync(path, 16 * 1024 * 1024);
      if (!read.ok) continue;
      const text = read.text;
      const filtered = gitConfigWithoutCredentials(text);
      if (filtered === text) continue;
      const source = join(
        this.#dirs!.root,
        `repo-config-${createHash("sha256").update(path).digest("hex").slice(0, 16)}`,
      );
      rmSync(source, { force: true });
      writeFileSync(source, filtered, { mode: 0o444 });
      (layout.standIns ??= new Map()).set(path, source);
    }
  }

  #cacheDir: string | undefined;
  /** The sandbox's own package cache for MCP servers (made on first use; undefined when it cannot be). */
  #mcpCache(): string | undefined {
    const base = process.env.XDG_CACHE_HOME || join(this.#settings.home, ".cache");
    const dir = join(base, "ubiquity", "sandbox-cache");
    try {
      mkdirSync(join(dir, "npm"), { recursive: true, mode: 0o700 });
      mkdirSync(join(dir, "xdg"), { recursive: true, mode: 0o700 });
      this.#cacheDir = realpathSync(dir);
      return this.#cacheDir;
    } catch {
      return undefined;
    }
  }

  #quarantine(): string {
    this.#quarantineDir ??= join(
      this.#settings.home,
      ".ubiquity",
      "sandbox-removed",
      `${new Date().toISOString().replace(/[:.]/g, "-")}-${process.pid}`,
    );
    return this.#quarantineDir;
  }

  /** Stop the proxy and remove what the sandbox made. */
  async close(): Promise<void> {
    this.#warmAbort.abort();
    await this.#proxy?.close();
    this.#proxy = undefined;
    this.#cleanSync();
  }

  /** Closed: nothing more is worked out ahead (a run that ended before its warm-up began). */
  #closed = false;

  #cleanSync() {
    this.#closed = true;
    process.removeListener("exit", this.#onExit);
    for (const pin of [...this.#granted.values(), ...this.#seen.values(), ...this.#retired.splice(0)]) unpin(pin);
    this.#granted.clear();
    this.#seen.clear();
    // rmdir removes only an empty folder: a placeholder someone filled since stays.
    for (const p of this.#placeholders) {
      try {
        rmdirSync(p);
      } catch {
        // not empty, or gone
      }
    }
    this.#placeholders.clear();
    this.#filters?.close();
    this.#filters = undefined;
    const dirs = this.#dirs;
    if (!dirs) return;
    this.#dirs = undefined;
    try {
      chmodSync(dirs.unreadableDir, 0o700);
      rmSync(dirs.root, { recursive: true, force: true });
    } catch {
      // best effort: it is a temp folder
    }
  }
}

/**
 * A bind protects a path, not the file: a protected file with another name in a writable folder
 * would be changed through that name. Refused until the other name is gone (fail closed).
 * `own` is left out: ubiquity's own code (installed by pnpm, each file is a hard link into pnpm's
 * store outside the writable folders, which would refuse every command) and the node_modules
 * folders its dependencies load from (walking tens of thousands of files at every command is what
 * one bind each avoids, and no sandboxed process can give one of their files another name: link(2)
 * fails across the read-only bind). A name made before, in a writable folder (another project
 * sharing pnpm's store), is not looked for (docs/guide/sandbox.md says so).
 */
function refuseSharedProtected(layouts: readonly { readOnly: readonly string[] }[], own: ReadonlySet<string>): void {
  const shared = hardLinkedProtected(layouts.flatMap((l) => l.readOnly).filter((p) => !own.has(p)));
  if (shared?.why === "linked")
    throw new Error(
      `ubiquity:sandbox: ${shared.path} is protected but has another name (a hard link), through which a sandboxed command could change it; remove the other link (\`find <folder> -samefile ${shared.path}\` lists it in a folder) and run the command again`,
    );
  if (shared)
    throw new Error(
      `ubiquity:sandbox: could not check the protected folders below ${shared.path} for hard links (\`find\` failed), so a sandboxed command could change a protected file through another name; make the folders readable and run the command again`,
    );
}

/** The account's own home folder (the password database's), whatever HOME says; undefined when unknown. */
function accountHome(): string | undefined {
  try {
    return userInfo().homedir || undefined;
  } catch {
    return undefined;
  }
}

/**
 * What to do instead, where a removal has an ordinary way round: `python -m venv` inside the sandbox
 * loses its activation scripts (trial zg), and the venv works without them.
 */
function removalHint(reason: string): string {
  return reason.includes("activation script of the virtualenv")
    ? "; the virtualenv works without it: run its bin/python and bin/pip by path, or have the user make the virtualenv in their terminal to get its activation scripts"
    : "";
}
