#!/usr/bin/env bash
# Round u (docs/guide/compat-survey.md): real files of sample-u.tsv run through the built bin with a
# scripted model, each project in a temp folder with its own HOME. Needs `npx unbuild` first and
# checkouts of the sampled repositories under $CO (`git archive HEAD | tar -x`, one folder per
# repository named owner+name). Prints, per run, the exit code, stderr and what the model was sent.
#   bash bench/compat-survey/bin-u.sh <checkouts> [run-name]
ROUND=u
. "$(dirname "$0")/bin-lib.sh"

# 1. Donchitos/Claude-Code-Game-Studios: its whole .claude (statusLine; SessionStart, Notification, PreCompact,
#    PostCompact, SubagentStart/Stop hooks; `Bash(git status*)`-style allow rules and `Bash(rm -rf *)`,
#    `Read(**/.env*)` deny rules; 49 agents with maxTurns; skills with `user-invocable`, `argument-hint`, `model`).
project donchitos
D="$CO/Donchitos+Claude-Code-Game-Studios"; cp -r "$D/.claude" "$D/CLAUDE.md" "$D/docs" "$P/"; echo "SECRET=1" > "$P/.env"; mkdir -p "$P/build"
UBQ_STEPS='[{"toolCalls":[{"toolName":"Bash","input":{"command":"git status --short"}}]},{"toolCalls":[{"toolName":"Bash","input":{"command":"rm -rf build"}}]},{"toolCalls":[{"toolName":"Read","input":{"file_path":".env"}}]}]' \
  ubq donchitos-rules "$P" run --compat claude -p "look around"
[ -z "$ONLY" ] || [ "$ONLY" = donchitos-rules ] && { [ -d "$P/build" ] && echo "build/ still there" || echo "build/ REMOVED"; }
ubq donchitos-skill "$P" run --compat claude -p "/brainstorm roguelike --review lean"
UBQ_STEPS='[{"toolCalls":[{"toolName":"Task","input":{"subagent_type":"accessibility-specialist","description":"review","prompt":"review the UI"}}]}]' \
  ubq donchitos-agent "$P" run --compat claude -p "get the accessibility review"

# 2. CodySwannGT/lisa: .claude (settings with attribution, plansDirectory, extraKnownMarketplaces, enabledPlugins of
#    an unknown marketplace; nested commands lisa/*.md; skills), CLAUDE.md.
project lisa
D="$CO/CodySwannGT+lisa"; cp -r "$D/.claude" "$P/"; cp "$D/CLAUDE.md" "$P/" 2>/dev/null; [ -f "$D/AGENTS.md" ] && cp "$D/AGENTS.md" "$P/"
mkdir -p "$P/scripts" && cp -r "$D/scripts/lisa-enforcement-fallback.sh" "$P/scripts/" 2>/dev/null
ubq lisa-cmd "$P" run --compat claude -p "/lisa:codex-parity hooks"
UBQ_STEPS='[{"toolCalls":[{"toolName":"Read","input":{"file_path":".entire/metadata/x.json"}}]}]' \
  ubq lisa-deny "$P" run --compat claude -p "read the metadata"

# 3. anthropics/claude-cookbooks: commands with allowed-tools `Bash(gh pr comment:*)` and $ARGUMENTS.
project cookbooks
mkdir -p "$P/.claude" && cp -r "$CO/anthropics+claude-cookbooks/.claude/commands" "$P/.claude/"
ubq cookbooks-model-check "$P" run --compat claude -p "/model-check"
ubq cookbooks-link-review "$P" run --compat claude -p "/link-review README.md"

# 4. melodic-software: .claude (bypassPermissions, bare-name allow rules, env of hook switches, output styles,
#    commands), and its plugins as published (--plugin-dir).
project melodic
D="$CO/melodic-software+claude-code-plugins"; cp -r "$D/.claude" "$D/CLAUDE.md" "$P/"
ubq melodic-settings "$P" run --compat claude -p "hello"
for pl in claude-code-observability code-quality response-quality claude-ecosystem; do
  ubq "melodic-$pl" "$P" run --compat claude --plugin-dir "$D/plugins/$pl" -p "fix the bug"
done

# 5. L3DigitalNet: its .claude (SessionStart matcher `startup|resume|clear|compact`, python hook under .agents),
#    the home-assistant-dev plugin (hooks with ${CLAUDE_PLUGIN_ROOT}, commands, agents, 30 skills).
project l3
D="$CO/L3DigitalNet+Claude-Code-Plugins"; cp -r "$D/.claude" "$D/.agents" "$P/"; cp "$D/CLAUDE.md" "$P/" 2>/dev/null
ubq l3-settings "$P" run --compat claude -p "hello"
ubq l3-plugin "$P" run --compat claude --plugin-dir "$D/plugins/home-assistant-dev" -p "write an integration"
for c in "$D"/plugins/home-assistant-dev/commands/*.md; do n=$(basename "$c" .md)
  ubq "l3-cmd-$n" "$P" run --compat claude --plugin-dir "$D/plugins/home-assistant-dev" -p "/home-assistant-dev:$n my_integration"; done

# 6. gtapps/claude-code-hermit: .claude (Bash rules with `*` inside, absolute-path hook commands), its dev plugin.
project hermit
D="$CO/gtapps+claude-code-hermit"; cp -r "$D/.claude" "$P/"; cp "$D/CLAUDE.md" "$P/" 2>/dev/null
ubq hermit-settings "$P" run --compat claude -p "hello"
ubq hermit-plugin "$P" run --compat claude --plugin-dir "$D/plugins/claude-code-dev-hermit" -p "fix the test"
ubq hermit-root-plugin "$P" run --compat claude --plugin-dir "$D" -p "hello"

# 7. scotthamilton77/claude-code-sidekick: .claude (PreCompact/SessionStart `bd prime`), its plugin package.
project sidekick
D="$CO/scotthamilton77+claude-code-sidekick"; cp -r "$D/.claude" "$P/"; cp "$D/CLAUDE.md" "$P/" 2>/dev/null
ubq sidekick-settings "$P" run --compat claude -p "hello"
ubq sidekick-plugin "$P" run --compat claude --plugin-dir "$D/packages/sidekick-plugin" -p "hello"

# 8. swt-labs/vbw: the plugin as published (26 commands named `vbw:x` in frontmatter, disable-model-invocation,
#    hooks that find their wrapper from ${CLAUDE_PLUGIN_ROOT}), then its commands.
project vbw
D="$CO/swt-labs+vibe-better-with-claude-code-vbw"
ubq vbw-plugin "$P" run --compat claude --plugin-dir "$D" -p "hello"
ubq vbw-fix "$P" run --compat claude --plugin-dir "$D" -p "/vbw:fix typo in README"
ubq vbw-help "$P" run --compat claude --plugin-dir "$D" -p "/vbw:help"
UBQ_STEPS='[{"toolCalls":[{"toolName":"Write","input":{"file_path":"notes.md","content":"# x\n"}}]}]' \
  ubq vbw-hooks "$P" run --compat claude --plugin-dir "$D" --allowedTools Write -p "write notes"

# 9. tdimino/claude-code-minoan: its commands and agents copied where Claude Code reads them.
project minoan
D="$CO/tdimino+claude-code-minoan"; mkdir -p "$P/.claude"; cp -r "$D/commands" "$D/agents" "$P/.claude/"; rm -rf "$P/.claude/commands/_archive"
ubq minoan "$P" run --compat claude -p "hello"

# 10. thomasvan/claude-code-toolkit: .claude/settings.json (effortLevel max, hooks under $HOME/.claude/hooks that
#     this HOME lacks), 44 agents (folders with references/).
project thomasvan
D="$CO/thomasvan+claude-code-toolkit"; cp -r "$D/.claude" "$P/"; mkdir -p "$P/.claude/agents"; cp "$D"/agents/*.md "$P/.claude/agents/"
ubq thomasvan "$P" run --compat claude -p "hello"

# 11. auerbachb/claude-code-config: agents, skills and CLAUDE.md.
project auerbachb
D="$CO/auerbachb+claude-code-config"; cp -r "$D/.claude" "$P/"; cp "$D/CLAUDE.md" "$P/" 2>/dev/null
ubq auerbachb "$P" run --compat claude -p "hello"
ubq auerbachb-standup "$P" run --compat claude -p "/standup"

# 12. Edmonds-Commerce-Limited/claude-code-hooks-daemon: every event with no matcher, statusLine, settings.local.json.
project edmonds
D="$CO/Edmonds-Commerce-Limited+claude-code-hooks-daemon"; cp -r "$D/.claude" "$D/CLAUDE.md" "$P/"
ubq edmonds "$P" run --compat claude -p "hello"

# 13. intelligentcode-ai: its skills (src/skills) as project skills.
project icc
mkdir -p "$P/.claude/skills" && cp -r "$CO/intelligentcode-ai+intelligent-claude-code/src/skills/"* "$P/.claude/skills/"
ubq icc "$P" run --compat claude -p "hello"

# 14. cowwoc/claude-code-cat (source-available: surveyed, not copied): the plugin folder as published, then added from
#     its marketplace (`{"name": "cat", "source": "./plugin"}`, no .claude-plugin/plugin.json) and its skill loaded as cat:….
#     (Its hooks, now in $P/home/.ubiquity/plugins, fail in the sandbox here: a HOME under /tmp is covered by the
#     private /tmp; with a HOME elsewhere they run — test/compat/survey-u-fixes.test.ts.)
project cat
ubq cat-plugin "$P" run --compat claude --plugin-dir "$CO/cowwoc+claude-code-cat/plugin" -p "hello"
(cd "$P" && HOME="$P/home" "$NODE" "$WT/bin/ubiquity.mjs" plugin add "$CO/cowwoc+claude-code-cat" cat)
UBQ_STEPS='[{"toolCalls":[{"toolName":"Skill","input":{"skill":"cat:get-session-id"}}]}]' \
  ubq cat-marketplace "$P" run --compat claude -p "hello"

# 15. Codex: jonhill90/vibes' .codex/config.toml (keys after an [mcp_servers.x] table belong to it), its prompts
#     AGENTS.md; EldoDebug/agentfiles' config; nathanvale's .codex.
project vibes
D="$CO/jonhill90+vibes"; mkdir -p "$P/.codex"; cp "$D/.codex/config.toml" "$P/.codex/"; cp -r "$D/.codex/rules" "$P/.codex/"
cp "$D/AGENTS.md" "$D/CLAUDE.md" "$P/" 2>/dev/null
ubq vibes "$P" run --compat codex -p "hello"
project eldo
# EldoDebug/agentfiles is a ~/.claude folder: settings.json (bypassPermissions, language, alwaysThinkingEnabled,
# plugins of the official marketplace), CLAUDE.md, an agent.
mkdir -p "$P/home/.claude"; cp -r "$CO/EldoDebug+agentfiles/"* "$P/home/.claude/"
UBQ_STEPS='[{"toolCalls":[{"toolName":"Bash","input":{"command":"ls"}}]}]' ubq eldo "$P" run --compat claude -p "hello"
# nathanvale/claude-code-config: a ~/.claude folder too (agents, commands, skills, CLAUDE.md `@AGENTS.md`), and a
# project .codex/config.toml (sandbox_mode danger-full-access, three stdio MCP servers), .codex/hooks.json, .mcp.json.
project nathanvale
D="$CO/nathanvale+claude-code-config"; cp -r "$D/.codex" "$D/.mcp.json" "$D/AGENTS.md" "$D/CLAUDE.md" "$P/"
ubq nathanvale-codex "$P" run --compat codex -p "hello"
mkdir -p "$P/home/.claude"; cp -r "$D/agents" "$D/commands" "$D/CLAUDE.md" "$D/AGENTS.md" "$P/home/.claude/"; mkdir -p "$P/home/.claude/skills"
for s in "$D"/skills/*/; do [ -f "$s/SKILL.md" ] && cp -r "$s" "$P/home/.claude/skills/"; done
ubq nathanvale-claude "$P" run --compat claude -p "hello"
