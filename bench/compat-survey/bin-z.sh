#!/usr/bin/env bash
# Round z (docs/guide/compat-survey.md): real files of sample-z.tsv run through the built bin with a
# scripted model, each project in a temp folder with its own HOME. Needs `npx unbuild` first and
# checkouts of the sampled repositories under $CO (one folder per repository named owner+name). Files are
# put where each repository's own install instructions put them (said per project below). Prints, per run,
# the exit code, stderr and what the model got.
#   bash bench/compat-survey/bin-z.sh <checkouts> [run-name] > runs.txt
ROUND=z
. "$(dirname "$0")/bin-lib.sh"
HERE="$(cd "$(dirname "$0")" && pwd)"
copy() { local d="$CO/$1"; shift; for p in "$@"; do if [ -e "$d/$p" ] || [ -L "$d/$p" ]; then (cd "$d" && cp -a --parents "$p" "$P/"); fi; done; }
chez() { python3 "$HERE/chezmoi-lay.py" "$CO/$1/$2" "$P/home${3:+/$3}" 2>/dev/null; }
call() { printf '[{"toolCalls":[{"toolName":"%s","input":%s}]}]' "$1" "$2"; }
agent() { printf '[{"toolCalls":[{"toolName":"Agent","input":{"subagent_type":"%s","description":"q","prompt":"answer"}}]}]' "$1"; }
# plugins <marketplace folder> : --plugin-dir for each plugin its marketplace.json lists (relative sources).
plugins() {
  python3 - "$1" <<'PY'
import json, os, sys
root = sys.argv[1]
m = json.load(open(os.path.join(root, ".claude-plugin/marketplace.json")))
for p in m["plugins"]:
    s = p.get("source")
    if isinstance(s, str) and s.startswith("./"):
        print("--plugin-dir"); print(os.path.normpath(os.path.join(root, s)))
PY
}

# 1. Dev-GOM/claude-code-marketplace: 9 plugins (6 with Node hooks on SessionStart/PostToolUse/Stop, one of which
#    commits the project on Stop; spec-kit commands with argument-hint and allowed-tools as a list; agents).
project dev
D="$CO/Dev-GOM+claude-code-marketplace"
mapfile -t args < <(plugins "$D")
printf 'x\n' > "$P/a.txt"; git -C "$P" add -A; git -C "$P" commit -q -m init
printf '[user]\n\tname = U\n\temail = u@example.com\n' > "$P/home/.gitconfig" # the user's identity, for the backup hook's commit
ubq dev "$P" run --compat claude "${args[@]}" -p "hello"
UBQ_STEPS="$(call Write '{"file_path":"'"$P"'/src/app.js","content":"// TODO: z\nfunction f(a){ if(a){ return 1 } return 2 }\n"}')" ubq dev-write "$P" run --compat claude --permission-mode bypassPermissions "${args[@]}" -p "write"
UBQ_STEPS="$(call Bash '{"command":"git status"}')" ubq dev-bash "$P" run --compat claude --permission-mode bypassPermissions "${args[@]}" -p "status"
ubq dev-cmd "$P" run --compat claude "${args[@]}" -p "/spec-kit:plan a todo app"
UBQ_STEPS="$(agent ai-pair-programming:code-reviewer)" ubq dev-agent "$P" run --compat claude "${args[@]}" -p "delegate"
git -C "$P" log --oneline | head -5

# 2. JosiahSiegel/claude-code-marketplace: 16 plugins (skills, agents with `model: inherit` and colors, commands).
project jos
D="$CO/JosiahSiegel+claude-code-marketplace"
mapfile -t args < <(plugins "$D")
ubq jos "$P" run --compat claude "${args[@]}" -p "hello"
ubq jos-cmd "$P" run --compat claude "${args[@]}" -p "/git-master:git-safe-rebase main"
UBQ_STEPS="$(agent docker-master:docker-expert)" ubq jos-agent "$P" run --compat claude "${args[@]}" -p "delegate"

# 3. SerendipityOneInc/srp-claude-code-marketplace: 5 plugins (commands named `srp:x.md`, MCP servers in .mcp.json,
#    Notification/Stop hooks, a PreToolUse hook on an MCP tool).
project srp
D="$CO/SerendipityOneInc+srp-claude-code-marketplace"
mapfile -t args < <(plugins "$D")
ubq srp "$P" run --compat claude "${args[@]}" -p "hello"
ubq srp-cmd "$P" run --compat claude "${args[@]}" -p "/srp-developer:srp:gh"
ubq srp-cmd2 "$P" run --compat claude "${args[@]}" -p "/srp-allstaff:srp:weekly-report"
UBQ_STEPS="$(call Skill '{"skill":"example-hello-world:hello-world"}')" ubq srp-skill "$P" run --compat claude "${args[@]}" -p "hi"

# 4. ninthspace/claude-code-marketplace: 6 plugins (skills at a plugin's root, SessionStart matchers startup/resume/
#    compact/clear, PostCompact, an MCP server in plugin.json), its CLAUDE.md and .claude.
project nin
D="$CO/ninthspace+claude-code-marketplace"
copy ninthspace+claude-code-marketplace CLAUDE.md .claude
mapfile -t args < <(plugins "$D")
ubq nin "$P" run --compat claude "${args[@]}" -p "hello"
UBQ_STEPS="$(call Skill '{"skill":"noteplan:noteplan"}')" ubq nin-skill "$P" run --compat claude "${args[@]}" -p "notes"
ubq nin-cmd "$P" run --compat claude "${args[@]}" -p "/php-lsp:status"

# 5. secondsky/claude-skills: a marketplace of 144 plugins (187 skills with allowed-tools and scripts, 69 commands,
#    53 agents, a Bash PreToolUse guard, prompt hooks), its CLAUDE.md and AGENTS.md.
project sec
D="$CO/secondsky+claude-skills"
copy secondsky+claude-skills CLAUDE.md AGENTS.md .claude
mapfile -t args < <(plugins "$D")
ubq sec "$P" run --compat claude "${args[@]}" -p "hello"
UBQ_STEPS="$(call Bash '{"command":"npm install left-pad"}')" ubq sec-bash "$P" run --compat claude "${args[@]}" -p "install"
ubq sec-cmd "$P" run --compat claude "${args[@]}" -p "/bun:bun-init my-app"
UBQ_STEPS="$(agent bun:bun-troubleshooter)" ubq sec-agent "$P" run --compat claude "${args[@]}" -p "delegate"

# 6. rshah515/claude-code-subagents: 170 agents in category folders, cloned whole into ~/.claude/agents as its README
#    says (so its README.md, CLAUDE.md and CONTRIBUTING.md sit among the agents).
project rsh
mkdir -p "$P/home/.claude/agents"; cp -a "$CO/rshah515+claude-code-subagents" "$P/home/.claude/agents/comprehensive-agents"
ubq rsh "$P" run --compat claude -p "hello"
UBQ_STEPS="$(agent playwright-expert)" ubq rsh-agent "$P" run --compat claude -p "delegate"

# 7. ubehera/claude-agents-pro: 38 agents copied flat into .claude/agents (its install-agents.sh --project), its
#    commands in .claude/commands (`args:`, `tools:` and `model:` in commands, `!` lines), .mcp.json, the repository
#    as the project, meta-CLAUDE.md as ~/.claude/CLAUDE.md.
project ube
D="$CO/ubehera+claude-agents-pro"
cp -a "$D"/. "$P/"; mkdir -p "$P/.claude/agents" "$P/home/.claude"
find "$D/agents" -name '*.md' ! -name README.md ! -name TESTING.md ! -name AGENT_CHECKLIST.md -exec sh -c 'head -n1 "$1" | grep -q "^---$" && cp "$1" "$2/"' _ {} "$P/.claude/agents" \;
cp -a "$D/commands" "$P/.claude/commands"; cp "$D/meta-CLAUDE.md" "$P/home/.claude/CLAUDE.md"
git -C "$P" add -A >/dev/null; git -C "$P" commit -q -m init
ubq ube "$P" run --compat claude -p "hello"
ubq ube-cmd "$P" run --compat claude -p "/quality:verify-agents"
ubq ube-cmd2 "$P" run --compat claude -p "/quality:test src"
ubq ube-cmd3 "$P" run --compat claude -p "/verify-agents"
ubq ube-cmd4 "$P" run --compat claude -p "/test src"
UBQ_STEPS="$(agent typescript-architect)" ubq ube-agent "$P" run --compat claude -p "delegate"

# 8-9. openai/openai-agents-js and openai-agents-python: monorepos with AGENTS.md (CLAUDE.md a link to it) and 14-15
#    Codex skills in .agents/skills (scripts, references, agents/openai.yaml).
for r in js python; do
  project "oa$r"
  cp -a "$CO/openai+openai-agents-$r"/. "$P/"; git -C "$P" add -A >/dev/null; git -C "$P" commit -q -m init
  ubq "oa$r-codex" "$P" run --compat codex -p "hello"
  UBQ_STEPS="$(call Skill '{"skill":"code-change-verification"}')" ubq "oa$r-skill" "$P" run --compat codex -p "verify"
  ubq "oa$r-claude" "$P" run --compat claude -p "hello"
  sub="$P/src"; [ -d "$sub" ] || sub="$P/packages/agents-core"
  ubq "oa$r-sub" "$sub" run --config "$P/ubiquity.config.mjs" --compat codex -p "hello"
done

# 10. urmzd/dotfiles (chezmoi; modify_ scripts seed an empty file with .chezmoitemplates/*): ~/.codex/config.toml
#     (approval_policy, approvals_reviewer, [sandbox_workspace_write], [shell_environment_policy] inherit/exclude,
#     [agents]), profile files <name>.config.toml, three custom agents, ~/.claude/settings.json (defaultMode auto,
#     WorktreeCreate hooks), skills and agents of dot_agents put where its agentspec sync puts them.
project urm
D="$CO/urmzd+dotfiles"
chez urmzd+dotfiles dot_codex .codex; chez urmzd+dotfiles dot_claude .claude
cp "$D/.chezmoitemplates/codex-config.toml" "$P/home/.codex/config.toml"
cp "$D/.chezmoitemplates/claude-settings.json" "$P/home/.claude/settings.json"
chez urmzd+dotfiles dot_agents/skills .agents/skills; chez urmzd+dotfiles dot_agents/agents .claude/agents
git -C "$P" commit -q --allow-empty -m init
ubq urm-codex "$P" run --compat codex -p "hello"
UBQ_STEPS="$(call Bash '{"command":"env"}')" ubq urm-env "$P" run --compat codex --permission-mode bypassPermissions -p "env"
UBQ_STEPS="$(agent reviewer)" ubq urm-agent "$P" run --compat codex -p "delegate"
ubq urm-claude "$P" run --compat claude -p "hello"
UBQ_STEPS="$(call Write '{"file_path":"'"$P"'/x.txt","content":"x"}')" ubq urm-profile "$P" run --compat codex --profile plan -p "write"

# 11. kossnocorp/dotfiles (chezmoi): ~/.codex/config.toml.tmpl ([sandbox_workspace_write], shell_environment_policy
#     `set` with a "${HOME}" Codex does not expand), rendered on a machine that is no dev container (the else branch).
project kos
mkdir -p "$P/home/.codex"
python3 - "$CO/kossnocorp+dotfiles/dot_codex/config.toml.tmpl" "$P/home/.codex/config.toml" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
t = re.sub(r"\{\{-? \$\w+ :=.*?-?\}\}\n?", "", t)
t = re.sub(r"\{\{-? if .*?\}\}(.*?)\{\{-? else \}\}(.*?)\{\{-? end \}\}", r"\2", t, flags=re.S)
assert "{{" not in t, t
open(sys.argv[2], "w").write(t)
PY
git -C "$P" commit -q --allow-empty -m init
UBQ_STEPS="$(call Bash '{"command":"echo AGENT=$AGENT GIT=$GIT_CONFIG_GLOBAL"}')" ubq kos "$P" run --compat codex --permission-mode bypassPermissions -p "env"

# 12. Drew-Daniels/dotfiles (chezmoi): ~/.codex (AGENTS.md, a prompt, skills).
project drw
chez Drew-Daniels+dotfiles dot_codex .codex
ubq drw "$P" run --compat codex -p "hello"
ubq drw-prompt "$P" run --compat codex -p "/prompts:draftpr"
ubq drw-prompt2 "$P" run --compat codex -p '/prompts:draftpr FILES=a.txt PR_TITLE="Add a"' 

# 13. 86d-app/86d: a Bun monorepo with 115 AGENTS.md (the root's, one per module and package): Codex reads those from
#     the repository's root down to the folder it runs in, root first.
project m86
cp -a "$CO/86d-app+86d"/. "$P/"; git -C "$P" add -A >/dev/null; git -C "$P" commit -q -m init
ubq m86-root "$P" run --compat codex -p "hello"
ubq m86-module "$P/modules/sitemap" run --config "$P/ubiquity.config.mjs" --compat codex -p "hello"
ubq m86-package "$P/packages/storage" run --config "$P/ubiquity.config.mjs" --compat codex -p "hello"
ubq m86-claude "$P/modules/sitemap" run --config "$P/ubiquity.config.mjs" --compat claude -p "hello"
