/**
 * The rules a handler's "always" answer may add: the narrowest rule that covers the call, and
 * never one that widens it to a different kind of harm.
 * - A program that deletes, moves, overwrites, changes permissions or runs arbitrary code
 *   (`rm`, `mv`, `dd`, `chmod`, `sed`, `curl`, `sudo`, `python`, `git push`, `git reset`,
 *   `git clean`, `kubectl delete`, …) gets the exact command, never a prefix: `Bash(rm:*)`
 *   after `rm -rf build` would also allow `rm -rf src`, `Bash(git push:*)` a force push.
 * - Nothing is suggested when the call names a path outside the permitted folders, when a
 *   redirect writes a file (its target is no part of what a rule matches, so any rule would
 *   approve writing other files too), when a file it writes is not pinned by an exact rule,
 *   or when one of its commands gets no rule: "always" must mean what it says.
 * - Every suggestion is compiled the way the engine compiles rules and must match the call.
 */
import { isAbsolute, posix, relative } from "node:path";
import { parseRule } from "./rules";
import { compileContent } from "./match-command";
import { compilePathPattern } from "./match-path";
import { insideRoots, judgePath } from "./paths";
import { absolutePath } from "../../src/index";
import { isInside } from "../_kits/paths/index";
import { isInterpreter } from "./shell/names";
import { normalizeCommandText } from "./shell/normalize";
import type { ShellCandidate } from "./shell/types";
import { DEVICES, type Place, type Subject } from "./subject";

// Programs whose first operand is a subcommand worth its own rule (`git status:*`, not `git:*`).
const SUBCOMMANDS = new Set([
  "git",
  "npm",
  "npx",
  "pnpm",
  "pnpx",
  "yarn",
  "bun",
  "bunx",
  "cargo",
  "go",
  "docker",
  "kubectl",
  "gh",
  "make",
  "pip",
  "uv",
  "poetry",
  "dotnet",
]);

// Subcommands whose next word is what really runs (`npm run build:*`, not `npm run:*`).
const NESTED = new Set([
  "run",
  "exec",
  "x",
  "dlx",
  "compose",
  "repo",
  "pr",
  "release",
  "workflow",
  "secret",
  "container",
  "image",
  "volume",
  "system",
]);

// Programs that delete, move, overwrite, change permissions or run anything: exact rules only.
const EXACT_ONLY = new Set([
  "rm",
  "rmdir",
  "unlink",
  "mv",
  "cp",
  "ln",
  "install",
  "dd",
  "chmod",
  "chown",
  "chgrp",
  "chattr",
  "chflags",
  "setfacl",
  "truncate",
  "shred",
  "wipe",
  "srm",
  "tee",
  "sed",
  "patch",
  "rsync",
  "scp",
  "tar",
  "unzip",
  "gzip",
  "gunzip",
  "bzip2",
  "xz",
  "find",
  "curl",
  "wget",
  "kill",
  "pkill",
  "killall",
  "crontab",
  "sudo",
  "doas",
  "su",
  "pkexec",
  "runuser",
  "ssh",
  "eval",
  "exec",
  "xargs",
  "rimraf",
]);

// Runners whose first operand is a program to fetch and run (`npx prettier`).
const PACKAGE_RUNNERS = new Set(["npx", "pnpx", "bunx"]);

// git subcommands that discard work, rewrite history, overwrite a remote or change what runs.
const GIT_EXACT = new Set([
  "push",
  "reset",
  "clean",
  "checkout",
  "switch",
  "restore",
  "rm",
  "mv",
  "branch",
  "tag",
  "stash",
  "rebase",
  "filter-branch",
  "filter-repo",
  "update-ref",
  "reflog",
  "gc",
  "prune",
  "worktree",
  "config",
  "remote",
  "apply",
  "am",
  "submodule",
  "replace",
]);

// Subcommand words of any tool that destroy, overwrite or publish.
const DESTRUCTIVE_VERBS = new Set([
  "rm",
  "rmi",
  "remove",
  "delete",
  "del",
  "destroy",
  "uninstall",
  "unlink",
  "prune",
  "purge",
  "clean",
  "clear",
  "reset",
  "down",
  "kill",
  "drain",
  "apply",
  "replace",
  "patch",
  "push",
  "publish",
  "unpublish",
  "deprecate",
  "force",
]);

const PLAIN_WORD = /^[a-z][\w-]*$/;

/** Rules a handler could add so that calls like this one run without asking next time. */
export function suggest(toolName: string, subject: Subject, place: Place): string[] {
  switch (subject.kind) {
    case "shell":
      return shellRules(toolName, subject, place);
    case "path":
      return pathRules(toolName, subject, place);
    default: {
      const strings = subject.strings ?? [];
      // The tool declares nothing narrower to match: the narrowest rule is the tool itself.
      if (strings.length === 0) return [toolName];
      const rules = strings.map((s) => exactRule(toolName, s));
      return rules.every((r): r is string => r !== undefined) ? [...new Set(rules)] : [];
    }
  }
}

function shellRules(toolName: string, subject: Extract<Subject, { kind: "shell" }>, place: Place): string[] {
  if (subject.unsafe.length > 0 || subject.sensitive) return [];
  const { analysis } = subject;
  if (analysis.writes.some((w) => w.kind === "redirect" && !(w.word.literal && DEVICES.test(w.word.value)))) return [];
  const out = new Set<string>();
  const exact: string[] = [];
  for (const c of analysis.candidates) {
    if (!c.required) continue;
    if (mentionsOutside(c, place)) return [];
    // A candidate with arguments added at run time (`xargs grep x`) can only be covered by a prefix.
    // Project code (pytest, make, npm test) is covered only by a rule naming more than the program:
    // `pytest -q` gets `Bash(pytest -q)`, not the `Bash(pytest:*)` that would not cover it (trial zg).
    const found = prefixHead(c.text.split(" "));
    const head = c.projectCode && found !== undefined && !found.includes(" ") ? undefined : found;
    const rule =
      head !== undefined
        ? prefixRule(toolName, head, c)
        : c.dynamic || c.open
          ? undefined
          : exactRule(toolName, c.text, normalizeCommandText);
    if (rule === undefined) return [];
    if (head === undefined) exact.push(c.text);
    out.add(rule);
  }
  // A file the call writes must be named by a command whose rule is exact (`tee log.txt`), or
  // the rule would approve writing any other file the same way (`time -o FILE npm test`).
  for (const w of analysis.writes) {
    if (w.word.literal && DEVICES.test(w.word.value)) continue;
    if (
      !w.word.literal ||
      !exact.some((text) => tokens(text).some((t) => t === w.word.value || t.endsWith(`=${w.word.value}`)))
    )
      return [];
  }
  return [...out];
}

/** The words a prefix rule keeps, or undefined when only the exact command may be approved. */
function prefixHead(words: string[]): string | undefined {
  const program = words[0]!;
  const base = posix.basename(program);
  if (SUBCOMMANDS.has(base)) {
    const sub = words[1];
    if (!sub || !PLAIN_WORD.test(sub)) return undefined; // `git -c …`, `npx ./x`: no safe prefix
    if (DESTRUCTIVE_VERBS.has(sub) || (base === "git" && GIT_EXACT.has(sub))) return undefined;
    if (PACKAGE_RUNNERS.has(base) && (EXACT_ONLY.has(sub) || isInterpreter(sub))) return undefined;
    if (NESTED.has(sub)) {
      const what = words[2];
      if (!what || !/^[a-z@][\w:.@/-]*$/.test(what) || DESTRUCTIVE_VERBS.has(what)) return undefined;
      return `${program} ${sub} ${what}`;
    }
    return `${program} ${sub}`;
  }
  if (EXACT_ONLY.has(base) || isInterpreter(base) || /^mkfs/.test(base)) return undefined;
  return program;
}

function prefixRule(toolName: string, head: string, c: ShellCandidate): string | undefined {
  const rule = `${toolName}(${head}:*)`;
  return compileContent(`${head}:*`, normalizeCommandText).test(c.text, c.open) ? rule : undefined;
}

/** `Tool(text)` when that rule is an exact match of `text` and nothing else (`*` written `\*`). */
function exactRule(toolName: string, text: string, normalize?: (t: string) => string): string | undefined {
  const written = text.replace(/\*/g, "\\*");
  const rule = `${toolName}(${written})`;
  let content: string | undefined;
  try {
    content = parseRule(rule, "allow", "suggestion").content;
  } catch {
    return undefined;
  }
  if (content !== written) return undefined;
  const matcher = compileContent(content, normalize);
  return matcher.kind === "exact" && matcher.test(text) ? rule : undefined;
}

/** The words of a candidate's text with quotes removed (good enough to find paths in it). */
function tokens(text: string): string[] {
  return text
    .split(" ")
    .map((t) => t.replace(/['"]/g, ""))
    .filter(Boolean);
}

/** Does the command name a path outside the permitted folders (an operand, or `x=/path`)? */
function mentionsOutside(c: ShellCandidate, place: Place): boolean {
  for (const token of tokens(c.text)) {
    const values = [
      token.startsWith("-") ? undefined : token,
      token.includes("=") ? token.slice(token.indexOf("=") + 1) : undefined,
    ];
    for (const v of values) {
      // Every operand is judged as a path (a relative one may be a symlink leading out).
      if (v && !insideRoots(judgePath(place.cwd, place.home, v), place.roots)) return true;
    }
  }
  return false;
}

function pathRules(toolName: string, subject: Extract<Subject, { kind: "path" }>, place: Place): string[] {
  if (subject.sensitive || subject.outside || subject.paths.length === 0) return [];
  const out = new Set<string>();
  for (const p of subject.paths) {
    if (
      p.real === undefined ||
      (!place.roots.some((root) => isInside(root, p.absolute)) && !isInside(place.cwd, p.absolute))
    )
      return [];
    // Through a symlink, both forms: the engine's allow rules must cover both, and a link
    // pointed elsewhere later is a different call.
    for (const form of new Set([p.absolute, p.real])) {
      const rel = relative(place.cwd, form);
      const content = rel && !rel.startsWith("..") && !isAbsolute(rel) ? `./${rel}` : form;
      // A glob character would make the rule a pattern for other files too.
      if (/[*?[\]{}()!+@\\]/.test(content)) return [];
      if (!compilePathPattern(content, place.cwd, place.home)(absolutePath(place.cwd, content, place.home))) return [];
      out.add(`${toolName}(${content})`);
    }
  }
  return [...out];
}
