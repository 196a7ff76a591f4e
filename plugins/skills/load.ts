/**
 * Finding skills: folders holding a SKILL.md, under the `skillSources` folders and the
 * `skills` roots. A root is either a folder of skills or a single skill folder; one exists
 * check tells them apart. Explicit roots load last, so they win a name.
 */
import { lstat, readdir, readlink, stat } from "node:fs/promises";
import { absolutePath } from "../../src/index";
import { readRegularFileSync } from "../../loader/index";
import { basename, join } from "node:path";
import {
  splitFrontmatter,
  definitionNameProblem,
  displayNameOf,
  expandIn,
  slugOf,
  MAX_DEFINITION_BYTES,
  orderedSources,
  SOURCE_ORDER,
  type Source,
} from "../_kits/sources/index";
import type { Skill } from "./skill";
import { implicitInvocationOff } from "./codex-policy";

/** The file that makes a folder a skill. */
export const SKILL_FILE = "SKILL.md";

/** The folder of skills a source means. */
export function skillFolder(source: Source, cwd: string, home: string): string {
  if (source === "user") return join(home, ".ubiquity", "skills");
  if (source === "project") return join(cwd, ".ubiquity", "skills");
  return join(cwd, ".ubiquity", "skills.local");
}

const isFile = async (path: string) => (await stat(path).catch(() => undefined))?.isFile() === true;
const isFolder = async (path: string) => (await stat(path).catch(() => undefined))?.isDirectory() === true;

/**
 * The skill folders of a root, sorted by name. Links that lead nowhere are said, once for the root:
 * a repository that links its skills into a git submodule (j5ik2o/oni-comb-rs: 29 of them) has none
 * in a plain clone, and a link to a path on its author's machine has none anywhere else.
 */
async function skillDirs(root: string, report: (m: string) => void): Promise<string[]> {
  if (await isFile(join(root, SKILL_FILE))) return [root];
  const names = (await readdir(root).catch(() => [] as string[])).sort();
  const dirs: string[] = [];
  const dangling: string[] = [];
  const flat: string[] = [];
  for (const name of names) {
    if (await isFile(join(root, name, SKILL_FILE))) dirs.push(join(root, name));
    else if (name.endsWith(".md") && name !== SKILL_FILE && isSkillText(join(root, name))) flat.push(name);
    else if (
      (await lstat(join(root, name)).catch(() => undefined))?.isSymbolicLink() &&
      !(await exists(join(root, name)))
    )
      dangling.push(`${name} -> ${await readlink(join(root, name)).catch(() => "?")}`);
  }
  if (dangling.length)
    report(
      `${root}: ${dangling.length} skill link${dangling.length > 1 ? "s lead" : " leads"} nowhere, so ${dangling.length > 1 ? "those skills are" : "that skill is"} not there (${dangling.slice(0, 3).join(", ")}${dangling.length > 3 ? ", …" : ""}): a git submodule not checked out (git submodule update --init), or a path on another machine`,
    );
  // A skill written as one file (NotMyself/claude-bun-win11-hooks' skills/docker-mcp-cli.md): Claude Code
  // reads only <name>/SKILL.md, so it is no skill there either; said, since nothing else would say it.
  for (const name of flat)
    report(
      `${join(root, name)}: a skill written as a single file is not read (by Claude Code either): a skill is a folder with a SKILL.md; move it to ${join(root, name.slice(0, -3), SKILL_FILE)}`,
    );
  return dirs;
}

/** Whether a Markdown file opens with the frontmatter of a skill (a `description:` line in it), not a README. */
function isSkillText(path: string): boolean {
  const read = readRegularFileSync(path, MAX_DEFINITION_BYTES);
  if (!read.ok) return false;
  const split = splitFrontmatter(read.text);
  return split.ok && "description" in split.data;
}

const exists = async (path: string) => (await stat(path).catch(() => undefined)) !== undefined;

/**
 * Claude Code skill fields ubiquity has no equivalent for: said when a SKILL.md sets them, never
 * dropped in silence (the skill loads and runs inline, as a skill without them does).
 */
export const UNAPPLIED_SKILL_FIELDS: Readonly<Record<string, string>> = {
  context: "it runs in the conversation, not in a forked subagent",
  agent: "no forked subagent runs it",
  hooks: "hooks scoped to a skill do not run",
  effort: "the run's reasoning level applies",
  paths: "it is listed whatever files are open",
};

/** `${CLAUDE_SKILL_DIR}`: the skill's folder, as Claude Code (2.1.69+) substitutes it when it loads a skill. */
const SKILL_DIR = /\$\{CLAUDE_SKILL_DIR\}/g;

/** `text` with `${CLAUDE_SKILL_DIR}` standing for `dir`. */
const expandSkillDir = (text: string, dir: string) => text.replace(SKILL_DIR, () => dir);

/** The first paragraph of a markdown body, a heading's `#` marks taken off, its lines joined. */
export function firstParagraph(body: string): string {
  const paragraph = body.trim().split(/\r?\n[ \t]*\r?\n/)[0] ?? "";
  return paragraph
    .split(/\r?\n/)
    .map((line) => line.trim().replace(/^#+\s*/, ""))
    .filter(Boolean)
    .join(" ");
}

/**
 * Read one skill folder; a problem is reported and the skill skipped. `claude`: a Claude Code
 * file (its folders, a plugin's), described by its body's first paragraph when it has no
 * `description`, as Claude Code does; one of ours without a description is skipped (the seed).
 */
async function readSkill(
  dir: string,
  root: string,
  source: Skill["source"],
  report: (m: string) => void,
  claude = false,
): Promise<Skill | undefined> {
  const file = join(dir, SKILL_FILE);
  // Only a regular file of at most 1 MiB: a FIFO planted as SKILL.md must not hang the run.
  const read = readRegularFileSync(file, MAX_DEFINITION_BYTES);
  if (!read.ok) {
    report(`skipped the skill ${file}: ${read.missing ? "it could not be read (ENOENT)" : read.problem}`);
    return undefined;
  }
  const text = read.text;
  const split = splitFrontmatter(text);
  if (!split.ok) {
    report(`skipped the skill ${file}: ${split.problem}`);
    return undefined;
  }
  const { data } = split;
  const written = typeof data.description === "string" ? data.description.trim() : "";
  const description = written || (claude ? firstParagraph(split.body) : "");
  if (!description) {
    report(`skipped the skill ${file}: it has no description; add a \`description:\` line saying when to use it`);
    return undefined;
  }
  const unapplied = Object.keys(UNAPPLIED_SKILL_FIELDS).filter((key) => key in data);
  if (unapplied.length)
    report(
      `skill ${file}: ${unapplied.map((f) => `${f} (${UNAPPLIED_SKILL_FIELDS[f]})`).join(", ")}: Claude Code field${unapplied.length > 1 ? "s" : ""} ubiquity does not apply`,
    );
  const named = typeof data.name === "string" && data.name.trim() ? data.name.trim() : basename(dir);
  // A name written for people ("Systematic Debugging", "v2.0 Release") is kept for display; the
  // skill is called by its folder's name, or by an identifier derived from the display name.
  let name = named;
  let displayName: string | undefined;
  if (definitionNameProblem(named)) {
    displayName = displayNameOf(named);
    name = [basename(dir), slugOf(named)].find((candidate) => candidate && !definitionNameProblem(candidate)) ?? "";
    if (!name || !displayName) {
      report(
        `skipped the skill ${file}: ${definitionNameProblem(named)}, and neither its folder's name nor its name gives an identifier`,
      );
      return undefined;
    }
  }
  return {
    name,
    ...(displayName ? { displayName } : {}),
    description,
    // Bundled files are named through it (`python3 ${CLAUDE_SKILL_DIR}/scripts/run.py`), in the
    // instructions and in the rules that pre-approve running them (`Bash(${CLAUDE_SKILL_DIR}/scripts/*)`).
    body: expandSkillDir(split.body.trim(), dir),
    dir,
    root,
    source,
    frontmatter: Object.freeze({
      ...data,
      // Codex's `policy.allow_implicit_invocation: false` (agents/openai.yaml) is this: the user's, not the model's.
      ...(data["disable-model-invocation"] !== true && implicitInvocationOff(dir, report)
        ? { "disable-model-invocation": true }
        : {}),
      ...("allowed-tools" in data
        ? { "allowed-tools": expandIn(data["allowed-tools"], (t) => expandSkillDir(t, dir)) }
        : {}),
    }),
  };
}

/** Load the skills the options ask for, sorted by name; later roots win a name. */
export async function loadSkills(
  options: {
    skills?: readonly string[];
    skillSources?: readonly string[];
    compatRoots?: readonly { path: string; source: Source }[];
    /** Whether a skill folder found under a `skills` root is read (false: skipped, a name it has left to others). */
    admit?: (dir: string) => boolean;
  },
  place: { cwd: string; home: string },
  report: (message: string) => void,
  /** Every root is Claude Code's (a plugin's skills): see `readSkill`. */
  claude = false,
): Promise<Skill[]> {
  // Another tool's folders (`compatRoots`: .claude/skills, .agents/skills) just before ours of the same source: ours win a name.
  const rank = (source: Skill["source"]) => (source === "skills" ? SOURCE_ORDER.length : SOURCE_ORDER.indexOf(source));
  const roots: { path: string; source: Skill["source"]; written?: string; compat?: boolean }[] = [
    ...(options.compatRoots ?? []).map((r) => ({ path: r.path, source: r.source, compat: true })),
    ...orderedSources(options.skillSources).map((source) => ({
      path: skillFolder(source, place.cwd, place.home),
      source,
    })),
    ...(options.skills ?? []).map((written) => ({
      path: absolutePath(place.cwd, written),
      source: "skills" as const,
      written,
    })),
  ].sort((a, b) => rank(a.source) - rank(b.source));
  const byName = new Map<string, Skill>();
  for (const root of roots) {
    if (!(await isFolder(root.path))) {
      // A conventional folder that does not exist is normal; a root the caller named is a mistake.
      if (root.written !== undefined)
        report(
          `skills: ${root.written} (${root.path}) is not a folder; name a folder of skills or a folder holding a ${SKILL_FILE}`,
        );
      continue;
    }
    for (const dir of await skillDirs(root.path, report)) {
      if (root.written !== undefined && options.admit && !options.admit(dir)) continue;
      const skill = await readSkill(dir, root.path, root.source, report, claude || root.compat === true);
      if (skill) byName.set(skill.name, skill);
    }
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
