/**
 * `ubiquity:sandbox`: Bash commands, command hooks and stdio MCP servers run inside an OS
 * sandbox (bubblewrap on Linux, Seatbelt on macOS), the boundary that holds when a permission
 * rule is fooled. Spawning plugins wrap their spawns through `getSandboxApi(kernel)`.
 * - `kernel.configResolved`: settle the `sandbox` option; requested but unavailable ends the run here
 * - `kernel.ready` / `kernel.dispose`: private folders and the network proxy, then their removal
 * - `tool.permission`: autoAllowBash (a sandboxed Bash call that would only ask runs; deny and ask rules stand)
 * - `tool.afterCall`: a Bash result reports what the sandbox refused ("blocked by the sandbox: …")
 * - `turn.system`: the sandbox section of the system prompt
 */
import { homedir } from "node:os";
import { resolve } from "node:path";
import { z } from "zod";
import {
  PERMISSION_STAGE,
  REQUEST_STAGE,
  redactText,
  secretsOfRun,
  SYSTEM_STAGE,
  type Kernel,
  type PermissionVerdict,
  type RunContext,
  type SystemSection,
  type ToolOutput,
} from "../../src/index";
import { definePlugin } from "../_kits/authoring/index";
import { markAgentWritable } from "../_kits/process/index";
import { getPermissionsApi, parseRule } from "../permissions/api";
import { sandboxAvailability, SandboxUnavailableError, INSTALL_HINT, type SandboxAvailability } from "./availability";
import { BRIDGE_HINT, bridgeTools } from "./bridge";
import { sandboxSettings, type SandboxSettings } from "./config";
import { getSandboxApi, setSandboxMode } from "./api";
import { fewFiles } from "./host-runs";
import { existsSync } from "node:fs";
import { configuredPackageFolders, readOnlyModules } from "../../loader/index";
import { sandboxNote } from "./note";
import { unixSocketWarning } from "./seccomp";
import { HOME_READABLE, writeRulePaths } from "./secrets";
import { SandboxRuntime } from "./runtime";
import { sandboxCommands, sandboxFlags } from "./cli";
import { violationNote, violationsInOutput, type Violation } from "./violations";
export type { SandboxViolationEvent } from "./events";
export type { SandboxStatus } from "./init-fields";
import { sandboxOptions, type SandboxResolvedOptions } from "./options";
import "./init-fields";
import type { SandboxStatus } from "./init-fields";
import { permissionsOptions } from "../permissions/api";

export const NAME = "ubiquity:sandbox";

/** The tools that write files in the SDK process (judged by the permission engine, not sandboxed). */
const FILE_TOOLS = new Set(["Write", "Edit", "MultiEdit", "NotebookEdit"]);

/** The autoAllowBash vote comes after the permissions plugin's rules, so deny and ask rules have spoken. */
const AUTO_ALLOW_TAP = { name: NAME, stage: PERMISSION_STAGE.RULES, after: "ubiquity:permissions" };

/** Options of the sandbox plugin (the policy itself is the run's `sandbox` option). */
export const SandboxPluginOptions = z.strictObject({
  bwrapPath: z.string().optional().describe("The bubblewrap program [bwrap on PATH]"),
  platform: z.string().optional().describe("The platform to sandbox for [process.platform] (tests)"),
  home: z.string().optional().describe("The home folder whose secrets are hidden [$HOME]"),
});
export type SandboxPluginOptions = z.input<typeof SandboxPluginOptions>;

/** Turn the sandbox on for these options, or say why it is off or cannot run (or refuse to run, when it must). */
function startSandbox(
  kernel: Kernel,
  opts: z.output<typeof SandboxPluginOptions>,
  options: SandboxResolvedOptions,
  readRules: { deny: readonly string[]; ask: readonly string[] },
): { status: SandboxStatus; runtime?: SandboxRuntime } {
  const settings = sandboxSettings(options, opts.home ?? process.env.HOME ?? homedir());
  // Whether the sandbox runs or not, commands may write these: no host program is looked up there.
  markAgentWritable(...settings.writable, ...settings.sharedScratch);
  if (!settings.enabled) {
    if (settings.origin === "required")
      throw new SandboxUnavailableError(
        "UBIQUITY_REQUIRE_SANDBOX=1 is set, but the sandbox option turns the sandbox off: remove `sandbox: false` or `--no-sandbox` (or unset UBIQUITY_REQUIRE_SANDBOX)",
      );
    const status: SandboxStatus = {
      status: "off",
      warning: `the sandbox is off (sandbox: false, or --no-sandbox): ${UNSANDBOXED}; remove \`sandbox: false\` (or \`--no-sandbox\`) to turn it back on`,
    };
    kernel.logger.warn(`[${NAME}] ${status.warning}`);
    setSandboxMode(kernel, "off");
    return { status };
  }
  const availability = check(opts, settings.network.mode === "proxy");
  if (!availability.ok) {
    const message = `sandbox is on, but ${availability.reason}`;
    if (settings.failIfUnavailable) {
      const why =
        settings.origin === "required" ? "UBIQUITY_REQUIRE_SANDBOX=1 is set" : "the sandbox option asks for it";
      throw new SandboxUnavailableError(
        `${message}. Without it nothing runs (${why}): install it, or set sandbox.failIfUnavailable: false to run unsandboxed with a warning.`,
      );
    }
    const status: SandboxStatus = {
      status: "unavailable",
      reason: availability.reason,
      warning: `the sandbox cannot run here (${availability.reason}), so the run is UNSANDBOXED: ${UNSANDBOXED}; set UBIQUITY_REQUIRE_SANDBOX=1 to refuse to run instead`,
    };
    kernel.logger.warn(`[${NAME}] ${status.warning}`);
    setSandboxMode(kernel, "degraded");
    return { status };
  }
  for (const dir of settings.sharedScratch) kernel.logger.warn(`[${NAME}] ${sharedScratchWarning(dir)}`);
  // What Edit and Write deny and ask rules name stays as it is for sandboxed commands (red team q, Q2).
  settings.writeRules = ruleContents(kernel, readRules, (tool) => FILE_TOOLS.has(tool));
  settings.denyWrite.push(
    ...writeRulePaths({ rules: settings.writeRules, roots: settings.writable, cwd: settings.cwd, home: settings.home }),
  );
  const runtime = new SandboxRuntime(settings, availability, readRulePaths(kernel, readRules), (denial, toolUseId) =>
    kernel.emit({
      type: "sandbox.violation",
      kind: "network",
      source: toolUseId ? "bash" : undefined,
      detail: `network access to ${denial.host}:${denial.port} is not allowed (${denial.reason})`,
      ...(toolUseId ? { toolUseId } : {}),
    }),
  );
  setSandboxMode(kernel, runtime);
  // The permission engine leaves to the sandbox what it cannot name in bypassPermissions.
  getPermissionsApi(kernel).setShellSandbox((command) => getSandboxApi(kernel).sandboxes(command));
  // Where Unix sockets stay open though blocked by default, the run says so (never a silent gap).
  const sockets = availability.backend === "bubblewrap" ? unixSocketWarning(settings) : undefined;
  if (sockets) kernel.logger.warn(`[${NAME}] ${sockets}`);
  return {
    status: { status: "on", backend: availability.backend!, ...(sockets ? { warning: sockets } : {}) },
    runtime,
  };
}

/** The sandbox plugin. */
export const sandboxPlugin = definePlugin({
  name: NAME,
  factoryOptions: SandboxPluginOptions,
  // `disallowedTools` and `askTools` are the permissions plugin's options, read here too (a Read
  // deny or ask rule joins the sandbox's unreadable paths).
  options: sandboxOptions.extend({
    get disallowedTools() {
      return permissionsOptions.shape.disallowedTools;
    },
    get askTools() {
      return permissionsOptions.shape.askTools;
    },
  }),
  commands: sandboxCommands,
  flags: sandboxFlags,
  apply(kernel, context) {
    const opts = context.factoryOptions;
    let runtime: SandboxRuntime | undefined;

    let status: SandboxStatus = { status: "off" };

    kernel.hooks.kernel.configResolved.tap(NAME, (options) => {
      const mine = context.optionsOf(options);
      ({ status, runtime } = startSandbox(kernel, opts, mine, {
        deny: mine.disallowedTools ?? [],
        ask: mine.askTools ?? [],
      }));
    });

    // Every run says where it stands: `system/init`'s `sandbox`, and a warning when unsandboxed.
    kernel.hooks.session.start.tap(NAME, (run) => {
      run.initFields.sandbox = status;
      if (status.warning) kernel.emit({ type: "warning", source: NAME, message: status.warning });
    });

    warmOnBash(kernel, () => runtime);

    kernel.hooks.kernel.ready.tapPromise(NAME, async () => {
      await runtime?.start();
    });
    kernel.hooks.kernel.dispose.tapPromise(NAME, async () => {
      // A last sweep: what a sandboxed MCP server or hook made since the last call goes too.
      if (runtime) getSandboxApi(kernel).settle("mcp");
      await runtime?.close();
    });

    kernel.hooks.tool.permission.tap(AUTO_ALLOW_TAP, (verdict: PermissionVerdict, call) => {
      const hostRun = runtime && hostRunVerdict(kernel, runtime, verdict, call);
      if (hostRun) return hostRun;
      if (!runtime?.settings.autoAllowBash || verdict.behavior !== "ask" || call.toolName !== "Bash") return verdict;
      // An ask rule the user wrote stands; only "not pre-approved" becomes "runs sandboxed". So does a
      // sensitive path's question the sandbox would not hold: a write it names into a virtualenv's
      // bin or a folder on PATH, which stay writable inside (red team zb, ZB5).
      if (verdict.rule !== undefined || getPermissionsApi(kernel).sandboxOpenOf(call)) return verdict;
      const command = typeof call.input.command === "string" ? call.input.command : undefined;
      if (command === undefined || !getSandboxApi(kernel).sandboxes(command)) return verdict;
      return { behavior: "allow", message: "Allowed: runs inside the sandbox (autoAllowBash).", decidedBy: NAME };
    });

    kernel.hooks.tool.afterCall.tap(NAME, (output: ToolOutput, call) => {
      if (!runtime) return output;
      // What the file tools write the permission engine judged: the guard keeps it.
      const written = FILE_TOOLS.has(call.toolName) ? (call.input.file_path ?? call.input.notebook_path) : undefined;
      const sha256 = typeof output.metadata?.sha256 === "string" ? output.metadata.sha256 : undefined;
      if (typeof written === "string" && !output.isError)
        runtime.approve(resolve(call.context?.cwd ?? runtime.settings.cwd, written), sha256);
      // apply_patch writes several files: each is listed, resolved, with what was written.
      if (call.toolName === "apply_patch" && !output.isError && Array.isArray(output.metadata?.files)) {
        for (const f of output.metadata.files as { path?: unknown; sha256?: unknown }[])
          if (typeof f.path === "string" && typeof f.sha256 === "string") runtime.approve(f.path, f.sha256);
      }
      if (call.toolName.startsWith("mcp__")) {
        const found = getSandboxApi(kernel).settle("mcp");
        return found.length === 0
          ? output
          : {
              ...output,
              content: `${output.content}\n\n${violationNote(found)}`,
              metadata: { ...output.metadata, sandboxViolations: found },
            };
      }
      if (call.toolName !== "Bash") return output;
      runtime.endHostRun(call.toolUseId);
      const reverted = runtime.finish(call.toolUseId);
      if (!reverted) return output;
      const home = runtime.settings.home;
      const hiddenHome = runtime.settings.writable.some((w) => home === w || home.startsWith(`${w}/`))
        ? undefined
        : { home: runtime.settings.home, readable: HOME_READABLE };
      const found: Violation[] = [
        ...reverted,
        ...violationsInOutput(output.content, runtime.secrets, runtime.settings.network, 5, hiddenHome),
      ];
      if (found.length === 0) return output;
      // A detail quotes a line of the command's output: it leaves masked, as the output does (the
      // event firehose reaches --verbose and a program's own taps, which print it: red team zl, ZL3).
      const secrets = secretsOfRun(call.run ?? { options: kernel.options });
      const command = typeof call.input.command === "string" ? redactText(call.input.command, secrets) : undefined;
      for (const v of found) {
        if (v.kind === "network" && reverted.includes(v)) continue; // the proxy reported it when it happened
        kernel.emit({
          type: "sandbox.violation",
          kind: v.kind,
          source: "bash",
          detail: redactText(v.detail, secrets),
          toolUseId: call.toolUseId,
          ...(command ? { command } : {}),
        });
      }
      return {
        ...output,
        content: `${output.content}\n\n${violationNote(found)}`,
        isError: output.isError || reverted.some((v) => v.kind === "write"),
        metadata: { ...output.metadata, sandboxViolations: found },
      };
    });

    kernel.hooks.turn.system.tap({ name: NAME, stage: SYSTEM_STAGE.RUN }, (sections: SystemSection[], run) => {
      if (!runtime) return sections;
      return [...sections.filter((s) => s.id !== "sandbox"), sandboxSection(runtime.settings, run.cwd)];
    });
  },
});

/**
 * The model asks for a Bash command: the first spawn's one-time walks (SandboxRuntime.warm) start
 * then, on the next turn of the event loop. The first sign is the stream's `tool-input-start`
 * for Bash, while the model still writes the command (the rest of the answer is waited for
 * anyway); the answer's message is the second, for a model that does not stream. A run that asks
 * for none never pays for them; once started, requests are left as they are.
 */
function warmOnBash(kernel: Kernel, runtimeOf: () => SandboxRuntime | undefined): void {
  let warming = false;
  const start = () => {
    const runtime = runtimeOf();
    if (warming || !runtime) return;
    warming = true;
    setImmediate(() => {
      try {
        runtime.warm();
      } catch {
        // The first spawn works it out again, and its error is the call's.
      }
    });
  };
  // Last among the request's taps: whatever onChunk an earlier one set is called as before.
  kernel.hooks.model.request.tap({ name: NAME, stage: REQUEST_STAGE.OBSERVE }, (request) => {
    if (warming || !runtimeOf()) return request;
    const previous = request.streamSettings?.onChunk;
    return {
      ...request,
      streamSettings: {
        ...request.streamSettings,
        onChunk: (event) => {
          if (event.chunk.type === "tool-input-start" && event.chunk.toolName === "Bash") start();
          return previous?.(event);
        },
      },
    };
  });
  kernel.hooks.event.tap(NAME, (event) => {
    if (warming || event.type !== "message" || event.message.type !== "assistant") return;
    if (event.message.content.some((b) => b.type === "tool_call" && b.toolName === "Bash")) start();
  });
}

/**
 * An excluded Bash command (run outside the sandbox) after files in the writable folders changed
 * since sandboxed processes could write them: it may run what they hold (package.json's scripts,
 * a Makefile, node_modules), so it asks, naming them; dontAsk denies (host-runs.ts). Undefined
 * when the verdict stands.
 */
/** The system prompt's sandbox section for a run in `cwd` (with the folders whose code runs, read-only). */
function sandboxSection(settings: SandboxSettings, cwd: string): SystemSection {
  const modules = new Set([
    ...readOnlyModules(settings.home, settings.writable),
    ...configuredPackageFolders(settings.writable).filter((p) => existsSync(p)),
  ]);
  return { id: "sandbox", text: sandboxNote(settings, [...modules], cwd) };
}

function hostRunVerdict(
  kernel: Kernel,
  runtime: SandboxRuntime,
  verdict: PermissionVerdict,
  call: { toolName: string; toolUseId: string; input: Record<string, unknown>; run: RunContext },
): PermissionVerdict | undefined {
  const command = typeof call.input.command === "string" ? call.input.command : undefined;
  if (call.toolName !== "Bash" || verdict.behavior === "deny" || command === undefined) return undefined;
  if (runtime.sandboxes(command)) return undefined;
  const changed = runtime.checkHostRun(call.toolUseId);
  if (changed.files.length === 0 && changed.unchecked === undefined) return undefined;
  const what =
    changed.files.length > 0
      ? `${changed.files.length === 1 ? "this file" : `${changed.files.length} files`} in the writable folders changed since sandboxed commands could write them: ${fewFiles(changed.files, runtime.settings.cwd)}`
      : `the writable folders could not be checked for changes since sandboxed commands could write them (${changed.unchecked})`;
  const message = `\`${command}\` runs outside the sandbox (sandbox.excludedCommands), and ${what}; it may run what they hold. Approve it only if you trust those changes.`;
  if (getPermissionsApi(kernel).modeOf(call.run) === "dontAsk")
    return {
      behavior: "deny",
      message: `${message} Permission mode dontAsk never prompts, so it was denied.`,
      decidedBy: NAME,
    };
  return {
    ...verdict,
    behavior: "ask",
    message: verdict.behavior === "ask" && verdict.message ? `${verdict.message} ${message}` : message,
    decidedBy: NAME,
    // The question is about what changed since the run started, which a hook cannot know about.
    firm: true,
  };
}

/** What running without the sandbox gives up, said in every warning about it. */
export const UNSANDBOXED =
  "Bash commands, hooks and MCP servers run with your own access — they can read the parent's environment (/proc/$PPID/environ, provider keys included), write outside the workspace, leave processes running after the run, and plant files that run code later";

function check(opts: SandboxPluginOptions, proxy: boolean): SandboxAvailability {
  const found = sandboxAvailability((opts.platform ?? process.platform) as NodeJS.Platform, opts.bwrapPath);
  if (found.ok && proxy && found.backend === "bubblewrap" && !found.socat) {
    return {
      ...found,
      ok: false,
      reason: `network.allowedDomains needs socat, which is not installed: ${INSTALL_HINT}`,
    };
  }
  // The proxy's bridge enters the sandbox from the host side (bridge.ts); without it the only way
  // in would need Unix sockets inside, which stay refused: the sandbox does not start.
  const tools = found.ok && proxy && found.backend === "bubblewrap" ? bridgeTools() : undefined;
  if (tools && "missing" in tools)
    return {
      ...found,
      ok: false,
      reason: `network.allowedDomains needs ${tools.missing.join(", ")}, not found on PATH: ${BRIDGE_HINT}`,
    };
  return found;
}

/** The paths of `Read(...)` deny rules: from the options and from other sources (settings files). */
/**
 * The paths Read deny and ask rules name: unreadable to sandboxed processes. A sandboxed command
 * cannot stop to ask, and one the engine allows (a rule, autoAllowBash, bypassPermissions) would
 * otherwise read what Read itself only shows after asking: an ask is refused there, the way
 * dontAsk refuses it (fail closed; red team j, J2).
 */
function readRulePaths(kernel: Kernel, given: { deny: readonly string[]; ask: readonly string[] }): string[] {
  return ruleContents(kernel, given, (tool) => tool === "Read");
}

/** The paths of the deny and ask rules (options and settings files) of the tools `which` takes (a bare rule names the tool, no path). */
function ruleContents(
  kernel: Kernel,
  given: { deny: readonly string[]; ask: readonly string[] },
  which: (tool: string) => boolean,
): string[] {
  const parse = (texts: readonly string[], list: "deny" | "ask") =>
    texts.flatMap((text) => {
      try {
        return [parseRule(text, list, list === "deny" ? "disallowedTools" : "askTools")];
      } catch {
        return []; // the permissions plugin reports malformed rules
      }
    });
  const rules = [
    ...parse(given.deny, "deny"),
    ...parse(given.ask, "ask"),
    ...getPermissionsApi(kernel).addedRules.filter((r) => r.list === "deny" || r.list === "ask"),
  ];
  return rules.filter((r) => which(r.tool) && r.content !== undefined).map((r) => r.content!);
}

export default sandboxPlugin;
export { getSandboxApi, type SandboxApi, type SpawnSpec, type SpawnUse } from "./api";
export { sandboxAvailability, SandboxUnavailableError, type SandboxAvailability } from "./availability";
export { sandboxSettings, isExcluded, type SandboxSettings, type NetworkPolicy } from "./config";
export { PROTECTED_FILES, PROTECTED_FOLDERS } from "./protect";
export { HOME_READABLE, SENSITIVE_HOME } from "./secrets";

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";

/** Why a shared scratch folder given to write in is not one the sandbox lets commands write. */
function sharedScratchWarning(dir: string): string {
  return `the additional folder ${dir} (additionalDirectories, --add-dir or sandbox.filesystem.allowWrite) is a scratch folder every program on the machine writes: sandboxed commands do not write it (they keep their private /tmp), since the sandbox would take other programs' new files there for its own and move them out; name a folder of your own inside it instead`;
}
