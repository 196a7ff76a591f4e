/**
 * The engine's analysis of a string against what bash did with it. The engine must account for
 * everything: every program that ran is a simple command it saw (argv equal as far as the
 * engine could know it statically), every path written is a write target it saw. Where it
 * missed something, its verdict must not be `allow`: under `Bash(*)` in default and acceptEdits
 * mode, and under a deny rule naming the missed program in bypassPermissions mode.
 */
import { basename, resolve } from "node:path";
import { decide, type Decision } from "../../../plugins/permissions/engine";
import { compilePolicy } from "../../../plugins/permissions/policy";
import { resolveReal } from "../../../plugins/_kits/paths/index";
import { resolveRoots } from "../../../plugins/permissions/paths";
import { analyzeShell } from "../../../plugins/permissions/shell/analyze";
import type { PermissionMode } from "../../../plugins/permissions/index";
import type { ShellAnalysis, ShellCandidate } from "../../../plugins/permissions/shell/types";
import type { Exec, Observation } from "./trace";

/** Where the strings ran. */
export interface Place {
  cwd: string;
  home: string;
}

/** One string on which the engine and bash disagree. */
export interface Disagreement {
  source: string;
  /** Programs that ran but that the engine did not see (as `argv` joined). */
  unseenExecs: string[];
  /** Paths written that the engine did not see. */
  unseenWrites: string[];
  /** The verdicts that prove the disagreement harmless, or the first one that allowed. */
  verdicts: { rules: string; mode: PermissionMode; behavior: Decision["behavior"]; message: string }[];
  /** True when some verdict was `allow`: a bug. */
  allowed: boolean;
}

// Writes nobody judges: devices, pipes (a process substitution's /dev/fd/N), bash's here-document temp files.
const IGNORED_WRITE = /^\/dev\/|^\/tmp\/sh-thd|^(pipe|socket|anon_inode):/;

/** Compare one string; undefined when the engine saw everything bash did. */
export async function compare(
  source: string,
  observation: Observation,
  place: Place,
): Promise<Disagreement | undefined> {
  let analysis: ShellAnalysis;
  try {
    analysis = analyzeShell(source);
  } catch {
    analysis = {
      source,
      candidates: [],
      unsafe: ["analysis failed"],
      writes: [],
      reads: [],
      cdTargets: [],
      cdUnknown: true,
      hidden: ["analysis failed"],
      maybe: [],
      linkers: [],
      checkouts: [],
      recursiveReads: [],
      unknownReaders: [],
      unknownWriters: [],
      copies: [],
      optionDirs: [],
      gitRepos: [],
      treeWriters: [],
      persists: [],
      opensModes: [],
      exportsUnknown: [],
      assigned: [],
      unreadable: false,
    };
  }
  const unseenExecs = observation.execs.filter((e) => !analysis.candidates.some((c) => matches(e, c))).map(show);
  const seen = seenWrites(analysis, place);
  const unseenWrites = observation.writes.filter((w) => !IGNORED_WRITE.test(w) && !seen.has(w));
  if (unseenExecs.length === 0 && unseenWrites.length === 0) return undefined;

  const checks: { allow?: string[]; deny?: string[]; mode: PermissionMode }[] = [
    { allow: ["Bash(*)"], mode: "default" },
    { allow: ["Bash(*)"], mode: "acceptEdits" },
  ];
  const missed = [
    ...new Set(
      observation.execs.filter((e) => !analysis.candidates.some((c) => matches(e, c))).map((e) => basename(e.path)),
    ),
  ];
  for (const name of missed) checks.push({ deny: [`Bash(${name}:*)`], mode: "bypassPermissions" });
  const verdicts: Disagreement["verdicts"] = [];
  let allowed = false;
  for (const check of checks) {
    const policy = compilePolicy({ allow: check.allow, deny: check.deny }, { cwd: place.cwd, home: place.home });
    const d = await decide(
      { toolName: "Bash", input: { command: source } },
      { mode: check.mode, policy, place: { cwd: place.cwd, home: place.home, roots: resolveRoots([place.cwd]) } },
    );
    verdicts.push({
      rules: [...(check.allow ?? []), ...(check.deny ?? []).map((r) => `deny ${r}`)].join(", "),
      mode: check.mode,
      behavior: d.behavior,
      message: d.message,
    });
    if (d.behavior === "allow") allowed = true;
  }
  return { source, unseenExecs, unseenWrites, verdicts, allowed };
}

/** Did the engine see this exec? Same program, and the same argv up to the first word it could not know. */
export function matches(exec: Exec, c: ShellCandidate): boolean {
  const want = c.argv;
  const name = want[0];
  if (name === undefined) return false;
  // The program is the file that ran (argv[0] can be anything: `exec -a`, `hash -p`).
  if (basename(exec.path) !== basename(name)) return false;
  for (let k = 1; k < want.length; k++) {
    const w = want[k];
    if (w === undefined) return true; // from here on only known at run time
    if (exec.argv[k] !== w) return false;
  }
  return exec.argv.length === want.length || (c.open && exec.argv.length > want.length);
}

/** Every absolute path the engine believes the string may write (each literal target against the cwd and every `cd` target). */
function seenWrites(analysis: ShellAnalysis, place: Place): Set<string> {
  const bases = [
    place.cwd,
    ...analysis.cdTargets.map((w) => (w.tilde ? place.home + w.value.slice(1) : resolve(place.cwd, w.value))),
  ];
  const out = new Set<string>();
  for (const write of analysis.writes) {
    const w = write.word;
    if (!w.literal) continue;
    const value = w.tilde ? place.home + w.value.slice(1) : w.value;
    for (const base of value.startsWith("/") ? [place.cwd] : bases) {
      const absolute = resolve(base, value);
      out.add(absolute);
      const real = resolveReal(absolute);
      if (real) out.add(real);
    }
  }
  return out;
}

function show(exec: Exec): string {
  const argv = exec.argv.map((a) => (/^[\w./=+-]+$/.test(a) ? a : JSON.stringify(a))).join(" ");
  return basename(exec.path) === basename(exec.argv[0] ?? "") ? argv : `${exec.path} (as ${argv})`;
}
