#!/usr/bin/env python3
"""Round zc (docs/guide/compat-survey.md): one row per file the bin runs of bin-zc.sh loaded, with its outcome.

    bash bench/compat-survey/bin-zc.sh <checkouts> > runs.txt
    python3 bench/compat-survey/classify-zc.py <checkouts> runs.txt > bench/compat-survey/sample-zc.tsv

As classify-zb.py: each project is the /tmp/ubq-zc-<project>-* folder its runs name; its files are found where Claude
Code or Codex reads them (the project, and the temp HOME for setups kept as ~/.claude, ~/.codex or ~/.agents: the
path column is where bin-zc.sh put the file, `home/` for the HOME); plugin folders are read in the checkout. A file is
`warned` when a warning of its project's runs names it, `fixed` when one of this round's fixes changed what happens to
it (FIXED), `blocked` when it loaded but could not do its work for a reason of this machine (BLOCKED), `refused` when
ubiquity documents that it does not apply that kind of file (REFUSED: output styles, statusline scripts), else `clean`.
"""
import glob
import json
import os
import re
import subprocess
import sys

CO, RUNS = sys.argv[1], sys.argv[2]
ROUND = "zc"

PROJECTS = {
    "wlh": "Lukas-BAG+ClaudeWhitelistHook", "mol": "MOlechowski+claude-hooks", "man": "Mandalorian007+claude-code-toolkit",
    "lsk": "louisschlegel+claudekit", "ngv": "nguyenvinhky+claude-code-power-commands", "sco": "scotthavird+claude-code-template",
    "irv": "IrvanFza+claudish", "iro": "Iron-Ham+Claude-XcodePreviews", "her": "0xGosu+herdr-auto-pilot",
    "kla": "Klara-copilot+epost_agent_kit", "gab": "gabrielecanepa+dotfiles", "sec": "0x1337c0d3+claude-security",
    "anc": "ANcpLua+codex-forge", "boa": "BoardPandas+claude-code-bootstrap", "bum": "BumpyClock+dotfiles",
}
MARKETS = {}
# Setups whose files sit in the temp HOME (walked with the project).
HOME_PROJECTS = {"gab", "bum"}
# Projects copied whole whose runs exercise only their agent files: the rest of a source tree is no row (tests, templates,
# examples and docs that no agent reads).
SKIP_PATHS = r"^(templates|tests?|src|docs|examples|node_modules|internal|packages|sample|e2e_harness|submodule)/|/assets/|/node_modules/"


def marketplace_plugins(repo):
    """The marketplace's root, then each plugin folder its marketplace.json lists (relative sources)."""
    m = json.load(open(os.path.join(CO, repo, ".claude-plugin/marketplace.json")))
    out = [repo]
    for p in m["plugins"]:
        s = p.get("source")
        if isinstance(s, str) and s.startswith("./") and os.path.isdir(os.path.join(CO, repo, s)) and os.path.normpath(s) != ".":
            out.append(os.path.normpath(f"{repo}/{s}"))
    return out


PLUGINS = {"mol": marketplace_plugins("MOlechowski+claude-hooks")}
# Folders given to --plugin-dir that are no marketplace's list: the repository itself (a plugin at its root).
PLUGINS["iro"] = ["Iron-Ham+Claude-XcodePreviews/."]
PLUGINS["sec"] = ["0x1337c0d3+claude-security/."]

KINDS = [
    (r"\.claude/settings(\.local)?\.json$", "settings"),
    (r"\.claude/agents/.*\.md$", "agent"),
    (r"\.claude/commands/.*\.md$", "command"),
    (r"(\.claude|\.agents|\.codex)/skills/[^/.][^/]*/SKILL\.md$", "skill"),
    (r"\.claude/skills/[^/]+\.md$", "skill"),
    (r"\.claude/rules/.*\.md$", "rule"),
    (r"\.claude/output-styles(/.*\.md)?$", "output-style"),
    (r"\.claude/(statusline[^/]*|status_lines/[^/]+)\.(sh|py|ts|js)$", "statusline"),
    (r"\.claude/hooks/([^/]+/)?[^/]+\.(sh|py|js|mjs|cjs|ts)$", "hook-script"),
    (r"\.codex/hooks/[^/]+\.(sh|py|js|mjs|ts)$", "hook-script"),
    (r"^home/\.agents/hooks/[^/]+\.sh$", "hook-script"),
    (r"^scripts/hooks/[^/]+\.mjs$", "hook-script"),
    (r"\.codex/config\.toml$", "codex-config"),
    (r"\.codex/hooks\.json$", "codex-hooks"),
    (r"\.codex/rules/.*\.rules$", "codex-rules"),
    (r"\.codex/agents/.*\.toml$", "codex-agent"),
    (r"\.codex/prompts/[^/]*\.md$", "codex-prompt"),
    (r"(^|/)\.mcp\.json$", "mcp"),
    (r"(^|/)(CLAUDE|AGENTS|AGENTS\.override|CLAUDE\.local)\.md$", "memory"),
]
PLUGIN_KINDS = [
    (r"^\.claude-plugin/plugin\.json$", "plugin"),
    (r"^\.codex-plugin/plugin\.json$", "plugin"),
    (r"^agents/.*\.md$", "agent"),
    (r"^commands/.*\.md$", "command"),
    (r"^\.claude/commands/.*\.md$", "command"),
    (r"^skills/.+/SKILL\.md$", "skill"),
    (r"^hooks/scripts/[^/]+\.py$", "hook-script"),
    (r"^hooks/hooks\.json$", "hooks"),
    (r"^output-styles/.*\.md$", "output-style"),
    (r"^\.mcp\.json$", "mcp"),
]

# (pattern on "repo<TAB>path", note).
FIXED = [
    (r"nguyenvinhky\+claude-code-power-commands\t\.claude/settings\.json$",
     "its PreToolUse Bash guard answers `permissionDecision: \"ask\"` with the reason `Potentially destructive command detected — please confirm`; the ask said only `A PreToolUse hook asks for approval of Bash.`: now the reason is named where the approval is asked for (and in the denial in -p)"),
    (r"0xGosu\+herdr-auto-pilot\t\.claude/settings\.json$",
     "its `additionalDirectories` names `/tmp/`: the sandbox made the machine's /tmp writable and its workspace guard swept it, moving 85 `.env` files other programs wrote there during the run into ~/.ubiquity/sandbox-removed (put back by hand); now a shared sticky folder given to write in is not made writable for sandboxed commands, and a warning names it"),
]
# Files that loaded but could not do their work in these runs, for a reason of this machine: (pattern, note).
BLOCKED = [
    (r"MOlechowski\+claude-hooks\tplugins/[^/]+/hooks/(hooks\.json|scripts/[^/]+\.py)$",
     "its hooks run `uv run …`; `uv` is not installed: each failure named (as in Claude Code, a hook that fails, not exit 2, does not block)"),
    (r"Mandalorian007\+claude-code-toolkit\t(\.claude/settings\.json|\.claude/hooks/[^/]+\.py)$",
     "its hooks run `uv run .claude/hooks/…`; `uv` is not installed: each failure named"),
    (r"Mandalorian007\+claude-code-toolkit\t\.mcp\.json$",
     "its servers need API keys not set here (each named; PERPLEXITY_API_KEY, a model provider's key, is never handed to a server from a file) and `uvx` (not installed, named)"),
    (r"scotthavird\+claude-code-template\t\.mcp\.json$",
     "its servers: `npx` packages the offline registry lacks and a remote server (no network); each failure named, and its `description` keys named as not read"),
    (r"0xGosu\+herdr-auto-pilot\t\.mcp\.json$", "its server is an `npx -y` package the offline registry lacks: the failure named"),
    (r"BumpyClock\+dotfiles\thome/\.codex/config\.toml$",
     "its MCP servers are remote (no network): each named; its Codex keys not read and `sandbox_mode = \"danger-full-access\"` (not applied) named"),
    (r"0x1337c0d3\+claude-security\thooks/hooks\.json$", "its PostToolUse defender runs `uv run …`; `uv` is not installed (no tool call in its run reached it)"),
]
REFUSED = [
    (r"output-styles/.*\.md$", "output styles are not applied (documented)"),
    (r"\.claude/(statusline[^/]*|status_lines/[^/]+)\.(sh|py|ts|js)$", "a statusLine script: `statusLine` is not applied (documented; the settings warning names it)"),
]
SKIPPED = [
    (r"0x1337c0d3\+claude-security\tskills/sentinel/skills/[^/]+/SKILL\.md$",
     "a SKILL.md nested inside another skill's folder: a plugin's skills are `skills/<name>/SKILL.md`, so neither Claude Code nor ubiquity lists it (the sentinel skill points to it by path, and Read reaches it)"),
]


def commit_of(repo):
    for line in open(os.path.join(CO, "commits.txt")):
        name, commit = line.split()
        if name == repo:
            return commit
    mirror = f"/work/.mirror/{repo}/repo"
    return subprocess.run(["git", "-C", mirror, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()


def walk(root):
    """Files under root as the tools find them: links followed."""
    skip = {".git", "node_modules", "sessions", "sessions-todos"} | (set() if root.endswith("/home") else {"home"})
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
        dirnames[:] = [d for d in dirnames if d not in skip]
        for f in filenames:
            yield os.path.relpath(os.path.join(dirpath, f), root)


def runs_by_project(text):
    out = {}
    for b in re.split(r"^===== ", text, flags=re.M)[1:]:
        name = b.split(":", 1)[0]
        project = next((p for p in list(PROJECTS) + list(MARKETS) if name == p or name.startswith(p + "-")), None)
        out.setdefault(project, []).append(b)
    return out


def classify(key, full, stderr, folder):
    for rx, why in FIXED:
        if re.search(rx, key):
            return "fixed", why
    for table, outcome in ((BLOCKED, "blocked"), (REFUSED, "refused"), (SKIPPED, "skipped")):
        for rx, why in table:
            if why and re.search(rx, key):
                return outcome, why
    hit = next((l for l in stderr.splitlines() if l.startswith("warning:") and full in l), None)
    if hit:
        return "warned", hit.replace(folder or "\0", "<P>")[:400]
    return "clean", ""


def main():
    runs = runs_by_project(open(RUNS, encoding="utf8", errors="replace").read())
    print("kind\trepository\tcommit\tpath\toutcome\tnote")
    seen = set()
    for project in list(PROJECTS) + list(MARKETS):
        stderr = "\n".join(runs.get(project, []))
        used = re.findall(rf"/tmp/ubq-{ROUND}-{re.escape(project)}-[A-Za-z0-9]{{4}}", stderr)
        folders = [max(set(used), key=used.count)] if used else sorted(glob.glob(f"/tmp/ubq-{ROUND}-{project}-*"), key=os.path.getmtime)
        for other in set(used):
            stderr = stderr.replace(other, folders[-1])
        rows = []
        if project in PROJECTS and folders:
            roots = [folders[-1]] + ([folders[-1] + "/home"] if project in HOME_PROJECTS else [])
            for root in roots:
                for rel in walk(root):
                    rel = os.path.relpath(os.path.join(root, rel), folders[-1])
                    if rel.startswith("home/") and not re.match(r"home/\.(claude|codex|agents)(/|$)", rel):
                        continue
                    if re.match(SKIP_PATHS, rel) or "/plugins/" in rel:
                        continue
                    kind = next((k for rx, k in KINDS if re.search(rx, rel)), None)
                    if kind:
                        rows.append((kind, PROJECTS[project], rel, os.path.join(folders[-1], rel)))
        for plugin in PLUGINS.get(project, []):
            repo = plugin.split("/")[0]
            if plugin == repo:
                rows.append(("marketplace", repo, ".claude-plugin/marketplace.json", os.path.join(CO, repo, ".claude-plugin/marketplace.json")))
                continue
            base = os.path.join(CO, plugin)
            for rel in walk(base):
                kind = next((k for rx, k in PLUGIN_KINDS if re.search(rx, rel)), None)
                if kind and not re.search(SKIP_PATHS, rel):
                    rows.append((kind, repo, os.path.normpath(os.path.join(plugin[len(repo) + 1:], rel)), os.path.normpath(os.path.join(base, rel))))
        for kind, repo, rel, full in rows:
            key = f"{repo}\t{rel}"
            if key in seen:
                continue
            seen.add(key)
            outcome, note = classify(key, full, stderr, folders[-1] if folders else None)
            print("\t".join([kind, repo.replace("+", "/", 1), commit_of(repo), rel, outcome, note.replace("\t", " ").replace("\n", " ")]))


main()
