#!/usr/bin/env python3
"""Round w (docs/guide/compat-survey.md): one row per file the bin runs of bin-w.sh loaded, with its outcome.

    bash bench/compat-survey/bin-w.sh <checkouts> > runs.txt
    python3 bench/compat-survey/classify-w.py <checkouts> runs.txt > bench/compat-survey/sample-w.tsv

As classify-v.py: each project is the /tmp/ubq-w-<project>-* folder its runs name; its files are found where Claude
Code or Codex reads them (the project, and the temp HOME for setups kept as ~/.claude or ~/.codex; the path column is
where bin-w.sh put the file, `home/` for the HOME); plugin folders are read in the checkout. A file is `warned` when a
warning of its project's runs names it, `fixed` when one of this round's fixes changed what happens to it (FIXED),
`skipped` when neither Claude Code nor Codex reads it as the user's (SKIPPED), else `clean`.
"""
import glob
import os
import re
import subprocess
import sys

CO, RUNS = sys.argv[1], sys.argv[2]
ROUND = "w"

PROJECTS = {
    "chema": "Chemaclass+laravel-claude-toolkit", "ccsdd": "gotalab+cc-sdd", "op": "1Password+agent-hooks",
    "serena": "oraios+serena", "ios": "Dorukuz+Claude-Code-IOS-App-Studios", "arango": "ArangoGutierrez+claude-toolkit",
    "arkstar": "0xarkstar+my-claude-code-settings", "maru": "0maru+dotfiles", "presets": "1a2b3cw+claude-code-presets",
    "nihongo": "cubasenana+nihongo-learning", "lalit": "lalitkapoor+dotfiles", "flow": "Sailfishc+flowtest",
}
PLUGINS = {
    "mods": ["0xDarkMatter+claude-mods"], "router": ["0xrdan+claude-router"], "hashline": ["0x7067+claude-hashline"],
    "hh": ["0xmariowu+harness-health"], "talon": ["0K-cool+vex-talon"],
}
# Setups whose files sit in the temp HOME too (walked with the project).
HOME_PROJECTS = {"arkstar", "maru", "lalit"}

KINDS = [
    (r"\.claude/settings(\.local)?\.json$", "settings"),
    (r"\.claude/agents/.*\.md$", "agent"),
    (r"\.claude/commands/.*\.md$", "command"),
    (r"(\.claude|\.agents|\.codex)/skills/.*SKILL\.md$", "skill"),
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
    (r"\.(claude|codex)/(agents|skills|commands|hooks)$", "folder"),
]
PLUGIN_KINDS = [
    (r"^\.claude-plugin/plugin\.json$", "plugin"),
    (r"^\.claude-plugin/marketplace\.json$", "marketplace"),
    (r"^agents/.*\.md$", "agent"),
    (r"^commands/.*\.md$", "command"),
    (r"^skills/.*SKILL\.md$", "skill"),
    (r"^hooks/hooks\.json$", "hooks"),
    (r"^output-styles/.*\.md$", "output-style"),
    (r"^\.mcp\.json$", "mcp"),
]
FIXED = [
    (r"\.codex/skills/[^/.][^/]*/SKILL\.md$", "Codex skill in .codex/skills: was not read, in silence (now a skill)"),
    (r"\.codex/rules/.*\.rules$", "Codex command rules: were not read, in silence (forbidden: deny rules; prompt: ask; the user's allow: allow)"),
    (r"0xrdan\+claude-router\t\.claude-plugin/plugin\.json$", "skills listed by their SKILL.md: eleven 'is not a folder' warnings each run; now each is its skill"),
    (r"Chemaclass\+laravel-claude-toolkit\t\.claude/settings\.json$", "two PostToolUse matchers written as permission rules (Bash(composer require*), Bash(git commit*)) select no tool, in Claude Code too: the hooks never ran, in silence; now named with the form that runs (matcher Bash, the rule in if)"),
    (r"Chemaclass\+laravel-claude-toolkit\t.*\.claude/agents/explorer\.md$", "allowed_tools in an agent (ignored, as by Claude Code: every tool) was silent; now named"),
]
# Files that loaded but could not do their work in these runs, for a reason of this machine: (pattern, note).
BLOCKED = [
    (r"0x7067\+claude-hashline\t(hooks/hooks\.json|\.claude-plugin/plugin\.json)$", "its hooks and MCP server run bun, which this machine lacks: each failure is named with its command; a failing PreToolUse hook blocks nothing (as in Claude Code), so its Edit/Write block did not hold"),
    (r"0K-cool\+vex-talon\thooks/hooks\.json$", "its eleven hooks run bun, which this machine lacks: each failure is named with its command, and the run went on (as in Claude Code)"),
    (r"0maru\+dotfiles\thome/\.claude/commands/commit-push-pr\.md$", "its ! lines did not run: the user's sandbox.filesystem.allowWrite lists /tmp, so each sandboxed command first checks all of /tmp for other names of protected files, and another project's folder there had one (Seen, not settled)"),
]
# Files no tool reads as the user's: (pattern, note).
SKIPPED = [
    (r"\.codex/skills/\.system/", "Codex's own bundled skills (Codex writes them there and lists them as system skills): not the user's"),
    (r"\.claude/output-styles$", "a file where Claude Code expects a folder: neither reads it"),
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
        used = re.findall(rf"/tmp/ubq-{ROUND}-{re.escape(project)}-[A-Za-z0-9]{{4}}", stderr)
        folders = [max(set(used), key=used.count)] if used else sorted(glob.glob(f"/tmp/ubq-{ROUND}-{project}-*"), key=os.path.getmtime)
        for other in set(used):  # runs made one at a time each had a folder of their own: read them as one
            stderr = stderr.replace(other, folders[-1])
        rows = []
        roots = [folders[-1]] + ([folders[-1] + "/home"] if project in HOME_PROJECTS else []) if folders else []
        for root in roots if project in PROJECTS else []:
            for rel, dangling in walk(root):
                rel = os.path.relpath(os.path.join(root, rel), folders[-1])
                kind = next((k for rx, k in KINDS if re.search(rx, rel)), None)
                if dangling and not kind:
                    kind = next((k for rx, k in DANGLING_KINDS if re.search(rx, rel)), None)
                if kind:
                    rows.append((kind, PROJECTS[project], rel, os.path.join(folders[-1], rel), dangling))
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
