#!/usr/bin/env python3
"""Round x (docs/guide/compat-survey.md): one row per file the bin runs of bin-x.sh loaded, with its outcome.

    bash bench/compat-survey/bin-x.sh <checkouts> > runs.txt
    python3 bench/compat-survey/classify-x.py <checkouts> runs.txt > bench/compat-survey/sample-x.tsv

As classify-w.py: each project is the /tmp/ubq-x-<project>-* folder its runs name; its files are found where Claude
Code or Codex reads them (the project, and the temp HOME for setups kept as ~/.claude, ~/.codex or ~/.agents, laid
out from chezmoi sources by chezmoi-lay.py; the path column is where bin-x.sh put the file, `home/` for the HOME);
plugin folders are read in the checkout. A file is `warned` when a warning of its project's runs names it, `fixed`
when one of this round's fixes changed what happens to it (FIXED), `blocked` when it loaded but could not do its work
for a reason of this machine (BLOCKED), else `clean`.
"""
import glob
import os
import re
import subprocess
import sys

CO, RUNS = sys.argv[1], sys.argv[2]
ROUND = "x"

PROJECTS = {
    "dx": "easingthemes+dx-aem-flow", "awsguard": "ebellefontaine+aws-guard-hook", "ddx": "easel+ddx-library",
    "kmok": "Kevin-Mok+ai-cli-dotfiles", "mai": "Mai0313+dotfiles", "edward": "Edward-H26+OnePromptClaudeCode",
    "frad": "FradSer+dotfiles", "kedlub": "Kedlub+dotfiles", "brayan": "BrayanUmba+claude-config",
    "nupan": "Nu-Pan+codex_user_profile", "berlysia": "berlysia+dotfiles", "sushi": "sushichan044+dotfiles",
    "nijaru": "nijaru+dotfiles", "greg": "GregoryHo+cc-statusline",
}
PLUGINS = {
    "dx": ["easingthemes+dx-aem-flow"] + [f"easingthemes+dx-aem-flow/plugins/{p}" for p in ("dx-core", "dx-aem", "dx-hub", "dx-automation")],
    "eastgen": ["eastgenomics+claude-code-plugins", "eastgenomics+claude-code-plugins/plugins/eastgen-plugin"],
    "awsguard": ["ebellefontaine+aws-guard-hook"],
    "ddx": ["easel+ddx-library"],
    "looper": ["easyfan+looper"],
    "ccx": ["echkenluo+claude-codex", "echkenluo+claude-codex/plugins/claude-codex"],
}
# Setups whose files sit in the temp HOME (walked with the project).
HOME_PROJECTS = {"kmok", "mai", "frad", "kedlub", "nupan", "berlysia", "sushi", "nijaru"}

KINDS = [
    (r"\.claude/settings(\.local)?\.json$", "settings"),
    (r"\.claude/agents/.*\.md$", "agent"),
    (r"\.claude/commands/.*\.md$", "command"),
    (r"(\.claude|\.agents|\.codex)/skills/[^/]+/SKILL\.md$", "skill"),
    (r"\.claude/rules/.*\.md$", "rule"),
    (r"\.claude/output-styles(/.*\.md)?$", "output-style"),
    (r"\.codex/config\.toml$", "codex-config"),
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
    (r"^hooks/hooks\.json$", "hooks"),
    (r"^output-styles/.*\.md$", "output-style"),
    (r"^\.mcp\.json$", "mcp"),
]


def copilot_entry(path):
    """An allowed-tools entry in GitHub Copilot's server/* form (dx-aem-flow's skills)."""
    head = open(path, encoding="utf8", errors="replace").read(3000)
    m = re.search(r"^allowed-tools:(.*)$", head, re.M)
    return bool(m and re.search(r"""["'\s,\[][\w.-]+/[\w.*-]+["'\s,\]]""", m.group(1) + " "))


def shadowed_skill(path):
    """A project skill whose name a .claude/commands file has too (the command ran; Claude Code runs the skill)."""
    m = re.search(r"^(.*)/\.claude/skills/([^/]+)/SKILL\.md$", path)
    return bool(m and os.path.exists(f"{m.group(1)}/.claude/commands/{m.group(2)}.md"))


# (pattern on "repo<TAB>path", note, optional test on the file).
FIXED = [
    (r"easingthemes\+dx-aem-flow\t.*skills/[^/]+/SKILL\.md$",
     "allowed-tools lists GitHub Copilot's server/* (ado/*, AEM/*, …) next to Claude Code's tools: the whole skill was blocked as a slash command (\"is not a permission rule\") and granted nothing through the Skill tool; now the entry is named as pre-approving nothing (as in Claude Code) and the skill runs with the rest",
     copilot_entry),
    (r"Edward-H26\+OnePromptClaudeCode\t\.claude/skills/[^/]+/SKILL\.md$",
     "a .claude/commands file of the same name ran instead of this skill; Claude Code documents that the skill wins, and now it does",
     shadowed_skill),
    (r"FradSer\+dotfiles\thome/\.claude/settings\.json$",
     "its Stop hook's script ($HOME/.claude/consolidate-memory.sh) is not in the dotfiles: the failure was blamed on the sandbox (\"shows of the home folder only toolchains and caches … run without the sandbox\"); now only the hook's own error is given",
     None),
]
# Files that loaded but could not do their work in these runs, for a reason of this machine: (pattern, note).
BLOCKED = [
    (r"ebellefontaine\+aws-guard-hook\t(hooks/hooks\.json|\.claude/settings\.json)$", "its PreToolUse hook runs uv, which this machine lacks: the failure is named with its command; a failing PreToolUse hook blocks nothing (as in Claude Code)"),
    (r"easingthemes\+dx-aem-flow\tplugins/dx-(core|aem)/\.mcp\.json$", "its servers need Docker, a local Figma server, AEM_INSTANCES or the network: each failure is named with its server (and the unset variable with the file)"),
    (r"eastgenomics\+claude-code-plugins\tplugins/eastgen-plugin/\.claude-plugin/plugin\.json$", "its http MCP server (mcp.atlassian.com) is out of reach without network: named with the server"),
    (r"easel\+ddx-library\t\.mcp\.json$", "its playwright server is fetched by npx, which has no network in the sandbox: named with the server (its _comment/_disabled keys are named as not read)"),
    (r"Edward-H26\+OnePromptClaudeCode\t\.mcp\.json$", "remotion-app is fetched by npx, which has no network in the sandbox: named with the server; remotion-docs started"),
    (r"(Kevin-Mok\+ai-cli-dotfiles|Nu-Pan\+codex_user_profile)\thome/\.codex/config\.toml$", "its MCP servers need uv or the network: each failure is named with its server (the keys ubiquity does not read are named with the file)"),
]
SKIPPED = []


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
                kind = next((k for rx, k in KINDS if re.search(rx, rel)), None)
                if dangling and not kind:
                    kind = next((k for rx, k in DANGLING_KINDS if re.search(rx, rel)), None)
                if kind:
                    rows.append((kind, PROJECTS[project], rel, os.path.join(folders[-1], rel), dangling))
        for plugin in PLUGINS.get(project, []):
            repo = plugin.split("/")[0]
            if plugin == repo and len(PLUGINS[project]) > 1:  # a marketplace's root: its manifest only
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
