#!/usr/bin/env bash
# Round s (docs/guide/compat-survey.md): real files of sample-s.tsv run through the built bin with a
# scripted model, each project in a temp folder with its own HOME. Needs `npx unbuild` first and
# checkouts of the sampled repositories under $CO (`git archive HEAD | tar -x`, one folder per
# repository named owner+name). Prints, per run, the exit code, stderr and what the model was sent.
#   bash bench/compat-survey/bin-s.sh <checkouts> [run-name]
ROUND=s
. "$(dirname "$0")/bin-lib.sh"

# 1. get-shit-done: its commands and agents where a user copies them (.claude/commands/gsd/, .claude/agents/),
#    its workflows where its installer puts them (~/.claude/get-shit-done/): `@~/…` includes, $ARGUMENTS.
project gsd
mkdir -p "$P/.claude/commands" "$P/.claude/agents" "$P/home/.claude/get-shit-done"
cp -r "$CO/glittercowboy+get-shit-done/commands/gsd" "$P/.claude/commands/"
cp "$CO/glittercowboy+get-shit-done/agents/"gsd-{plan-checker,debugger,phase-researcher}.md "$P/.claude/agents/"
cp -r "$CO/glittercowboy+get-shit-done/get-shit-done/"* "$P/home/.claude/get-shit-done/" 2>/dev/null
ubq gsd-check-todos "$P" run --compat claude -p "/check-todos api"
ubq gsd-agents "$P" run --compat claude -p "hello"

# 2. OneRedOak: the security-review command (`!`git …`` lines, allowed-tools) and the design-review agent.
project oneredoak
mkdir -p "$P/.claude/commands" "$P/.claude/agents"
cp "$CO/OneRedOak+claude-code-workflows/security-review/security-review-slash-command.md" "$P/.claude/commands/security-review.md"
cp "$CO/OneRedOak+claude-code-workflows/design-review/design-review-agent.md" "$P/.claude/agents/"
cp "$CO/OneRedOak+claude-code-workflows/code-review/pragmatic-code-review-subagent.md" "$P/.claude/agents/"
(cd "$P" && git add -A && git -c user.email=a@b -c user.name=a commit -qm init && echo x > new.txt && git add new.txt)
ubq oneredoak-security "$P" run --compat claude -p "/security-review"
ubq oneredoak-agents "$P" run --compat claude -p "hello"

# 3. beads: its .claude/settings.json (PreToolUse hooks with $CLAUDE_PROJECT_DIR), CLAUDE.md, AGENTS.md and
#    cmd/bd/AGENTS.md, and its plugin (inline hooks, `commands` path) with --plugin-dir.
project beads
cp -r "$CO/steveyegge+beads/.claude" "$CO/steveyegge+beads/CLAUDE.md" "$CO/steveyegge+beads/AGENTS.md" "$P/"
mkdir -p "$P/cmd/bd" && cp "$CO/steveyegge+beads/cmd/bd/AGENTS.md" "$P/cmd/bd/"
UBQ_STEPS='[{"toolCalls":[{"toolName":"Bash","input":{"command":"gh run watch 123"}}]}]' ubq beads-hooks "$P" run --compat claude --allowedTools "Bash(gh:*)" -p "watch the run"
ubq beads-nested "$P/cmd/bd" run --compat claude -p "hello"
ubq beads-plugin "$P" run --compat claude --plugin-dir "$CO/steveyegge+beads/plugins/beads" -p "hello"

# 4. Plugins as published, with --plugin-dir.
project plugins
for pl in "pchalasani+claude-code-tools/plugins/safety-hooks" "pchalasani+claude-code-tools/plugins/voice" \
  "pchalasani+claude-code-tools/plugins/msg" "pchalasani+claude-code-tools/plugins/aichat" \
  "davepoon+buildwithclaude/plugins/gsd" "davepoon+buildwithclaude/plugins/claude-pager" \
  "davepoon+buildwithclaude/plugins/tlsradar" "davepoon+buildwithclaude/plugins/project-boundary" \
  "davepoon+buildwithclaude/plugins/agent-triforce" "davepoon+buildwithclaude/plugins/cashflow" \
  "kenryu42+claude-code-safety-net"; do
  ubq "plugin-$(basename "$pl")" "$P" run --compat claude --plugin-dir "$CO/$pl" -p "hello"
done

# 5. Settings files: claude-flow (its own hook names), macalinao (enabledPlugins, model), dex-it run-claude.
for s in "ruvnet+claude-flow/.claude/settings.json" "macalinao+dotfiles/config/claude/settings.json" \
  "dex-it+claude-code-marketplace/run-claude/settings.json"; do
  project settings
  mkdir -p "$P/.claude" && cp "$CO/$s" "$P/.claude/settings.json"
  ubq "settings-${s%%/*}" "$P" run --compat claude -p "hello"
done

# 6. Commands: claude-flow (subfolders), Pimzino (@ includes), kirkchen, buildwithclaude, dex-it.
project commands
mkdir -p "$P/.claude/commands"
cp -r "$CO/ruvnet+claude-flow/.claude/commands/"{sparc,analysis,github} "$P/.claude/commands/"
cp "$CO/Pimzino+claude-code-spec-workflow/.claude/commands/"spec-{create,execute}.md "$P/.claude/commands/"
cp "$CO/kirkchen+devbox/chezmoi/claude-code/commands/sync-plans.md" "$P/.claude/commands/"
ubq commands-swarm-issue "$P" run --compat claude -p "/swarm-issue 42"
ubq commands-spec-create "$P" run --compat claude -p "/spec-create login a login page"

# 7. Memory: spec-kit's AGENTS.md (an `@user` in prose), usagizmo's .claude/CLAUDE.md, macalinao's CLAUDE.md.
project memory
cp "$CO/github+spec-kit/AGENTS.md" "$P/" && mkdir -p "$P/.claude" && cp "$CO/usagizmo+dotfiles/.claude/CLAUDE.md" "$P/.claude/"
ubq memory "$P" run --compat claude -p "hello"

# 8. Guard hooks as published, on the calls they mean to stop (pre-approved, so only the hook can stop them).
project guards
for g in "kenryu42+claude-code-safety-net:git reset --hard" \
  "pchalasani+claude-code-tools/plugins/safety-hooks:rm -rf build" \
  "davepoon+buildwithclaude/plugins/project-boundary:rm -rf ../other"; do
  pl="${g%%:*}" cmd="${g#*:}"
  UBQ_STEPS="[{\"toolCalls\":[{\"toolName\":\"Bash\",\"input\":{\"command\":\"$cmd\"}}]}]" \
    ubq "guard-$(basename "$pl")" "$P" run --compat claude --allowedTools Bash --plugin-dir "$CO/$pl" -p "go"
done

# 9. dex-it's run-claude/settings.json deny rules, on the files they name (Read pre-approved, so only a deny stops it).
project denies
mkdir -p "$P/.claude" "$P/sub" "$P/secrets" "$P/run-claude" && cp "$CO/dex-it+claude-code-marketplace/run-claude/settings.json" "$P/.claude/settings.json"
for f in .env sub/.env.local server.key sub/cert.pem secrets/token run-claude/notes.md ok.txt; do echo "secret in $f" > "$P/$f"; done
steps='['; for f in .env sub/.env.local server.key sub/cert.pem secrets/token run-claude/notes.md ok.txt; do steps="$steps{\"toolCalls\":[{\"toolName\":\"Read\",\"input\":{\"file_path\":\"$f\"}}]},"; done
UBQ_STEPS="${steps%,}]" ubq denies "$P" run --compat claude --allowedTools Read -p "read them"

# 10. beads' skill (allowed-tools "Read,Bash(bd:*)") loaded through the Skill tool, then a `bd` call it pre-approves.
project skill
UBQ_STEPS='[{"toolCalls":[{"toolName":"Skill","input":{"skill":"beads:beads"}}]},{"toolCalls":[{"toolName":"Bash","input":{"command":"bd ready"}}]}]' \
  ubq skill-beads "$P" run --compat claude --plugin-dir "$CO/steveyegge+beads/plugins/beads" -p "what is ready"

# 11. Codex: beads' AGENTS.md hierarchy (root, then cmd/bd) and its Codex plugin (.codex-plugin/plugin.json).
project codex
cp "$CO/steveyegge+beads/AGENTS.md" "$P/" && mkdir -p "$P/cmd/bd" && cp "$CO/steveyegge+beads/cmd/bd/AGENTS.md" "$P/cmd/bd/"
ubq codex-agents-nested "$P/cmd/bd" run --compat codex -p "hello"
ubq codex-plugin-beads "$P" run --compat codex --plugin-dir "$CO/steveyegge+beads/plugins/beads" -p "hello"
