/**
 * The Codex half of the compat survey: real Codex artefacts from public repositories
 * (codex-sample.tsv: kind, repository, commit, path), each loaded unmodified through the loader a
 * run calls, in a temporary home and project, next to what Codex's own docs and source say it
 * does with the same file. docs/guide/compat-survey.md ("Codex files") is judged from this output.
 *
 *   npx jiti bench/compat-survey/codex-survey.ts [mirrors-folder] [kind|all] [codex-sample.tsv]
 *
 * Kinds: `config` (a `config.toml`; user-level when the path is a dotfiles `codex/` or `.codex/`
 * folder of a repository holding no project, see the tsv), `project-config`, `prompt`, `agents`
 * (AGENTS.md / AGENTS.override.md: every such file of the repository is laid out with a `.git` at
 * its root and the run starts in the row's folder; `.codex/AGENTS.md` is the user's), `plugin`
 * (a plugin folder with `.codex-plugin/plugin.json`, laid out whole).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { readCodexConfigFile } from "../../plugins/settings/codex";
import { expandCodexPrompt, loadCodexPrompts, namedPlaceholders } from "../../plugins/commands/codex-prompts";
import { loadMemory } from "../../plugins/memory/index";
import { readClaudePlugin } from "../../plugins/_kits/sources/index";
import { parse } from "smol-toml";

const here = dirname(fileURLToPath(import.meta.url));
const mirrors = process.argv[2] ?? "/work/.mirror";
const only = process.argv[3];

function git(repo: string, ...args: string[]): string | undefined {
  try {
    return execFileSync("git", ["--git-dir", join(mirrors, repo.replace("/", "+"), "repo"), ...args], {
      encoding: "utf8",
      maxBuffer: 32 << 20,
      stdio: ["ignore", "pipe", "ignore"],
    });
  } catch {
    return undefined;
  }
}
const show = (repo: string, commit: string, path: string) => git(repo, "show", `${commit}:${path}`);

function put(root: string, path: string, text: string): string {
  const file = join(root, path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

/** Codex's reading of a prompt's frontmatter (codex-rs/core/src/custom_prompts.rs): `key: value` lines, not YAML. */
function codexFrontmatter(text: string): { description?: string; hint?: string; body: string } {
  const lines = text.split(/\r?\n/);
  if (lines[0]?.trim() !== "---") return { body: text };
  const out: { description?: string; hint?: string } = {};
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === "---") return { ...out, body: lines.slice(i + 1).join("\n") };
    const t = line.trim();
    const colon = t.indexOf(":");
    if (!t || t.startsWith("#") || colon < 0) continue;
    let v = t.slice(colon + 1).trim();
    if (v.length >= 2 && ((v[0] === '"' && v.endsWith('"')) || (v[0] === "'" && v.endsWith("'")))) v = v.slice(1, -1);
    const k = t.slice(0, colon).trim().toLowerCase();
    if (k === "description") out.description = v;
    if (k === "argument-hint" || k === "argument_hint") out.hint = v;
  }
  return { body: text };
}

/** Codex's instruction chain (docs/agents_md.md): git root to cwd, one file a folder, empty skipped, 32 KiB in all. */
function codexChain(files: Map<string, string>, cwd: string, user: Map<string, string>): string[] {
  const out: string[] = [];
  const userFile = ["AGENTS.override.md", "AGENTS.md"].find((n) => (user.get(n) ?? "").trim());
  if (userFile) out.push(`~/.codex/${userFile}`);
  const parts = cwd === "." ? [] : cwd.split("/");
  let budget = 32 * 1024;
  for (let i = 0; i <= parts.length; i++) {
    const dir = parts.slice(0, i).join("/");
    const name = ["AGENTS.override.md", "AGENTS.md"].find((n) => files.has(dir ? `${dir}/${n}` : n));
    if (!name) continue;
    const path = dir ? `${dir}/${name}` : name;
    const size = Buffer.byteLength(files.get(path)!);
    if (!files.get(path)!.trim() || budget <= 0) continue;
    out.push(size > budget ? `${path} (cut at ${budget} bytes)` : path);
    budget -= size;
  }
  return out;
}

async function survey(
  kind: string,
  repo: string,
  commit: string,
  text: string,
  path: string,
  dir: string,
): Promise<Record<string, unknown>> {
  const reports: string[] = [];
  const report = (m: string) => reports.push(m.replaceAll(dir, "<tmp>"));
  const home = join(dir, "home");
  if (kind === "config" || kind === "project-config") {
    const file = put(dir, kind === "config" ? "home/.codex/config.toml" : "proj/.codex/config.toml", text);
    let raw: Record<string, unknown> = {};
    try {
      raw = parse(text) as Record<string, unknown>;
    } catch {}
    try {
      const config = readCodexConfigFile(file, report, { HOME: home, PATH: "/usr/bin" });
      const profile = typeof raw.profile === "string" ? raw.profile : undefined;
      const profiles = (raw.profiles ?? {}) as Record<string, Record<string, unknown>>;
      return {
        keys: Object.keys(raw),
        model: config?.settings.model,
        reasoning: config?.reasoning,
        mode: config?.tightening.mode,
        sandbox: config?.tightening.sandbox,
        servers: Object.fromEntries(
          Object.entries(config?.servers ?? {}).map(([n, s]) => [n, (s as { type?: string }).type ?? "stdio"]),
        ),
        failed: config?.failed,
        deny: config?.settings.permissions?.deny,
        // What Codex takes from the selected profile (its config docs: a profile's keys win over the top level).
        codexProfile: profile ? { name: profile, keys: Object.keys(profiles[profile] ?? {}) } : undefined,
        reports,
      };
    } catch (error) {
      return { keys: Object.keys(raw), loaded: null, problem: (error as Error).message.replaceAll(dir, "<tmp>") };
    }
  }
  if (kind === "prompt") {
    const folder = join(home, ".codex", "prompts");
    put(folder, basename(path), text);
    const [prompt] = await loadCodexPrompts(folder, report);
    const codex = codexFrontmatter(text);
    const names = namedPlaceholders(codex.body);
    const args = names.length ? names.map((n) => `${n}=v_${n.toLowerCase()}`).join(" ") : 'alpha "b c"';
    let expansion: string | undefined;
    try {
      expansion = prompt ? (expandCodexPrompt(prompt.body, args, prompt.name), "ok") : undefined;
    } catch (error) {
      expansion = `error: ${(error as Error).message}`;
    }
    return {
      loaded: prompt?.name ?? null,
      description: prompt?.description.slice(0, 60),
      argumentHint: prompt?.argumentHint,
      codex: {
        name: `prompts:${basename(path, ".md")}`,
        description: codex.description?.slice(0, 60),
        hint: codex.hint,
      },
      sameBody: prompt ? prompt.body.replace(/\r?\n$/, "") === codex.body.replace(/\r?\n$/, "") : undefined,
      named: names,
      positional: /\$([1-9]|ARGUMENTS)/.test(codex.body),
      expansion,
      reports,
    };
  }
  if (kind === "agents") {
    const userLevel = /(^|\/)\.?codex\/AGENTS(\.override)?\.md$/.test(path);
    const proj = join(dir, "proj");
    mkdirSync(join(proj, ".git"), { recursive: true });
    const files = new Map<string, string>();
    const user = new Map<string, string>();
    if (userLevel) {
      // A dotfiles link (`.codex/AGENTS.md` -> `../.claude/CLAUDE.md`) is laid out as the link it is, under home.
      const mode = git(repo, "ls-tree", commit, path)?.split(" ")[0];
      if (mode === "120000") {
        const target = join(dirname(path), text.trim());
        const real = show(repo, commit, target) ?? "";
        user.set(basename(path), real);
        put(home, join(".codex", text.trim()), real);
        mkdirSync(join(home, ".codex"), { recursive: true });
        symlinkSync(text.trim(), join(home, ".codex", basename(path)));
      } else {
        user.set(basename(path), text);
        put(home, `.codex/${basename(path)}`, text);
      }
    } else {
      // Modes too: AGENTS.md is often a link to CLAUDE.md, laid out as the link it is.
      const tree = (git(repo, "ls-tree", "-r", commit) ?? "").split("\n").map((l) => {
        const [meta, p] = l.split("\t");
        return { link: meta?.startsWith("120000") ?? false, p: p ?? "" };
      });
      for (const { link, p } of tree.filter(
        ({ p }) => /(^|\/)AGENTS(\.override)?\.md$/.test(p) && !/(^|\/)\.?codex\//.test(p),
      )) {
        const t = show(repo, commit, p);
        if (t === undefined) continue;
        if (link) {
          const target = join(dirname(p), t.trim());
          const real = show(repo, commit, target) ?? "";
          files.set(p, real);
          put(proj, target, real);
          mkdirSync(dirname(join(proj, p)), { recursive: true });
          symlinkSync(t.trim(), join(proj, p));
        } else {
          files.set(p, t);
          put(proj, p, t);
        }
      }
    }
    const cwdRel = userLevel ? "." : dirname(path);
    mkdirSync(join(proj, cwdRel), { recursive: true });
    const loaded = await loadMemory(
      { compat: ["codex"], memorySources: [], compatSources: ["user", "project", "local"] },
      { cwd: join(proj, cwdRel), home },
      report,
    );
    const show2 = (p: string) => p.replace(`${proj}/`, "").replace(`${home}/`, "~/");
    return {
      ubiquity: loaded
        .filter((f) => !f.includedBy)
        .map(
          (f) => show2(f.path) + (f.cut ? ` (cut at ${Buffer.byteLength(f.content.split("\n\n[… ")[0]!)} bytes)` : ""),
        ),
      includes: loaded.filter((f) => f.includedBy).map((f) => `${show2(f.path)} (from ${show2(f.includedBy!)})`),
      codex: codexChain(files, cwdRel, user),
      bytes: Buffer.byteLength(text),
      link: files.get(path) !== undefined && files.get(path) !== text,
      reports,
    };
  }
  if (kind === "plugin") {
    const root = join(dir, "plugin");
    const base = dirname(dirname(path)) === "." ? "" : `${dirname(dirname(path))}/`;
    const tree = (git(repo, "ls-tree", "-r", "--name-only", commit) ?? "").split("\n");
    for (const p of tree.filter((p) => p.startsWith(base) && p !== path)) {
      const rel = p.slice(base.length);
      // Only what a plugin loader looks at: manifests, skills, hooks, MCP and app files, agents, commands.
      if (
        !/^(\.claude-plugin\/|skills\/|[^/]+-skills\/|hooks\/|\.mcp\.json$|\.app\.json$|agents\/|commands\/)/.test(rel)
      )
        continue;
      if (!/\.(md|json)$/.test(rel)) continue;
      const t = show(repo, commit, p);
      if (t !== undefined) put(root, rel, t);
    }
    put(root, ".codex-plugin/plugin.json", text);
    let manifest: Record<string, unknown> = {};
    try {
      manifest = JSON.parse(text);
    } catch {}
    const plugin = readClaudePlugin(root, report);
    const rel = (p: string) => p.replace(root, ".");
    return {
      manifestKind: plugin?.kind,
      loaded: plugin?.name ?? null,
      keys: Object.keys(manifest),
      skills: plugin?.skillsDirs.map(rel),
      codexSkills:
        typeof manifest.skills === "string" || Array.isArray(manifest.skills) ? [manifest.skills].flat() : ["./skills"],
      commands: plugin?.commandDirs.map(rel),
      agents: plugin?.agentPaths.map(rel),
      mcp: plugin?.inlineMcpServers ? "inline" : plugin?.mcpFile && rel(plugin.mcpFile),
      apps: manifest.apps ?? (tree.includes(`${base}.app.json`) ? "./.app.json (default)" : undefined),
      reports,
    };
  }
  return { loaded: null, problem: `unknown kind ${kind}` };
}

const rows = readFileSync(process.env.SURVEY_SAMPLE ?? join(here, process.argv[4] ?? "codex-sample.tsv"), "utf8")
  .trim()
  .split("\n")
  .filter((l) => l && !l.startsWith("#"))
  .map((l) => l.split("\t") as [string, string, string, string]);
for (const [kind, repo, commit, path] of rows) {
  if (only && only !== "all" && kind !== only) continue;
  const text = show(repo, commit, path);
  if (text === undefined) {
    console.log(JSON.stringify({ kind, repo, path, missing: true }));
    continue;
  }
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "ubq-codex-survey-")));
  try {
    console.log(JSON.stringify({ kind, repo, path, ...(await survey(kind, repo, commit, text, path, dir)) }));
  } catch (error) {
    console.log(JSON.stringify({ kind, repo, path, threw: String(error) }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
