/**
 * The default product: every built-in plugin, in canonical order. This file documents the
 * order: a same-name plugin in a config replaces one of these in place; `disable` removes one.
 */
import type { KernelOptions } from "../src/index";
import { definePreset } from "../plugins/_kits/authoring/index";
import settings from "../plugins/settings/index";
import permissions from "../plugins/permissions/index";
import toolAskUser from "../plugins/tool-ask-user/index";
import model from "../plugins/model/index";
import retry from "../plugins/retry/index";
import pricing from "../plugins/pricing/index";
import budget from "../plugins/budget/index";
import reasoning from "../plugins/reasoning/index";
import compactionMicro from "../plugins/compaction-micro/index";
import compactionSummarize from "../plugins/compaction-summarize/index";
import caching from "../plugins/caching/index";
import cacheBreaks from "../plugins/cache-breaks/index";
import systemPrompt from "../plugins/system-prompt/index";
import toolRead from "../plugins/tool-read/index";
import toolWrite from "../plugins/tool-write/index";
import toolEdit from "../plugins/tool-edit/index";
import toolApplyPatch from "../plugins/tool-apply-patch/index";
import toolBash from "../plugins/tool-bash/index";
import background from "../plugins/background/index";
import web from "../plugins/web/index";
import toolLsp from "../plugins/tool-lsp/index";
import toolGlob from "../plugins/tool-glob/index";
import toolGrep from "../plugins/tool-grep/index";
import toolTodo from "../plugins/tool-todo/index";
import todos from "../plugins/todos/index";
import sessions from "../plugins/sessions/index";
import sessionsPostgres from "../plugins/sessions-postgres/index";
import checkpoints from "../plugins/checkpoints/index";
import mcp from "../plugins/mcp/index";
import agents from "../plugins/agents/index";
import skills from "../plugins/skills/index";
import commands from "../plugins/commands/index";
import memory from "../plugins/memory/index";
import hooks from "../plugins/hooks/index";
import reviewer from "../plugins/reviewer/index";
import sandbox from "../plugins/sandbox/index";
import structuredOutput from "../plugins/structured-output/index";
import telemetry from "../plugins/telemetry/index";
import fleet from "../plugins/fleet/index";
import toolSearch from "../plugins/tool-search/index";
import type { SettingsOptions } from "../plugins/settings/index";
import type { ModelOptions } from "../plugins/model/index";
import type { RetryOptions } from "../plugins/retry/index";
import type { PricingOptions } from "../plugins/pricing/index";
import type { BudgetOptions } from "../plugins/budget/index";
import type { MicrocompactionOptions } from "../plugins/compaction-micro/index";
import type { SummarizeCompactionOptions } from "../plugins/compaction-summarize/index";
import type { CachingOptions } from "../plugins/caching/index";
import type { CacheBreaksOptions } from "../plugins/cache-breaks/index";
import type { SystemPromptOptions } from "../plugins/system-prompt/index";
import type { PermissionsOptions } from "../plugins/permissions/index";
import type { SandboxOptions } from "../plugins/sandbox/index";
import type { HooksOptions } from "../plugins/hooks/index";
import type { ReviewerOptions } from "../plugins/reviewer/index";
import type { TodosOptions } from "../plugins/todos/index";
import type { SessionsOptions } from "../plugins/sessions/index";
import type { SessionsPostgresOptions } from "../plugins/sessions-postgres/index";
import type { CheckpointsOptions } from "../plugins/checkpoints/index";
import type { McpOptions } from "../plugins/mcp/index";
import type { AgentsOptions } from "../plugins/agents/index";
import type { SkillsOptions } from "../plugins/skills/index";
import type { CommandsOptions } from "../plugins/commands/index";
import type { MemoryOptions } from "../plugins/memory/index";
import type { StructuredOutputOptions } from "../plugins/structured-output/index";
import type { TelemetryOptions } from "../plugins/telemetry/index";
import type { BackgroundOptions } from "../plugins/background/index";
import type { WebOptions } from "../plugins/web/index";
import type { LspOptions } from "../plugins/tool-lsp/index";
import type { ToolProfileOptions } from "../plugins/tool-apply-patch/index";
import type { ReasoningOptions } from "../plugins/reasoning/index";
import type { ToolSearchOptions } from "../plugins/tool-search/index";

/**
 * Every option of the default product: the kernel's own and each listed plugin's slice (the
 * tool plugins declare none). The package entry's `Options` is this type.
 */
export type DefaultOptions = KernelOptions &
  SettingsOptions &
  ModelOptions &
  RetryOptions &
  PricingOptions &
  BudgetOptions &
  MicrocompactionOptions &
  SummarizeCompactionOptions &
  CachingOptions &
  CacheBreaksOptions &
  SystemPromptOptions &
  PermissionsOptions &
  SandboxOptions &
  HooksOptions &
  ReviewerOptions &
  BackgroundOptions &
  WebOptions &
  LspOptions &
  ToolProfileOptions &
  ReasoningOptions &
  ToolSearchOptions &
  TodosOptions &
  SessionsOptions &
  SessionsPostgresOptions &
  CheckpointsOptions &
  McpOptions &
  AgentsOptions &
  SkillsOptions &
  CommandsOptions &
  MemoryOptions &
  StructuredOutputOptions &
  TelemetryOptions;

export default definePreset({
  name: "ubiquity:default",
  plugins: [
    // Configuration first: settings files merge into the config before anything reads it.
    settings(),
    // The model layer: resolve model strings, retry at the transport, price every response,
    // refuse a request that could pass the spending cap.
    model(),
    retry(),
    pricing(),
    budget(),
    // How much the model reasons: one level for every provider, by phase, per subagent, live.
    reasoning(),
    // Context management: compaction tiers (cheapest first), then cache breakpoints and the
    // cache-break detector, which must see the final request.
    compactionMicro(),
    compactionSummarize(),
    caching(),
    cacheBreaks(),
    // What the model is told, and what it may do.
    systemPrompt(),
    permissions(),
    // The OS boundary around every process the run starts (Bash, command hooks, stdio MCP
    // servers): before the plugins that spawn, and its ready (the network proxy) before MCP connects.
    sandbox(),
    hooks(),
    // Auto-review: what would prompt goes to a reviewer (mode auto, or the reviewer option).
    reviewer(),
    // The built-in tools, in offer order (Read, Write, Edit, Bash, Glob, Grep, then the rest).
    toolRead(),
    toolWrite(),
    toolEdit(),
    // apply_patch, and `toolProfile`: which edit tools each model is offered (apply_patch or Edit/Write).
    toolApplyPatch(),
    toolBash(),
    toolGlob(),
    toolGrep(),
    toolAskUser(),
    toolTodo(),
    // WebFetch and WebSearch: native search where the model's provider has it, else a backend.
    web(),
    // LSP: offered only when a language server is configured (lspServers, a plugin's .lsp.json).
    toolLsp(),
    // Background shells (Bash run_in_background) and agents: their registry, BashOutput,
    // BashInput and KillShell, and their end with the session.
    background(),
    // Persistence.
    todos(),
    sessions(),
    // Off unless `sessionStore.postgres` is set (pg loads only then): sessions and todos in PostgreSQL.
    sessionsPostgres(),
    checkpoints(),
    // Extensions: MCP servers, subagents, skills, slash commands, memory files.
    mcp(),
    agents(),
    skills(),
    // Slash commands: command files and skills invoked as `/name` (after skills, whose names it lists).
    commands(),
    memory(),
    // Deferred tools: what a typical turn does not need is offered by name behind ToolSearch
    // (after every plugin that registers or filters tools, so it sees the run's final list).
    toolSearch(),
    // Past one machine: the `ubiquity fleet` and `ubiquity worker` commands (bullmq loads only when they run).
    fleet(),
    // Observability: OpenTelemetry spans (off unless `telemetry` is set; nothing loads until then).
    telemetry(),
    // The answer's shape: last, so its tool survives every tool.list filter (a subagent's included).
    structuredOutput(),
  ],
});
