#!/usr/bin/env python3
"""Round y (docs/guide/compat-survey.md): one row per file the bin runs of bin-y.sh loaded, with its outcome.

    bash bench/compat-survey/bin-y.sh <checkouts> > runs.txt
    python3 bench/compat-survey/classify-y.py <checkouts> runs.txt > bench/compat-survey/sample-y.tsv

As classify-x.py (and classify-w.py before it): each project is the /tmp/ubq-x-<project>-* folder its runs name; its files are found where Claude
Code or Codex reads them (the project, and the temp HOME for setups kept as ~/.claude, ~/.codex or ~/.agents, laid
out from chezmoi sources by chezmoi-lay.py or chezmoi-render.py; the path column is where bin-x.sh put the file, `home/` for the HOME);
plugin folders are read in the checkout. A file is `warned` when a warning of its project's runs names it, `fixed`
when one of this round's fixes changed what happens to it (FIXED), `blocked` when it loaded but could not do its work
for a reason of this machine (BLOCKED), `refused` when ubiquity documents that it does not apply that kind of
file (REFUSED: output styles), else `clean`.
"""
import glob
import os
import re
import subprocess
import sys

CO, RUNS = sys.argv[1], sys.argv[2]
ROUND = "y"

PROJECTS = {
    "lg": "laurigates+claude-plugins", "inf": "infiquetra+infiquetra-claude-plugins", "edw": "edwinhu+claude-plugins",
    "gab": "gaborbernat+dotfiles", "tam": "tamird+dotfiles", "h3y": "h3y6e+dotfiles", "tak": "tak848+dotfiles",
    "mac": "MacroMan5+claude-code-workflow-plugins", "cho": "Chocksy+claude-settings", "cod": "codelahoma+dotfiles",
    "qw": "qw457812+dotfiles", "nul": "NullSense+dotfiles", "yuu": "yuuki+dotfiles",
    "ygov": "yxhpy+codex-project-governor", "hall": "NotMyself+claude-bun-win11-hooks",
}
LG = "laurigates+claude-plugins"
PLUGINS = {
    "lg": [LG] + sorted(f"{LG}/{d}" for d in os.listdir(os.path.join(sys.argv[1], LG)) if d.endswith("-plugin")),
    "inf": ["infiquetra+infiquetra-claude-plugins"] + sorted(
        f"infiquetra+infiquetra-claude-plugins/plugins/{d}"
        for d in os.listdir(os.path.join(sys.argv[1], "infiquetra+infiquetra-claude-plugins/plugins"))),
    "edw": ["edwinhu+claude-plugins/.", "edwinhu+claude-plugins/plugins/tinymist"],
    "tak": ["tak848+dotfiles"] + [f"tak848+dotfiles/claude-plugins/{d}" for d in ("aws-knowledge", "context7", "devin", "freee", "gopls-lazy")],
    "ygov": ["yxhpy+codex-project-governor/."],
    "hall": ["NotMyself+claude-bun-win11-hooks/."],
}
# Setups whose files sit in the temp HOME (walked with the project).
HOME_PROJECTS = {"gab", "tam", "h3y", "tak", "cho", "qw", "nul", "yuu"}

KINDS = [
    (r"\.claude/settings(\.local)?\.json$", "settings"),
    (r"\.claude/agents/.*\.md$", "agent"),
    (r"\.claude/skills/[^/]+\.md$", "skill"),
    (r"\.claude/commands/.*\.md$", "command"),
    (r"(\.claude|\.agents|\.codex)/skills/[^/]+/SKILL\.md$", "skill"),
    (r"\.claude/rules/.*\.md$", "rule"),
    (r"\.claude/output-styles(/.*\.md)?$", "output-style"),
    (r"\.claude/(statusline[^/]*|status_lines/[^/]+)\.(sh|py|ts|js)$", "statusline"),
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
    (r"^hooks\.json$", "hooks"),
    (r"^\.lsp\.json$", "lsp"),
    (r"^claude/agents/.*\.md$", "agent"),
    (r"^claude/skills/[^/]+/SKILL\.md$", "skill"),
    (r"^claude/commands/.*\.md$", "command"),
    (r"^claude/hooks/hooks\.json$", "hooks"),
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
    (r"(tamird|NullSense)\+dotfiles\thome/\.codex/rules/default\.rules$",
     "lines Codex itself appended (`\\\"` in a word, JSON-quoted) stopped the whole run (\"a string with a \\ escape is not read\"); now Starlark's escapes are read, the rules of plain words apply and the shell-script ones are named as not read",
     None),
    (r"NullSense\+dotfiles\thome/\.codex/(config\.toml|hooks\.json)$",
     "config.toml's [hooks.state] (Codex's record of reviewed hooks) was read as a hook event named \"state\", and the three Stop hooks it turns off (enabled = false) ran; now it is no event and a handler it turns off does not run (its keys name /home/nullsense/.codex/hooks.json, so in this temp HOME none matches, as in Codex)",
     None),
    (r"yxhpy\+codex-project-governor\t\.codex/prompts/[^/]+\.md$",
     "a project's Codex prompt, which Codex does not read (it reads ~/.codex/prompts): `/prompts:memory-compact` went to the model as typed with \"(it has none)\"; still not read, and the warning now names the file and where to put it",
     None),
    (r"NotMyself\+claude-bun-win11-hooks\t\.claude/skills/docker-mcp-cli\.md$",
     "a skill written as one file, read by neither Claude Code nor ubiquity, was dropped in silence; now named with where it would be read",
     None),
]
# Files that loaded but could not do their work in these runs, for a reason of this machine: (pattern, note).
BLOCKED = [
    (r"(Chocksy\+claude-settings\thome/\.claude|codelahoma\+dotfiles\t\.claude)/settings\.json$", "its hooks run `uv run …py`, and this machine has no uv: each failure is named with its command; a failing hook blocks nothing (as in Claude Code)"),
    (r"tak848\+dotfiles\tclaude-plugins/(aws-knowledge|freee|context7|devin)/\.mcp\.json$", "http MCP servers out of reach without network, or whose key is unset: each named with its server (and the variable)"),
    (r"tak848\+dotfiles\tclaude-plugins/gopls-lazy/\.lsp\.json$", "loads (the LSP tool is offered); gopls-lazy is not installed here, so no call was made"),
    (r"NotMyself\+claude-bun-win11-hooks\t\.mcp\.json$", "`docker mcp gateway run`: this machine's docker has no mcp plugin; the failure is named with the server"),
    (r"yxhpy\+codex-project-governor\t\.codex/agents/.*\.toml$", "loads as a Codex agent; runs on gpt-5.4 through OpenAI (a bare model name, as Codex runs it), which needs a key and the network: the failure names the model"),
    (r"laurigates\+claude-plugins\t\.mcp\.json$", "`go run` of github-mcp-server needs GITHUB_PERSONAL_ACCESS_TOKEN and the network: the unset variable is named with the file"),
    (r"yxhpy\+codex-project-governor\t\.mcp\.json$", "an http server whose key (STITCH_MCP_API_KEY) is unset: named with the file"),
]
# Kinds ubiquity documents it does not apply: (pattern, note).
REFUSED = [
    (r"output-styles/.*\.md$", "output styles are not applied (documented; a settings `outputStyle` is reported); none of these is selected, so Claude Code would not apply them either"),
    (r"\.claude/(statusline[^/]*|status_lines/[^/]+)\.(sh|py|ts|js)$", "a statusLine script: `statusLine` is not applied (documented; the settings warning names it)"),
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
