/**
 * The compat survey: real Claude Code / Codex artefacts from public repositories (sample.tsv:
 * kind, repository, commit, path), each loaded unmodified through ubiquity's own loaders in a
 * temporary project, and what ubiquity understood printed next to what it reported. The outcome
 * column of docs/guide/compat-survey.md is judged from this output against Claude Code's docs.
 *
 *   npx jiti bench/compat-survey/survey.ts [mirrors-folder] [kind|all] [sample.tsv|targeted.tsv]
 *
 * The files are read with `git show <commit>:<path>` from `<mirrors-folder>/<owner>+<name>/repo`
 * (bare clones; default /work/.mirror). A repository that is not there is listed as missing.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, posix } from "node:path";
import { fileURLToPath } from "node:url";
import { loadSkills } from "../../plugins/skills/index";
import { parseAgentFile, readAgentFiles } from "../../plugins/agents/index";
import { loadCommands } from "../../plugins/commands/load";
import { readFileHooks } from "../../plugins/hooks/settings-hooks";
import { readClaudeSettingsFile } from "../../plugins/settings/claude";
import { readMcpConfigEntries } from "../../plugins/mcp/config";
import { findIncludes } from "../../plugins/memory/index";
import { readClaudePlugin, splitFrontmatter } from "../../plugins/_kits/sources/index";
import { parseRule } from "../../plugins/permissions/rules";
import { fileModel } from "../../plugins/model/index";
import { matches } from "../../plugins/hooks/matcher";
import { keepTool } from "../../plugins/agents/narrow";

const here = dirname(fileURLToPath(import.meta.url));
const mirrors = process.argv[2] ?? "/work/.mirror";
const only = process.argv[3];

/** Frontmatter keys each loader acts on (the rest are listed as "not applied"). */
const APPLIED = {
  skill: [
    "name",
    "description",
    "allowed-tools",
    "disable-model-invocation",
    "user-invocable",
    "argument-hint",
    "model",
  ],
  // Informational keys of the Agent Skills spec: nothing to apply.
  skillInfo: ["license", "metadata", "version", "compatibility"],
  agent: [
    "name",
    "description",
    "tools",
    "disallowedTools",
    "disallowed-tools",
    "skills",
    "model",
    "maxTurns",
    "max-turns",
    "reasoning",
    "permissionMode",
    "permission-mode",
    "isolation",
    "hooks",
    "outputSchema",
    "effort",
  ],
  agentInfo: ["color"],
  command: ["description", "argument-hint", "model", "allowed-tools"],
};

function git(repo: string, args: string[]): string {
  return execFileSync("git", ["--git-dir", join(mirrors, repo.replace("/", "+"), "repo"), ...args], {
    encoding: "utf8",
    maxBuffer: 8 << 20,
    stdio: ["ignore", "pipe", "ignore"],
  });
}

/** The file's text at `commit`; a symlink is followed (as a checkout would), up to five links. */
function show(repo: string, commit: string, path: string, hops = 0): string | undefined {
  try {
    const text = git(repo, ["show", `${commit}:${path}`]);
    const mode = git(repo, ["ls-tree", commit, "--", path]).split(" ")[0];
    if (mode !== "120000" || hops >= 5) return text;
    return show(repo, commit, posix.normalize(posix.join(posix.dirname(path), text.trim())), hops + 1);
  } catch {
    return undefined;
  }
}

function put(root: string, path: string, text: string): string {
  const file = join(root, path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

/** What a file's `model` runs on: the session's model, or the string as written (a string without a provider fails). */
function runsOn(model: unknown): string | undefined {
  if (typeof model !== "string") return undefined;
  if (fileModel(model, undefined) === undefined) return "session model";
  return model.includes(":") ? model : `${model} (names no provider: fails)`;
}

/** Names a hook matcher is tried on: tools, and the sources and triggers of events without a tool. */
const TARGETS = [
  "Bash",
  "Read",
  "Write",
  "Edit",
  "MultiEdit",
  "Glob",
  "Grep",
  "Task",
  "Agent",
  "WebFetch",
  "NotebookEdit",
]
  .concat(["mcp__github__push", "mcp__slack__post_message", "mcp__serena__find_symbol"])
  .concat(["startup", "resume", "clear", "compact", "manual", "auto"]);

/** Claude Code's reading of a matcher (its hooks docs): all, an exact `A|B` list, else one unanchored regular expression. */
function claudeMatches(matcher: string | undefined, name: string): boolean {
  if (matcher === undefined || matcher === "" || matcher === "*") return true;
  if (/^[A-Za-z0-9_|]+$/.test(matcher)) return matcher.split("|").includes(name);
  try {
    return new RegExp(matcher).test(name);
  } catch {
    return false;
  }
}

/** Per matcher, the names ubiquity and Claude Code disagree on. */
function matcherDiffs(hooks: unknown): string[] {
  const out: string[] = [];
  for (const groups of Object.values((hooks ?? {}) as Record<string, unknown>))
    for (const group of Array.isArray(groups) ? groups : []) {
      const matcher = (group as { matcher?: unknown }).matcher;
      if (typeof matcher !== "string") continue;
      const differ = TARGETS.filter((t) => matches(matcher, t) !== claudeMatches(matcher, t));
      if (differ.length) out.push(`${matcher}: ${differ.join(", ")}`);
    }
  return out;
}

const notApplied = (keys: string[], applied: string[]) => keys.filter((k) => !applied.includes(k));

function rulesProblems(rules: readonly string[] | undefined): string[] {
  const out: string[] = [];
  for (const r of rules ?? [])
    try {
      parseRule(r, "allow", "survey");
    } catch {
      out.push(r);
    }
  return out;
}

async function survey(kind: string, text: string, path: string, dir: string): Promise<Record<string, unknown>> {
  const reports: string[] = [];
  const report = (m: string) => reports.push(m.replaceAll(dir, "<tmp>"));
  const place = { cwd: dir, home: join(dir, "home") };
  if (kind === "skill") {
    const name = basename(dirname(path));
    put(dir, `.claude/skills/${name}/SKILL.md`, text);
    const [skill] = await loadSkills(
      { compatRoots: [{ path: join(dir, ".claude/skills"), source: "project" }] },
      place,
      report,
    );
    const raw = splitFrontmatter(text);
    const keys = raw.ok ? Object.keys(raw.data) : [];
    return {
      loaded: skill ? `${skill.name}${skill.displayName ? ` (${skill.displayName})` : ""}` : null,
      description: skill?.description.slice(0, 60),
      allowedTools: skill?.frontmatter["allowed-tools"],
      notApplied: notApplied(keys, [...APPLIED.skill, ...APPLIED.skillInfo]),
      reports,
    };
  }
  if (kind === "agent") {
    put(dir, `.claude/agents/${basename(path)}`, text);
    await readAgentFiles([], place, report, [{ path: join(dir, ".claude/agents"), source: "project" }]);
    const parsed = parseAgentFile(text, basename(path, ".md"));
    const raw = splitFrontmatter(text);
    const keys = raw.ok ? Object.keys(raw.data) : [];
    if (!parsed.ok) return { loaded: null, problem: parsed.problem };
    return {
      loaded: parsed.name,
      description: parsed.definition.description.slice(0, 60),
      tools: parsed.definition.tools,
      rawTools: raw.ok ? raw.data.tools : undefined,
      model: parsed.definition.model,
      runsOn: runsOn(parsed.definition.model),
      reasoning: parsed.definition.reasoning,
      keys,
      dropped: parsed.dropped,
      notApplied: notApplied(keys, [...APPLIED.agent, ...APPLIED.agentInfo]),
      reports,
      badRules: rulesProblems(parsed.definition.tools),
      // A whole MCP server named in `tools` (`mcp__context7__*`, round s): is a tool of that server kept?
      mcpServersWhole: (parsed.definition.tools ?? [])
        .filter((t) => /^mcp__[^_*][^*]*?(__\*)?$/.test(t) && !/^mcp__.+__.+[^*]$/.test(t))
        .map((t) => {
          const server = t.replace(/^mcp__/, "").replace(/__\*$/, "");
          return { entry: t, kept: keepTool(`mcp__${server}__probe`, undefined, parsed.definition) };
        }),
    };
  }
  if (kind === "command") {
    const rel = path.split("/commands/").at(-1)!;
    put(dir, `.claude/commands/${rel}`, text);
    const [command] = await loadCommands(
      [{ path: join(dir, ".claude/commands"), source: "project", claude: true }],
      report,
    );
    const raw = splitFrontmatter(text);
    const keys = raw.ok ? Object.keys(raw.data) : [];
    return {
      loaded: command?.name ?? null,
      description: command?.description.slice(0, 60),
      argumentHint: command?.argumentHint,
      allowedTools: command?.allowedTools,
      rawAllowedTools: raw.ok ? raw.data["allowed-tools"] : undefined,
      model: command?.model,
      runsOn: runsOn(command?.model),
      badRules: rulesProblems(command?.allowedTools),
      uses: ["$ARGUMENTS", "$1", "!`", "@"].filter((t) => text.includes(t)),
      notApplied: notApplied(keys, APPLIED.command),
      reports,
    };
  }
  if (kind === "hooks" || kind === "settings") {
    const file = put(dir, kind === "hooks" ? "hooks/hooks.json" : ".claude/settings.json", text);
    let value: unknown;
    try {
      value = kind === "hooks" ? JSON.parse(text) : readClaudeSettingsFile(file, report, dir, place.home);
    } catch (error) {
      return { loaded: null, problem: (error as Error).message.replaceAll(dir, "<tmp>") };
    }
    const data = value as Record<string, unknown>;
    const hooksValue = kind === "hooks" ? (data.hooks ?? data) : data.hooks;
    const notes: string[] = [];
    const hooks =
      hooksValue === undefined ? {} : readFileHooks(hooksValue, report, "project", (_e, m) => notes.push(m));
    const count = (h: unknown) =>
      Object.values((h ?? {}) as Record<string, unknown>).reduce<number>(
        (n, groups) =>
          n +
          (Array.isArray(groups)
            ? groups.reduce<number>(
                (m, g) =>
                  m + (Array.isArray((g as { hooks?: unknown }).hooks) ? (g as { hooks: unknown[] }).hooks.length : 0),
                0,
              )
            : 0),
        0,
      );
    // The file's rules as written (the loader may skip some: round t's allow entries that are no rules).
    let written: { permissions?: Record<string, string[]> } = {};
    try {
      written = JSON.parse(text);
    } catch {}
    const perms =
      (kind === "settings"
        ? (written.permissions ?? (data.permissions as Record<string, string[]> | undefined))
        : undefined) ?? {};
    return {
      loaded: true,
      events: Object.keys(hooks),
      handlers: `${count(hooks)}/${count(hooksValue)}`,
      handlerKeys: [
        ...new Set(
          Object.values((hooksValue ?? {}) as Record<string, unknown>)
            .flatMap((g) => (Array.isArray(g) ? g : []))
            .flatMap((g) => ((g as { hooks?: unknown[] }).hooks ?? []) as Record<string, unknown>[])
            .flatMap((h) => (typeof h === "object" && h ? Object.keys(h) : [])),
        ),
      ],
      matcherDiffs: matcherDiffs(hooksValue),
      rules: Object.fromEntries(Object.entries(perms).map(([k, v]) => [k, Array.isArray(v) ? v.length : v])),
      envVars: kind === "settings" ? Object.keys((data.env ?? {}) as Record<string, unknown>) : [],
      badRules: ["allow", "deny", "ask"].flatMap((l) => rulesProblems(Array.isArray(perms[l]) ? perms[l] : [])),
      notes,
      // Tool-event groups whose matcher names only Claude Code's plan-mode tools, which ubiquity has not (round t).
      planToolGroups: Object.entries((hooksValue ?? {}) as Record<string, unknown>).flatMap(([event, groups]) =>
        (Array.isArray(groups) ? groups : [])
          .map((g) => (g as { matcher?: unknown }).matcher)
          .filter(
            (m): m is string =>
              /^(Pre|Post)ToolUse(Failure)?$|^Permission(Request|Denied)$/.test(event) &&
              typeof m === "string" &&
              /^[A-Za-z0-9_|]+$/.test(m) &&
              m.split("|").every((n) => n === "ExitPlanMode" || n === "EnterPlanMode"),
          )
          .map((matcher) => ({ event, matcher })),
      ),
      notificationGroups: (
        ((hooksValue ?? {}) as Record<string, unknown>).Notification as { matcher?: unknown }[] | undefined
      )
        ?.filter((g) => typeof g === "object" && g)
        .map((g) => ({ matcher: g.matcher })),
      reports,
    };
  }
  if (kind === "mcp") {
    try {
      const data = JSON.parse(text) as { mcpServers?: Record<string, { enabled?: unknown; disabled?: unknown }> };
      const entries = readMcpConfigEntries(data, { env: { HOME: "/home/u", PATH: "/usr/bin" } });
      const off = Object.entries(data.mcpServers ?? {}).filter(([, s]) => s?.enabled === false || s?.disabled === true);
      return {
        disabledButStarted: off.map(([name]) => name).filter((name) => name in entries.servers),
        loaded: Object.keys(entries.servers),
        types: Object.values(entries.servers).map((s) => (s as { type?: string }).type ?? "stdio"),
        failed: entries.failed,
        warnings: entries.warnings,
      };
    } catch (error) {
      return { loaded: null, problem: (error as Error).message };
    }
  }
  if (kind === "memory") {
    return { loaded: true, includes: findIncludes(text).slice(0, 12) };
  }
  if (kind === "plugin") {
    const root = join(dir, "plugin");
    put(root, path.includes(".codex-plugin") ? ".codex-plugin/plugin.json" : ".claude-plugin/plugin.json", text);
    const plugin = readClaudePlugin(root, report);
    let manifest: Record<string, unknown> = {};
    try {
      manifest = JSON.parse(text);
    } catch {}
    return {
      loaded: plugin?.name ?? null,
      keys: Object.keys(manifest),
      commands: plugin?.commandDirs.map((p) => p.replace(root, ".")),
      agents: plugin?.agentPaths.map((p) => p.replace(root, ".")),
      skills: plugin?.skillsDirs.map((p) => p.replace(root, ".")),
      hooks: plugin?.inlineHooks ? "inline" : plugin?.hooksFiles.map((p) => p.replace(root, ".")),
      reports,
    };
  }
  if (kind === "marketplace") {
    const market = JSON.parse(text) as { plugins?: { name: string; source: unknown }[]; metadata?: unknown };
    const kinds = (market.plugins ?? []).map((p) =>
      typeof p.source === "string"
        ? p.source.startsWith("./")
          ? "local ./"
          : `string ${p.source}`
        : `object ${(p.source as { source?: string })?.source}`,
    );
    const tally: Record<string, number> = {};
    for (const k of kinds) tally[k] = (tally[k] ?? 0) + 1;
    return { loaded: true, plugins: kinds.length, sources: tally, metadata: market.metadata };
  }
  if (kind === "style") {
    const raw = splitFrontmatter(text);
    return { loaded: false, keys: raw.ok ? Object.keys(raw.data) : raw.problem };
  }
  return { loaded: null, problem: `unknown kind ${kind}` };
}

const rows = readFileSync(process.env.SURVEY_SAMPLE ?? join(here, process.argv[4] ?? "sample.tsv"), "utf8")
  .trim()
  .split("\n")
  .map((l) => l.split("\t") as [string, string, string, string]);
for (const [kind, repo, commit, path] of rows) {
  if (only && only !== "all" && kind !== only) continue;
  const text = show(repo, commit, path);
  if (text === undefined) {
    console.log(JSON.stringify({ kind, repo, path, missing: true }));
    continue;
  }
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "ubq-survey-")));
  try {
    console.log(JSON.stringify({ kind, repo, path, ...(await survey(kind, text, path, dir)) }));
  } catch (error) {
    console.log(JSON.stringify({ kind, repo, path, threw: String(error) }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
