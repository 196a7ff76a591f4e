#!/usr/bin/env python3
"""Round v (docs/guide/compat-survey.md): one row per file the bin runs of bin-v.sh loaded, with its outcome.

    bash bench/compat-survey/bin-v.sh <checkouts> > runs.txt
    python3 bench/compat-survey/classify-v.py <checkouts> runs.txt > bench/compat-survey/sample-v.tsv

Each project is the /tmp/ubq-v-<project>-* folder its runs name (else the newest); its files are found where Claude Code
or Codex reads them (links followed, as they are). A file is `warned` when a warning of its project's runs names
it, `fixed` when one of this round's fixes changed what happens to it (FIXED below), `dangling` when it is a link
whose target is not there (nothing to load, for Claude Code or Codex either; `dangling, warned` when a warning
names it), else `clean`.
"""
import glob
import os
import re
import subprocess
import sys

CO, RUNS = sys.argv[1], sys.argv[2]

# project -> (repository checkout, commit of it, folders whose files are surveyed: (base, where, kind-rules))
PROJECTS = {
    "sellke": "sellke+writ", "nwiizo": "nwiizo+dotfiles", "yoke": "upyoke+yoke", "specd": "0xkhdr+specd",
    "j5ik2o": "j5ik2o+oni-comb-rs", "orchestra": "hectormr206+orchestra", "moai": "modu-ai+moai-adk",
    "damilola": "damilola-elegbede+claude-config", "stijn": "stijnvanhulle+template", "bywhy": "001TMF+blatant-why",
    "equim": "BlandineRdl+EquimApp", "dapi": "dapi+memory-bank", "pl": "45ck+prompt-language",
    "forge": "ANcpLua+claude-forge", "harness": "0xjgv+harness",
}
# Plugin folders given to --plugin-dir (inside the checkouts).
PLUGINS = {
    "stijn": ["stijnvanhulle+template/tools/claude"], "pl": ["45ck+prompt-language"], "devkit": ["5uck1ess+devkit"],
    "og": [f"0gfoundation+0g-claude-marketplace/plugins/{p}" for p in ("0g-storage", "0g-image", "0g-compute")],
}
HOME_PROJECTS = {"nwiizo", "damilola"}

KINDS = [
    (r"\.claude/settings(\.local)?\.json$", "settings"),
    (r"\.claude/agents/.*\.md$", "agent"),
    (r"\.claude/commands/.*\.md$", "command"),
    (r"(\.claude|\.agents|\.codex)/skills/.*SKILL\.md$", "skill"),
    (r"\.claude/rules/.*\.md$", "rule"),
    (r"\.claude/output-styles/.*\.md$", "output-style"),
    (r"\.codex/config\.toml$", "codex-config"),
    (r"\.codex/hooks\.json$", "codex-hooks"),
    (r"\.codex/agents/.*\.toml$", "codex-agent"),
    (r"\.codex/prompts/[^/]*\.md$", "codex-prompt"),
    (r"(^|/)\.mcp\.json$", "mcp"),
    (r"(^|/)(CLAUDE|AGENTS|CLAUDE\.local)\.md$", "memory"),
]
# A link to a folder whose target is missing: found only as a dangling entry.
DANGLING_KINDS = [
    (r"(\.claude|\.agents|\.codex)/skills/[^/]+$", "skill"),
    (r"\.claude/commands/[^/]+$", "command"),
    (r"\.(claude|codex)/(agents|skills)$", "folder"),
]
PLUGIN_KINDS = [
    (r"^\.claude-plugin/plugin\.json$", "plugin"),
    (r"^\.claude-plugin/marketplace\.json$", "marketplace"),
    (r"^\.codex-plugin/plugin\.json$", "codex-plugin"),
    (r"^agents/.*\.md$", "agent"),
    (r"^commands/.*\.md$", "command"),
    (r"^skills/.*SKILL\.md$", "skill"),
    (r"^hooks/hooks\.json$", "hooks"),
    (r"^\.mcp\.json$", "mcp"),
]
FIXED = [
    (r"\.codex/agents/.*\.toml$", "Codex custom agent: was not read (now a subagent)"),
    (r"\.claude/rules/", "path-scoped"),  # refined below: only rules whose frontmatter sets paths
    (r"5uck1ess\+devkit\t\.claude-plugin/plugin\.json$", "mcpServers names devkit.mcpb: every run stopped (exit 2); now loads without it, said"),
    (r"0xjgv\+harness\t\.codex/hooks\.json$", "Stop hook blocking every stop: the end now names the loop and its reason"),
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
        if name.startswith("og-"):
            project = "og"
        out.setdefault(project, []).append(b)
    return out


def scoped(path):
    try:
        head = open(path, encoding="utf8", errors="replace").read(2000)
    except OSError:
        return False
    return bool(re.match(r"---\n(.*\n)*?paths:", head))


def main():
    runs = runs_by_project(open(RUNS, encoding="utf8", errors="replace").read())
    print("kind\trepository\tcommit\tpath\toutcome\tnote")
    for project in list(PROJECTS) + [p for p in PLUGINS if p not in PROJECTS]:
        stderr = "\n".join(runs.get(project, []))
        # The project folder its runs used (a run named by bin-v.sh's second argument still makes every project's folder).
        used = re.findall(rf"/tmp/ubq-v-{re.escape(project)}-[A-Za-z0-9]{{4}}", stderr)
        folders = [max(set(used), key=used.count)] if used else sorted(glob.glob(f"/tmp/ubq-v-{project}-*"), key=os.path.getmtime)
        for other in set(used):  # runs made one at a time each had a folder of their own: read them as one
            stderr = stderr.replace(other, folders[-1])
        rows = []
        if project in PROJECTS and folders:
            root = folders[-1] + ("/home" if project in HOME_PROJECTS else "")
            for rel, dangling in walk(root):
                kind = next((k for rx, k in KINDS if re.search(rx, rel)), None)
                if dangling and not kind:
                    kind = next((k for rx, k in DANGLING_KINDS if re.search(rx, rel)), None)
                if kind:
                    rows.append((kind, PROJECTS[project], rel, os.path.join(root, rel), dangling))
        for plugin in PLUGINS.get(project, []):
            repo = plugin.split("/")[0]
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
                for rx, why in FIXED:
                    if re.search(rx, key) and (why != "path-scoped" or scoped(full)):
                        outcome = "fixed"
                        note = why if why != "path-scoped" else "path-scoped rule: was in every request's system prompt (1.1 MB in all); now comes with the first matching file"
                        break
                if outcome == "clean":
                    hit = next((l for l in stderr.splitlines() if l.startswith("warning:") and full in l), None)
                    if hit:
                        outcome, note = "warned", hit.replace(folders[-1] if folders else "\0", "<P>")[:400]
            rows_out = [kind, repo.replace("+", "/", 1), commit_of(repo), rel, outcome, note]
            print("\t".join(rows_out))


main()
