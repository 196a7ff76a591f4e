/**
 * What `ubiquity plugin add <folder> | list | remove <name|folder>` does: Claude Code plugins
 * recorded in the user's settings file (`~/.ubiquity/settings.json`, key `claudePlugins`), which
 * the settings plugin turns into the `claudePlugins` option of every run that reads user settings.
 * Loaded on the command's first run (cli.ts lists the command).
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { createHash } from "node:crypto";
import { basename, join, relative, resolve } from "node:path";
import { UsageError, type CommandArgs, type CommandIO } from "../../loader/index";
import { writeFileAtomic } from "../_kits/storage/index";
import { hostEnv } from "../_kits/process/index";
import {
  CODEX_PLUGIN_MANIFEST,
  MARKETPLACES,
  PLUGIN_MANIFEST,
  readClaudePlugin,
  unrunParts,
} from "../_kits/sources/index";

/** The user's settings file, whose `claudePlugins` the subcommands edit. */
const userSettings = () => join(homedir(), ".ubiquity", "settings.json");
/** Where plugins and marketplaces added from git are cloned: the user's own folder (trust never gates it). */
const cloneRoot = () => join(homedir(), ".ubiquity", "plugins");

/** Is `arg` a git URL (`https://…/x.git`, `git@host:x`, `ssh://`, `git://`, `file://`) rather than a folder? */
export function isGitUrl(arg: string): boolean {
  return (
    /^(?:git@[^:]+:|ssh:\/\/|git:\/\/|file:\/\/)/.test(arg) ||
    (/^https?:\/\//.test(arg) && /\.git(?:#.*)?$|^https?:\/\/(?:github\.com|gitlab\.com|bitbucket\.org)\//.test(arg))
  );
}

/** Git, ssh and credential helpers never see a credential variable (hostEnv); SSH_AUTH_SOCK stays. */
function gitEnv(): NodeJS.ProcessEnv {
  return {
    ...hostEnv(),
    GIT_TERMINAL_PROMPT: "0",
    GIT_ASKPASS: "",
    SSH_ASKPASS: "",
  };
}

/**
 * Clone `url` (`url#ref` for a branch or tag) into the user's plugin folder, shallow, with no
 * prompt for credentials; resolves to the clone. A folder already there is never overwritten.
 */
function cloneGit(url: string): string {
  const [repo, ref] = url.split("#", 2) as [string, string | undefined];
  let name =
    basename(repo.replace(/\/+$/, ""))
      .replace(/\.git$/, "")
      .replace(/[^A-Za-z0-9._-]/g, "-") || "plugin";
  // Red-team fix: a URL ending in `/.` or `/..` names no folder of its own (it would clone into the plugins folder itself, or ~/.ubiquity).
  if (/^\.+$/.test(name)) name = "plugin";
  const dest = join(cloneRoot(), name);
  if (existsSync(dest))
    throw new UsageError(
      `ubiquity plugin add: ${dest} exists already (from an earlier add); remove it (ubiquity plugin remove ${name}) or add that folder`,
    );
  mkdirSync(cloneRoot(), { recursive: true });
  try {
    execFileSync("git", ["clone", "--quiet", "--depth", "1", ...(ref ? ["--branch", ref] : []), "--", repo, dest], {
      stdio: ["ignore", "ignore", "pipe"],
      timeout: 300_000,
      env: gitEnv(),
    });
  } catch (error) {
    rmSync(dest, { recursive: true, force: true });
    const stderr = String((error as { stderr?: Buffer }).stderr ?? "")
      .trim()
      .split("\n")
      .slice(-2)
      .join(" ");
    throw new UsageError(`ubiquity plugin add: git clone ${repo} failed${stderr ? `: ${stderr}` : ""}`);
  }
  return dest;
}

/** Where a marketplace entry's plugin comes from in git: the URL (`#ref`), the commit it is pinned to, its folder in the repository. */
interface GitSource {
  url: string;
  sha?: string;
  path?: string;
}

/**
 * A marketplace entry's git source as Claude Code's marketplaces write it: `{source: "github",
 * repo}`, `{source: "url", url}`, `{source: "git-subdir", url, path}` (a plugin in a folder of a
 * repository), each with an optional `ref` and `sha`, or a git URL string.
 */
function gitSourceOf(source: unknown): GitSource | undefined {
  if (typeof source === "string") return isGitUrl(source) ? { url: source } : undefined;
  if (typeof source !== "object" || source === null) return undefined;
  const s = source as { source?: unknown; repo?: unknown; url?: unknown; ref?: unknown; sha?: unknown; path?: unknown };
  const ref = typeof s.ref === "string" && s.ref ? `#${s.ref}` : "";
  // A pin that is not a full commit id is not a pin: refused rather than ignored (addPinned).
  const sha = typeof s.sha === "string" ? { sha: s.sha } : {};
  if (s.source === "github" && typeof s.repo === "string" && /^[\w.-]+\/[\w.-]+$/.test(s.repo))
    return { url: `https://github.com/${s.repo}.git${ref}`, ...sha };
  // Only the URL forms a folder argument may take (never `ext::` or an option-like string).
  if ((s.source === "url" || s.source === "git") && typeof s.url === "string" && isGitUrl(s.url))
    return { url: `${s.url}${ref}`, ...sha };
  if (s.source === "git-subdir" && typeof s.url === "string" && isGitUrl(s.url) && typeof s.path === "string")
    return { url: `${s.url}${ref}`, ...sha, path: s.path };
  return undefined;
}

/**
 * Clone a marketplace entry's git source; with a `sha`, the clone is that commit or nothing (a
 * marketplace pins what it reviewed: a branch that moved since is not what it listed). With a
 * `path`, the plugin is that folder of the clone, which must stay inside it.
 */
function clonePinned(name: string, source: GitSource): string {
  if (source.sha !== undefined && !/^[0-9a-f]{40}$/.test(source.sha))
    throw new UsageError(`ubiquity plugin add: ${name}'s "sha" ${JSON.stringify(source.sha)} is not a full commit id`);
  const clone = cloneGit(source.url);
  const fail = (message: string): never => {
    rmSync(clone, { recursive: true, force: true });
    throw new UsageError(`ubiquity plugin add: ${message}`);
  };
  if (source.sha) {
    const head = () => gitIn(clone, ["rev-parse", "HEAD"]);
    if (head() !== source.sha) {
      try {
        gitIn(clone, ["fetch", "--quiet", "--depth", "1", "origin", source.sha]);
        gitIn(clone, ["checkout", "--quiet", "--detach", source.sha]);
      } catch {
        // Checked below: the clone is not the pinned commit.
      }
      if (head() !== source.sha)
        fail(
          `the marketplace pins ${name} to commit ${source.sha}, which ${source.url} does not have; nothing was added`,
        );
    }
  }
  if (source.path === undefined) return clone;
  const folder = resolve(clone, source.path);
  if (!folder.startsWith(`${clone}/`))
    fail(`${name}'s path ${JSON.stringify(source.path)} leads outside its repository`);
  if (!existsSync(folder)) fail(`${name}'s path ${JSON.stringify(source.path)} is not in ${source.url}`);
  // Red-team fix: a symlink in the repository (`sub -> /home/me/other`, `sub -> ../..`) leads out of it
  // while the path itself stays inside: the folder the link resolves to must be inside the clone too.
  const real = realpathSync(folder);
  const root = realpathSync(clone);
  if (real !== root && !real.startsWith(`${root}/`))
    fail(`${name}'s path ${JSON.stringify(source.path)} is a link that leads outside its repository`);
  return folder;
}

/** Run git in a clone (no prompts, no credential variables, as the clone itself); its trimmed stdout. */
function gitIn(dir: string, args: string[]): string {
  return execFileSync("git", ["-C", dir, ...args], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
    timeout: 300_000,
    env: gitEnv(),
  }).trim();
}

/** The user's settings, fail closed: a file that is not a JSON object is never rewritten. */
function readSettings(path: string): Record<string, unknown> {
  if (!existsSync(path)) return {};
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new Error(
      `${path} is not valid JSON (${(error as Error).message}); fix it before adding or removing plugins`,
    );
  }
  if (typeof data !== "object" || data === null || Array.isArray(data))
    throw new Error(`${path} is not a JSON object; fix it before adding or removing plugins`);
  return data as Record<string, unknown>;
}

const pluginsOf = (settings: Record<string, unknown>): string[] =>
  Array.isArray(settings.claudePlugins) ? settings.claudePlugins.filter((p): p is string => typeof p === "string") : [];

/**
 * The folder of plugin `name` in the marketplace at `folder` (a local `./…` source inside it);
 * undefined when `folder` is no marketplace. A marketplace without `name`, or a plugin whose
 * source is not a local folder (git, URL), is a UsageError naming what to do instead.
 */
function marketplacePlugin(
  folder: string,
  name: string | undefined,
  notes: string[] = [],
  declared: { manifest?: Record<string, unknown> } = {},
): string | undefined {
  const file = MARKETPLACES.map((m) => join(folder, m)).find((m) => existsSync(m));
  if (!file) {
    if (name !== undefined)
      throw new UsageError(
        `ubiquity plugin add: ${folder} is not a marketplace (no ${MARKETPLACES.join(" or ")}), so it takes no plugin name`,
      );
    return undefined;
  }
  const marketplace = readSettings(file) as { plugins?: unknown; metadata?: { pluginRoot?: unknown } };
  const plugins = Array.isArray(marketplace.plugins)
    ? (marketplace.plugins as { name?: unknown; source?: unknown }[])
    : [];
  const names = plugins.map((p) => p.name).filter((n): n is string => typeof n === "string");
  if (name === undefined) {
    // A marketplace that is also a plugin folder is added as the plugin.
    if (existsSync(join(folder, PLUGIN_MANIFEST)) || existsSync(join(folder, CODEX_PLUGIN_MANIFEST))) return undefined;
    throw new UsageError(
      `ubiquity plugin add: ${folder} is a marketplace; name one of its ${names.length} plugins: ubiquity plugin add ${folder} <plugin> (${names.slice(0, 8).join(", ")}${names.length > 8 ? ", …" : ""})`,
    );
  }
  const entry = plugins.find((p) => p.name === name);
  if (!entry) throw new UsageError(`ubiquity plugin add: the marketplace ${file} has no plugin named ${name}`);
  // A `strict: false` entry may declare parts in the marketplace file itself; those we do not run are said.
  notes.push(...unrunParts(undefined, entry as Record<string, unknown>));
  declared.manifest = entryManifest(entry as Record<string, unknown>);
  const git = gitSourceOf(entry.source);
  if (git) return clonePinned(name, git);
  let source =
    typeof entry.source === "string"
      ? entry.source
      : (entry.source as { path?: unknown; source?: unknown } | undefined)?.source === "local"
        ? (entry.source as { path?: unknown }).path
        : undefined;
  // Claude Code's `metadata.pluginRoot` is prepended to a source written without `./` (`"formatter"`
  // with `"./plugins"` is `./plugins/formatter`); where it leads is judged below like any source.
  const pluginRoot = marketplace.metadata?.pluginRoot;
  if (
    typeof source === "string" &&
    /^[^./]/.test(source) &&
    typeof pluginRoot === "string" &&
    pluginRoot.startsWith("./")
  )
    source = `./${join(pluginRoot, source)}`;
  if (typeof source !== "string" || !source.startsWith("./")) {
    throw new UsageError(
      `ubiquity plugin add: ${name} comes from ${JSON.stringify(entry.source)}, neither a folder of the marketplace nor a git repository; fetch it yourself and add its folder`,
    );
  }
  const path = resolve(folder, source);
  if (!path.startsWith(`${folder}/`))
    throw new UsageError(`ubiquity plugin add: ${name}'s source ${source} leads outside the marketplace`);
  // Red-team fix (2026-12-05, LSP): judged where it leads: a link in the marketplace to a folder
  // outside it had the entry's manifest written into that folder (another plugin's, say).
  const real = realOrUndefined(path);
  const market = realOrUndefined(folder);
  if (!real || !market || !real.startsWith(`${market}/`))
    throw new UsageError(
      `ubiquity plugin add: ${name}'s source ${source} ${real ? "is a link leading outside the marketplace" : "does not exist"}`,
    );
  return path;
}

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** The parts a plugin manifest may declare (Claude Code's plugin.json component fields). */
const PART_KEYS = ["commands", "agents", "skills", "hooks", "mcpServers", "lspServers", "outputStyles"];
/** A marketplace entry's own fields, which are not the plugin's manifest. */
const ENTRY_KEYS = new Set(["source", "strict", "category", "tags"]);

/**
 * The manifest a `strict: false` marketplace entry declares (the entry is the plugin's manifest,
 * as Claude Code reads it: the official marketplace's language-server plugins are README, licence
 * and the entry's `lspServers`), or undefined when the entry declares no part.
 */
function entryManifest(entry: Record<string, unknown>): Record<string, unknown> | undefined {
  if (entry.strict !== false || !PART_KEYS.some((key) => entry[key] !== undefined)) return undefined;
  return Object.fromEntries(Object.entries(entry).filter(([key]) => !ENTRY_KEYS.has(key)));
}

/**
 * The plugin folder with the entry's manifest merged over its own (the entry wins, as it
 * declares the plugin): written into our clone, or into a copy of a local folder in the user's
 * plugin folder, so the marketplace's files are never changed.
 */
function withEntryManifest(folder: string, name: string, manifest: Record<string, unknown>): string {
  const inClone = resolve(folder).startsWith(`${cloneRoot()}/`);
  let target = folder;
  if (!inClone) {
    // Named by where it comes from too: two marketplaces' `plugins/x` are two copies, never one
    // replacing the other's (red team 2026-12-05, LSP).
    const from = createHash("sha256")
      .update(`${realOrUndefined(folder) ?? folder}\n${name}`)
      .digest("hex");
    target = join(cloneRoot(), `${basename(folder)}-entry-${from.slice(0, 12)}`);
    rmSync(target, { recursive: true, force: true });
    mkdirSync(cloneRoot(), { recursive: true });
    // Links are copied as links: what one points to is judged where it is read, as in the folder.
    cpSync(folder, target, { recursive: true, verbatimSymlinks: true, filter: (src) => basename(src) !== ".git" });
  }
  // The folder written into is the folder itself, under the plugins folder: no link on the way.
  const root = realOrUndefined(cloneRoot());
  if (!root || realOrUndefined(target) !== join(root, relative(cloneRoot(), target)))
    throw new UsageError(`ubiquity plugin add: ${target} is reached through a link; its manifest is not written`);
  // A manifest (or its folder) that is a link is replaced, never written through.
  const dir = join(target, ".claude-plugin");
  const file = join(target, PLUGIN_MANIFEST);
  const linked = (path: string) => lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() === true;
  if (linked(dir)) rmSync(dir);
  const own = !linked(file) && existsSync(file) ? readSettings(file) : {};
  rmSync(file, { force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, `${JSON.stringify({ ...own, ...manifest, name }, null, 2)}\n`);
  return target;
}

export async function runPluginCommand({ positionals }: CommandArgs, io: CommandIO): Promise<number> {
  const [sub, arg, ...rest] = positionals;
  const path = userSettings();
  if (sub === "list" && arg === undefined) {
    const folders = pluginsOf(readSettings(path));
    if (folders.length === 0) io.stdout(`No plugins (ubiquity plugin add <folder> records one in ${path}).\n`);
    for (const folder of folders) {
      const problems: string[] = [];
      const plugin = readClaudePlugin(folder, (m) => problems.push(m));
      io.stdout(
        `${(plugin?.name ?? "(unreadable)").padEnd(24)} ${folder}${problems.length ? `  (${problems.join("; ")})` : ""}\n`,
      );
    }
    return 0;
  }
  if ((sub === "add" || sub === "remove") && arg !== undefined && rest.length <= (sub === "add" ? 1 : 0)) {
    const settings = readSettings(path);
    const folders = pluginsOf(settings);
    if (sub === "add") {
      // A git URL is cloned into ~/.ubiquity/plugins first; then it is a folder like any other.
      const cloned = isGitUrl(arg) ? cloneGit(arg) : undefined;
      const place = cloned ?? resolve(arg);
      let folder: string;
      const notes: string[] = [];
      const declared: { manifest?: Record<string, unknown> } = {};
      try {
        folder = marketplacePlugin(place, rest[0], notes, declared) ?? place;
        // A marketplace's plugin is named by its entry, as Claude Code names it: a folder without a manifest
        // of its own (cowwoc/claude-code-cat's `./plugin`) would otherwise be named after the folder.
        const unnamed =
          rest[0] !== undefined &&
          folder !== place &&
          !existsSync(join(folder, PLUGIN_MANIFEST)) &&
          !existsSync(join(folder, CODEX_PLUGIN_MANIFEST)) &&
          basename(folder) !== rest[0];
        if (declared.manifest || unnamed) folder = withEntryManifest(folder, rest[0]!, declared.manifest ?? {});
      } catch (error) {
        if (cloned) rmSync(cloned, { recursive: true, force: true });
        throw error;
      }
      const problems: string[] = [];
      const plugin = existsSync(folder) ? readClaudePlugin(folder, (m) => problems.push(m)) : undefined;
      if (!plugin) {
        if (cloned) rmSync(cloned, { recursive: true, force: true });
        throw new UsageError(
          `ubiquity plugin add: ${folder} is not a plugin folder${problems.length ? `: ${problems.join("; ")}` : " (it does not exist)"}`,
        );
      }
      if (!folders.includes(folder))
        await writeFileAtomic(
          path,
          `${JSON.stringify({ ...settings, claudePlugins: [...folders, folder] }, null, 2)}\n`,
        );
      io.stdout(
        `Added the plugin ${plugin.name} (${folder}): its commands are /${plugin.name}:<command> in runs that read user settings.\n`,
      );
      for (const note of [...notes, ...problems]) io.stdout(`Note: ${note}.\n`);
      return 0;
    }
    const keep = folders.filter(
      (folder) => folder !== resolve(arg) && readClaudePlugin(folder, () => {})?.name !== arg,
    );
    if (keep.length === folders.length)
      throw new UsageError(`ubiquity plugin remove: no plugin named ${arg} (see ubiquity plugin list)`);
    await writeFileAtomic(path, `${JSON.stringify({ ...settings, claudePlugins: keep }, null, 2)}\n`);
    // What `plugin add <git-url>` cloned goes with it (the clone, or the marketplace clone holding it).
    for (const folder of folders.filter((f) => !keep.includes(f))) {
      // Red-team fix: judged by its normalized path (an entry written `…/plugins/../..` is not a clone), and never the plugins folder itself.
      const normal = resolve(folder);
      const first = normal.startsWith(`${cloneRoot()}/`)
        ? normal.slice(cloneRoot().length + 1).split("/")[0]
        : undefined;
      const clone = first ? join(cloneRoot(), first) : undefined;
      if (clone && !keep.some((k) => k === clone || k.startsWith(`${clone}/`)))
        rmSync(clone, { recursive: true, force: true });
    }
    io.stdout(`Removed ${folders.length - keep.length} plugin${folders.length - keep.length === 1 ? "" : "s"}.\n`);
    return 0;
  }
  throw new UsageError(
    "ubiquity plugin: use `plugin add <folder>`, `plugin add <marketplace-folder> <plugin>`, `plugin list` or `plugin remove <name|folder>`",
  );
}
