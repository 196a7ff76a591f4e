/**
 * The kernel knows no feature (DESIGN §2): `src/` (without `src/testing`, the test doubles for
 * plugin authors) stays small and carries none of the features' vocabulary. Code lines are lines
 * that are neither blank nor comments; comments may name features (they explain the hooks).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { codeLines } from "../../scripts/code-lines";

const ROOT = join(import.meta.dirname, "..", "..");
const SRC = join(ROOT, "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === join(SRC, "testing") ? [] : sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/**
 * Words that belong to one feature's plugin, never to the kernel: permission modes and rules,
 * MCP, pricing, session storage and its resume rules, the user-facing hook events, subagent
 * definitions, the built-in tools' names and the sandbox. The hook catalogue's own names
 * (`tool.permission`, `session.load`, `context.compact`, …) are lifecycle points of DESIGN §2, not
 * features, so the words match what a feature adds.
 */
const FEATURE_WORDS: [string, RegExp][] = [
  [
    "permission modes and rules",
    /permissionMode|PERMISSION_MODES|acceptEdits|bypassPermissions|dontAsk|allowedTools|disallowedTools|askTools|canUseTool|CanUseTool/,
  ],
  ["MCP", /mcp/i],
  ["pricing", /pric/i],
  [
    "session storage and resume rules",
    /\bresume\b|continueConversation|forkSession|persistSession|sessionDir|transcript/i,
  ],
  [
    "hook events",
    /PreToolUse|PostToolUse|UserPromptSubmit|SessionStart|HOOK_EVENTS|HookEventName|HookInput|HookCallback|HookMatcher/,
  ],
  ["subagent definitions", /AgentDefinition|agentSources|\bagents\b/],
  ["built-in tool names", /"(Read|Write|Edit|Bash|Glob|Grep|TodoWrite|AskUserQuestion|Agent)"/],
  ["sandbox", /sandbox|bubblewrap|bwrap/i],
];

describe("the kernel", () => {
  const files = sourceFiles(SRC).map((path) => ({
    path: relative(ROOT, path),
    code: codeLines(readFileSync(path, "utf8")),
  }));

  // DESIGN §2 and issue 20: src/ (without src/testing) ≤ 2,000 code lines. What src/ holds is
  // the kernel alone: the config loader and trust store are in loader/, summon()'s session driver
  // and the package entry in sdk/, the hosts' plugin contract (commands, run flags, terminal
  // answerers, project files, UsageError) in loader/, the helpers that make plugins, presets and
  // tools in the authoring kit, the helpers only plugins use in their kits (3,305 → 1,998). What
  // remains: the hook catalogue, plugin/preset/config resolution, the loop, the funnel, the one
  // model-call path with its call limits (no hang on a silent provider), redaction.
  // Issue 37 added two guarantees only the kernel can give, since they must hold whoever wrote the
  // model or the tool: a total bound per model response and the tool-call bound with abandonment
  // (src/tool-bound.ts): 1,998 → 2,065.
  // Issue 38 added two more only the loop can give, since it owns the conversation: an
  // interrupted stretch stays in it as interrupted (what streamed and the marker) instead of
  // being sent again, and a failure while a run is set up says so (error_configuration); and a
  // tool's preconditions are checked before anyone is asked (Tool.preconditions): → 2,086.
  // Issue 41 added the stream's two guarantees under background work, which only the run's sink
  // can keep: a subagent still running after its caller's final result publishes nothing more
  // (the result stays last), and a message that arrived after a live session's last result (a
  // task ended while it was idle) is followed by a closing result: → 2,098.
  // Issue 45: formatted at 120 columns (Biome) the same code is 2,502 lines. Its lifecycle points
  // (named tap order, tool.allowed, the run on event, context.compacted fired by the loop) added
  // 41, Tool.kind 3; session.load left for the sessions API and whole-value redaction for a kit (-20): 2,527.
  // The typed context's optionsOf and the one-timer idle limit (issue 40): 2,540.
  // Issue 45, the cut: duplicates folded (the tap-misuse checks, the request build for a first and
  // a fallback request, a failed call's RunEnd, the result's isError, the time-limit options, the
  // override event), src/index.ts re-exports only what is used outside src/, and the funnel's
  // runToolCall split into named steps (+16): 2,464. What remains is kernel: 455 lines are the
  // contract's types (hook payloads, messages, RunContext, plugin and tool shapes, frozen by the
  // API reports), 173 imports and re-exports, the rest the loop, funnel, model-call path with its
  // call and tool bounds, redaction, the interceptor and tap order, config composition/validation.
  // One signal per model and tool call following the run's by a listener, not AbortSignal.any
  // (issue 40's loop overhead, +8): 2,472.
  // Each assistant message carries its own request's usage, which only the loop that emits it
  // knows (Claude Code's per-message usage, ATIF's step metrics): 2,474.
  // A verdict says when only whoever answers prompts may answer its ask (PermissionVerdict.firm:
  // an ask rule's, a sensitive path's), which the plugins casting votes share through it: 2,475.
  // A model's tool calls count in its own modelUsage, which only the loop that holds the answering
  // response's label can say (RawToolCall.model): 2,476. didYouMean re-exported for the plugins
  // that name a mistyped settings key or hook event as the runner names a flag: 2,477.
  // Every message a run emits leaves with the run's secrets masked (run.emit), a secret split
  // across streamed deltas too (streamMasker, maskedDeltas), and what counts as a secret grew by
  // what only the kernel's redaction can hold: credentials a plugin learns while running
  // (noteSecret), a URL's query values, an authorization value's credential, the secret-named
  // keys of a JSON document in a string (red team s): 2,626.
  // A plugin list entry's object branch excludes functions (PluginObject), so tsc refuses a
  // factory given uncalled whose options are required (newcomer trial x): 2,627.
  // A run aborted with a reason (`AbortSignal.timeout`, `abort(reason)`) says it, which only the
  // loop that ends the run can (newcomer trial y): 2,633.
  // The 2,000 goal is not met: nothing left in src/ is a helper only plugins use.
  // Issue 45, kern1: restated logic folded with no behaviour change (redaction's URL decoding and its
  // option/env walk, the call limits typed from the schema, one map of open delta maskers, a failed
  // call masked once, a composed schema's owners = its first declarers, options.tools checked by the
  // schema alone, types picked not restated); redaction's recognition stays (red team s: with no
  // plugin an environment key is still masked), a tool call raced against its abandonment: 2,561.
  // Every event leaves masked, not only messages: an MCP server's log line, a refused command's
  // output or a third-party plugin's event reached the taps as written (red team zl, ZL3): 2,563.
  // A tool call whose arguments did not parse as JSON is answered "not valid JSON", with what came,
  // not zod's "expected object, received string" (a small model's commonest slip; trial zd): 2,565.
  // A throw from tool.allowed is a denial in the refusing plugin's words (the hook's contract), not
  // "failed: [plugin …] hook tool.allowed: …" (red team zm's rewrite re-vote read as a crash): 2,568.
  // A model.error recovery that hands the call other messages (a history compacted after the server
  // refused it as too long) has it built again through model.request, as one naming another model
  // already was: the sessions' checkpoint, the image guard and the cache markers see it (trial zh): 2,569.
  const LIMIT = 2569;
  it(`stays within ${LIMIT} code lines (src/ without src/testing)`, () => {
    const total = files.reduce((sum, f) => sum + f.code.length, 0);
    const largest = [...files]
      .sort((a, b) => b.code.length - a.code.length)
      .slice(0, 8)
      .map((f) => `${f.path} ${f.code.length}`);
    expect(total, `src/ has ${total} code lines; largest: ${largest.join(", ")}`).toBeLessThanOrEqual(LIMIT);
    expect(total, "src/ is empty? the file walk is broken").toBeGreaterThan(500);
  });

  it.each(FEATURE_WORDS)("carries no %s vocabulary in its code", (_what, pattern) => {
    const hits = files.flatMap((f) =>
      f.code.filter((line) => pattern.test(line)).map((line) => `${f.path}: ${line.slice(0, 120)}`),
    );
    expect(hits).toEqual([]);
  });

  it("counts code lines the way the test says (comments and blank lines are not code)", () => {
    expect(codeLines("/** doc\n * more */\nconst a = 1; // note\n\n// gone\n/* x */ const b = 2;\n")).toEqual([
      "const a = 1;",
      "const b = 2;",
    ]);
  });
});
