#!/usr/bin/env bash
# Round t (docs/guide/compat-survey.md): real files of sample-t.tsv run through the built bin with a
# scripted model, each project in a temp folder with its own HOME. Needs `npx unbuild` first and
# checkouts of the sampled repositories under $CO (`git archive HEAD | tar -x`, one folder per
# repository named owner+name). Prints, per run, the exit code, stderr and what the model was sent.
#   bash bench/compat-survey/bin-t.sh <checkouts> [run-name]
ROUND=t
. "$(dirname "$0")/bin-lib.sh"

# 1. diet103: its whole .claude folder (settings.json with `Bash:*` style rules, `defaultMode: acceptEdits`,
#    enableAllProjectMcpServers; settings.local.json; skills with skill-rules.json; agents; commands).
project diet103
cp -r "$CO/diet103+claude-code-infrastructure-showcase/.claude" "$P/"
UBQ_STEPS='[{"toolCalls":[{"toolName":"Bash","input":{"command":"ls"}}]},{"toolCalls":[{"toolName":"Write","input":{"file_path":"a.txt","content":"x"}}]}]' \
  ubq diet103-settings "$P" run --compat claude -p "list and write"
ubq diet103-command "$P" run --compat claude -p "/route-research-for-testing src/routes"

# 2. disler: its .claude folder (statusLine, teammateMode, every hook event, output styles), AGENTS.md, CLAUDE.md.
project disler
D="$CO/disler+claude-code-hooks-multi-agent-observability"; cp -r "$D/.claude" "$D/AGENTS.md" "$D/CLAUDE.md" "$D/README.md" "$P/"; [ -d "$D/ai_docs" ] && cp -r "$D/ai_docs" "$P/"
ubq disler-build "$P" run --compat claude -p "/build specs/plan.md"
ubq disler-prime "$P" run --compat claude -p "/prime"
ubq disler-plan "$P" run --compat claude -p "/plan_new_feature add a login page"

# 3. Plugins as published, with --plugin-dir.
project plugins
for pl in "backnotprop+plannotator/apps/hook" "jarrodwatts+claude-hud" "severity1+claude-code-prompt-improver" \
  "jeremylongshore+claude-code-plugins-plus/plugins/community/claude-never-forgets" \
  "jeremylongshore+claude-code-plugins-plus/plugins/productivity/vibe-guide"; do
  ubq "plugin-$(basename "$pl")" "$P" run --compat claude --plugin-dir "$CO/$pl" -p "fix the bug"
done
ubq plugin-plannotator-review "$P" run --compat claude --plugin-dir "$CO/backnotprop+plannotator/apps/hook" -p "/plannotator-review"
ubq plugin-claude-hud-setup "$P" run --compat claude --plugin-dir "$CO/jarrodwatts+claude-hud" -p "/claude-hud:setup"

# 4. coleam00: settings.local.json allow rules, commands with $ARGUMENTS and `!` lines, agents.
project coleam00
cp -r "$CO/coleam00+context-engineering-intro/claude-code-full-guide/.claude" "$P/"
cp "$CO/coleam00+context-engineering-intro/CLAUDE.md" "$P/"
mkdir -p "$P/.claude/commands" && cp "$CO/coleam00+context-engineering-intro/use-cases/ai-coding-wisc-framework/.claude/commands/"{prime-backend,commit}.md "$P/.claude/commands/"
ubq coleam00-prp "$P" run --compat claude -p "/generate-prp INITIAL.md"
ubq coleam00-prime "$P" run --compat claude -p "/prime-backend"

# 5. Anthropic's security-review command (`!`git …`` lines, allowed-tools with Task and LS).
project secrev
mkdir -p "$P/.claude/commands" && cp "$CO/anthropics+claude-code-security-review/.claude/commands/security-review.md" "$P/.claude/commands/"
(cd "$P" && git add -A && git -c user.email=a@b -c user.name=a commit -qm init && echo x > new.txt && git add new.txt)
ubq secrev "$P" run --compat claude -p "/security-review"

# 6. cc-sessions: its /sessions command (`!` line with $ARGUMENTS) and agents where its installer puts them.
project ccsessions
mkdir -p "$P/.claude/commands" "$P/.claude/agents"
cp "$CO/GWUDCAP+cc-sessions/cc_sessions/commands/sessions.md" "$P/.claude/commands/"
cp "$CO/GWUDCAP+cc-sessions/cc_sessions/agents/"*.md "$P/.claude/agents/"
ubq ccsessions-cmd "$P" run --compat claude -p "/sessions help"

# 7. wshobson/commands: workflows copied as commands (`model: claude-opus-4-1`, $ARGUMENTS).
project wshobson
mkdir -p "$P/.claude/commands" && cp "$CO/wshobson+commands/workflows/"{git-workflow,full-review}.md "$P/.claude/commands/"
ubq wshobson-git "$P" run --compat claude -p "/git-workflow main"

# 8. obra/superpowers as published: its SessionStart hook (a polyglot run-hook.cmd, `"shell": "bash"`) injects
#    its using-superpowers skill as additionalContext; then its skills through the Skill tool; then under Codex.
project superpowers
UBQ_STEPS='[{"toolCalls":[{"toolName":"Skill","input":{"skill":"superpowers:brainstorming"}}]}]' \
  ubq superpowers "$P" run --compat claude --plugin-dir "$CO/obra+superpowers" -p "let's build a todo app"
ubq superpowers-codex "$P" run --compat codex --plugin-dir "$CO/obra+superpowers" -p "hello"

# 9. plannotator's commands, with a stand-in `plannotator` on PATH that prints its arguments (the real one opens
#    a browser UI): `!`plannotator annotate $ARGUMENTS`` pre-approved by its `allowed-tools: Bash(plannotator:*)`.
project plannotator
mkdir -p "$P/bin" && printf '#!/bin/sh\necho "plannotator got: $*"\n' > "$P/bin/plannotator" && chmod +x "$P/bin/plannotator"
echo "# notes" > "$P/notes.md"
PATH="$P/bin:$PATH" ubq plannotator-annotate "$P" run --compat claude --plugin-dir "$CO/backnotprop+plannotator/apps/hook" -p "/plannotator:plannotator-annotate notes.md"
PATH="$P/bin:$PATH" ubq plannotator-review "$P" run --compat claude --plugin-dir "$CO/backnotprop+plannotator/apps/hook" -p "/plannotator:plannotator-review"

# 10. Continuous-Claude-v3: its agents (with .json sidecars), skills and rules (.claude/rules/*.md, some with `paths`).
project ccv3
mkdir -p "$P/.claude" && for d in agents skills rules; do cp -r "$CO/parcadei+Continuous-Claude-v3/.claude/$d" "$P/.claude/"; done
ubq ccv3 "$P" run --compat claude -p "hello"

# 11. disler's guard (pre_tool_use.py: denies `rm -rf` and .env access by hookSpecificOutput.permissionDecision), run
#     with a stand-in `uv` on PATH (`uv run x.py …` → `python3 x.py …`; the real uv is not installed here), on calls
#     pre-approved with --allowedTools so only the hook can stop them.
project disler-guard
D="$CO/disler+claude-code-hooks-multi-agent-observability"; cp -r "$D/.claude" "$P/"
mkdir -p "$P/bin" "$P/build" && printf '#!/bin/sh\n[ "$1" = run ] && shift\nexec python3 "$@"\n' > "$P/bin/uv" && chmod +x "$P/bin/uv"
echo "SECRET=1" > "$P/.env"
PATH="$P/bin:$PATH" UBQ_STEPS='[{"toolCalls":[{"toolName":"Bash","input":{"command":"rm -rf build"}}]},{"toolCalls":[{"toolName":"Read","input":{"file_path":".env"}}]}]' \
  ubq disler-guard "$P" run --compat claude --allowedTools Bash Read -p "clean up"
[ -z "$ONLY" ] || [ "$ONLY" = disler-guard ] && { [ -d "$P/build" ] && echo "build/ still there" || echo "build/ REMOVED"; }
