/**
 * The Claude Agent SDK's option names and shapes that mean something else here, each with what to
 * write instead. A program ported from `query({ prompt, options })` met "Unrecognized key:
 * "abortController"" or "expected string, received object" alone, and had to find the fix in the
 * docs; the error now says it. Only words for an error already raised: nothing is translated.
 */

/** What each Claude Agent SDK option is here (keys ubiquity does not have). */
const RENAMED: Readonly<Record<string, string>> = {
  abortController: "abortSignal: controller.signal (an AbortSignal, not the controller)",
  continue: "continueConversation: true",
  permissionPromptToolName: 'permissionPromptTool: "mcp__<server>__<tool>"',
  outputFormat: 'outputSchema: <zod or JSON Schema> (not { type: "json_schema", schema })',
  stderr: "logger: { debug, info, warn, error } (console-shaped)",
  pathToClaudeCodeExecutable: "nothing: ubiquity runs in your process; leave it out",
  executable: "nothing: ubiquity runs in your process; leave it out",
  executableArgs: "nothing: ubiquity runs in your process; leave it out",
  extraArgs: "the option of each flag (ubiquity run --help lists them)",
  spawnClaudeCodeProcess: "nothing: ubiquity runs in your process; leave it out",
  allowDangerouslySkipPermissions:
    'nothing: permissionMode: "bypassPermissions" alone is the switch (deny and ask rules still apply); leave it out',
  enableFileCheckpointing: "checkpoints: true (rewindFiles(sessionId, messageUuid) rewinds)",
  resumeSessionAt:
    "resume: the id rewindConversation(sessionId, messageUuid) returns (a fork of the session just before that message)",
  betas:
    'providerSettings: { headers: { "anthropic-beta": "<beta>,<beta>" } } (the anthropic provider\'s request headers)',
  thinking:
    'maxThinkingTokens: <budgetTokens> for { type: "enabled", budgetTokens }, reasoning: "none" for { type: "disabled" }; leave it out for { type: "adaptive" } (the provider\'s default)',
  effort: 'reasoning: "<level>" (none, minimal, low, medium, high, xhigh, max; by phase too: { plan, work, verify })',
  debug: "logger: console (or DEBUG=ubiquity* in the environment)",
  debugFile: "logger: { debug, info, warn, error } writing where you want (or DEBUG=ubiquity* with stderr redirected)",
};

/** What each Claude Agent SDK `AgentDefinition` field is here (keys an agent of `agents` does not have). */
const AGENT_RENAMED: Readonly<Record<string, string>> = {
  effort: 'reasoning: "<level>"',
  mcpServers:
    "the servers in the run's mcpServers, and \"mcp__<server>\" in the agent's tools for each it may use (a subagent is offered the run's tools, cut to its tools)",
  criticalSystemReminder_EXPERIMENTAL: "the reminder in the agent's prompt",
  initialPrompt: "the task the Agent tool is called with (or the agent's prompt)",
};

/** Lines naming the fix for each Claude Agent SDK option of `options` the run refused ("" when none). */
export function agentSdkHints(options: Record<string, unknown>, message: string): string {
  const lines: string[] = [];
  for (const [key, instead] of Object.entries(RENAMED))
    if (key in options && message.includes(`"${key}"`))
      lines.push(`→ "${key}" is the Claude Agent SDK's option: here it is ${instead}`);
  for (const [agent, definition] of Object.entries(isRecord(options.agents) ? options.agents : {}))
    for (const [key, instead] of Object.entries(AGENT_RENAMED))
      if (isRecord(definition) && key in definition && message.includes(`"${key}"`))
        lines.push(`→ agents.${agent}.${key} is the Claude Agent SDK's AgentDefinition field: here it is ${instead}`);
  const prompt = options.systemPrompt;
  if (typeof prompt === "object" && prompt !== null && (prompt as { type?: unknown }).type === "preset")
    lines.push(
      '→ systemPrompt: { type: "preset", preset: "claude_code", append } is the Claude Agent SDK\'s form: here leave systemPrompt out (the built-in guidance applies) and pass appendSystemPrompt: "<append>"',
    );
  const plugins = options.plugins;
  if (
    Array.isArray(plugins) &&
    plugins.some((p) => typeof p === "object" && p !== null && "path" in p && !("apply" in p))
  )
    lines.push(
      '→ plugins: [{ type: "local", path }] is the Claude Agent SDK\'s form: Claude Code plugin folders go in claudePlugins: ["<path>"]; plugins here are ubiquity plugins ({ name, apply })',
    );
  const tools = options.tools;
  if (Array.isArray(tools) && tools.some((t) => typeof t === "string"))
    lines.push(
      '→ tools: ["Read", …] (names) is the Claude Agent SDK\'s form: here availableTools: ["Read", …] limits the built-in tools; tools takes Tool objects and replaces the suite ([...builtinTools(), myTool] adds one)',
    );
  else if (typeof tools === "object" && tools !== null && (tools as { type?: unknown }).type === "preset")
    lines.push(
      '→ tools: { type: "preset", preset: "claude_code" } is the Claude Agent SDK\'s form: here leave tools out (the built-in suite is the default)',
    );
  const servers = options.mcpServers;
  const inProcess =
    typeof servers === "object" && servers !== null
      ? Object.entries(servers).filter(([, s]) => (s as { type?: unknown } | null)?.type === "sdk")
      : [];
  for (const [name] of inProcess)
    lines.push(
      `→ mcpServers.${name} is the Claude Agent SDK's in-process server (createSdkMcpServer, type "sdk"): here each of its tool()s is a defineTool({ name, description, inputSchema, execute }) given in tools: [...builtinTools(), myTool] (or registered by a plugin); mcpServers are stdio and HTTP servers`,
    );
  return lines.length ? `\n${lines.join("\n")}` : "";
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

/** The TypeError for `summon({ prompt, options })`, the Claude Agent SDK's `query` call. */
export function queryShapeHint(prompt: unknown): string {
  return typeof prompt === "object" && prompt !== null && "prompt" in prompt
    ? " (the Claude Agent SDK's query({ prompt, options }) is summon(prompt, options) here)"
    : "";
}
