/**
 * What rules are matched against for one call: the commands of a shell call (with the files it
 * writes judged against the roots and the sensitive list), the paths of a file tool (in both
 * forms), or the content strings any other tool declares (`permissionRuleContent`).
 */
import { existsSync, lstatSync, readdirSync, readlinkSync, realpathSync, type Stats, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { analyzeShell } from "./shell/analyze";
import type { ShellAnalysis, WriteTarget } from "./shell/types";
import { literalWord, type ShellWord } from "./shell/words";
import { isHarmlessExport } from "./shell/names";
import { resolveReal } from "../_kits/paths/index";
import { insideRoots, judgePath, type JudgedPath } from "./paths";
import { configCodeOf } from "./config-modules";
import { type CopiedMode, copiedModeReason } from "./copied-modes";
import { gitConfigNaming } from "./git-named";
import {
  configuredEnvironmentPlace,
  configuredFiles,
  configuredPackageFolders,
  configuredPackagePlace,
  ownCode,
  readOnlyModules,
  readRegularBytesSync,
} from "../../loader/index";
import {
  envrcNaming,
  gitFolderInTheMaking,
  gitFolderOf,
  isGitFolder,
  gitMarkersOf,
  pathFolderOf,
  sandboxLeavesWritable,
  sensitiveReason,
  systemReason,
  venvActivateReason,
  venvOf,
} from "./sensitive";
import type { ToolKinds } from "./policy";

/** Where a call runs. */
export interface Place {
  cwd: string;
  home: string;
  /** The permitted roots, resolved: the folders the run was given (cwd, additionalDirectories). */
  roots: readonly string[];
  /**
   * Folders a plugin added to the run's roots so that its files can be read (a skill's folder),
   * resolved: a write there asks in every mode (see `readRootReason`).
   */
  readRoots?: readonly string[];
  /**
   * What the folder's trust pins (real paths of files and folders): each can run code or change
   * what the agent may do, and applies only while it holds what was approved. A write there asks
   * in every mode (see `readRootReason`).
   */
  pinned?: readonly string[];
  /** The PATH the run's `env` option gives its commands, when it gives one (see `noteCommandPath`). */
  commandPath?: string;
  /**
   * The variables the run's commands get beyond the subprocess allow-list: the names of its `env`
   * option, and with `subprocessEnv: "inherit"` every variable of this process (red team zs, ZS3).
   */
  exported?: readonly string[];
}

/** The subject of a decision. */
export type Subject =
  | {
      kind: "shell";
      analysis: ShellAnalysis;
      /** Why no allow rule may cover it (analysis reasons plus where it writes). */
      unsafe: string[];
      /** Why it touches a sensitive path, if it does. */
      sensitive?: string;
      /** Files it writes outside the permitted folders (absolute): without the sandbox, bypassPermissions asks. */
      outsideWrites: string[];
      /** Why it rewrites files of the work tree it does not name (git reset --hard, git stash): an Edit deny or ask rule cannot be shown not to apply. */
      unknownEdits: string[];
      /** Why it may write a sensitive path that only the sandbox would keep it from (a system file, an unknown program's argument). */
      unsandboxed?: string;
      /** Why a sensitive path it names stays writable in the sandbox too (a virtualenv's bin, a folder on PATH): only the question holds it. */
      sandboxOpen?: string;
      /** Files it writes through a redirect or a program's output, inside the roots: edits, as Write's would be. */
      edits: JudgedPath[];
      /** Every file it writes whose name is known (for Edit/Write deny and ask rules). */
      writes: JudgedPath[];
      /** Files it reads through `<` or a reading program's operands (for Read deny and ask rules); judged on first use. */
      reads: () => JudgedPath[];
      /** Why some file it reads cannot be named (a run-time operand, a link made earlier): a Read deny or ask rule cannot be shown not to apply. */
      unknownReads: string[];
      /** Why some file it writes cannot be named: an Edit deny or ask rule cannot be shown not to apply, and bypassPermissions without the sandbox asks. */
      unknownWrites: string[];
      /** Folders it reads to the bottom (grep -r, rg), as paths: a Read rule naming a file below one applies. */
      recursiveReads: JudgedPath[];
      /** Operands of programs the engine has no spec for, as paths: they may be read or written (matched by Read and Edit deny and ask rules). */
      maybe: JudgedPath[];
      /**
       * Why it runs the project's own code (`make`, `npm test`, `cargo build`, `pytest`), which may
       * read and write any file. Outside the sandbox a Read, Edit or Write deny or ask rule cannot
       * be shown not to apply; inside it the rule's files are unreadable or read-only there.
       */
      projectCode: string[];
    }
  | { kind: "path"; paths: JudgedPath[]; written: string[]; sensitive?: string; outside: boolean }
  | { kind: "other"; strings: string[] | undefined };

/** Files writing to which is harmless wherever the roots are. */
export const DEVICES = /^\/dev\/(null|stdout|stderr|tty|fd\/\d+)$/;

/**
 * A text's analysis is kept and shared between decisions, frozen (shell/analyze.ts); what one
 * decision learns of the disk (`markConfiguredRunners`: an .npmrc here) is its own, so it marks
 * copies of the candidates, never the kept ones.
 */
function decisionCopy(analysis: ShellAnalysis): ShellAnalysis {
  return { ...analysis, candidates: analysis.candidates.map((c) => ({ ...c })) };
}

/** Build the subject of a call. `ruleContent` is the tool's own `permissionRuleContent`. */
export function buildSubject(
  toolName: string,
  input: Record<string, unknown>,
  ruleContent: string[] | undefined,
  kinds: ToolKinds,
  place: Place,
): Subject {
  if (kinds.shell.has(toolName) && typeof input.command === "string")
    return shellSubject(decisionCopy(analyzeShell(input.command)), place);
  if (kinds.path.has(toolName)) {
    const written = ruleContent ?? fallbackPaths(toolName, input);
    const paths = written.map((p) => judgePath(place.cwd, place.home, p));
    const sensitive = kinds.edit.has(toolName)
      ? paths
          .map((p) => pathSensitive(p, place.roots) ?? systemSensitive(p, place.roots) ?? readRootReason(p, place))
          .find(Boolean)
      : undefined;
    return { kind: "path", paths, written, sensitive, outside: paths.some((p) => !insideRoots(p, place.roots)) };
  }
  return { kind: "other", strings: ruleContent };
}

// Used when a path tool does not say which paths it touches (or decidePermission has no Tool).
function fallbackPaths(toolName: string, input: Record<string, unknown>): string[] {
  for (const key of ["file_path", "notebook_path", "path"]) {
    if (typeof input[key] === "string") return [input[key] as string];
  }
  return toolName === "Glob" || toolName === "Grep" ? ["."] : [];
}

/** The first of `folders` that `path` (either form) is, or is in. */
function within(path: JudgedPath, folders: readonly string[]): string | undefined {
  for (const p of [path.absolute, path.real])
    if (p !== undefined) for (const f of folders) if (p === f || p.startsWith(`${f}/`)) return f;
  return undefined;
}

/** Why a judged path is sensitive (either form), if it is. */
export function pathSensitive(path: JudgedPath, roots: readonly string[] = []): string | undefined {
  // A path that cannot be resolved (a symlink loop) cannot be shown to be harmless.
  if (path.real === undefined) return "it cannot be resolved (a symlink loop?)";
  const named = sensitiveReason(path.absolute) ?? sensitiveReason(path.real);
  if (named) return named;
  const started = configuredFiles().find((f) => f === path.absolute || f === path.real);
  if (started)
    return `it is a configuration file this run was started with, or code one names (${started}): what it holds runs at the next start`;
  const loaded = configuredEnvironmentPlace(path.absolute) ?? configuredEnvironmentPlace(path.real);
  if (loaded)
    return `it is in ${loaded}, which a server's or hook's environment names (a load path, a preload): what it holds runs at the next start`;
  const served =
    configuredPackagePlace(path.absolute) ??
    configuredPackagePlace(path.real) ??
    within(path, configuredPackageFolders(roots));
  if (served)
    return `it is in ${served}, where an MCP server's program runner finds the code it runs: what it holds runs at the next start`;
  const config = configCodeOf([path.real, path.absolute], roots);
  if (config && "module" in config)
    return `${config.config} loads it as code (a module of the config, which may be loaded during the run)`;
  if (config)
    return `it is in ${config.package}, installed code ${config.config} loads: what it holds runs at the next start, outside the sandbox`;
  const own = within(path, [...ownCode(roots), ...readOnlyModules(homedir(), roots)]);
  if (own) return `it is in ${own}, the installed code of this very ubiquity: what it holds runs at the next start`;
  const envrc = envrcNaming(path.real, roots);
  if (envrc) return `${envrc} names it: direnv reads it, or puts its folder on PATH, when the user enters the folder`;
  const gitNamed = gitConfigNaming(path.real, roots) ?? gitConfigNaming(path.absolute, roots);
  if (gitNamed) return `${gitNamed}: git runs it, or reads its config from it (red team ze, ZE4)`;
  const venv = venvOf(path.real);
  if (venv) return `it is inside ${venv}'s bin folder, a virtualenv whose programs and activate script run later`;
  const onPath = pathFolderOf(path.absolute) ?? pathFolderOf(path.real);
  if (onPath) return `it is in ${onPath}, a folder on PATH: a program there runs in place of the one a command names`;
  const git = gitFolderOf(path.real);
  if (git) return `it is inside ${git}, a git folder (its config and hooks run code)`;
  const making = gitFolderInTheMaking(path.real, roots);
  if (making)
    return `it would make ${making} a git folder (HEAD, objects/, refs/ and a config that runs code), one part at a time`;
  const plugin = pluginFolderOf(path.real, roots);
  if (plugin)
    return `it is inside ${plugin}, a Claude Code or Codex plugin folder (its hooks, scripts and MCP servers run code)`;
  return hardLinked(path.real)
    ? "it is a hard link: the same file has other names, which may be a file that runs code later or one outside the permitted folders"
    : undefined;
}

/**
 * Why the sandbox leaves a sensitive path writable, so that only the engine's question holds it
 * (red team zb, ZB5): a virtualenv's bin folder but its activation scripts (pip writes there: W10),
 * a folder on PATH (Y2), and what the sandbox's own list leaves writable of the engine's (red team
 * ze, ZE3: a .pth in site-packages, yarn's release, node_modules/.bin). A program written there
 * runs later in the user's own shell.
 */
function sandboxLeavesOpen(path: JudgedPath, roots: readonly string[]): string | undefined {
  for (const p of new Set([path.absolute, path.real ?? path.absolute])) {
    const root = roots.find((r) => p.startsWith(`${r}/`));
    const open = root === undefined ? undefined : sandboxLeavesWritable(p.slice(root.length + 1));
    if (open) return open;
  }
  if (path.real === undefined) return undefined;
  const venv = venvOf(path.real);
  if (venv && !venvActivateReason(path.real))
    return `it is inside ${venv}'s bin folder, which the sandbox leaves writable (installs write there)`;
  const onPath = pathFolderOf(path.absolute) ?? pathFolderOf(path.real);
  return onPath ? `it is in ${onPath}, a folder on PATH, which the sandbox leaves writable` : undefined;
}

/** A regular file with more than one name (a hard link): its other names are not known here. */
function hardLinked(path: string): boolean {
  try {
    // Not there yet (no exception: a new file is the usual case): a new file has one name.
    const stats = lstatSync(path, { throwIfNoEntry: false });
    return stats?.isFile() === true && stats.nlink > 1;
  } catch {
    return false;
  }
}

const PLUGIN_MANIFESTS = [join(".claude-plugin", "plugin.json"), join(".codex-plugin", "plugin.json")];

/** Does `dir` hold a Claude Code or Codex plugin's manifest (`.claude-plugin/plugin.json`, `.codex-plugin/plugin.json`)? */
export function isPluginFolder(dir: string): boolean {
  return PLUGIN_MANIFESTS.some((m) => existsSync(join(dir, m)));
}

/**
 * The plugin folder `path` lies in, found by its manifest: a folder inside a permitted root (not
 * the root itself, which would make every file of a repository that is a plugin ask) holding
 * `.claude-plugin/plugin.json` or `.codex-plugin/plugin.json`.
 */
export function pluginFolderOf(path: string, roots: readonly string[]): string | undefined {
  for (let dir = dirname(path); dir !== dirname(dir); dir = dirname(dir)) {
    if (!roots.some((root) => dir.startsWith(`${root.endsWith("/") ? root : `${root}/`}`))) return undefined;
    if (isPluginFolder(dir)) return dir;
  }
  return undefined;
}

/**
 * Red-team fix: a folder a plugin added to the run's roots was added for reading (a skill's
 * bundled files), and its files change what the agent may do (a skill's allowed-tools, the
 * scripts its body tells the model to run): a write there, outside the folders the run was given,
 * asks in every mode instead of counting as an edit inside the permitted folders.
 */
function readRootReason(path: JudgedPath, place: Place): string | undefined {
  // Red team k, K5: a skill folder inside the project, a module of the config, a plugin folder —
  // what trust approved by its contents is no plain edit (a rewritten skill script ran under the
  // skill's grant).
  const pin = place.pinned?.find((p) => path.real !== undefined && (path.real === p || path.real.startsWith(`${p}/`)));
  if (pin) return `the folder's trust approved ${pin} as it was (it runs code or changes what the agent may do)`;
  if (!place.readRoots?.length || insideRoots(path, place.roots)) return undefined;
  const root = place.readRoots.find(
    (r) => path.real !== undefined && (path.real === r || path.real.startsWith(`${r}/`)),
  );
  return root
    ? `it is inside ${root}, a folder this run may read (a skill's) but that is not one of its permitted folders`
    : undefined;
}

/**
 * Red team zs (ZS3): a shell variable set without `export` stays exported when the environment
 * bash started with holds it, so `X=v; prog` hands X to prog as `X=v prog` does. The analysis
 * judges plain assignments by the variables the allow-list passes; a run's `env` option (a user's
 * `"env": { "TAR_OPTIONS": … }` in settings) and `subprocessEnv: "inherit"` export more, and
 * `TAR_OPTIONS='--checkpoint-action=exec=…'; tar -tf a.tar` then ran tar's action under
 * `Bash(tar:*)`. An assignment of such a variable is judged as an export of it, as the exports
 * the analysis found are (an unknown one may change where a program writes).
 */
function judgeExports(analysis: ShellAnalysis, place: Place, acc: ShellFindings): void {
  // A variable the engine does not know may change where a program writes (SIMPLE_BACKUP_SUFFIX, HISTFILE, …).
  for (const name of analysis.exportsUnknown)
    acc.unknownWrites.push(`it passes ${name} to the programs it runs, which may change where they write`);
  if (!place.exported?.length) return;
  const exported = new Set(place.exported);
  for (const name of new Set(analysis.assigned)) {
    if (!exported.has(name) || isHarmlessExport(name)) continue;
    const why = `it sets ${name}, which the run's environment exports (its env option or subprocessEnv: "inherit"), so every later program gets it, and ${name} is not a variable the engine knows to be harmless to them`;
    acc.unsafe.push(why);
    acc.unknownWrites.push(why);
  }
}

/** Why writing a path outside the permitted folders changes the system (profile scripts, /usr/local/bin, …), if it does. */
function systemSensitive(path: JudgedPath, roots: readonly string[]): string | undefined {
  if (insideRoots(path, roots)) return undefined;
  return systemReason(path.absolute) ?? (path.real === undefined ? undefined : systemReason(path.real));
}

function shellSubject(analysis: ShellAnalysis, place: Place): Subject {
  const acc: ShellFindings = {
    unsafe: [...analysis.unsafe],
    edits: [],
    writes: [],
    unknownWrites: [],
    unknownReads: [],
    outsideWrites: [],
  };
  const { unsafe, unknownWrites, unknownReads } = acc;
  // After `cd x`, a relative file name may be under x: judge it against every place it could be.
  const { bases: cdBases, unknown: cdTooMany } = cdBasesOf(analysis.cdTargets, place);
  if (cdTooMany) {
    unsafe.push(cdTooMany);
    unknownWrites.push(cdTooMany);
    unknownReads.push(cdTooMany);
  }
  markConfiguredRunners(analysis, place, cdBases);
  judgeProcLinks(analysis, place, cdBases, acc);
  // cp, mv and ln into a folder write folder/name-of-source, and a recursive copy every file below it.
  const landed = copiedPaths(analysis, place, cdBases);
  for (const why of landed.unknown) {
    unsafe.push(why);
    unknownWrites.push(why);
  }
  // A copy keeping a source's mode that lets others write it, or a set-ID bit: asked as chmod's (red team ze, ZE2).
  if (landed.modes.length > 0) acc.sensitive ??= landed.modes[0]!.why;
  const opened = [...analysis.opensModes, ...landed.modes.filter((m) => m.opens).map((m) => m.why)];
  // The sandbox lets a command change the modes of the writable folders' files (a set-ID bit aside:
  // its seccomp filter refuses that), so only the question holds these (red team ze, ZE5).
  if (opened.length > 0)
    acc.sandboxOpen ??= `${opened[0]}; the sandbox lets a command change the modes of the files it may write`;
  judgeWrites(analysis, place, cdBases, landed.writes, acc);
  judgeWritesBeforeProjectCode(analysis, landed.writes, acc);
  unknownWrites.push(...analysis.unknownWriters);
  for (const word of analysis.reads)
    if (!word.literal || procPath(word.value) === undefined)
      unknownReads.push(`it reads a file only known at run time (${word.text})`);
    else if (readsDevice(word, place, cdBases))
      unknownReads.push(
        `it reads ${word.text}, a device whose bytes are other files' (a disk holds every file on it), so which files it reads is only known at run time`,
      );
  // Code the engine cannot see, or text it cannot read, may read and write anything.
  for (const why of [
    ...analysis.hidden,
    ...(analysis.unreadable ? ["its text cannot be read as bash reads it"] : []),
  ]) {
    unknownReads.push(why);
    unknownWrites.push(why);
  }
  unknownReads.push(...analysis.unknownReaders);
  if (analysis.linkers.length > 0)
    unknownReads.push("it makes links or moves files, so a later path may lead anywhere");
  judgeExports(analysis, place, acc);
  // Installing code to run later is asked like a write to a file that runs code later.
  if (analysis.persists.length > 0) acc.sensitive ??= analysis.persists[0];
  judgeOtherFolders(analysis, place, cdBases, acc);
  if (analysis.cdUnknown && analysis.reads.length > 0)
    unknownReads.push("it reads files after changing to a folder only known at run time");
  const maybe = judgeMaybeWrites(analysis, place, cdBases, acc);
  const recursiveReads: JudgedPath[] = [];
  for (const word of analysis.recursiveReads) {
    if (!word.literal) continue; // already an unknown read
    const value = procPath(word.tilde ? place.home + word.value.slice(1) : word.value);
    if (value !== undefined)
      for (const base of value.startsWith("/") ? [place.cwd] : [place.cwd, ...cdBases])
        recursiveReads.push({ ...judgePath(base, place.home, value), ...(word.stored ? { stored: true } : {}) });
  }
  // Resolving paths costs syscalls: only a Read rule needs them.
  let judgedReads: JudgedPath[] | undefined;
  const reads = () =>
    (judgedReads ??= analysis.reads.flatMap((word) => {
      if (!word.literal) return [];
      const value = procPath(word.tilde ? place.home + word.value.slice(1) : word.value);
      if (value === undefined) return [];
      return (value.startsWith("/") ? [place.cwd] : [place.cwd, ...cdBases]).map((base) =>
        judgePath(base, place.home, value),
      );
    }));
  const unknownEdits = [...analysis.treeWriters];
  // `git checkout other -- .npmrc` asks (a sensitive path); `git checkout other -- .` writes the
  // same file unnamed. Without the sandbox (which keeps the sensitive set read-only and removes a
  // new one) no such command can be shown to leave them alone.
  if (analysis.checkouts.length > 0)
    acc.unsandboxed ??= `${analysis.checkouts[0]}, which may be files that run code later or change what the agent may do (.npmrc, .envrc, .vscode/tasks.json, .ubiquity/settings.json), and only the sandbox keeps those as they are`;
  return {
    kind: "shell",
    analysis,
    unsafe: [...new Set(unsafe)],
    sensitive: acc.sensitive,
    edits: acc.edits,
    writes: acc.writes,
    reads,
    unknownEdits,
    unknownReads: [...new Set(unknownReads)],
    unknownWrites: [...new Set(unknownWrites)],
    maybe,
    recursiveReads,
    outsideWrites: acc.outsideWrites,
    projectCode: [
      ...new Set(
        analysis.candidates
          .filter((c) => c.projectCode)
          .map((c) => `${c.projectCode}, which may read and write any file`),
      ),
    ],
    ...(acc.unsandboxed ? { unsandboxed: acc.unsandboxed } : {}),
    ...(acc.sandboxOpen ? { sandboxOpen: acc.sandboxOpen } : {}),
  };
}

/** How many folders a command's `cd`s may lead to before the places of its relative paths are not followed. */
const MAX_CD_BASES = 256;

/**
 * Every folder a relative path may be under after the command's `cd`s (and `-C`/`--chdir`
 * options): each target from every folder reached before it (`cd ~ && cd .ssh` is ~/.ssh,
 * `cd src && cd ../l` is ./l), with its `..` folded as bash's logical `cd` does and after
 * following links as `cd -P` (or `set -P`) does (`cd -P l/..` with l → .git/hooks is .git).
 */
function cdBasesOf(targets: readonly ShellWord[], place: Place): { bases: string[]; unknown?: string } {
  const reached = new Set([place.cwd]);
  for (const target of targets) {
    const from = target.tilde || target.value.startsWith("/") ? [place.cwd] : [...reached];
    for (const base of from) {
      const written = target.tilde ? place.home + target.value.slice(1) : target.value;
      const lexical = resolve(base, written);
      reached.add(lexical);
      reached.add(resolveReal(written.startsWith("/") ? written : `${base}/${written}`) ?? lexical);
    }
    if (reached.size > MAX_CD_BASES)
      return {
        bases: [...reached].slice(1),
        unknown: `it changes folders more times than the engine follows, so where its relative paths lead is not known`,
      };
  }
  reached.delete(place.cwd);
  return { bases: [...reached] };
}

/**
 * The configuration files a package manager reads from the folder it runs in and the folders above
 * it, whose keys name programs it runs for any sub-command (npm's `git`, `browser`, `viewer` and
 * `shell`; yarn's `yarnPath`/`yarn-path`, which replace yarn itself).
 */
const PROJECT_CONFIG: Readonly<Record<string, readonly string[]>> = {
  npm: [".npmrc"],
  pnpm: [".npmrc"],
  yarn: [".yarnrc", ".yarnrc.yml"],
  bun: ["bunfig.toml", ".npmrc"],
};

/**
 * Red team n: a package manager's sub-command that runs no package script (`npm view`, `npm ls`)
 * still runs the programs the project's configuration names (`git=./x` in an .npmrc runs ./x for
 * `npm view github:a/b`): where such a file lies in a folder the command may run in or above it
 * (the user's own, in the home folder, aside), or the folder is only known at run time, the
 * command counts as running the project's code. The engine does not read those files: it does
 * not claim to know what they name.
 */
function markConfiguredRunners(analysis: ShellAnalysis, place: Place, cdBases: readonly string[]): void {
  for (const candidate of analysis.candidates) {
    const program = candidate.name.split("/").pop() ?? "";
    const files = Object.hasOwn(PROJECT_CONFIG, program) ? PROJECT_CONFIG[program]! : undefined;
    if (!files || candidate.projectCode) continue;
    const found = analysis.cdUnknown
      ? "(a folder only known at run time)"
      : configAbove([place.cwd, ...cdBases], files, place.home);
    if (found) candidate.projectCode = `${program} runs the programs ${found} may name (the project's configuration)`;
  }
}

/** The first of `files` in one of `folders` or a folder above it, the home folder's own aside. */
function configAbove(folders: readonly string[], files: readonly string[], home: string): string | undefined {
  for (const start of folders)
    for (let dir = start; ; dir = dirname(dir)) {
      for (const file of files) {
        const path = join(dir, file);
        if (dir !== home && existsSync(path)) return path;
      }
      if (dir === dirname(dir)) break;
    }
  return undefined;
}

/** What judging a shell command's paths found so far (see Subject's shell fields). */
interface ShellFindings {
  unsafe: string[];
  sensitive?: string;
  edits: JudgedPath[];
  writes: JudgedPath[];
  unknownWrites: string[];
  unknownReads: string[];
  outsideWrites: string[];
  /** Sensitive only where no sandbox holds the write: system files, and files a program the engine does not know may write. */
  unsandboxed?: string;
  /** Sensitive, and left writable by the sandbox too (see Subject's `sandboxOpen`). */
  sandboxOpen?: string;
}

/** The devices that hold no file's bytes: reading one reads nothing a rule names. */
const DATALESS_DEVICES = /^\/dev\/(null|zero|full|random|urandom|tty)$/;

/**
 * Red team z (Z4): a device file is no file a rule can name, but its bytes may be every file's. A
 * disk (`/dev/sda`, `/dev/nvme0n1`, a loop device, `/dev/disk/by-uuid/…`, `/dev/mapper/…`) holds
 * the contents of every file on it, a Read-denied `.env` among them (`grep -a SECRET= /dev/sda`
 * run as root printed it), and `/dev/mem`, a terminal's `/dev/pts/N` or `/dev/vcs` hold what
 * processes and people typed. A read of a path below /dev, or of one that is (or leads to) a
 * block or character device, is a read of files only known at run time — but for the devices that
 * hold no file's bytes (DATALESS_DEVICES) and the descriptors opaquePath already judges.
 */
function readsDevice(word: ShellWord, place: Place, cdBases: readonly string[]): boolean {
  const value = word.tilde ? place.home + word.value.slice(1) : word.value;
  return (value.startsWith("/") ? [place.cwd] : [place.cwd, ...cdBases]).some((base) => {
    const lexical = resolve(base, value);
    const real = resolveReal(lexical) ?? lexical;
    if (DATALESS_DEVICES.test(real)) return false;
    let info: Stats | undefined;
    try {
      info = statSync(real, { throwIfNoEntry: false });
    } catch {
      info = undefined;
    }
    // A folder is listed, not read (`ls /dev`); recursive readers skip the devices they meet (grep -r, cp -R).
    if (info?.isDirectory()) return false;
    if (info?.isBlockDevice() || info?.isCharacterDevice()) return true;
    // Below /dev but no device here (not there yet, /dev/shm's shared memory): not known, so fail closed.
    const under = (p: string) => p.startsWith("/dev/");
    return under(lexical) || under(real);
  });
}

/** A path the engine can judge, or undefined: through /proc, /dev/fd/… or a NUL it is not known (a later `..` may lead anywhere). */
function procPath(value: string): string | undefined {
  return opaquePath(value) ? undefined : value;
}

/** The files the command writes (its own and what copies land), each judged from every folder it may be relative to. */
function judgeWrites(
  analysis: ShellAnalysis,
  place: Place,
  cdBases: readonly string[],
  landed: readonly WriteTarget[],
  acc: ShellFindings,
): void {
  // A link made or a file moved by one command may stand where another command's path leads.
  const linked = (from: number | undefined) => analysis.linkers.some((l) => l !== from);
  for (const write of [...analysis.writes, ...landed]) {
    // A redirect and a program's named output are edits (Write's rules); an operand of a writing program (cp, rm, …) must be inside the roots.
    const judged = write.kind !== "argument";
    const target = writePath(write, place);
    if (target === undefined) {
      const why = `it writes to a file only known at run time (${write.word.text})`;
      acc.unsafe.push(why);
      acc.unknownWrites.push(why);
      continue;
    }
    if (DEVICES.test(target)) continue;
    if (linked(write.from)) {
      const why = `it writes ${target} after making links or moving files in the same command, so where ${target} leads is not known`;
      acc.unsafe.push(why);
      acc.unknownWrites.push(why);
    }
    const relative = !target.startsWith("/");
    const bases = relative ? [place.cwd, ...cdBases] : [place.cwd];
    if (relative && analysis.cdUnknown) {
      const why = `it writes ${target} after changing to a folder only known at run time`;
      acc.sensitive ??= why;
      acc.unsafe.push(why);
      acc.unknownWrites.push(why);
    }
    for (const base of bases) {
      const path = judgePath(base, place.home, target);
      acc.writes.push(path);
      const why = pathSensitive(path, place.roots) ?? readRootReason(path, place);
      if (why) acc.sensitive ??= `it writes ${path.absolute}: ${why}`;
      const open = why ? sandboxLeavesOpen(path, place.roots) : undefined;
      if (open) acc.sandboxOpen ??= `it writes ${path.absolute}: ${open}`;
      const system = systemSensitive(path, place.roots);
      if (system) acc.unsandboxed ??= `it writes ${path.absolute}: ${system}`;
      const inside = insideRoots(path, place.roots);
      if (!inside) {
        acc.unsafe.push(`it writes to ${path.real ?? path.absolute}, outside the permitted folders`);
        acc.outsideWrites.push(path.real ?? path.absolute);
      } else if (judged) acc.edits.push(path);
    }
  }
  // Two parts of a git folder written into a root by one command (`mkdir -p objects refs && … > HEAD`):
  // each is judged against the disk as it was, where the other is not there yet.
  const parts = new Map<string, Set<string>>();
  for (const path of acc.writes)
    for (const { dir, marker } of gitMarkersOf(path.real ?? path.absolute)) {
      if (!place.roots.includes(dir)) continue;
      const seen = parts.get(dir) ?? new Set<string>();
      seen.add(marker);
      parts.set(dir, seen);
      if (seen.size > 1)
        acc.sensitive ??= `it writes ${[...seen].join(" and ")} of ${dir}, parts of a git folder (whose config runs code)`;
    }
}

/**
 * A file written and the project's code run in one command: the code may read what was just written
 * (a pytest.ini with addopts, a Makefile, a conftest.py), so the rule that names the runner does not cover it.
 * Only a write that can come first counts: one by a command or redirect before the runner in the text
 * (`printf … > pytest.ini && pytest`), or inside `bash -c` text; not the runner's own output (`npm test | tee log`).
 */
function judgeWritesBeforeProjectCode(
  analysis: ShellAnalysis,
  landed: readonly WriteTarget[],
  acc: ShellFindings,
): void {
  const runner = analysis.candidates.find((c) => c.projectCode);
  if (runner) {
    const start = runner.offset ?? -1;
    const before = (w: WriteTarget) => {
      const at = w.from !== undefined ? (analysis.candidates[w.from]?.offset ?? -1) : (w.at ?? -1);
      return start === -1 || at === -1 || at < start;
    };
    const first = [...analysis.writes, ...landed].find((w) => before(w) && !DEVICES.test(w.word.value));
    if (first)
      acc.unsafe.push(
        `it writes ${first.word.text} and then runs the project's code (${runner.text}), which may read what was written`,
      );
  }
}

/**
 * A program run in another folder (git -C, make -C, npm --prefix): outside the permitted folders,
 * or in another git repository (whose configuration may run programs), it is not covered.
 */
function judgeOtherFolders(
  analysis: ShellAnalysis,
  place: Place,
  cdBases: readonly string[],
  acc: ShellFindings,
): void {
  // Looked up only when a git command or a folder option needs it (a walk up to / without a checkout).
  let known: { repo: string | undefined } | undefined;
  const repoOfCwd = () => (known ??= { repo: repositoryOf(place.cwd) }).repo;
  for (const { dir, program } of analysis.optionDirs) {
    if (!dir.literal) continue; // already unknown (cdUnknown)
    const path = judgePath(place.cwd, place.home, dir.tilde ? place.home + dir.value.slice(1) : dir.value);
    if (!insideRoots(path, place.roots))
      acc.unsafe.push(`${program} runs in ${path.absolute}, outside the permitted folders`);
    // A folder the command itself may make (a git folder made by hand, then `git -C` into it) is not known.
    else if (program === "git" && !existsSync(path.real ?? path.absolute))
      acc.unsafe.push(
        `git -C ${dir.text}: a folder that does not exist yet, which the command may make into a repository`,
      );
  }
  judgeGitRepositories(analysis, place, cdBases, repoOfCwd, acc);
  if (analysis.candidates.some((c) => posixBase(c.name) === "git")) {
    const bases = [
      ...analysis.optionDirs
        .filter((d) => d.program === "git" && d.dir.literal)
        .map((d) => resolve(place.cwd, d.dir.tilde ? place.home + d.dir.value.slice(1) : d.dir.value)),
      ...cdBases,
    ];
    for (const base of bases) {
      const repo = repositoryOf(base);
      if (repo && repo !== repoOfCwd())
        acc.unsafe.push(
          `git runs in ${repo}, another repository than this folder's, whose configuration may run programs`,
        );
    }
    const made = gitFolderMadeOnTheWay([place.cwd, ...bases], acc.writes);
    if (made)
      acc.unsafe.push(
        `it makes ${made} a git folder (HEAD with objects and refs, or a commondir) before git runs there or below it, so git may run under that folder's configuration, which may run programs`,
      );
  }
}

/** The entries that make a folder a git folder to git's discovery (sensitive.ts's isGitFolder). */
const GIT_FOLDER_PARTS = new Set(["HEAD", "objects", "refs", "commondir"]);

/**
 * A folder on git's way up from where it runs (`bases`: the cwd, `git -C` folders, `cd` targets) that
 * the command's own writes complete as a git folder: judged on the disk as it was, no repository was
 * there, and git at run time takes it for one and runs under its config (`mkdir -p sub/objects
 * sub/refs && git -C sub fetch origin`, with sub/HEAD and sub/config written earlier, ran
 * remote.origin.uploadpack; red team zk, ZK1). The repository git runs in is judged after the
 * command's writes, as ZD1 judges a copy's destination: HEAD and objects/ and refs/ (or a
 * commondir, ZK3), each written or there already.
 */
function gitFolderMadeOnTheWay(bases: readonly string[], writes: readonly JudgedPath[]): string | undefined {
  const written = new Map<string, Set<string>>();
  for (const path of writes)
    for (const form of new Set([path.absolute, path.real ?? path.absolute]))
      for (const { dir, marker } of gitMarkersOf(form)) {
        if (!GIT_FOLDER_PARTS.has(marker)) continue;
        const parts = written.get(dir) ?? new Set<string>();
        parts.add(marker);
        written.set(dir, parts);
      }
  if (written.size === 0) return undefined;
  const complete = (dir: string, parts: ReadonlySet<string>) => {
    const there = (part: string) => {
      if (parts.has(part)) return true;
      try {
        return lstatSync(join(dir, part), { throwIfNoEntry: false }) !== undefined;
      } catch {
        return false; // a parent that is no folder: not there
      }
    };
    return there("HEAD") && ((there("objects") && there("refs")) || there("commondir"));
  };
  const forms = new Set(bases.flatMap((b) => [resolve(b), resolveReal(resolve(b)) ?? resolve(b)]));
  for (const base of forms)
    for (let d = base; ; d = dirname(d)) {
      const parts = written.get(d);
      if (parts && complete(d, parts)) return d;
      if (dirname(d) === d) break;
    }
  return undefined;
}

/**
 * The repositories git talks to (`git push REPO`, `remote add NAME URL`): a URL with a scheme
 * (https://, ssh://, git://) or `host:path` is another machine's; anything else is a path, and a
 * repository there is one git runs in under its configuration (receive-pack runs
 * core.alternateRefsCommand). A path that does not exist yet may be a remote's name, unless it
 * can only be a path; one kept in the configuration (`remote add`) asks whatever is there now.
 */
function judgeGitRepositories(
  analysis: ShellAnalysis,
  place: Place,
  cdBases: readonly string[],
  repoOfCwd: () => string | undefined,
  acc: ShellFindings,
): void {
  // The program git then runs is named by no word of the command: code the engine cannot see, which
  // may read and write anything (so bypassPermissions without the sandbox asks too).
  const hidden = (why: string) => {
    acc.unsafe.push(why);
    acc.unknownWrites.push(why);
    acc.unknownReads.push(why);
  };
  for (const { word, named } of analysis.gitRepos) {
    if (!word.literal) {
      hidden(`git talks to the repository ${word.text}, only known at run time (a local one runs git there)`);
      continue;
    }
    const value = word.value;
    // TRANSPORT::ADDRESS runs the program git-remote-TRANSPORT (ext:: runs ADDRESS as a shell command).
    if (value.includes("::")) {
      hidden(`git talks to ${word.text} through a remote helper, a program it runs (ext:: runs a shell command)`);
      continue;
    }
    const file = /^file:\/\//i.test(value);
    if (!file && (/^[a-z][a-z0-9+.-]*:\/\//i.test(value) || /^[^/]*:/.test(value))) continue;
    const local = file ? value.replace(/^file:\/\/[^/]*/i, "") || "/" : value;
    const pathLike = file || /^[./~]/.test(local) || local.includes("/");
    // `git push NAME`, `git fetch`: a remote of the configuration, which may be a local folder.
    // git takes NAME for a remote only when the configuration defines one by that name; any
    // other NAME is a path to it, to a folder the same command may make first (`mv x NAME`).
    let remote = false;
    if (!named && !pathLike) {
      const why = configuredLocalRemote(repoOfCwd());
      if (why) hidden(`git talks to ${value === "" ? "the branch's remote" : `the remote ${value}`}: ${why}`);
      if (value === "") continue;
      remote = configuredRemoteNames(repoOfCwd()).has(value);
    }
    if (named) {
      hidden(
        `git remote add ${word.text}: a remote in a local folder, where a later push or fetch runs git under that folder's configuration`,
      );
      continue;
    }
    for (const base of local.startsWith("/") ? [place.cwd] : [place.cwd, ...cdBases]) {
      const path = judgePath(base, place.home, word.tilde ? place.home + local.slice(1) : local);
      const there = path.real ?? path.absolute;
      if (!existsSync(there)) {
        if (!remote)
          hidden(
            `git talks to ${word.text}, ${pathLike ? "a folder" : "no remote of the configuration but a path to a folder"} that does not exist yet, which the command may make into a repository`,
          );
        continue;
      }
      // Only this repository itself is known: any other folder is (or the command may make it) another one.
      if (!ownRepository(there, repoOfCwd()))
        hidden(
          `git talks to ${there}, a local folder other than this repository, where it runs git under that folder's configuration (which may run programs) if it is or becomes a repository`,
        );
    }
  }
}

/** True when `dir` is the repository `repo` itself: its top folder or its git folder (not a folder inside it). */
function ownRepository(dir: string, repo: string | undefined): boolean {
  if (repo === undefined) return false;
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return resolve(p);
    }
  };
  const target = real(dir);
  return target === real(repo) || target === real(commonGitFolder(repo));
}

/** The names of the remotes the repository's configuration defines (`[remote "NAME"]`); none when it cannot be read. */
function configuredRemoteNames(repo: string | undefined): Set<string> {
  const names = new Set<string>();
  if (repo === undefined) return names;
  const text = gitText(join(commonGitFolder(repo), "config"));
  if (text === undefined) return names;
  for (const m of text.matchAll(/^\s*\[\s*remote\s+"((?:[^"\\]|\\.)*)"\s*\]/gim))
    names.add(m[1]!.replace(/\\(.)/g, "$1"));
  return names;
}

/**
 * Why the repository's remotes may lead to a local folder (`git remote add o ../other` before the
 * run, then `git push o`), if they may: a url or pushurl that is no URL with a scheme nor
 * `host:path`, a rewrite (`insteadOf`) or an include the engine does not follow, or a
 * configuration it cannot read.
 */
function configuredLocalRemote(repo: string | undefined): string | undefined {
  if (repo === undefined) return undefined;
  const text = gitText(join(commonGitFolder(repo), "config"));
  if (text === undefined) return "its repository's configuration cannot be read";
  // git still reads remotes from .git/remotes/NAME and .git/branches/NAME files, which the engine does not.
  for (const legacy of ["remotes", "branches"]) {
    try {
      if (readdirSync(join(commonGitFolder(repo), legacy)).length > 0)
        return `the repository defines remotes in .git/${legacy}, which the engine does not read`;
    } catch {
      // none
    }
  }
  let section = "";
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    const header = /^\[\s*([^\]\s"]+)/.exec(line);
    if (header) section = header[1]!.toLowerCase();
    if (section === "include" || section === "includeif") return "the configuration includes other files";
    const entry = /^([A-Za-z][A-Za-z0-9-]*)\s*=\s*"?([^"]*)"?\s*$/.exec(line.replace(/^\[[^\]]*\]\s*/, ""));
    if (!entry) continue;
    const key = entry[1]!.toLowerCase();
    if (key === "insteadof" || key === "pushinsteadof") return "the configuration rewrites remote URLs";
    if (section !== "remote" || (key !== "url" && key !== "pushurl")) continue;
    const url = entry[2]!.trim();
    if (url.includes("::")) return `a remote's URL ${url} names a remote helper, a program git runs`;
    if (/^file:/i.test(url) || !(/^[a-z][a-z0-9+.-]*:\/\//i.test(url) || /^[^/]*:/.test(url)))
      return `a remote's URL is the local folder ${url}, where git runs under that folder's configuration`;
  }
  return undefined;
}

/**
 * A repository's file as text, or undefined when it is absent, not a regular file or over 1 MiB:
 * opened without blocking (a FIFO a sandboxed command left as `.git` held the host at the next
 * permission check; red team y, Y5).
 */
function gitText(path: string): string | undefined {
  return readRegularBytesSync(path, 1024 * 1024)?.toString("utf8");
}

/** The folder holding a repository's config: `.git`, the one a `.git` file names (a worktree's common folder), or a bare repository itself. */
function commonGitFolder(repo: string): string {
  const dotGit = join(repo, ".git");
  if (!existsSync(dotGit)) return repo;
  if (!lstatSync(dotGit).isFile()) return dotGit;
  const gitdir = resolve(repo, /^gitdir:\s*(.*)$/m.exec(gitText(dotGit) ?? "")?.[1]?.trim() ?? "");
  const common = join(gitdir, "commondir");
  return existsSync(common) ? resolve(gitdir, (gitText(common) ?? "\0").trim()) : gitdir;
}

/**
 * What an argument of a program the engine does not know may name: the word itself, or for an
 * option word the value it may carry — after `=` (`--target=.git/hooks`, `-o=x`), and, since
 * which letters of a short-option cluster take a value is not known, every tail after its first
 * letter (`-ox` and `-cox` may be `-o x`, as `gcc -obin/x` is).
 */
function attachedValues(written: ShellWord): ShellWord[] {
  if (!written.literal || !written.value.startsWith("-")) return [written];
  const v = written.value;
  const eq = v.indexOf("=");
  const tails = v.startsWith("--") ? [] : [...v.slice(2)].map((_, k) => v.slice(k + 2));
  const values = eq === -1 ? tails : [v.slice(eq + 1), ...tails];
  return [...new Set(values)].map((value) => ({ ...written, value, tilde: value.startsWith("~/") }));
}

/** The arguments of programs the engine does not know that may be files they write, judged as paths. */
function judgeMaybeWrites(
  analysis: ShellAnalysis,
  place: Place,
  cdBases: readonly string[],
  acc: ShellFindings,
): JudgedPath[] {
  const maybe: JudgedPath[] = [];
  for (const word of analysis.maybe.flatMap(({ word }) => attachedValues(word))) {
    if (word.literal && word.value === "") continue;
    if (!word.literal) {
      const why = `${word.text}, an argument of a program the engine does not know, is only known at run time and may be a file it writes`;
      acc.unsafe.push(why);
      acc.unknownWrites.push(why);
      acc.unknownReads.push(why);
      continue;
    }
    const value = procPath(word.tilde ? place.home + word.value.slice(1) : word.value);
    if (value === undefined) continue;
    for (const base of value.startsWith("/") ? [place.cwd] : [place.cwd, ...cdBases]) {
      const path = judgePath(base, place.home, value);
      maybe.push(path);
      // A program the engine does not know may write what it is given: a sensitive file asks as a write would.
      const why = pathSensitive(path, place.roots) ?? systemSensitive(path, place.roots);
      if (why && path.real !== undefined)
        acc.unsandboxed ??= `${path.absolute} is an argument of a program the engine does not know, which may write it: ${why}`;
    }
  }
  return maybe;
}

/** The repository a folder is in: the nearest folder holding `.git`, or a git folder itself (HEAD, objects/, refs/). */
function repositoryOf(dir: string): string | undefined {
  for (let d = resolve(dir); ; d = dirname(d)) {
    if (existsSync(join(d, ".git"))) return d;
    // d itself (gitFolderOf of a name in it would test every folder above too, once per level).
    if (isGitFolder(d)) return d;
    if (dirname(d) === d) return undefined;
  }
}

function posixBase(name: string): string {
  return name.slice(name.lastIndexOf("/") + 1);
}

function writePath(write: WriteTarget, place: Place): string | undefined {
  const word = write.word;
  if (!word.literal || word.value === "") return undefined;
  const value = word.tilde ? place.home + word.value.slice(1) : word.value;
  return opaquePath(value) ? undefined : value;
}

/**
 * Red team n: a link whose target goes through /proc or a descriptor's folder
 * (`l → /proc/self/cwd/../.env`) resolves in the engine's process to the engine's folder, and in
 * the command's to the command's (`cd src && cat ../l` read ./.env while the engine judged the
 * folder above): where any path the command reads, writes or changes to leads through one, the
 * file is only known at run time. The literal text of such a path is judged by opaquePath.
 */
function judgeProcLinks(analysis: ShellAnalysis, place: Place, cdBases: readonly string[], acc: ShellFindings): void {
  // The folders every path shares (/, the project's) are looked at once for the whole command.
  const seen = new Map<string, Stats | undefined | null>();
  const through = (word: ShellWord) => {
    if (!word.literal || word.value === "") return false;
    const value = word.tilde ? place.home + word.value.slice(1) : word.value;
    if (opaquePath(value)) return false; // judged as only known at run time already
    return (value.startsWith("/") ? [place.cwd] : [place.cwd, ...cdBases]).some((base) =>
      throughOpaqueLink(value.startsWith("/") ? value : `${base}/${value}`, seen),
    );
  };
  const why = (word: ShellWord) =>
    `${word.text} leads through a link into /proc, which each process resolves to its own folders, so the file is only known at run time`;
  for (const word of [...analysis.reads, ...analysis.recursiveReads].filter(through)) acc.unknownReads.push(why(word));
  for (const word of [...analysis.writes.map((w) => w.word), ...analysis.copies.map((c) => c.dest)].filter(through)) {
    acc.unsafe.push(why(word));
    acc.unknownWrites.push(why(word));
  }
  for (const word of analysis.cdTargets.filter(through)) {
    acc.unsafe.push(why(word));
    acc.unknownReads.push(why(word));
    acc.unknownWrites.push(why(word));
  }
}

/**
 * Whether resolving `path` as the kernel does (links followed before the `..` after them) meets a
 * link whose target opaquePath refuses (`/proc/self/cwd/…`, `/dev/fd/…`); past 40 links, or an
 * unreadable link, counts as meeting one.
 */
export function throughOpaqueLink(path: string, seen = new Map<string, Stats | undefined | null>()): boolean {
  const pending = path
    .split("/")
    .filter((p) => p !== "" && p !== ".")
    .reverse();
  let at = "/";
  let links = 0;
  while (pending.length > 0) {
    const part = pending.pop()!;
    if (part === "..") {
      at = dirname(at);
      continue;
    }
    const next = at === "/" ? `/${part}` : `${at}/${part}`;
    let info = seen.get(next);
    if (info === undefined && !seen.has(next)) {
      try {
        info = lstatSync(next, { throwIfNoEntry: false });
      } catch {
        info = null; // a parent is a file: nothing further to follow
      }
      seen.set(next, info);
    }
    if (!info) return false; // the rest does not exist yet
    if (!info.isSymbolicLink()) {
      at = next;
      continue;
    }
    if (++links > 40) return true;
    let target: string;
    try {
      target = readlinkSync(next);
    } catch {
      return true;
    }
    if (opaquePath(target)) return true;
    if (target.startsWith("/")) at = "/";
    const parts = target.split("/").filter((p) => p !== "" && p !== ".");
    for (let k = parts.length - 1; k >= 0; k--) pending.push(parts[k]!);
  }
  return false;
}

/**
 * A path the engine cannot judge from its own process: one through /proc (`/proc/self/cwd` is the
 * command's folder, `/proc/self/root/…` any root), through a descriptor's folder (`/dev/fd/../cwd`),
 * or holding a NUL. The device files writes may go to (`/dev/null`, `/dev/fd/2`) are not among them.
 */
export function opaquePath(value: string): boolean {
  if (value.includes("\0")) return true;
  if (DEVICES.test(value)) return false;
  const parts = value.split("/");
  return parts.includes("proc") || /(^|\/)dev\/+(fd|stdin|stdout|stderr)(\/|$)/.test(value);
}

/**
 * What cp, mv and ln write when they copy into a folder: folder/name-of-each-source, and under a
 * recursive copy every file below the source (found on disk, at most MAX_COPIED) at its new place.
 * A source only known at run time, a source's contents (`src/.`) or too many files are unknown.
 */
function copiedPaths(
  analysis: ShellAnalysis,
  place: Place,
  cdBases: string[],
): { writes: WriteTarget[]; unknown: string[]; modes: CopiedMode[] } {
  const writes: WriteTarget[] = [];
  const unknown: string[] = [];
  const modes: CopiedMode[] = [];
  const perCopy: WriteTarget[][] = [];
  for (const copy of analysis.copies) {
    const landedHere: WriteTarget[] = [];
    perCopy.push(landedHere);
    if (!copy.dest.literal || opaquePath(copy.dest.value)) continue; // already an unknown write
    const destValue = copy.dest.tilde ? place.home + copy.dest.value.slice(1) : copy.dest.value;
    const dest = judgePath(place.cwd, place.home, destValue);
    const destIsFolder =
      copy.intoFolder || destValue.endsWith("/") || copy.sources.length > 1 || isFolder(dest.real ?? dest.absolute);
    for (const source of copy.sources) {
      if (!source.literal) {
        unknown.push(`it copies ${source.text}, only known at run time, into ${copy.dest.text}`);
        continue;
      }
      const sourceValue = source.tilde ? place.home + source.value.slice(1) : source.value;
      const name = sourceValue.replace(/\/+$/, "").split("/").pop() ?? "";
      if (destIsFolder && !copy.parents && (name === "" || name === "." || name === "..")) {
        unknown.push(`it copies the contents of ${source.text} into ${copy.dest.text}, under names not known here`);
        continue;
      }
      // cp --parents lands at DEST/SOURCE, the source's path as written (`..` kept for the kernel's walk).
      const inFolder = `${destValue.replace(/\/+$/, "")}/${name}`;
      const landings = copy.parents
        ? [`${destValue.replace(/\/+$/, "")}/${sourceValue.replace(/^\/+/, "")}`]
        : destIsFolder
          ? [inFolder]
          : // Red team zd (ZD1): judged on the disk as it was, DEST is no folder; another part of the
            // command (`mkdir d && cp x/.envrc d`) may make it one before cp runs, and then the
            // source lands inside it under its own name: both places are judged.
            analysis.candidates.length > 1
            ? [destValue, inFolder]
            : [destValue];
      const below = copy.recursive ? copiedBelow(sourcePlaces(sourceValue, place, cdBases)) : [];
      if (below === undefined)
        unknown.push(
          `it copies ${source.text} with more files than the engine reads one by one into ${copy.dest.text}`,
        );
      const opened =
        copy.modes && copiedModeReason(sourcePlaces(sourceValue, place, cdBases), below ?? [], source.text);
      if (opened) modes.push(opened);
      // Red team zd (ZD2): with -b/--backup the file a source replaces is kept beside it, under
      // its name plus the suffix (`./package` kept as `./package.json`), not beside DEST.
      for (const landing of landings)
        for (const path of [landing, ...(below ?? []).map((rel) => `${landing}/${rel}`)])
          for (const word of copy.backup === undefined ? [path] : [path, backupOf(path, copy.backup)])
            landedHere.push({
              word: typeof word === "string" ? { ...copy.dest, value: word, text: word, tilde: false } : word,
              kind: "argument",
              from: copy.from,
            });
    }
  }
  for (const landedHere of perCopy) writes.push(...landedHere);
  unknown.push(...filledSources(analysis, place, cdBases, perCopy));
  return { writes, unknown, modes };
}

/**
 * Red team zo (ZO1): a recursive copy's files are read on the disk as it was before the command,
 * while another part of the same command may write below its source first (`mkdir -p src/.bin &&
 * echo … > src/.bin/vitest && git mv src node_modules`, or `git mv src g && git mv g
 * node_modules`, whose first move fills g): what lands is only known at run time. Any write of the
 * command (its own, or what another copy lands) below a recursive copy's source, from any folder
 * either may be relative to, leaves that copy unproven.
 */
function filledSources(
  analysis: ShellAnalysis,
  place: Place,
  cdBases: string[],
  perCopy: readonly (readonly WriteTarget[])[],
): string[] {
  const unknown: string[] = [];
  const under = (target: string) => {
    const bases = target.startsWith("/") ? [place.cwd] : [place.cwd, ...cdBases];
    return bases.map((base) => judgePath(base, place.home, target).absolute);
  };
  analysis.copies.forEach((copy, k) => {
    if (!copy.recursive) return;
    const others = [...analysis.writes, ...perCopy.filter((_, j) => j !== k).flat()];
    for (const source of copy.sources.filter((w) => w.literal)) {
      const sourceValue = source.tilde ? place.home + source.value.slice(1) : source.value;
      const roots = sourcePlaces(sourceValue, place, cdBases).map((r) => `${r.replace(/\/+$/, "")}/`);
      const filled = others.find((w) => {
        const target = writePath(w, place);
        return target !== undefined && under(target).some((path) => roots.some((root) => path.startsWith(root)));
      });
      if (filled)
        unknown.push(
          `it moves or copies ${source.text}, below which another part of the same command writes (${filled.word.text}), so what lands in ${copy.dest.text} is only known at run time`,
        );
    }
  });
  return unknown;
}

/** Where a copy's source may be: as written when absolute, else below the folder it runs in or any `cd` made before it. */
function sourcePlaces(sourceValue: string, place: Place, cdBases: string[]): string[] {
  const bases = sourceValue.startsWith("/") ? [place.cwd] : [place.cwd, ...cdBases];
  return bases.map((base) => judgePath(base, place.home, sourceValue).absolute);
}

/** The backup kept of `path` (a literal path): only known at run time when its suffix is (red team zd, ZD7). */
function backupOf(path: string, suffix: ShellWord): ShellWord {
  const value = `${path}${suffix.value}`;
  return { ...literalWord(value), literal: suffix.literal };
}

/**
 * The files and folders below a recursively copied source (relative), in every place it may be
 * (sourcePlaces), or undefined when too many. Red team zo (ZO2): read in the first `cd` target
 * only, `cd nope; git mv src node_modules` — the cd fails, the move runs in the working folder —
 * carried src/.bin/vitest into node_modules/.bin unjudged.
 */
function copiedBelow(places: readonly string[]): string[] | undefined {
  const out = new Set<string>();
  for (const place of places) {
    let real = place;
    try {
      real = realpathSync(place);
    } catch {
      // not there (yet): judged as written
    }
    const below = filesBelow(real);
    if (below === undefined) return undefined;
    for (const rel of below) out.add(rel);
    if (out.size > MAX_COPIED) return undefined;
  }
  return [...out];
}

const MAX_COPIED = 2_000;

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The files and folders below `dir` (relative), or undefined when there are more than MAX_COPIED. */
function filesBelow(dir: string): string[] | undefined {
  if (!isFolder(dir)) return [];
  const out: string[] = [];
  const stack = [""];
  while (stack.length > 0) {
    const rel = stack.pop()!;
    let entries: string[];
    try {
      entries = readdirSync(join(dir, rel));
    } catch {
      continue;
    }
    for (const name of entries) {
      const child = rel === "" ? name : `${rel}/${name}`;
      out.push(child);
      if (out.length > MAX_COPIED) return undefined;
      if (isFolder(join(dir, child))) stack.push(child);
    }
  }
  return out;
}
