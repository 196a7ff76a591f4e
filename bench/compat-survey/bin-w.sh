#!/usr/bin/env bash
# Round w (docs/guide/compat-survey.md): real files of sample-w.tsv run through the built bin with a
# scripted model, each project in a temp folder with its own HOME. Needs `npx unbuild` first and
# checkouts of the sampled repositories under $CO (`git archive HEAD | tar -x`, one folder per
# repository named owner+name). Prints, per run, the exit code, stderr and what the model was sent.
#   bash bench/compat-survey/bin-w.sh <checkouts> [run-name] > runs.txt
ROUND=w
. "$(dirname "$0")/bin-lib.sh"
copy() { local d="$CO/$1"; shift; for p in "$@"; do if [ -e "$d/$p" ] || [ -L "$d/$p" ]; then (cd "$d" && cp -a --parents "$p" "$P/"); fi; done; }
# home <repo> <src> <dest-under-home> : copy a folder of a checkout into the temp HOME.
home() { mkdir -p "$P/home/$3" && cp -a "$CO/$1/$2/." "$P/home/$3/"; }
call() { printf '[{"toolCalls":[{"toolName":"%s","input":%s}]}]' "$1" "$2"; }

# 1. 0xDarkMatter/claude-mods: a plugin (agents, commands with a subfolder, 90 skills, hooks/hooks.json with
#    ${CLAUDE_PLUGIN_ROOT} scripts, output-styles, rules) given with --plugin-dir.
project mods
D="$CO/0xDarkMatter+claude-mods"
ubq mods "$P" run --compat claude --plugin-dir "$D" -p "hello"
ubq mods-cmd "$P" run --compat claude --plugin-dir "$D" -p "/claude-mods:save wip notes"
UBQ_STEPS="$(call Bash '{"command":"pip install requests"}')" ubq mods-guard "$P" run --compat claude --plugin-dir "$D" --permission-mode bypassPermissions -p "install"
UBQ_STEPS="$(call Skill '{"skill":"claude-mods:git-ops"}')" ubq mods-skill "$P" run --compat claude --plugin-dir "$D" -p "use the skill"

# 2. Chemaclass/laravel-claude-toolkit: a project .claude (7 agents, 23 skills, rules, settings with hooks, statusline).
project chema
copy Chemaclass+laravel-claude-toolkit .claude CLAUDE.md
ubq chema "$P" run --compat claude -p "hello"
ubq chema-skill "$P" run --compat claude -p "/tdd-cycle add a price value object"

# 3. gotalab/cc-sdd: CLAUDE.md, AGENTS.md, .agents/skills (a skill with references).
project ccsdd
copy gotalab+cc-sdd .agents CLAUDE.md AGENTS.md
ubq ccsdd-claude "$P" run --compat claude -p "hello"
ubq ccsdd-codex "$P" run --compat codex -p "hello"

# 4. 0xrdan/claude-router: a plugin whose plugin.json lists agents, commands and skills file by file, a
#    UserPromptSubmit hook in python (hooks/hooks.json); agents with model: haiku/sonnet/opus.
project router
D="$CO/0xrdan+claude-router"
ubq router "$P" run --compat claude --plugin-dir "$D" -p "hello"
ubq router-cmd "$P" run --compat claude --plugin-dir "$D" -p "/claude-router:route what is 2+2"
UBQ_STEPS='[{"toolCalls":[{"toolName":"Agent","input":{"subagent_type":"claude-router:fast-executor","description":"q","prompt":"answer"}}]}]' \
  ubq router-agent "$P" run --compat claude --plugin-dir "$D" -p "delegate"

# 5. 1Password/agent-hooks: .claude/settings.json hooks running bin/run-hook.sh through an adapter.
project op
copy 1Password+agent-hooks .claude adapters bin hooks lib schemas install-client-config.json
UBQ_STEPS="$(call Bash '{"command":"ls"}')" ubq op "$P" run --compat claude -p "list"

# 6. oraios/serena: CLAUDE.md and AGENTS.md.
project serena
copy oraios+serena CLAUDE.md AGENTS.md
ubq serena "$P" run --compat claude,codex -p "hello"

# 7. Dorukuz/Claude-Code-IOS-App-Studios: .claude (agents, 34 skills with allowed-tools, hooks, rules, statusline).
project ios
copy Dorukuz+Claude-Code-IOS-App-Studios .claude CLAUDE.md AGENTS.md
ubq ios "$P" run --compat claude -p "hello"
ubq ios-skill "$P" run --compat claude -p "/scope-check login screen"

# 8. ArangoGutierrez/claude-toolkit: a large .claude (agents, skills with scripts and evals, hooks in src/, rules,
#    policy-limits.json, remote-settings.json).
project arango
copy ArangoGutierrez+claude-toolkit .claude
ubq arango "$P" run --compat claude -p "hello"
ubq arango-skill "$P" run --compat claude -p "/kickoff a cache layer"
UBQ_STEPS="$(call Bash '{"command":"git status --short"}')" ubq arango-bash "$P" run --compat claude -p "status"

# 9. 0xarkstar/my-claude-code-settings: a ~/.claude as its install.sh lays it out (settings, agents, rules,
#    hooks/hooks.json, scripts, commands, skills, contexts).
project arkstar
D=0xarkstar+my-claude-code-settings
mkdir -p "$P/home/.claude"; cp "$CO/$D/config/settings.json" "$P/home/.claude/"
for d in agents rules hooks scripts commands skills contexts; do home "$D" "$d" ".claude/$d"; done
ubq arkstar "$P" run --compat claude -p "hello"
ubq arkstar-cmd "$P" run --compat claude -p "/plan add login"

# 10. 0x7067/claude-hashline: a plugin with an MCP server (bun, ${CLAUDE_PLUGIN_ROOT}, env) and PreToolUse hooks
#     that block Edit/Write; a marketplace.
project hashline
D="$CO/0x7067+claude-hashline"
UBQ_STEPS="$(call Write '{"file_path":"a.txt","content":"x"}')" ubq hashline "$P" run --compat claude --plugin-dir "$D" --permission-mode acceptEdits -p "write"

# 11. 0maru/dotfiles: ~/.claude (config/claude: settings with hooks and env, 18 agents, commands with ! lines and
#     allowed-tools), ~/.codex (config/codex: config.toml, hooks.json, rules, AGENTS.md); the repository's own
#     .claude/settings.json and .codex/config.toml as a project.
project maru
D=0maru+dotfiles; home "$D" config/claude .claude; home "$D" config/codex .codex
copy "$D" .claude .codex
ubq maru-claude "$P" run --compat claude -p "hello"
ubq maru-codex "$P" run --compat codex -p "hello"
ubq maru-cmd "$P" run --compat claude -p "/commit-push-pr"
# Its Codex command rules (~/.codex/rules/*.rules): git reset --hard is forbidden, git status allowed.
git -C "$P" commit -q --allow-empty -m init
UBQ_STEPS='[{"toolCalls":[{"toolName":"Bash","input":{"command":"git reset --hard"}}]},{"toolCalls":[{"toolName":"Bash","input":{"command":"git status --short"}}]}]' \
  ubq maru-rules "$P" run --compat codex -p "reset"

# 12. 1a2b3cw/claude-code-presets: .claude with .mcp.json inside it, hooks in .mjs, commands, agents, skills.
project presets
copy 1a2b3cw+claude-code-presets .claude
ubq presets "$P" run --compat claude -p "hello"
ubq presets-cmd "$P" run --compat claude -p "/plan a todo app"

# 13. 0xmariowu/harness-health: a plugin (SessionStart hook written inline in hooks.json, commands).
project hh
ubq hh "$P" run --compat claude --plugin-dir "$CO/0xmariowu+harness-health" -p "hello"

# 14. cubasenana/nihongo-learning: .claude/CLAUDE.md, .claude/settings.local.json, .claude/output-styles (a file),
#     .mcp.json (an http server and a stdio one), AGENTS.md.
project nihongo
copy cubasenana+nihongo-learning .claude .mcp.json AGENTS.md
ubq nihongo "$P" run --compat claude -p "hello"

# 15. 0K-cool/vex-talon: a security plugin (hooks.json, commands).
project talon
UBQ_STEPS="$(call Read '{"file_path":"README.md"}')" ubq talon "$P" run --compat claude --plugin-dir "$CO/0K-cool+vex-talon" -p "read"

# 16. lalitkapoor/dotfiles: ~/.codex (skills with .system skills, rules/default.rules, AGENTS.md) and ~/.claude.
project lalit
home lalitkapoor+dotfiles .codex .codex; home lalitkapoor+dotfiles .claude .claude
ubq lalit-codex "$P" run --compat codex -p "hello"
ubq lalit-claude "$P" run --compat claude -p "hello"
UBQ_STEPS="$(call Skill '{"skill":"typescript"}')" ubq lalit-skill "$P" run --compat codex -p "use the skill"

# 17. Sailfishc/flowtest: CLAUDE.md, .claude/settings.local.json, .agents/AGENTS.md.
project flow
copy Sailfishc+flowtest .claude .agents CLAUDE.md
ubq flow "$P" run --compat claude,codex -p "hello"
