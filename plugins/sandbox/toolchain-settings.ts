/**
 * The settings of the toolchains the sandbox shows in the home folder (HOME_TOOLCHAINS). A
 * toolchain is shown for its programs and packages, but an installation also keeps the user's
 * own installation-wide settings beside them, which tools fill with credentials: npm's
 * `$PREFIX/etc/npmrc` (`npm config set -g //registry…:_authToken=…`) in every node of nvm, volta,
 * fnm, asdf and mise, rubygems' `etc/gemrc`, pip's `pip.conf` at a Python's or virtualenv's top,
 * conda's `.condarc`, maven's `conf/settings.xml` under sdkman. A sandboxed command read each of
 * them (red team zf, ZF1). They are the user's configuration, as the home's dotfiles are, and hidden
 * as those are: by place, not by name, so a tool nobody named is covered where it keeps them.
 *
 * An installation is a folder holding a `bin` folder. Of each, hidden: its `etc` (site-wide
 * configuration, as the system's /etc: whole, but a version manager's `<tool>env.d` hook folders of
 * code), its `conf` (whole, but a JDK's: its security policy, which it cannot run without, holds no
 * secret), and every configuration file at its top (a dotfile, or a name ending in rc, .conf, .ini,
 * .cfg, .toml, .yml, .yaml, .json, .xml or .properties), but a virtualenv's `pyvenv.cfg` (paths
 * only; python needs it), and a conda environment's variables (`conda-meta/state`). Found by a walk
 * of folders, not files: down to WALK_DEPTH below each toolchain folder, never into an
 * installation's folders of programs and libraries (where nothing is the user's configuration), nor
 * a folder of more than INDEX_SIZE entries (a package index or store: version managers keep a
 * handful of installations). Past WALK_BUDGET folders read, the folders not yet read are hidden
 * whole (fail closed). A toolchain folder that is no installation itself has its own dotfiles
 * hidden (`~/.conda/.condarc`, a per-user condarc); its other files are its tool's state, which it
 * needs to run (rustup's `settings.toml`, juliaup's `juliaup.json`).
 */
import { type Dirent, existsSync, lstatSync, readdirSync, realpathSync } from "node:fs";
import { join } from "node:path";

/** How far below a toolchain folder installations are looked for (volta's `tools/image/node/<v>`: 4). */
const WALK_DEPTH = 4;
/** A folder with more entries than this is an index or a store, not a list of installations: not entered. */
const INDEX_SIZE = 256;
/** How many folders one walk reads before it hides the rest. */
const WALK_BUDGET = 5000;

/** An installation's folders of programs, libraries and documents: none holds the user's settings. */
const PROGRAM_FOLDERS = new Set([
  "bin",
  "sbin",
  "lib",
  "lib32",
  "lib64",
  "libexec",
  "include",
  "share",
  "man",
  "src",
  "jmods",
  "legal",
  "pkg",
  "node_modules",
  ".git",
]);

/** A configuration file's name, at an installation's top. */
const CONFIG_NAME = /^\.|(?:rc|\.conf|\.ini|\.cfg|\.toml|\.ya?ml|\.json|\.xml|\.properties)$/i;
/** What an installation's top holds that its programs need and that is no secret. */
const KEPT_AT_TOP = new Set(["pyvenv.cfg"]);
/** A version manager's hook folders in an installation's `etc` (pyenv's plugins' `etc/pyenv.d`): code, as bin is. */
const HOOK_FOLDER = /^[a-z]+env\.d$/;

function entries(dir: string): Dirent[] | undefined {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return undefined; // unreadable to this user: to the sandboxed command too
  }
}

/** Is `dir` (an installation) a JDK? Its `release` names the Java version. */
function isJdk(dir: string, names: Set<string>): boolean {
  return names.has("release") && (names.has("jmods") || existsSync(join(dir, "lib", "modules")));
}

/** What to hide of one installation `dir`, whose entries are `list`. */
function installationSettings(dir: string, list: Dirent[]): string[] {
  const names = new Set(list.map((e) => e.name));
  const out: string[] = [];
  for (const entry of list) {
    const path = join(dir, entry.name);
    if (entry.name === "etc" && (entry.isDirectory() || entry.isSymbolicLink())) {
      const inner = entry.isDirectory() ? entries(path) : undefined;
      // Its hook folders of code kept, everything else of it hidden; a link or an unreadable etc whole.
      if (inner?.some((e) => e.isDirectory() && HOOK_FOLDER.test(e.name)))
        for (const e of inner) {
          if (!(e.isDirectory() && HOOK_FOLDER.test(e.name))) out.push(join(path, e.name));
        }
      else out.push(path);
    } else if (entry.name === "conf" && !isJdk(dir, names)) out.push(path);
    // A conda environment's variables (`conda env config vars set`), kept beside its package records.
    else if (entry.name === "conda-meta" && entry.isDirectory()) out.push(join(path, "state"));
    else if (!entry.isDirectory() && CONFIG_NAME.test(entry.name) && !KEPT_AT_TOP.has(entry.name)) out.push(path);
  }
  return out;
}

/**
 * The paths to hide of the installations under `roots` (absolute toolchain folders). A link among
 * them is hidden where it leads when that lies in one of the roots (bubblewrap cannot mount over a
 * link, nor over what the sandbox does not show; elsewhere the place's own rules judge it).
 */
export function toolchainSettings(roots: readonly string[]): string[] {
  const out = new Set<string>();
  const pending = roots.map((dir) => ({ dir, depth: 0 }));
  let read = 0;
  while (pending.length > 0) {
    const { dir, depth } = pending.pop()!;
    if (read >= WALK_BUDGET) {
      out.add(dir);
      continue;
    }
    const stats = lstatSync(dir, { throwIfNoEntry: false });
    if (!stats?.isDirectory()) continue; // absent, or a link (judged where it leads, when that is a toolchain)
    const list = entries(dir);
    if (!list) continue;
    read++;
    if (list.length > INDEX_SIZE) continue;
    const installation = list.some((e) => e.name === "bin" && e.isDirectory());
    if (installation) for (const path of installationSettings(dir, list)) out.add(path);
    // A toolchain folder's own dotfiles are its tool's per-user settings (conda reads `~/.conda/.condarc`).
    else if (depth === 0)
      for (const e of list) if (!e.isDirectory() && e.name.startsWith(".")) out.add(join(dir, e.name));
    if (depth >= WALK_DEPTH) continue;
    for (const e of list) {
      if (!e.isDirectory()) continue;
      if (installation && (PROGRAM_FOLDERS.has(e.name) || e.name === "etc" || e.name === "conf")) continue;
      if (e.name === "node_modules" || e.name === ".git") continue;
      pending.push({ dir: join(dir, e.name), depth: depth + 1 });
    }
  }
  const hidden: string[] = [];
  const inRoots = (p: string) => roots.some((r) => p === r || p.startsWith(`${r}/`));
  for (const path of out) {
    try {
      const real = lstatSync(path).isSymbolicLink() ? realpathSync(path) : path;
      if (inRoots(real)) hidden.push(real);
    } catch {
      // gone, or a dangling link: nothing to read there
    }
  }
  return hidden;
}
