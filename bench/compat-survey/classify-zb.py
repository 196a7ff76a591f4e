#!/usr/bin/env python3
"""Round zb (docs/guide/compat-survey.md): one row per file the bin runs of bin-zb.sh loaded, with its outcome.

    bash bench/compat-survey/bin-zb.sh <checkouts> > runs.txt
    python3 bench/compat-survey/classify-zb.py <checkouts> runs.txt > bench/compat-survey/sample-zb.tsv

As classify-za.py: each project is the /tmp/ubq-zb-<project>-* folder its runs name; its files are found where Claude
Code or Codex reads them (the project, and the temp HOME for setups kept as ~/.claude, ~/.codex or ~/.agents: the
path column is where bin-zb.sh put the file, `home/` for the HOME); plugin folders are read in the checkout. A file is
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
ROUND = "zb"

PROJECTS = {
    "mer": "392fyc+Mercury", "loa": "0xHoneyJar+loa-constructs", "aba": "5throck+abap_vibe_coding_plugin",
    "son": "SonarSource+sonarqube-webapp", "sgc": "SonicGarden+sgcop", "soo": "SoooEZ+claude_code_settings",
    "czo": "czottmann+claude-code-stuff", "skm": "0x3-team+skillmap", "ghz": "0maru+gh-zen",
    "min": "10knamesmore+Mineral", "car": "73nko+career-vault", "msa": "1989v+msa", "dxp": "easingthemes+dx-aem-flow",
    "aws": "ebellefontaine+aws-guard-hook", "lum": "1uckyneo+lumine-harness", "wal": "30eggis+walwal-harness",
}
MARKETS = {"east": "eastgenomics+claude-code-plugins", "easi": "easingthemes+dx-aem-flow", "echk": "echkenluo+claude-codex"}
# Setups whose files sit in the temp HOME (walked with the project).
HOME_PROJECTS = {"soo", "czo", "lum"}
# Projects copied whole whose runs exercise only their agent files: the rest of a source tree is no row (loa-constructs'
# .claude/ also holds its own tooling's tests, templates and caches, which no agent reads).
SKIP_PATHS = r"^(templates|tests|src|docs|node_modules|home/Code)/|/assets/|^\.claude/(tests|templates|cache|overrides|defaults|loa|lib|data|scripts|adapters|security-packs|subagents|protocols|prompts|schemas|mcp-examples)/"


def marketplace_plugins(repo):
    """The marketplace's root, then each plugin folder its marketplace.json lists (relative sources)."""
    m = json.load(open(os.path.join(CO, repo, ".claude-plugin/marketplace.json")))
    out = [repo]
    for p in m["plugins"]:
        s = p.get("source")
        if isinstance(s, str) and s.startswith("./") and os.path.isdir(os.path.join(CO, repo, s)):
            out.append(os.path.normpath(f"{repo}/{s}"))
    return out


PLUGINS = {k: marketplace_plugins(v) for k, v in MARKETS.items()}
# Folders given to --plugin-dir that are no marketplace's: the repository itself (a plugin at its root), a Codex plugin.
PLUGINS["aba"] = ["5throck+abap_vibe_coding_plugin/."]
PLUGINS["aws"] = ["ebellefontaine+aws-guard-hook/."]
PLUGINS["lum"] = ["1uckyneo+lumine-harness/plugins/lumine-harness"]

KINDS = [
    (r"\.claude/settings(\.local)?\.json$", "settings"),
    (r"\.claude/agents/.*\.md$", "agent"),
    (r"\.claude/commands/.*\.md$", "command"),
    (r"(\.claude|\.agents|\.codex)/skills/[^/.][^/]*/SKILL\.md$", "skill"),
    (r"\.claude/rules/.*\.md$", "rule"),
    (r"\.claude/output-styles(/.*\.md)?$", "output-style"),
    (r"\.claude/(statusline[^/]*|status_lines/[^/]+)\.(sh|py|ts|js)$", "statusline"),
    (r"\.claude/hooks/([^/]+/)?[^/]+\.(sh|py|js|mjs|cjs|ts)$", "hook-script"),
    (r"\.codex/hooks/[^/]+\.(sh|py|js|mjs|ts)$", "hook-script"),
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
    (r"^skills/[^/]+/SKILL\.md$", "skill"),
    (r"^hooks/hooks\.json$", "hooks"),
    (r"^output-styles/.*\.md$", "output-style"),
    (r"^\.mcp\.json$", "mcp"),
]

# (pattern on "repo<TAB>path", note).
FIXED = [
    (r"5throck\+abap_vibe_coding_plugin\t\.codex/hooks\.json$",
     "its SessionStart hook `git config core.hooksPath .githooks` failed with git's `could not write config file .git/config: Device or resource busy` alone (the sandbox keeps .git/config read-only, and git replaces it by a rename): now the warning, and a Bash call's result, name the sandbox; the file stays read-only"),
]
# Files that loaded but could not do their work in these runs, for a reason of this machine: (pattern, note).
BLOCKED = [
    (r"392fyc\+Mercury\t\.mcp\.json$", "its servers: the `codex` program (not installed), its own orchestrator on 127.0.0.1:7654 (not running), a Telegram bridge that needs a newer Node; each failure named"),
    (r"5throck\+abap_vibe_coding_plugin\t\.mcp\.json$",
     "its MCP servers: `vsp` (an SAP program, not here), remote SAP documentation servers (no network), `${sap_url}` unset; each failure named"),
    (r"5throck\+abap_vibe_coding_plugin\t\.codex/config\.toml$",
     "its MCP servers: `./vsp` (not here), remote SAP documentation servers (no network), an `npx` package the offline registry lacks; each failure named; its project `[[skills.config]]` is named as not applied (Codex reads it from the user's file alone)"),
    (r"5throck\+abap_vibe_coding_plugin\t\.claude-plugin/plugin\.json$",
     "its MCP servers: `vsp` (not here) and remote SAP documentation servers (no network), each named; its `userConfig` options are named as not asked for (`${user_config.…}` stays unexpanded)"),
    (r"SonicGarden\+sgcop\t\.claude/settings\.json$", "its PostToolUse hook runs `npx -y @aki77/claude-on-edit`, which the offline registry lacks: the failure named"),
    (r"SoooEZ\+claude_code_settings\thome/\.claude/(settings\.json|hooks/prompt_processor\.py)$",
     "its UserPromptSubmit hook imports Python's `anthropic` (not installed: its own error reached the model as context, as it would in Claude Code) and its Stop hook runs `~/.claude/stop-hook-git-check.sh`, a file the repository does not hold; each named"),
    (r"0x3-team\+skillmap\t(\.claude/settings\.json|\.codex/hooks\.json|scripts/hooks/pre-commit-gate\.mjs)$",
     "its gate runs `tsc` and its Stop hook `chunk validate`, neither installed here: each failure named"),
    (r"0maru\+gh-zen\t(\.claude/settings\.json|\.codex/hooks\.json)$", "its Go gate runs `gofmt`, not installed here: named"),
    (r"73nko\+career-vault\t(\.codex/hooks\.json|\.claude/hooks/session-start\.sh|\.codex/hooks/session-start\.sh)$",
     "its SessionStart hooks are named by the owner's absolute path (/Users/73nko/Projects/career-vault/…): not on this machine, each failure named"),
    (r"ebellefontaine\+aws-guard-hook\t(\.claude/settings\.json|hooks/hooks\.json)$",
     "its guard runs `uv run …/aws_guard.py`; `uv` is not installed: the failure is named and, as in Claude Code, a hook that fails (not exit 2) does not block"),
    (r"eastgenomics\+claude-code-plugins\tplugins/[^/]+/\.mcp\.json$", "its Atlassian server is remote (no network): named"),
    (r"easingthemes\+dx-aem-flow\tplugins/dx-core/\.mcp\.json$", "a Docker server without a socket and Figma's local server (not running): each named"),
    (r"easingthemes\+dx-aem-flow\tplugins/dx-aem/\.mcp\.json$",
     "`${AEM_INSTANCES}` unset (named); chrome-devtools' `performance_analyze_insight` is not offered, its name longer than 64 characters (named)"),
]
REFUSED = [
    (r"output-styles/.*\.md$", "output styles are not applied (documented)"),
    (r"\.claude/(statusline[^/]*|status_lines/[^/]+)\.(sh|py|ts|js)$", "a statusLine script: `statusLine` is not applied (documented; the settings warning names it)"),
]
SKIPPED = []


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
