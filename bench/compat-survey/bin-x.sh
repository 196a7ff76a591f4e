#!/usr/bin/env bash
# Round x (docs/guide/compat-survey.md): real files of sample-x.tsv run through the built bin with a
# scripted model, each project in a temp folder with its own HOME. Needs `npx unbuild` first and
# checkouts of the sampled repositories under $CO (`git archive HEAD | tar -x`, one folder per
# repository named owner+name). chezmoi sources (dot_claude, dot_codex, …) are laid out in the temp HOME
# by chezmoi-lay.py as chezmoi writes them. Prints, per run, the exit code, stderr and what the model got.
#   bash bench/compat-survey/bin-x.sh <checkouts> [run-name] > runs.txt
ROUND=x
. "$(dirname "$0")/bin-lib.sh"
copy() { local d="$CO/$1"; shift; for p in "$@"; do if [ -e "$d/$p" ] || [ -L "$d/$p" ]; then (cd "$d" && cp -a --parents "$p" "$P/"); fi; done; }
# chez <repo> <source-folder> : lay out a chezmoi source folder into the temp HOME.
chez() { python3 "$(dirname "$0")/chezmoi-lay.py" "$CO/$1/$2" "$P/home"; }
call() { printf '[{"toolCalls":[{"toolName":"%s","input":%s}]}]' "$1" "$2"; }
HERE="$(cd "$(dirname "$0")" && pwd)"

# 1. easingthemes/dx-aem-flow: a marketplace of four plugins (dx-core: 48 skills, 7 agents, hooks.json with
#    SessionStart/PreToolUse/Stop, rules; dx-aem; dx-hub; dx-automation), each given with --plugin-dir.
project dx
D="$CO/easingthemes+dx-aem-flow/plugins"
copy easingthemes+dx-aem-flow CLAUDE.md AGENTS.md
git -C "$P" commit -q --allow-empty -m init
ubq dx "$P" run --compat claude --plugin-dir "$D/dx-core" --plugin-dir "$D/dx-aem" --plugin-dir "$D/dx-hub" --plugin-dir "$D/dx-automation" -p "hello"
ubq dx-skill "$P" run --compat claude --plugin-dir "$D/dx-core" -p "/dx-core:dx-help"
UBQ_STEPS="$(call Bash '{"command":"git commit --allow-empty -m x"}')" ubq dx-guard "$P" run --compat claude --plugin-dir "$D/dx-core" --permission-mode bypassPermissions -p "commit"
ubq dx-market "$P" run --compat claude --plugin-dir "$CO/easingthemes+dx-aem-flow" -p "hello"

# 2. eastgenomics/claude-code-plugins: a marketplace with one plugin (skills, an agent, an http MCP server in
#    plugin.json), and a team-managed-settings.json.
project eastgen
ubq eastgen "$P" run --compat claude --plugin-dir "$CO/eastgenomics+claude-code-plugins/plugins/eastgen-plugin" -p "hello"

# 3. ebellefontaine/aws-guard-hook: a plugin whose plugin.json lists "commands": "./.claude/commands/" and a
#    PreToolUse hook run with `uv run ${CLAUDE_PLUGIN_ROOT}/hooks/aws_guard.py`; the repository's own .claude.
project awsguard
D="$CO/ebellefontaine+aws-guard-hook"
UBQ_STEPS="$(call Bash '{"command":"ls"}')" ubq awsguard "$P" run --compat claude --plugin-dir "$D" -p "list"
ubq awsguard-cmd "$P" run --compat claude --plugin-dir "$D" -p "/aws-guard:aws-readonly"
copy ebellefontaine+aws-guard-hook .claude hooks
UBQ_STEPS="$(call Bash '{"command":"ls"}')" ubq awsguard-proj "$P" run --compat claude -p "list"

# 4. easel/ddx-library: a plugin (commands, skills, agents listed as folders), CLAUDE.md.
project ddx
D="$CO/easel+ddx-library"
copy easel+ddx-library CLAUDE.md
ubq ddx "$P" run --compat claude --plugin-dir "$D" -p "hello"
ubq ddx-cmd "$P" run --compat claude --plugin-dir "$D" -p "/ddx:prd a todo app"
UBQ_STEPS='[{"toolCalls":[{"toolName":"Agent","input":{"subagent_type":"ddx:architect","description":"q","prompt":"answer"}}]}]' \
  ubq ddx-agent "$P" run --compat claude --plugin-dir "$D" -p "delegate"

# 5. Kevin-Mok/ai-cli-dotfiles (chezmoi): ~/.claude/settings.json, ~/.codex (config.toml, AGENTS.md),
#    ~/.agents/skills (36 skills, some with agents/openai.yaml); the repository's AGENTS.md as a project.
project kmok
chez Kevin-Mok+ai-cli-dotfiles . 2>/dev/null
copy Kevin-Mok+ai-cli-dotfiles AGENTS.md
ubq kmok-claude "$P" run --compat claude -p "hello"
ubq kmok-codex "$P" run --compat codex -p "hello"
UBQ_STEPS="$(call Skill '{"skill":"commit-session"}')" ubq kmok-skill "$P" run --compat codex -p "use the skill"

# 6. Mai0313/dotfiles (chezmoi): ~/.claude (settings with statusLine, hooks), ~/.codex (config.toml and an
#    azure config), CLAUDE.md.
project mai
chez Mai0313+dotfiles . 2>/dev/null
copy Mai0313+dotfiles CLAUDE.md
ubq mai-claude "$P" run --compat claude -p "hello"
ubq mai-codex "$P" run --compat codex -p "hello"

# 7. Edward-H26/OnePromptClaudeCode: a large project .claude (15 agents, 72 commands, ~40 skills, hooks, statusline)
#    and .mcp.json (two npx servers).
project edward
copy Edward-H26+OnePromptClaudeCode .claude .mcp.json scripts
ubq edward "$P" run --compat claude -p "hello"
ubq edward-cmd "$P" run --compat claude -p "/code-refactor the utils module"
UBQ_STEPS="$(call Bash '{"command":"ls -la"}')" ubq edward-bash "$P" run --compat claude -p "list"
UBQ_STEPS='[{"toolCalls":[{"toolName":"Agent","input":{"subagent_type":"architect","description":"q","prompt":"answer"}}]}]' \
  ubq edward-agent "$P" run --compat claude -p "delegate"

# 8. FradSer/dotfiles (chezmoi): ~/.claude (settings, CLAUDE.md, statusline).
project frad
chez FradSer+dotfiles . 2>/dev/null
ubq frad "$P" run --compat claude -p "hello"

# 9. easyfan/looper: a plugin with one skill, a marketplace listing itself.
project looper
ubq looper "$P" run --compat claude --plugin-dir "$CO/easyfan+looper" -p "/looper:looper --plugin x"

# 10. echkenluo/claude-codex: a marketplace; its plugin (skills, CLAUDE.md, AGENTS.md inside the plugin).
project ccx
ubq ccx "$P" run --compat claude --plugin-dir "$CO/echkenluo+claude-codex/plugins/claude-codex" -p "/claude-codex:multi-ai add login"

# 11. Kedlub/dotfiles (chezmoi): ~/.claude (settings with hooks, hooks/*.sh, statusline), ~/.codex.
project kedlub
chez Kedlub+dotfiles . 2>/dev/null
git -C "$P" commit -q --allow-empty -m init
UBQ_STEPS="$(call Write '{"file_path":"a.txt","content":"x"}')" ubq kedlub "$P" run --compat claude --permission-mode acceptEdits -p "write"
ubq kedlub-codex "$P" run --compat codex -p "hello"

# 12. BrayanUmba/claude-config: a .claude (settings, statusline, CLAUDE.md).
project brayan
copy BrayanUmba+claude-config .claude
ubq brayan "$P" run --compat claude -p "hello"

# 13. Nu-Pan/codex_user_profile (chezmoi): ~/.codex (config.toml, AGENTS.md), ~/.agents/skills with agent roles.
project nupan
chez Nu-Pan+codex_user_profile . 2>/dev/null
copy Nu-Pan+codex_user_profile AGENTS.md
ubq nupan "$P" run --compat codex -p "hello"

# 14. berlysia/dotfiles (chezmoi, home/): ~/.claude (23 agents, 10 commands, 9 rules, hooks in TypeScript,
#     CLAUDE.md), ~/.codex (AGENTS.md, rules).
project berlysia
chez berlysia+dotfiles home/dot_claude 2>/dev/null; mkdir -p "$P/home/.claude" && mv "$P/home/"[!.]* "$P/home/.claude/" 2>/dev/null
python3 "$HERE/chezmoi-lay.py" "$CO/berlysia+dotfiles/home/dot_codex" "$P/home/.codex" 2>/dev/null
ubq berlysia-claude "$P" run --compat claude -p "hello"
ubq berlysia-codex "$P" run --compat codex -p "hello"
UBQ_STEPS='[{"toolCalls":[{"toolName":"Bash","input":{"command":"git push --force"}}]}]' ubq berlysia-rules "$P" run --compat codex -p "push"

# 15. sushichan044/dotfiles: the repository as a project (.claude/hooks in TypeScript, .claude/skills, AGENTS.md,
#     CLAUDE.md, .agents), its dot_claude commands and skills as ~/.claude.
project sushi
copy sushichan044+dotfiles .claude .agents AGENTS.md CLAUDE.md
python3 "$HERE/chezmoi-lay.py" "$CO/sushichan044+dotfiles/dot_claude" "$P/home/.claude" 2>/dev/null
ubq sushi-claude "$P" run --compat claude -p "hello"
ubq sushi-codex "$P" run --compat codex -p "hello"

# 16. nijaru/dotfiles (chezmoi): ~/.claude (settings, 5 agents, ~60 skills, hooks, plugins), ~/.codex, CLAUDE.md,
#     AGENTS.md.
project nijaru
chez nijaru+dotfiles . 2>/dev/null
copy nijaru+dotfiles AGENTS.md CLAUDE.md
ubq nijaru-claude "$P" run --compat claude -p "hello"
ubq nijaru-codex "$P" run --compat codex -p "hello"

# 17. GregoryHo/cc-statusline: a project .claude (settings.json, settings.local.json), CLAUDE.md.
project greg
copy GregoryHo+cc-statusline .claude CLAUDE.md
ubq greg "$P" run --compat claude -p "hello"

# Second pass: commands, skills and agents invoked one by one.
project pass2
chez berlysia+dotfiles home/dot_claude 2>/dev/null; mkdir -p "$P/home/.claude" && mv "$P/home/"[!.]* "$P/home/.claude/" 2>/dev/null
copy Edward-H26+OnePromptClaudeCode .claude .mcp.json scripts
git -C "$P" commit -q --allow-empty -m init
ubq berlysia-cmd "$P" run --compat claude -p "/semantic-commit"
ubq edward-cmd2 "$P" run --compat claude -p "/build-fix"
UBQ_STEPS="$(call Skill '{"skill":"dx-core:dx-help"}')" ubq dx-skilltool "$P" run --compat claude --plugin-dir "$CO/easingthemes+dx-aem-flow/plugins/dx-core" -p "use the skill"
UBQ_STEPS='[{"toolCalls":[{"toolName":"Agent","input":{"subagent_type":"dx-aem:aem-inspector","description":"q","prompt":"answer"}}]}]' \
  ubq dx-agent "$P" run --compat claude --plugin-dir "$CO/easingthemes+dx-aem-flow/plugins/dx-aem" -p "delegate"
ubq dx-aem-skill "$P" run --compat claude --plugin-dir "$CO/easingthemes+dx-aem-flow/plugins/dx-aem" -p "/dx-aem:aem-component hero"
ubq ddx-cmd2 "$P" run --compat claude --plugin-dir "$CO/easel+ddx-library" -p "/ddx:commit-hooks"
