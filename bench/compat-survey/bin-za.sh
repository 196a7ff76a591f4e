#!/usr/bin/env bash
# Round za (docs/guide/compat-survey.md): real files of sample-za.tsv run through the built bin with a
# scripted model, each project in a temp folder with its own HOME. Needs `npx unbuild` first and
# checkouts of the sampled repositories under $CO (one folder per repository named owner+name). Files are
# put where each repository's own install instructions (or its layout, for dotfiles kept as a home folder)
# put them. Prints, per run, the exit code, stderr and what the model got.
#   bash bench/compat-survey/bin-za.sh <checkouts> [run-name] > runs.txt
# The checkouts are `git archive` exports (of the folders the runs use, for repositories holding files too large for a
# snapshot): each at its newest stored snapshot, LumenYoung/dotfiles at 13d0ca38b0af2979980b7cfce6480d3262be73e7 (the
# commit that still has its profiles and its HTTP server). <checkouts>/commits.txt lists `owner+name commit` lines
# for classify-za.py.
ROUND=za
. "$(dirname "$0")/bin-lib.sh"
call() { printf '[{"toolCalls":[{"toolName":"%s","input":%s}]}]' "$1" "$2"; }
agent() { printf '[{"toolCalls":[{"toolName":"Agent","input":{"subagent_type":"%s","description":"q","prompt":"answer"}}]}]' "$1"; }
home() { local d="$CO/$1"; shift; for p in "$@"; do [ -e "$d/$p" ] && (cd "$d" && cp -a --parents "$p" "$P/home/"); done; }
# installed <home> <marketplace> <plugin folders…> : ~/.claude/plugins/installed_plugins.json as `/plugin install` leaves it.
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
# plugins <marketplace folder> : --plugin-dir for each plugin its marketplace.json lists (relative sources).
plugins() {
  python3 - "$1" <<'PY'
import json, os, sys
root = sys.argv[1]
m = json.load(open(os.path.join(root, ".claude-plugin/marketplace.json")))
for p in m.get("core", []) + m["plugins"]:
    s = p.get("source")
    if isinstance(s, str) and s.startswith("./") and os.path.isdir(os.path.join(root, s)):
        print("--plugin-dir"); print(os.path.normpath(os.path.join(root, s)))
PY
}

# 1. FanaHOVA/dot-files: a home folder: ~/.codex/config.toml (approval_policy never, danger-full-access, an HTTP and a
#    stdio MCP server, [plugins."x@openai-curated"]), ~/.codex/instructions.md, ~/.codex/rules/default.rules (prefix
#    rules, some whole `zsh -lc` scripts), ~/.claude/settings.json (defaultMode auto, empty hook groups, enabledPlugins).
project fana
home FanaHOVA+dot-files .codex .claude
ubq fana-codex "$P" run --compat codex -p "hello"
UBQ_STEPS="$(call Bash '{"command":"git add a.txt"}')" ubq fana-rule "$P" run --compat codex -p "stage"
UBQ_STEPS="$(call Bash '{"command":"git status"}')" ubq fana-norule "$P" run --compat codex -p "status"
ubq fana-claude "$P" run --compat claude -p "hello"

# 2. Dbochman/dotfiles: a home folder: ~/.codex (config.toml with [shell_environment_policy] inherit core + set,
#    profiles/<name>.config.toml with [model_providers.groq], rules, AGENTS.md) and ~/.claude (settings.json with env,
#    deny rules, defaultMode bypassPermissions, a Node PreToolUse hook, statusLine; CLAUDE.md, commands, skills, rules).
project dbo
home Dbochman+dotfiles .codex .claude
ubq dbo-codex "$P" run --compat codex -p "hello"
UBQ_STEPS="$(call Bash '{"command":"echo T=$CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS D=$DISABLE_AUTOUPDATER"}')" ubq dbo-env "$P" run --compat codex --permission-mode bypassPermissions -p "env"
ubq dbo-claude "$P" run --compat claude -p "hello"
UBQ_STEPS="$(call Bash '{"command":"rm -rf build"}')" ubq dbo-rm "$P" run --compat claude -p "clean"
UBQ_STEPS="$(call Bash '{"command":"ls"}')" ubq dbo-ls "$P" run --compat claude -p "list"
ubq dbo-cmd "$P" run --compat claude -p "/rams src/app.tsx"
UBQ_STEPS="$(call Skill '{"skill":"humanizer"}')" ubq dbo-skill "$P" run --compat claude -p "humanize"

# 3. HouseinIsProgramming/dotfiles-housein: ~/.claude (settings.json: 1,000 permission rules, outputStyle Explanatory,
#    Bun and Python PreToolUse guards on Bash, attribution, enabledPlugins), commands, skills; ~/.codex/AGENTS.md.
project hou
home HouseinIsProgramming+dotfiles-housein .claude .codex
printf 'SECRET=1\n' > "$P/.env"
ubq hou-claude "$P" run --compat claude -p "hello"
UBQ_STEPS="$(call Bash '{"command":"cat .env"}')" ubq hou-env "$P" run --compat claude -p "show"
UBQ_STEPS="$(call Bash '{"command":"git push origin main"}')" ubq hou-push "$P" run --compat claude -p "push"
ubq hou-cmd "$P" run --compat claude -p "/tdd add a parser"
ubq hou-codex "$P" run --compat codex -p "hello"

# 4. MikeMcQuaid/dotfiles: script/setup links claude/* into ~/.claude and codex/* into ~/.codex (hooks.json only under
#    Superset, so left out), AGENTS-GLOBAL.md as ~/.claude/CLAUDE.md and ~/.codex/AGENTS.md, and merges
#    codex/statusline.config.toml into ~/.codex/config.toml.
project mik
D="$CO/MikeMcQuaid+dotfiles"
mkdir -p "$P/home/.claude" "$P/home/.codex/rules"
cp "$D/claude/"* "$P/home/.claude/"; cp "$D/codex/rules/default.rules" "$P/home/.codex/rules/"
cp "$D/codex/statusline.config.toml" "$P/home/.codex/config.toml"
cp "$D/AGENTS-GLOBAL.md" "$P/home/.claude/CLAUDE.md"; cp "$D/AGENTS-GLOBAL.md" "$P/home/.codex/AGENTS.md"
cp "$D/AGENTS.md" "$P/AGENTS.md"
ubq mik-codex "$P" run --compat codex -p "hello"
UBQ_STEPS="$(call Bash '{"command":"git push origin main"}')" ubq mik-push "$P" run --compat codex --permission-mode bypassPermissions -p "push"
ubq mik-claude "$P" run --compat claude -p "hello"
UBQ_STEPS="$(call Bash '{"command":"git push"}')" ubq mik-cpush "$P" run --compat claude -p "push"
UBQ_STEPS="$(call Write '{"file_path":"'"$P"'/x.txt","content":"x"}')" ubq mik-write "$P" run --compat claude -p "write"
cp "$D/codex/hooks.json" "$P/home/.codex/hooks.json"
ubq mik-hooks "$P" run --compat codex -p "hello"

# 5. chan-jui-huang/ai-agent-template: a project template: .codex/config.toml (approval never, workspace-write, a
#    stdio MCP server), .codex/prompts, .agents/skills, .claude/settings.json (acceptEdits, `Bash(x:*)` rules,
#    SlashCommand rule), AGENTS.md and CLAUDE.md.
project cha
cp -a "$CO/chan-jui-huang+ai-agent-template"/. "$P/"; git -C "$P" add -A >/dev/null; git -C "$P" commit -q -m init
ubq cha-codex "$P" run --compat codex -p "hello"
ubq cha-prompt "$P" run --compat codex -p "/prompts:erd schema.sql to erd.mmd"
mkdir -p "$P/home/.codex"; cp -a "$P/.codex/prompts" "$P/home/.codex/prompts"
ubq cha-prompt-home "$P" run --compat codex -p "/prompts:erd schema.sql to erd.mmd"
UBQ_STEPS="$(call Skill '{"skill":"commit"}')" ubq cha-skill "$P" run --compat codex -p "commit"
ubq cha-claude "$P" run --compat claude -p "hello"
UBQ_STEPS="$(call Bash '{"command":"git status"}')" ubq cha-cbash "$P" run --compat claude -p "status"

# 6. jeanlucthumm/dotfiles (yadm, so a home folder): ~/.claude (CLAUDE.md, commands, Python hook, skills,
#    statusline-command.sh), ~/.codex/prompts, ~/.agents/skills; nix/ as a project (.claude/settings.json, .mcp.json,
#    AGENTS.md, CLAUDE.md, .claude/rules).
project jea
home jeanlucthumm+dotfiles .claude .codex .agents
cp -a "$CO/jeanlucthumm+dotfiles/nix"/. "$P/"
ubq jea-claude "$P" run --compat claude -p "hello"
ubq jea-cmd "$P" run --compat claude -p "/tldr"
mkdir -p "$P/home/programs/nushell"; printf 'let x = 1\n' > "$P/home/programs/nushell/config.nu"
UBQ_STEPS="$(call Read '{"file_path":"'"$P"'/home/programs/nushell/config.nu"}')" ubq jea-rule "$P" run --compat claude -p "read"
ubq jea-codex "$P" run --compat codex -p "hello"
ubq jea-prompt "$P" run --compat codex -p "/prompts:commit"
UBQ_STEPS="$(call Skill '{"skill":"find-skills"}')" ubq jea-skill "$P" run --compat codex -p "find"

# 7. AdamRamberg/claude-code-statusline: the repository as the project (.claude/settings.json statusLine with a
#    relative command and padding).
project ada
cp -a "$CO/AdamRamberg+claude-code-statusline"/. "$P/"
ubq ada "$P" run --compat claude -p "hello"

# 8-10. Marketplaces: fusengine/agents (26 plugins, a `core` list beside `plugins`, Bun harness hooks, Python hooks),
#    lukaskellerstein/claude-dev-marketplace (7 plugins), nsalvacao/nsalvacao-claude-code-plugins (plugins with skills,
#    agents, commands, hooks).
for m in fusengine+agents lukaskellerstein+claude-dev-marketplace nsalvacao+nsalvacao-claude-code-plugins; do
  n="${m%%+*}"; n="${n:0:4}"
  project "$n"
  mapfile -t args < <(plugins "$CO/$m")
  ubq "$n" "$P" run --compat claude "${args[@]}" -p "hello"
  UBQ_STEPS="$(call Bash '{"command":"git status"}')" ubq "$n-bash" "$P" run --compat claude --permission-mode bypassPermissions "${args[@]}" -p "status"
done

# 11. LumenYoung/dotfiles (its propogate_dotfiles.py links codex/ to ~/.codex; the commit with the profiles): config.toml
#     (Codex's annotated example: [profiles.*] with model_provider, [model_providers.*] with env_key and wire_api, a
#     streamable HTTP MCP server with bearer_token_env_var, [shell_environment_policy] inherit all, [history], [otel]),
#     AGENTS.md, prompts, skills (with .system).
project lum
mkdir -p "$P/home/.codex"; cp -a "$CO/LumenYoung+dotfiles/codex"/. "$P/home/.codex/"
ubq lum-codex "$P" run --compat codex -p "hello"
OPENSPACE_MCP_TOKEN=tok-za-secret ubq lum-token "$P" run --compat codex -p "hello"
ubq lum-profile "$P" run --compat codex --profile quick -p "hello"
ubq lum-prompt "$P" run --compat codex -p "/prompts:opsx-explore caching"
UBQ_STEPS="$(call Skill '{"skill":"mcp2cli"}')" ubq lum-skill "$P" run --compat codex -p "mcp"

# 12. GLaDO8/dotfiles (stow-style: claude/ is ~/.claude, codex/ is ~/.codex, agents/skills is ~/.agents/skills):
#     settings.json (env with ANTHROPIC_* provider settings, mcp__* allow rules, a PermissionRequest prompt hook with a
#     model, deny rules, acceptEdits), hooks, rules, statusline; codex/config.toml (per-tool approval_mode,
#     [[skills.config]] enabled = false, [marketplaces], [plugins]).
project gla
D="$CO/GLaDO8+dotfiles"
mkdir -p "$P/home/.agents"; cp -a "$D/claude" "$P/home/.claude"; cp -a "$D/codex" "$P/home/.codex"; cp -a "$D/agents/skills" "$P/home/.agents/skills"
# Its [[skills.config]] paths name the owner's home: the temp HOME stands in for it (the one change to the file).
sed -i "s#/Users/shreyasgupta/#$P/home/#g" "$P/home/.codex/config.toml"
ubq gla-claude "$P" run --compat claude -p "hello"
UBQ_STEPS="$(call Bash '{"command":"git commit -m x"}')" ubq gla-commit "$P" run --compat claude -p "commit"
UBQ_STEPS="$(call Bash '{"command":"rm -rf ~/x"}')" ubq gla-rm "$P" run --compat claude -p "clean"
ubq gla-codex "$P" run --compat codex -p "hello"
UBQ_STEPS="$(call Skill '{"skill":"backup"}')" ubq gla-skill "$P" run --compat codex -p "backup"
UBQ_STEPS="$(call Skill '{"skill":"find-skills"}')" ubq gla-skill-on "$P" run --compat codex -p "find"

# 13. nakatanakatana/dotfiles (chezmoi, plain files): ~/.codex/config.toml (hooks in the config file itself:
#     [[hooks.PermissionRequest]], [features] hooks, [plugins], [tui] status_line), rules; ~/.claude/settings.json
#     (`Bash(x*)` rules, a deny rule on npx); ~/.agents (AGENTS.md, skills).
project nak
D="$CO/nakatanakatana+dotfiles"
mkdir -p "$P/home/.codex" "$P/home/.claude" "$P/home/.agents"
cp -a "$D/dot_codex/config.toml" "$D/dot_codex/rules" "$P/home/.codex/"; cp -a "$D/dot_claude"/. "$P/home/.claude/"; cp -a "$D/dot_agents"/. "$P/home/.agents/"
# dot_codex/AGENTS.md.tmpl is `{{ include "dot_agents/AGENTS.md" }}`: rendered as chezmoi renders it.
cp "$D/dot_agents/AGENTS.md" "$P/home/.codex/AGENTS.md"
ubq nak-codex "$P" run --compat codex -p "hello"
UBQ_STEPS="$(call Bash '{"command":"git push origin main"}')" ubq nak-push "$P" run --compat codex -p "push"
ubq nak-claude "$P" run --compat claude -p "hello"
UBQ_STEPS="$(call Bash '{"command":"npx cowsay hi"}')" ubq nak-npx "$P" run --compat claude -p "npx"

# 14. sdui-hq/ai-marketplace: a team's repository that is its own marketplace: .claude/settings.json (sandbox enabled with
#     autoAllowBashIfSandboxed, enabledPlugins of its marketplace, Read/Edit/Bash rules, companyAnnouncements, env), its
#     plugins (Python PreToolUse guard and Stop lint hook with ${CLAUDE_PLUGIN_ROOT}), installed as /plugin install does.
project sdu
D="$CO/sdui-hq+ai-marketplace"
cp -a "$D"/. "$P/"; git -C "$P" add -A >/dev/null; git -C "$P" commit -q -m init
installed "$P/home" sdui-marketplace $(ls -d "$D"/plugins/*)
ubq sdu "$P" run --compat claude -p "hello"
UBQ_STEPS="$(call Bash '{"command":"rm -rf /"}')" ubq sdu-rm "$P" run --compat claude -p "clean"
UBQ_STEPS="$(call Bash '{"command":"git log --oneline"}')" ubq sdu-git "$P" run --compat claude -p "log"
UBQ_STEPS="$(call Read '{"file_path":"'"$P"'/.env.local"}')" ubq sdu-env "$P" run --compat claude -p "read"

# 15. xexi/glass_claude: "safest settings": .claude/settings.json (Read deny globs, Bash deny rules with `*` inside the
#     command (`Bash(python3*-c:*)`, `Bash(*find*-delete*:*)`), sandbox without auto-allow or escape hatch,
#     enabledMcpjsonServers []).
project gls
cp -a "$CO/xexi+glass_claude"/. "$P/"; printf 'K=1\n' > "$P/.env"
ubq gls "$P" run --compat claude -p "hello"
UBQ_STEPS="$(call Bash '{"command":"python3 -c \"print(1)\""}')" ubq gls-py "$P" run --compat claude --permission-mode bypassPermissions -p "py"
UBQ_STEPS="$(call Bash '{"command":"find . -name x -delete"}')" ubq gls-find "$P" run --compat claude --permission-mode bypassPermissions -p "find"
UBQ_STEPS="$(call Read '{"file_path":"'"$P"'/.env"}')" ubq gls-env "$P" run --compat claude --permission-mode bypassPermissions -p "read"

# 16. Dai5297/harness-engineer-codex (MIT): AGENTS.override.md (no AGENTS.md), .codex/config.toml ([agents] limits),
#     five custom agents in .codex/agents/*.toml (sandbox_mode, model_reasoning_effort, nickname_candidates), CLAUDE.md.
project dai
cp -a "$CO/Dai5297+harness-engineer-codex"/. "$P/"; git -C "$P" add -A >/dev/null; git -C "$P" commit -q -m init
ubq dai-codex "$P" run --compat codex -p "hello"
UBQ_STEPS="$(agent planner)" ubq dai-agent "$P" run --compat codex -p "delegate"
ubq dai-sub "$P/src" run --config "$P/ubiquity.config.mjs" --compat codex -p "hello"
ubq dai-claude "$P" run --compat claude -p "hello"

# 17. decider/claude-hooks (MIT): the repository as the project (its README's setup is the repository's own
#     .claude/settings.json): Python dispatchers on PreToolUse/PostToolUse (Write|Edit|MultiEdit) and Stop, run from the
#     project folder (`python3 hooks/…`), that read .claude/hooks.json and pass a validator's exit 2 and stdout JSON on.
project dec
cp -a "$CO/decider+claude-hooks"/. "$P/"; git -C "$P" add -A >/dev/null; git -C "$P" commit -q -m init
ubq dec "$P" run --compat claude -p "hello"
long="x = 1  # $(printf 'y%.0s' $(seq 1 150))"
UBQ_STEPS="$(call Write '{"file_path":"'"$P"'/long.py","content":"'"$long"'\n"}')" ubq dec-write "$P" run --compat claude --permission-mode acceptEdits -p "write"
UBQ_STEPS="$(call Write '{"file_path":"'"$P"'/ok.py","content":"x = 1\n"}')" ubq dec-ok "$P" run --compat claude --permission-mode acceptEdits -p "write"
