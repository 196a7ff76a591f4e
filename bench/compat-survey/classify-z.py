#!/usr/bin/env python3
"""Round z (docs/guide/compat-survey.md): one row per file the bin runs of bin-z.sh loaded, with its outcome.

    bash bench/compat-survey/bin-z.sh <checkouts> > runs.txt
    python3 bench/compat-survey/classify-z.py <checkouts> runs.txt > bench/compat-survey/sample-z.tsv

As classify-y.py (and classify-x.py before it): each project is the /tmp/ubq-x-<project>-* folder its runs name; its files are found where Claude
Code or Codex reads them (the project, and the temp HOME for setups kept as ~/.claude, ~/.codex or ~/.agents, laid
out from chezmoi sources by chezmoi-lay.py or chezmoi-render.py; the path column is where bin-x.sh put the file, `home/` for the HOME);
plugin folders are read in the checkout. A file is `warned` when a warning of its project's runs names it, `fixed`
when one of this round's fixes changed what happens to it (FIXED), `blocked` when it loaded but could not do its work
for a reason of this machine (BLOCKED), `refused` when ubiquity documents that it does not apply that kind of
file (REFUSED: output styles), else `clean`.
"""
import glob
import json
import os
import re
import subprocess
import sys

CO, RUNS = sys.argv[1], sys.argv[2]
ROUND = "z"

PROJECTS = {
    "dev": "Dev-GOM+claude-code-marketplace", "jos": "JosiahSiegel+claude-code-marketplace",
    "srp": "SerendipityOneInc+srp-claude-code-marketplace", "nin": "ninthspace+claude-code-marketplace",
    "sec": "secondsky+claude-skills", "rsh": "rshah515+claude-code-subagents", "ube": "ubehera+claude-agents-pro",
    "oajs": "openai+openai-agents-js", "oapython": "openai+openai-agents-python", "urm": "urmzd+dotfiles",
    "kos": "kossnocorp+dotfiles", "drw": "Drew-Daniels+dotfiles", "m86": "86d-app+86d",
}
# Projects copied whole of which the runs exercise only some files: those files alone are rows (86d's 115
# AGENTS.md: the root's and the two folders the runs ran in).
ONLY_PATHS = {"m86": {"AGENTS.md", "modules/sitemap/AGENTS.md", "packages/storage/AGENTS.md"}}


def marketplace_plugins(repo):
    """The marketplace's root, then each plugin folder its marketplace.json lists (relative sources)."""
    m = json.load(open(os.path.join(CO, repo, ".claude-plugin/marketplace.json")))
    out = [repo]
    for p in m["plugins"]:
        s = p.get("source")
        if isinstance(s, str) and s.startswith("./"):
            out.append(os.path.normpath(f"{repo}/{s}"))
    return out


PLUGINS = {k: marketplace_plugins(PROJECTS[k]) for k in ("dev", "jos", "srp", "nin", "sec")}
# Setups whose files sit in the temp HOME (walked with the project).
HOME_PROJECTS = {"rsh", "ube", "urm", "kos", "drw"}

KINDS = [
    (r"\.claude/settings(\.local)?\.json$", "settings"),
    (r"\.claude/agents/.*\.md$", "agent"),
    (r"\.claude/skills/[^/]+\.md$", "skill"),
    (r"\.claude/commands/.*\.md$", "command"),
    (r"(\.claude|\.agents|\.codex)/skills/[^/]+/SKILL\.md$", "skill"),
    (r"\.claude/rules/.*\.md$", "rule"),
    (r"\.claude/output-styles(/.*\.md)?$", "output-style"),
    (r"\.claude/(statusline[^/]*|status_lines/[^/]+)\.(sh|py|ts|js)$", "statusline"),
    (r"\.claude/hooks/[^/]+\.(sh|py|js|ts)$", "hook-script"),
    (r"\.codex/config\.toml$", "codex-config"),
    (r"\.codex/[^/]+\.config\.toml$", "codex-profile"),
    (r"\.codex/hooks\.json$", "codex-hooks"),
    (r"\.codex/rules/.*\.rules$", "codex-rules"),
    (r"\.codex/agents/.*\.toml$", "codex-agent"),
    (r"\.codex/prompts/[^/]*\.md$", "codex-prompt"),
    (r"(^|/)\.mcp\.json$", "mcp"),
    (r"(^|/)(CLAUDE|AGENTS|CLAUDE\.local)\.md$", "memory"),
]
DANGLING_KINDS = [
    (r"(\.claude|\.agents|\.codex)/skills/[^/]+$", "skill"),
    (r"\.claude/commands/[^/]+$", "command"),
    (r"\.(claude|codex|agents)(/(agents|skills|commands|hooks|prompts))?$", "folder"),
]
PLUGIN_KINDS = [
    (r"^\.claude-plugin/plugin\.json$", "plugin"),
    (r"^\.claude-plugin/marketplace\.json$", "marketplace"),
    (r"^agents/.*\.md$", "agent"),
    (r"^commands/.*\.md$", "command"),
    (r"^skills/[^/]+/SKILL\.md$", "skill"),
    (r"^skills/[^/]+\.md$", "skill"),
    (r"^SKILL\.md$", "skill"),
    (r"^hooks/hooks\.json$", "hooks"),
    (r"^hooks\.json$", "hooks"),
    (r"^\.lsp\.json$", "lsp"),
    (r"^output-styles/.*\.md$", "output-style"),
    (r"^\.mcp\.json$", "mcp"),
]

STATE_HOOKS = r"Dev-GOM\+claude-code-marketplace\tplugins/(hook-todo-collector|hook-complexity-monitor|hook-auto-docs|hook-session-summary|ai-pair-programming)/hooks/hooks\.json$"
# (pattern on "repo<TAB>path", note, optional test on the file).
FIXED = [
    (r"SerendipityOneInc\+srp-claude-code-marketplace\tplugins/[^/]+/commands/srp:[^/]+\.md$",
     "a command file named with `:` (`srp:gh.md`; its GUIDE.md says `/srp:gh`) was skipped (\"not an identifier\"); Claude Code names a command after its file: now `/srp-developer:srp:gh`",
     None),
    (r"ninthspace\+claude-code-marketplace\t(noteplan|filament-mockup|js-simplifier)/SKILL\.md$",
     "a plugin that is one skill (SKILL.md at its root, no skills/ folder, no `skills` in its manifest) was dropped in silence; Claude Code loads it: now `plugin:skill`",
     None),
    (r"kossnocorp\+dotfiles\thome/\.codex/config\.toml$",
     "`[shell_environment_policy] set` (AGENT, GIT_CONFIG_GLOBAL) was named as not read and the commands ran without them; now they reach Bash as Codex gives them (`${HOME}` unexpanded, as in Codex)",
     None),
    (r"openai\+openai-agents-(js|python)\t\.agents/skills/[^/]+/SKILL\.md$",
     "its agents/openai.yaml sets `policy.allow_implicit_invocation: false` (Codex offers it to the user's `$name` only); the model was offered it: now it is the user's `/name` alone, as Claude Code's disable-model-invocation",
     lambda f: re.search(r"allow_implicit_invocation:\s*false", open(os.path.join(os.path.dirname(f), "agents", "openai.yaml")).read()) is not None
     if os.path.exists(os.path.join(os.path.dirname(f), "agents", "openai.yaml")) else False),
    (r"ubehera\+claude-agents-pro\t\.claude/commands/.*\.md$",
     "an agent's `tools:` in a command (Claude Code reads `allowed-tools` there, so it grants and limits nothing) was ignored in silence; now named, with allowed-tools",
     lambda f: re.search(r"^tools:", open(f, encoding="utf8").read(2000), re.M) is not None),
    (STATE_HOOKS,
     "its Node hooks keep state in `<plugin>/.state`, which the sandbox shows read-only (Claude Code runs hooks unsandboxed); node said only `ENOENT … mkdir`: now the warning names the sandbox and the ways out (write under the project or $TMPDIR, sandbox.filesystem.allowWrite, --no-sandbox)",
     None),
]
# Files that loaded but could not do their work in these runs, for a reason of this machine: (pattern, note).
BLOCKED = [
    (r"SerendipityOneInc\+srp-claude-code-marketplace\tplugins/srp-(allstaff|developer|misc)/\.mcp\.json$",
     "MCP servers whose keys are unset (each named with its variable), http servers without network, `npx` packages the offline registry lacks: each failure named with its server"),
    (r"secondsky\+claude-skills\tplugins/nuxt-(ui-v4|v4|v5)/\.mcp\.json$", "http MCP servers (nuxt.com) out of reach without network: each named"),
    (r"secondsky\+claude-skills\tplugins/nuxt-seo/hooks/hooks\.json$",
     "its prompt hooks are judged by the model: the scripted model answers \"done\", which is no JSON answer, and that is named (its command hooks ran)"),
    (r"ninthspace\+claude-code-marketplace\tdpm/\.claude-plugin/plugin\.json$",
     "its MCP server (`node bin/dpm-mcp.js`) needs Node >= 22.5 (node:sqlite); this machine's `node` is 20.20: the server's own message is in the warning"),
    (r"urmzd\+dotfiles\thome/\.codex/agents/.*\.toml$",
     "loads as a Codex agent; runs on gpt-5.6 through OpenAI (a bare model name, as Codex runs it), which needs a key and the network: the failure names the model"),
]
# Kinds ubiquity documents it does not apply: (pattern, note).
REFUSED = [
    (r"output-styles/.*\.md$", "output styles are not applied (documented)"),
    (r"\.claude/(statusline[^/]*|status_lines/[^/]+)\.(sh|py|ts|js)$", "a statusLine script: `statusLine` is not applied (documented; the settings warning names it)"),
]
SKIPPED = [
    (r"rshah515\+claude-code-subagents\thome/\.claude/agents/comprehensive-agents/README\.md$",
     "the repository's README, cloned into ~/.claude/agents with the agents as its README says: no frontmatter, not read as an agent (a README is not named)"),
]


def commit_of(repo):
    mirror = f"/work/.mirror/{repo}/repo"
    return subprocess.run(["git", "-C", mirror, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()


def walk(root):
    """Files under root as the tools find them: links followed, a dangling link kept (marked)."""
    skip = {".git", "node_modules", "sessions", "sessions-todos"} | (set() if root.endswith("/home") else {"home"})
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
        dirnames[:] = [d for d in dirnames if d not in skip]
        for f in filenames:
            path = os.path.join(dirpath, f)
            yield os.path.relpath(path, root), not os.path.exists(path)


def runs_by_project(text):
    blocks = re.split(r"^===== ", text, flags=re.M)[1:]
    out = {}
    for b in blocks:
        name = b.split(":", 1)[0]
        project = next((p for p in list(PROJECTS) + list(PLUGINS) if name == p or name.startswith(p + "-")), None)
        out.setdefault(project, []).append(b)
    return out


def main():
    runs = runs_by_project(open(RUNS, encoding="utf8", errors="replace").read())
    print("kind\trepository\tcommit\tpath\toutcome\tnote")
    seen = set()
    for project in list(PROJECTS) + [p for p in PLUGINS if p not in PROJECTS]:
        stderr = "\n".join(runs.get(project, []))
        # The project folder its runs used (a run named by bin-v.sh's second argument still makes every project's folder).
        used = re.findall(rf"/tmp/ubq-{ROUND}-{re.escape(project)}-[A-Za-z0-9]{{4}}", stderr)
        folders = [max(set(used), key=used.count)] if used else sorted(glob.glob(f"/tmp/ubq-{ROUND}-{project}-*"), key=os.path.getmtime)
        for other in set(used):  # runs made one at a time each had a folder of their own: read them as one
            stderr = stderr.replace(other, folders[-1])
        rows = []
        roots = [folders[-1]] + ([folders[-1] + "/home"] if project in HOME_PROJECTS else []) if folders else []
        for root in roots if project in PROJECTS else []:
            for rel, dangling in walk(root):
                rel = os.path.relpath(os.path.join(root, rel), folders[-1])
                # In the HOME only what Claude Code and Codex read there (chezmoi lays out a whole repository).
                if rel.startswith("home/") and not re.match(r"home/\.(claude|codex|agents)(/|$)", rel):
                    continue
                if project in ONLY_PATHS and rel not in ONLY_PATHS[project]:
                    continue
                kind = next((k for rx, k in KINDS if re.search(rx, rel)), None)
                if dangling and not kind:
                    kind = next((k for rx, k in DANGLING_KINDS if re.search(rx, rel)), None)
                if kind:
                    rows.append((kind, PROJECTS[project], rel, os.path.join(folders[-1], rel), dangling))
        for plugin in PLUGINS.get(project, []):
            repo = plugin.split("/")[0]
            root_plugin = plugin.endswith("/.")  # the repository is itself a plugin (and maybe a marketplace)
            plugin = plugin[:-2] if root_plugin else plugin
            if plugin == repo and not root_plugin and len(PLUGINS[project]) > 1:  # a marketplace's root: its manifest only
                rows += [("marketplace", repo, ".claude-plugin/marketplace.json", os.path.join(CO, repo, ".claude-plugin/marketplace.json"), False)]
                continue
            base = os.path.join(CO, plugin)
            for rel, dangling in walk(base):
                kind = next((k for rx, k in PLUGIN_KINDS if re.search(rx, rel)), None)
                if kind:
                    inner = plugin[len(repo) + 1:]
                    rows.append((kind, repo, os.path.join(inner, rel) if inner else rel, os.path.join(base, rel), dangling))
        for kind, repo, rel, full, dangling in rows:
            key = f"{repo}\t{rel}"
            if key in seen:  # a file of the project that its plugin folder holds too (a repository run both ways)
                continue
            seen.add(key)
            note = ""
            if dangling:
                outcome, note = "dangling", "a link whose target is not in the checkout (a submodule, or the author's machine)"
                named = next((l for l in stderr.splitlines() if f"{os.path.dirname(full)}: " in l and "nowhere" in l), None)
                if named:
                    outcome, note = "dangling, warned", named.replace(folders[-1], "<P>")[:300]
            else:
                outcome = "clean"
                for rx, why, test in FIXED:
                    if re.search(rx, key) and (test is None or test(full)):
                        outcome, note = "fixed", why
                        break
                for rx, why in BLOCKED if outcome == "clean" else []:
                    if re.search(rx, key):
                        outcome, note = "blocked", why
                        break
                for rx, why in REFUSED if outcome == "clean" else []:
                    if re.search(rx, key):
                        outcome, note = "refused", why
                        break
                for rx, why in SKIPPED if outcome == "clean" else []:
                    if re.search(rx, key):
                        outcome, note = "skipped", why
                        break
                if outcome == "clean":
                    hit = next((l for l in stderr.splitlines() if l.startswith("warning:") and full in l), None)
                    if hit:
                        outcome, note = "warned", hit.replace(folders[-1] if folders else "\0", "<P>")[:400]
            rows_out = [kind, repo.replace("+", "/", 1), commit_of(repo), rel, outcome, note]
            print("\t".join(rows_out))


main()
