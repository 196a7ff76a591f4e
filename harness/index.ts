/**
 * `ubiquity/harness`: a Ubiquity preset as an AI SDK harness (`HarnessV1`, `@ai-sdk/harness`),
 * so `HarnessAgent` — and the `useChat` routes and TUI built on it — can run it. A translation
 * layer over the live-session API (`summon()` with an async iterable input): prompts in,
 * messages out as harness stream parts, asks as approval requests, aborts as `interrupt()`.
 * `@ai-sdk/harness` is an optional peer dependency: only its types are imported here (its error
 * class loads on the one path that throws it), so `import "ubiquity"` never loads it.
 */
import { existsSync, statSync } from "node:fs";
import { z } from "zod";
import type {
  HarnessV1,
  HarnessV1BuiltinTool,
  HarnessV1BuiltinToolName,
  HarnessV1BuiltinToolUseKind,
  HarnessV1StartOptions,
} from "@ai-sdk/harness";
import { builtinTools, loadConfig, type SummonOptions } from "../sdk/index";
import { HARNESS_QUESTIONS, questionsTool } from "./questions";
import { Parking } from "./parking";
import { UbiquityHarnessSession, type UbiquityHarnessState } from "./session";

export { localSandbox, type LocalSandboxOptions } from "./local-sandbox";
export { UbiquityTurnError, type UbiquityHarnessState } from "./session";

/** The `harnessId` of the adapter (the key of its lifecycle state). */
export const HARNESS_ID = "ubiquity";

/** Options of `ubiquityHarness()`: every Ubiquity option (with `presets`, `plugins`, `disable`), plus where to load a config file from. */
export type UbiquityHarnessOptions = SummonOptions & {
  /**
   * A Ubiquity config file to load (`ubiquity.config.ts`, …; named by the caller, so trust does
   * not apply). Options given here win over the file's.
   */
  config?: string;
  /**
   * How long a detached session stays alive in this process waiting to be resumed, in ms
   * [600000]. A session resumed later (or in another process) continues from its transcript.
   */
  parkedTimeoutMs?: number;
};

/** The built-in tools `HarnessAgent` sees typed (others, such as MCP tools or Agent, arrive as dynamic tool calls). */
export type UbiquityBuiltinTools = Record<
  "Read" | "Write" | "Edit" | "Bash" | "Glob" | "Grep" | "TodoWrite" | "askUserQuestions",
  HarnessV1BuiltinTool
>;

const COMMON: Partial<
  Record<string, { commonName: HarnessV1BuiltinToolName; toolUseKind: HarnessV1BuiltinToolUseKind }>
> = {
  Read: { commonName: "read", toolUseKind: "readonly" },
  Write: { commonName: "write", toolUseKind: "edit" },
  Edit: { commonName: "edit", toolUseKind: "edit" },
  Bash: { commonName: "bash", toolUseKind: "bash" },
  Glob: { commonName: "glob", toolUseKind: "readonly" },
  Grep: { commonName: "grep", toolUseKind: "readonly" },
};

function declaredTools(): UbiquityBuiltinTools {
  const tools: Record<string, HarnessV1BuiltinTool> = {};
  for (const tool of builtinTools())
    tools[tool.name] = {
      description: tool.description,
      inputSchema: tool.inputSchema,
      outputSchema: z.unknown(),
      ...COMMON[tool.name],
    };
  // AskUserQuestion reaches the host as the harness's own question tool.
  tools[HARNESS_QUESTIONS] = questionsTool();
  return tools as UbiquityBuiltinTools;
}

/** The lifecycle payload's schema: the Ubiquity session a resumed harness session continues. */
const stateSchema = z.object({ ubiquitySessionId: z.string() });

/**
 * The Ubiquity tools a `HarnessAgent`'s `activeTools`/`inactiveTools` switch off, as bare deny
 * rules (they remove the tool from the model's list).
 */
function filteredOut(start: HarnessV1StartOptions, declared: readonly string[]): string[] {
  const f = start.builtinToolFiltering;
  const off = !f ? [] : f.mode === "deny" ? [...f.toolNames] : declared.filter((name) => !f.toolNames.includes(name));
  return off;
}

/**
 * A `HarnessV1` running Ubiquity (the default preset unless `presets` says otherwise) in this
 * process, in the session's working directory (or `cwd` when given). Use it with
 * `localSandbox()`: `new HarnessAgent({ harness: ubiquityHarness(), sandbox: localSandbox() })`.
 *
 * Permissions: HarnessAgent's `permissionMode` picks Ubiquity's unless `permissionMode` is set
 * here (`allow-reads` → default, `allow-edits` → acceptEdits, `allow-all`, its default, →
 * bypassPermissions). Under `allow-reads` and `allow-edits` what Ubiquity would ask about goes to
 * the host as a `tool-approval-request`; under `allow-all` it is denied (HarnessAgent takes no
 * approvals there). Deny rules deny in every mode.
 */
export function ubiquityHarness(options: UbiquityHarnessOptions = {}): HarnessV1<UbiquityBuiltinTools> {
  const { config, parkedTimeoutMs = 600_000, ...summonOptions } = options;
  const builtin = declaredTools();
  const declared = new Set(Object.keys(builtin));
  const parking = new Parking();
  let loaded: Promise<SummonOptions> | undefined;
  const resolved = () =>
    (loaded ??= config
      ? loadConfig({
          configFile: config,
          cwd: typeof summonOptions.cwd === "string" ? summonOptions.cwd : process.cwd(),
        }).then((l) => ({ ...(l.config ?? {}), ...summonOptions }))
      : Promise.resolve(summonOptions));
  return {
    specificationVersion: "harness-v1",
    harnessId: HARNESS_ID,
    builtinTools: builtin,
    supportsBuiltinToolApprovals: true,
    supportsBuiltinToolFiltering: true,
    lifecycleStateSchema: stateSchema,
    async doStart(start) {
      const permissionMode = start.permissionMode ?? "allow-all";
      const lifecycle = start.continueFrom ?? start.resumeFrom;
      if (lifecycle) {
        const live = parking.take(start.sessionId);
        if (live) return live.reattach(permissionMode);
      }
      const opts = await resolved();
      const cwd = typeof opts.cwd === "string" ? opts.cwd : start.sessionWorkDir;
      if (!existsSync(cwd) || !statSync(cwd).isDirectory()) {
        throw new Error(
          `ubiquityHarness runs Ubiquity in this process, on this machine's files, and the session's folder ${cwd} is not a folder here. Use localSandbox() as the HarnessAgent's sandbox, or pass cwd to ubiquityHarness().`,
        );
      }
      const state = lifecycle ? (lifecycle.data as UbiquityHarnessState) : undefined;
      return new UbiquityHarnessSession({
        harnessId: HARNESS_ID,
        sessionId: start.sessionId,
        cwd,
        options: opts,
        permissionMode,
        disallowed: filteredOut(start, [...declared]),
        declared,
        ...(state ? { resume: state.ubiquitySessionId } : {}),
        parkedTimeoutMs,
        parking,
      });
    },
  };
}
