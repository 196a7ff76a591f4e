#!/usr/bin/env python3
"""Round za (docs/guide/compat-survey.md): one row per file the bin runs of bin-za.sh loaded, with its outcome.

    bash bench/compat-survey/bin-za.sh <checkouts> > runs.txt
    python3 bench/compat-survey/classify-za.py <checkouts> runs.txt > bench/compat-survey/sample-za.tsv

As classify-z.py: each project is the /tmp/ubq-za-<project>-* folder its runs name; its files are found where Claude
Code or Codex reads them (the project, and the temp HOME for setups kept as ~/.claude, ~/.codex or ~/.agents: the
path column is where bin-za.sh put the file, `home/` for the HOME); plugin folders are read in the checkout. A file is
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
ROUND = "za"

PROJECTS = {
    "fana": "FanaHOVA+dot-files", "dbo": "Dbochman+dotfiles", "hou": "HouseinIsProgramming+dotfiles-housein",
    "mik": "MikeMcQuaid+dotfiles", "cha": "chan-jui-huang+ai-agent-template", "jea": "jeanlucthumm+dotfiles",
    "ada": "AdamRamberg+claude-code-statusline", "lum": "LumenYoung+dotfiles", "gla": "GLaDO8+dotfiles",
    "nak": "nakatanakatana+dotfiles", "sdu": "sdui-hq+ai-marketplace", "gls": "xexi+glass_claude",
    "dai": "Dai5297+harness-engineer-codex", "dec": "decider+claude-hooks",
}
MARKETS = {"fuse": "fusengine+agents", "luka": "lukaskellerstein+claude-dev-marketplace",
           "nsal": "nsalvacao+nsalvacao-claude-code-plugins"}
# Setups whose files sit in the temp HOME (walked with the project).
HOME_PROJECTS = {"fana", "dbo", "hou", "mik", "jea", "lum", "gla", "nak", "cha"}
# Projects copied whole whose runs exercise only their agent files: the rest of a source tree is no row.
SKIP_PATHS = r"^(templates|tests|src|docs|node_modules)/"


def marketplace_plugins(repo):
    """The marketplace's root, then each plugin folder its marketplace.json lists (relative sources; `core` too)."""
    m = json.load(open(os.path.join(CO, repo, ".claude-plugin/marketplace.json")))
    out = [repo]
    for p in m.get("core", []) + m["plugins"]:
        s = p.get("source")
        if isinstance(s, str) and s.startswith("./") and os.path.isdir(os.path.join(CO, repo, s)):
            out.append(os.path.normpath(f"{repo}/{s}"))
    return out


PLUGINS = {k: marketplace_plugins(v) for k, v in MARKETS.items()}
PLUGINS["sdu"] = marketplace_plugins(PROJECTS["sdu"])

KINDS = [
    (r"\.claude/settings(\.local)?\.json$", "settings"),
    (r"\.claude/agents/.*\.md$", "agent"),
    (r"\.claude/commands/.*\.md$", "command"),
    (r"(\.claude|\.agents|\.codex)/skills/[^/.][^/]*/SKILL\.md$", "skill"),
    (r"\.claude/rules/.*\.md$", "rule"),
    (r"\.claude/output-styles(/.*\.md)?$", "output-style"),
    (r"\.claude/(statusline[^/]*|status_lines/[^/]+)\.(sh|py|ts|js)$", "statusline"),
    (r"\.claude/hooks/[^/]+\.(sh|py|js|mjs|ts)$", "hook-script"),
    (r"^hooks/universal-[^/]+\.py$", "hook-script"),
    (r"\.codex/config\.toml$", "codex-config"),
    (r"\.codex/(profiles/)?[^/]+\.config\.toml$", "codex-profile"),
    (r"\.codex/hooks\.json$", "codex-hooks"),
    (r"\.codex/rules/.*\.rules$", "codex-rules"),
    (r"\.codex/agents/.*\.toml$", "codex-agent"),
    (r"\.codex/prompts/[^/]*\.md$", "codex-prompt"),
    (r"\.codex/instructions\.md$", "codex-instructions"),
    (r"(^|/)\.mcp\.json$", "mcp"),
    (r"(^|/)(CLAUDE|AGENTS|AGENTS\.override|CLAUDE\.local)\.md$", "memory"),
]
PLUGIN_KINDS = [
    (r"^\.claude-plugin/plugin\.json$", "plugin"),
    (r"^agents/.*\.md$", "agent"),
    (r"^commands/.*\.md$", "command"),
    (r"^skills/[^/]+/SKILL\.md$", "skill"),
    (r"^hooks/hooks\.json$", "hooks"),
    (r"^hooks\.json$", "hooks"),
    (r"^output-styles/.*\.md$", "output-style"),
    (r"^\.mcp\.json$", "mcp"),
]

# (pattern on "repo<TAB>path", note).
FIXED = [
    (r"GLaDO8\+dotfiles\thome/\.codex/config\.toml$",
     "its 101 `[[skills.config]] … enabled = false` entries (skills turned off without deleting them, Codex's way) were named only as an ignored `skills` key, and every one of those skills was offered to the model: now a skill a later entry turns off is not listed or loadable (`$backup` is gone, `$find-skills` stays)"),
    (r"GLaDO8\+dotfiles\thome/\.agents/skills/(agent-device|agentation|backup|bash-perf-patterns|build|claudeception|done|extract-ios-icons|find-docs|models|nia|openlogs-server-logs|remotion-best-practices|review|sl|sl-toggle-cost-project|sl-toggle-cost-session|sl-toggle-cwd|smartcommit|supabase-postgres-best-practices|sync-docs|ui-skills|unified-web-design|adversarial-review|vercel-react-native-skills)/SKILL\.md$",
     "turned off by `[[skills.config]]` in ~/.codex/config.toml (Codex does not offer it); it was offered to the model: now it is not"),
    (r"(FanaHOVA\+dot-files|Dbochman\+dotfiles|nakatanakatana\+dotfiles)\thome/\.codex/rules/default\.rules$",
     "approvals Codex recorded as `prefix_rule(pattern = [\"/bin/zsh\", \"-lc\", \"<a whole script>\"])` were named only as `line N (prefix_rule) not read`: now each is named with why (a pattern word with spaces, quotes or shell characters is one whole argument to Codex, which a rule on shell commands cannot express)"),
    (r"decider\+claude-hooks\t(\.claude/settings\.json|hooks/universal-(pre-tool|post-tool|stop)\.py)$",
     "its Python dispatchers in the project's `hooks/` import `config_loader` beside them; hooks run with PYTHONSAFEPATH=1 and that folder (writable by sandboxed commands) stays off the import path, so each failed with Python's `No module named 'config_loader'` alone: now the warning names the folder, why, and the way out (the scripts under .claude/hooks)"),
]
# Files that loaded but could not do their work in these runs, for a reason of this machine: (pattern, note).
BLOCKED = [
    (r"FanaHOVA\+dot-files\thome/\.codex/config\.toml$", "its MCP servers: figma's is remote (no network here), raindrop's program is on the author's Mac; each failure named"),
    (r"LumenYoung\+dotfiles\thome/\.codex/config\.toml$", "its streamable-HTTP MCP server needs OPENSPACE_MCP_TOKEN (named when unset) and the network (named when set)"),
    (r"GLaDO8\+dotfiles\thome/\.codex/config\.toml$", ""),  # fixed above: never reached
    (r"lukaskellerstein\+claude-dev-marketplace\tplugins/[^/]+/\.mcp\.json$",
     "remote MCP servers without network, `npx` packages the offline registry lacks, a Docker server without a socket, and `python ../../mcp-servers/…` relative to the session's folder (as Claude Code runs plugin servers: anthropics/claude-code#17565): each failure named"),
    (r"fusengine\+agents\tplugins/[^/]+/hooks/hooks\.json$",
     "its hooks run `bun` from the marketplace's install folder (~/.claude/plugins/marketplaces/…/node_modules/@fusengine/harness): no bun and no install here; each failure named"),
    (r"HouseinIsProgramming\+dotfiles-housein\thome/\.claude/hooks/(block_dangerous|block-git-push)\.ts$",
     "run with `bun` (not on this machine): named; its Python twin block_dangerous.py ran and blocked `cat .env`"),
    (r"Dai5297\+harness-engineer-codex\t\.codex/agents/.*\.toml$",
     "loads as a Codex agent; runs on gpt-5.4 through OpenAI (as Codex runs it), which needs a key and the network: the failure names the model"),
    (r"MikeMcQuaid\+dotfiles\thome/\.codex/hooks\.json$",
     "its hooks run the Superset app's `/Users/mike/.superset/hooks/notify.sh` (its setup links the file only under Superset): not on this machine, each failure named"),
    (r"nsalvacao\+nsalvacao-claude-code-plugins\tplugins/[^/]+/\.mcp\.json$", "its servers' variables (GITHUB_TOKEN, ANALYTICS_PROVIDER) are unset here: each named"),
    (r"nsalvacao\+nsalvacao-claude-code-plugins\tplugins/solution-audit/hooks/hooks\.json$",
     "its SessionStart prompt hook is judged by the model: the scripted model's \"done\" is no JSON answer, and that is named"),
]
REFUSED = [
    (r"output-styles/.*\.md$", "output styles are not applied (documented)"),
    (r"\.claude/(statusline[^/]*|status_lines/[^/]+)\.(sh|py|ts|js)$", "a statusLine script: `statusLine` is not applied (documented; the settings warning names it)"),
]
SKIPPED = [
    (r"FanaHOVA\+dot-files\thome/\.codex/instructions\.md$",
     "the old TypeScript Codex's global instructions file: today's Codex reads ~/.codex/AGENTS.md (openai/codex#1016), and so does ubiquity; unread by both"),
    (r"Dbochman\+dotfiles\thome/\.codex/profiles/[^/]+\.config\.toml$",
     "kept in ~/.codex/profiles/, where no Codex reads a profile (`--profile x` reads ~/.codex/x.config.toml): unread by both"),
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
                if kind:
                    rows.append((kind, repo, os.path.join(plugin[len(repo) + 1:], rel), os.path.join(base, rel)))
        for kind, repo, rel, full in rows:
            key = f"{repo}\t{rel}"
            if key in seen:
                continue
            seen.add(key)
            outcome, note = classify(key, full, stderr, folders[-1] if folders else None)
            print("\t".join([kind, repo.replace("+", "/", 1), commit_of(repo), rel, outcome, note.replace("\t", " ").replace("\n", " ")]))


main()
