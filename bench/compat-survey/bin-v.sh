#!/usr/bin/env bash
# Round v (docs/guide/compat-survey.md): real files of sample-v.tsv run through the built bin with a
# scripted model, each project in a temp folder with its own HOME. Needs `npx unbuild` first and
# checkouts of the sampled repositories under $CO (`git archive HEAD | tar -x`, one folder per
# repository named owner+name; links kept). Prints, per run, the exit code, stderr and what the model was sent.
#   bash bench/compat-survey/bin-v.sh <checkouts> [run-name]
ROUND=v
. "$(dirname "$0")/bin-lib.sh"
# copy <repo> <paths…> : copy those paths of a checkout into $P, links kept as links.
copy() { local d="$CO/$1"; shift; for p in "$@"; do if [ -e "$d/$p" ] || [ -L "$d/$p" ]; then (cd "$d" && cp -a --parents "$p" "$P/"); fi; done; }

# 1. sellke/writ: .claude/{agents,commands,skills} and .codex/agents are links to top-level folders (one source
#    for Claude Code, Cursor and Codex); Codex custom agents as TOML files.
project sellke
copy sellke+writ .claude .codex agents commands skills codex CLAUDE.md AGENTS.md
ubq sellke-claude "$P" run --compat claude -p "hello"
ubq sellke-codex "$P" run --compat codex -p "hello"

# 2. nwiizo/dotfiles: a ~/.claude and ~/.codex kept in git (.claude/{agents,rules,skills} and .codex/agents are links
#    into .agents/), put in the temp HOME; 13 Claude agents, 13 Codex agents (TOML), skills with scripts.
project nwiizo
D="$CO/nwiizo+dotfiles"; (cd "$D" && cp -a .agents .claude .codex "$P/home/")
ubq nwiizo-claude "$P" run --compat claude -p "hello"
ubq nwiizo-codex "$P" run --compat codex -p "hello"

# 3. upyoke/yoke: .codex/hooks.json and .codex/agents are links into runtime/harness/codex; CLAUDE.md a link to
#    AGENTS.md; .claude/skills/yoke a link to .agents/skills/yoke; .claude/settings.json.
project yoke
copy upyoke+yoke .claude .codex .agents agents runtime/harness CLAUDE.md AGENTS.md
ubq yoke-claude "$P" run --compat claude -p "hello"
ubq yoke-codex "$P" run --compat codex -p "hello"

# 4. 0xkhdr/specd: .codex/config.toml, .codex/agents (4 TOML agents, three sandbox_mode = "read-only"), .claude/agents,
#    .mcp.json, .agents/skills.
project specd
copy 0xkhdr+specd .claude .codex .agents .mcp.json CLAUDE.md AGENTS.md
ubq specd-claude "$P" run --compat claude -p "hello"
ubq specd-codex "$P" run --compat codex -p "hello"
UBQ_STEPS='[{"toolCalls":[{"toolName":"Agent","input":{"subagent_type":"pinky-scout","description":"scout","prompt":"inspect the repo"}}]}]' \
  ubq specd-codex-agent "$P" run --compat codex -p "send the scout"

# 5. j5ik2o/oni-comb-rs: .claude/settings.json, .claude/rules, 29 skills under .claude/skills and .codex/skills (links into a
#    git submodule this checkout lacks), .codex/config.toml and prompts (put in the HOME, where Codex reads prompts), .mcp.json.
project j5ik2o
copy j5ik2o+oni-comb-rs .claude .codex .agent .mcp.json CLAUDE.md COMMON.md AGENTS.md
mkdir -p "$P/home/.codex" && cp -r "$CO/j5ik2o+oni-comb-rs/.codex/prompts" "$P/home/.codex/"
ubq j5ik2o-claude "$P" run --compat claude -p "hello"
ubq j5ik2o-codex "$P" run --compat codex -p "/prompts:kiro-spec-init a parser"

# 6. hectormr206/orchestra: .claude/{agents,skills} and .codex/{agents,skills} are absolute links to the author's
#    machine (/home/hectormr/…): dangling here.
project orchestra
copy hectormr206+orchestra .claude .codex ai-core CLAUDE.md AGENTS.md
ubq orchestra-claude "$P" run --compat claude,codex -p "hello"

# 7. modu-ai/moai-adk: a large .claude (settings with hooks under .claude/hooks/moai, output styles, rules, agents,
#    skills, commands), CLAUDE.md, CLAUDE.local.md, .mcp.json.
project moai
copy modu-ai+moai-adk .claude .mcp.json .moai CLAUDE.md CLAUDE.local.md
ubq moai "$P" run --compat claude -p "hello"
# 63 of its 77 rules are path-scoped (`paths: "**/*_test.go,…"`): a Read of a Go test file brings the ones it matches.
mkdir -p "$P/pkg" && printf 'package pkg\n' > "$P/pkg/x_test.go"
UBQ_STEPS='[{"toolCalls":[{"toolName":"Read","input":{"file_path":"pkg/x_test.go"}}]}]' ubq moai-rules "$P" run --compat claude -p "read the test"

# 8. damilola-elegbede/claude-config: a ~/.claude (system-configs/.claude: agents, output styles, skills, settings).
project damilola
mkdir -p "$P/home" && cp -a "$CO/damilola-elegbede+claude-config/system-configs/.claude" "$P/home/"
ubq damilola "$P" run --compat claude -p "hello"

# 9. stijnvanhulle/template: .claude (settings, hooks, agents, output styles, rules, skills), .agents/skills, a marketplace at
#    the root and a Codex plugin manifest.
project stijn
copy stijnvanhulle+template .claude .agents .codex-plugin .claude-plugin tools CLAUDE.md AGENTS.md
ubq stijn-claude "$P" run --compat claude -p "hello"
ubq stijn-codex "$P" run --compat codex -p "hello"
ubq stijn-cmd "$P" run --compat claude -p "/changeset minor"
UBQ_STEPS='[{"toolCalls":[{"toolName":"Write","input":{"file_path":"pnpm-lock.yaml","content":"x"}}]},{"toolCalls":[{"toolName":"Write","input":{"file_path":"notes.md","content":"x"}}]}]' \
  ubq stijn-guard "$P" run --compat claude --permission-mode acceptEdits -p "write"
ubq stijn-plugin "$P" run --compat claude --plugin-dir "$CO/stijnvanhulle+template/tools/claude" -p "hello"

# 10. 001TMF/blatant-why: templates/.claude (22 agents, nested commands by/*.md, skills with scripts) as a project's .claude.
project bywhy
cp -a "$CO/001TMF+blatant-why/templates/.claude" "$P/"
ubq bywhy "$P" run --compat claude -p "hello"
ubq bywhy-cmd "$P" run --compat claude -p "/load 1abc"

# 11. BlandineRdl/EquimApp: .claude (commands/flows a link into aidd-docs; settings.json, agents, output-styles and
#     CLAUDE.md links to the author's machine, dangling here), .mcp.json with an "enable" key per server.
project equim
copy BlandineRdl+EquimApp .claude aidd-docs .mcp.json CLAUDE.md
ubq equim "$P" run --compat claude -p "hello"

# 12. 0gfoundation/0g-claude-marketplace: a marketplace of three plugins, added with `ubiquity plugin add`.
project og
for pl in 0g-storage 0g-image 0g-compute; do ubq "og-$pl" "$P" run --compat claude --plugin-dir "$CO/0gfoundation+0g-claude-marketplace/plugins/$pl" -p "hello"; done

# 13. dapi/memory-bank: AGENTS.md (Codex) in a project.
project dapi
copy dapi+memory-bank AGENTS.md
ubq dapi "$P" run --compat codex -p "hello"

# 14. 45ck/prompt-language: .codex (config.toml with [features] codex_hooks and [agents] limits, hooks.json, 17 agents
#     under agents/, a README.md among them), and the repository as a Claude Code plugin and a Codex plugin.
project pl
D="$CO/45ck+prompt-language"; copy 45ck+prompt-language .codex AGENTS.md CLAUDE.md
ubq pl-codex "$P" run --compat codex -p "hello"
ubq pl-plugin "$P" run --compat claude --plugin-dir "$D" -p "hello"

# 15. ANcpLua/claude-forge: .claude (settings with hooks, agents, rules, a skill with references, commands).
project forge
copy ANcpLua+claude-forge .claude CLAUDE.md AGENTS.md
ubq forge "$P" run --compat claude -p "hello"
ubq forge-cmd "$P" run --compat claude -p "/quality-wall"

# 16. 5uck1ess/devkit: a plugin (agents, commands, hooks/hooks.json) given with --plugin-dir.
project devkit
ubq devkit "$P" run --compat claude --plugin-dir "$CO/5uck1ess+devkit" -p "hello"

# 17. 0xjgv/harness: per-language templates (go/: .claude with settings, hooks and scripts, .codex).
project harness
copy 0xjgv+harness/go .claude .codex AGENTS.md CLAUDE.md
ubq harness-claude "$P" run --compat claude -p "hello"
ubq harness-codex "$P" run --compat codex -p "hello"
