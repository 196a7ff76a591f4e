#!/usr/bin/env bash
# Round y (docs/guide/compat-survey.md): real files of sample-y.tsv run through the built bin with a
# scripted model, each project in a temp folder with its own HOME. Needs `npx unbuild` first and
# checkouts of the sampled repositories under $CO (one folder per repository named owner+name). chezmoi
# sources are laid out in the temp HOME by chezmoi-lay.py; the few templates this round runs are rendered by
# chezmoi-render.py as chezmoi would on a fresh machine (homeDir, the `else` branch of a data switch, an
# `output` that reads a file not there yet). Prints, per run, the exit code, stderr and what the model got.
#   bash bench/compat-survey/bin-y.sh <checkouts> [run-name] > runs.txt
ROUND=y
. "$(dirname "$0")/bin-lib.sh"
HERE="$(cd "$(dirname "$0")" && pwd)"
copy() { local d="$CO/$1"; shift; for p in "$@"; do if [ -e "$d/$p" ] || [ -L "$d/$p" ]; then (cd "$d" && cp -a --parents "$p" "$P/"); fi; done; }
chez() { python3 "$HERE/chezmoi-lay.py" "$CO/$1/$2" "$P/home${3:+/$3}" 2>/dev/null; }
render() { python3 "$HERE/chezmoi-render.py" "$CO/$1/$2" "$P/home/$3" "$P/home"; }
call() { printf '[{"toolCalls":[{"toolName":"%s","input":%s}]}]' "$1" "$2"; }
agent() { printf '[{"toolCalls":[{"toolName":"Agent","input":{"subagent_type":"%s","description":"q","prompt":"answer"}}]}]' "$1"; }
# installed <home> <marketplace> <folder>… : record plugin folders as Claude Code's `/plugin install` does.
installed() {
  local home="$1" market="$2"; shift 2
  mkdir -p "$home/.claude/plugins"
  python3 - "$home/.claude/plugins/installed_plugins.json" "$market" "$@" <<'PY'
import json, os, sys
out, market, folders = sys.argv[1], sys.argv[2], sys.argv[3:]
plugins = {}
for f in folders:
    name = json.load(open(os.path.join(f, ".claude-plugin/plugin.json")))["name"]
    plugins[f"{name}@{market}"] = [{"scope": "user", "installPath": f, "version": "1"}]
json.dump({"version": 2, "plugins": plugins}, open(out, "w"), indent=2)
PY
}

# 1. laurigates/claude-plugins: a marketplace of 44 plugins (hooks.json at a plugin's root named by plugin.json,
#    skills, agents); the repository's own .claude/settings.json enables all of them through enabledPlugins and
#    extraKnownMarketplaces, and its .mcp.json runs `go run` a server.
project lg
D="$CO/laurigates+claude-plugins"
copy laurigates+claude-plugins .claude .mcp.json CLAUDE.md AGENTS.md scripts
git -C "$P" commit -q --allow-empty -m init
installed "$P/home" laurigates-claude-plugins $(ls -d "$D"/*-plugin)
ubq lg "$P" run --compat claude -p "hello"
UBQ_STEPS="$(call Bash '{"command":"git status"}')" ubq lg-bash "$P" run --compat claude -p "status"
ubq lg-skill "$P" run --compat claude -p "/git-plugin:git-commit-push-pr"
UBQ_STEPS="$(agent git-plugin:git-ops)" ubq lg-agent "$P" run --compat claude -p "delegate"
ubq lg-market "$P" run --compat claude --plugin-dir "$D" -p "hello"

# 2. infiquetra/infiquetra-claude-plugins: a marketplace of 10 plugins (agents, skills, commands, hooks), CLAUDE.md.
project inf
D="$CO/infiquetra+infiquetra-claude-plugins"
copy infiquetra+infiquetra-claude-plugins CLAUDE.md .claude
args=(); for p in "$D"/plugins/*/; do args+=(--plugin-dir "${p%/}"); done
ubq inf "$P" run --compat claude "${args[@]}" -p "hello"

# 3. edwinhu/claude-plugins: the repository is a plugin (skills, commands, Python hooks) and a marketplace listing
#    itself ("./") and an LSP plugin; its .claude (commands, CLAUDE.md).
project edw
D="$CO/edwinhu+claude-plugins"
copy edwinhu+claude-plugins .claude
ubq edw "$P" run --compat claude --plugin-dir "$D" -p "hello"
UBQ_STEPS="$(call Read '{"file_path":"README.md"}')" ubq edw-read "$P" run --compat claude --plugin-dir "$D" -p "read"
ubq edw-cmd "$P" run --compat claude -p "/dev add a flag"
ubq edw-lsp "$P" run --compat claude --plugin-dir "$D/plugins/tinymist" -p "hello"

# 4. gaborbernat/dotfiles (chezmoi): ~/.claude/settings.json (a template: allow rules, hooks, statusLine), ~/.codex
#    (rules as a template, AGENTS.md template), ~/.agents/skills.
project gab
chez gaborbernat+dotfiles dot_agents .agents
chez gaborbernat+dotfiles private_dot_claude .claude
render gaborbernat+dotfiles private_dot_claude/settings.json.tmpl .claude/settings.json
mkdir -p "$P/home/.codex/rules"; render gaborbernat+dotfiles dot_codex/rules/default.rules.tmpl .codex/rules/default.rules
ubq gab-claude "$P" run --compat claude -p "hello"
UBQ_STEPS="$(call Bash '{"command":"git status"}')" ubq gab-codex "$P" run --compat codex -p "status"

# 5. tamird/dotfiles (chezmoi): ~/.codex (config.toml, AGENTS.md, 20 skills, rules: allow rules of whole commands).
project tam
chez tamird+dotfiles dot_codex .codex
git -C "$P" commit -q --allow-empty -m init
ubq tam "$P" run --compat codex -p "hello"
UBQ_STEPS="$(call Bash '{"command":"kubectl get pods"}')" ubq tam-rule "$P" run --compat codex -p "pods"
UBQ_STEPS="$(call Skill '{"skill":"coding-style"}')" ubq tam-skill "$P" run --compat codex -p "style"

# 6. h3y6e/dotfiles (chezmoi): ~/.codex/rules/deny-gh-pr-ready.rules, ~/.agents skills, ~/.claude settings (a template:
#    additionalDirectories, defaultMode auto, env, outputStyle).
project h3y
chez h3y6e+dotfiles dot_codex .codex
chez h3y6e+dotfiles dot_agents .agents
render h3y6e+dotfiles dot_claude/settings.json.tmpl .claude/settings.json
mkdir -p "$P/home/ghq"
ubq h3y-claude "$P" run --compat claude -p "hello"
UBQ_STEPS="$(call Bash '{"command":"gh pr ready 12"}')" ubq h3y-rule "$P" run --compat codex --permission-mode bypassPermissions -p "ready"

# 7. tak848/dotfiles (chezmoi): ~/.codex (hooks.json with PermissionRequest, rules with forbidden `git -C`, AGENTS.md),
#    ~/.claude (agents, skills, CLAUDE.md); its marketplace of MCP/LSP plugins.
project tak
chez tak848+dotfiles dot_codex .codex
chez tak848+dotfiles dot_claude .claude
D="$CO/tak848+dotfiles"
ubq tak-codex "$P" run --compat codex -p "hello"
UBQ_STEPS="$(call Bash '{"command":"git -C /tmp status"}')" ubq tak-rule "$P" run --compat codex --permission-mode bypassPermissions -p "status"
ubq tak-claude "$P" run --compat claude -p "hello"
UBQ_STEPS="$(agent codex-review)" ubq tak-agent "$P" run --compat claude -p "delegate"
args=(); for p in "$D"/claude-plugins/*/; do args+=(--plugin-dir "${p%/}"); done
ubq tak-plugins "$P" run --compat claude "${args[@]}" -p "hello"

# 8. MacroMan5/claude-code-workflow-plugins: a project .claude (Python hooks run with `python`, 8 output styles,
#    statusLine, 9 agents, 10 commands, 25 skills), CLAUDE.md.
project mac
copy MacroMan5+claude-code-workflow-plugins .claude CLAUDE.md
git -C "$P" commit -q --allow-empty -m init
ubq mac "$P" run --compat claude -p "hello"
UBQ_STEPS="$(call Bash '{"command":"ls"}')" ubq mac-bash "$P" run --compat claude -p "list"
ubq mac-cmd "$P" run --compat claude -p "/plan a login page"
UBQ_STEPS="$(agent coder)" ubq mac-agent "$P" run --compat claude -p "delegate"

# 9. Chocksy/claude-settings: a ~/.claude (hooks run with `uv run ~/.claude/hooks/*.py`, statusLine through bun,
#    env, commands, an agent), CLAUDE.md.
project cho
cp -a "$CO/Chocksy+claude-settings/.claude" "$P/home/.claude"; cp "$CO/Chocksy+claude-settings/CLAUDE.md" "$P/home/.claude/CLAUDE.md"
UBQ_STEPS="$(call Bash '{"command":"ls"}')" ubq cho "$P" run --compat claude -p "list"
ubq cho-cmd "$P" run --compat claude -p "/ultrathink why"

# 10. codelahoma/dotfiles: a project .claude (uv run hooks, status lines, agents, commands, skills), CLAUDE.md.
project cod
copy codelahoma+dotfiles .claude CLAUDE.md
ubq cod "$P" run --compat claude -p "hello"
UBQ_STEPS="$(call Bash '{"command":"ls"}')" ubq cod-bash "$P" run --compat claude -p "list"

# 11. qw457812/dotfiles (chezmoi, links into symlinks/): ~/.codex (config.toml, rules with a list of alternatives,
#     AGENTS.md), ~/.claude/settings.json.
project qw
D="$CO/qw457812+dotfiles"
mkdir -p "$P/home/.codex/rules" "$P/home/.claude"
cp "$D/symlinks/codex/config.toml" "$P/home/.codex/config.toml"; cp "$D/symlinks/codex/rules/default.rules" "$P/home/.codex/rules/default.rules"
cp "$D/dot_codex/AGENTS.md" "$P/home/.codex/AGENTS.md"; cp "$D/symlinks/claude/settings.json" "$P/home/.claude/settings.json"
git -C "$P" commit -q --allow-empty -m init
ubq qw-codex "$P" run --compat codex -p "hello"
UBQ_STEPS="$(call Bash '{"command":"git reset --hard"}')" ubq qw-rule "$P" run --compat codex --permission-mode dontAsk -p "reset"
ubq qw-claude "$P" run --compat claude -p "hello"

# 12. NullSense/dotfiles (home/ laid out as is): ~/.claude (settings with PermissionRequest hooks, statusline,
#     commands, skills), ~/.codex (config.toml, hooks.json, rules with match/not_match examples).
project nul
cp -a "$CO/NullSense+dotfiles/home/.claude" "$CO/NullSense+dotfiles/home/.codex" "$P/home/"
git -C "$P" commit -q --allow-empty -m init
ubq nul-claude "$P" run --compat claude -p "hello"
ubq nul-codex "$P" run --compat codex -p "hello"
UBQ_STEPS="$(call Bash '{"command":"cargo run"}')" ubq nul-rule "$P" run --compat codex --permission-mode dontAsk -p "run"

# 13. yuuki/dotfiles (chezmoi): ~/.codex (rules: prompt, forbidden and allow, hooks, AGENTS.md), ~/.claude settings.
project yuu
chez yuuki+dotfiles dot_codex .codex
chez yuuki+dotfiles dot_claude .claude
ubq yuu-codex "$P" run --compat codex -p "hello"
UBQ_STEPS="$(call Bash '{"command":"sudo ls"}')" ubq yuu-rule "$P" run --compat codex --permission-mode bypassPermissions -p "sudo"
ubq yuu-claude "$P" run --compat claude -p "hello"

# 14. yxhpy/codex-project-governor: a Codex project (.codex: config.toml, hooks.json with Python hooks, 13 custom agents,
#     rules, prompts; AGENTS.md) that is also a Claude Code plugin (plugin.json listing agent files, skills, hooks, MCP).
project ygov
D="$CO/yxhpy+codex-project-governor"
copy yxhpy+codex-project-governor .codex AGENTS.md
git -C "$P" commit -q --allow-empty -m init
ubq ygov-codex "$P" run --compat codex -p "hello"
UBQ_STEPS="$(call Bash '{"command":"git push"}')" ubq ygov-rule "$P" run --compat codex --permission-mode dontAsk -p "push"
UBQ_STEPS="$(agent risk-scout)" ubq ygov-agent "$P" run --compat codex -p "delegate"
ubq ygov-prompt "$P" run --compat codex -p "/prompts:memory-compact"
ubq ygov-plugin "$P" run --compat claude --plugin-dir "$D" -p "hello"
UBQ_STEPS="$(agent codex-project-governor:test-planner)" ubq ygov-pagent "$P" run --compat claude --plugin-dir "$D" -p "delegate"

# 15. NotMyself/claude-bun-win11-hooks: a project .claude (9 rules, 3 commands, a skill file written flat in skills/,
#     an empty hooks object), .mcp.json (docker mcp gateway), and a plugin manifest with `"hooks": []` in .claude-plugin.
project hall
D="$CO/NotMyself+claude-bun-win11-hooks"
copy NotMyself+claude-bun-win11-hooks .claude .mcp.json
ubq hall "$P" run --compat claude -p "hello"
ubq hall-cmd "$P" run --compat claude -p "/plan-new a log viewer"
ubq hall-plugin "$P" run --compat claude --plugin-dir "$D" -p "hello"
