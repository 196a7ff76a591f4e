/**
 * Shell-command hooks, read the way Claude Code reads them: the hook input as snake_case JSON
 * on stdin; exit 0 with optional JSON on stdout (`decision`, `reason`, `continue`,
 * `hookSpecificOutput.permissionDecision`, `updatedInput`, `additionalContext`, ...); exit 2
 * blocks with stderr as the reason; any other exit code is a logged, non-blocking error.
 * A timeout kills the whole process group.
 */
import type { Logger, RunContext } from "../../src/index";
import type { AgentHookRunner } from "./model-hook";
import type { HttpHookPolicy } from "./http";
import type { SpawnSpec } from "../sandbox/api";
import {
  buildSubprocessEnv,
  shellSpawn,
  spawnFolder,
  spawnOwned,
  noteCommandLinePackages,
  noteServerPackages,
  scriptFolders,
  unimportedScriptFolder,
  withoutFolderImports,
  withScriptFolders,
  type SubprocessEnvOptions,
} from "../_kits/process/index";
import type { CommandHook, HookInput, HookOutput } from "./types";
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

/** Where a command hook runs; `wrap` is the sandbox's (ubiquity:sandbox), when there is one. */
export interface HookRunContext {
  cwd: string;
  signal: AbortSignal;
  logger: Logger;
  /** The run's `env` and `subprocessEnv`: what the hook's environment is built from. */
  environment?: SubprocessEnvOptions;
  wrap?: (spec: SpawnSpec, command: string) => SpawnSpec;
  /**
   * False when the folder is not trusted: the hook (the user's own) then runs outside it, in the
   * home folder, so neither its programs nor npm's settings come from the folder; the project
   * folder is still in its input and in UBIQUITY_PROJECT_DIR [true].
   */
  trusted?: boolean;
  /** The run the event fired in: prompt and agent hooks call its model. */
  run?: RunContext;
  /** Runs an agent hook's subagent (the agents plugin registers it). */
  agentRunner?: AgentHookRunner;
  /** The URLs and header variables HTTP hooks are held to. */
  httpPolicy?: HttpHookPolicy;
  /**
   * SessionStart: names the file the hook may write `export NAME=value` lines to (CLAUDE_ENV_FILE),
   * as the hook will see it (`contained`: it runs in the sandbox).
   */
  envFile?: (contained: boolean) => string;
}

const DEFAULT_TIMEOUT_S = 60;
// How long a reaper asked to stop may take before its group and the shell's get SIGKILL (as Bash).
const REAPER_GRACE_MS = 3000;
// After a lost reaper's exit (killed, or not sure it ended everything), output still in the pipes
// is waited for this long at most: a process that escaped it may hold them open for good.
const DRAIN_AFTER_EXIT_MS = 200;
/**
 * Red-team fix: the most of a hook's stdout or stderr that is kept. A hook printing without end (one
 * that detached with `{"async": true}` above all, which nobody reads until it ends) grew a string
 * until V8 refused it, and the throw in the data handler ended the whole process. Past this, the
 * stream is still read (the hook never blocks on a full pipe) but not kept, and the answer in it
 * is not read (readAnswer).
 */
const MAX_OUTPUT_CHARS = 10 * 1024 * 1024;

function sigkillGroup(pgid: number | undefined): void {
  try {
    if (pgid) process.kill(-pgid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The JSON a command hook reads on stdin (Claude Code's field names). */
export function commandPayload(input: HookInput): Record<string, unknown> {
  const out: Record<string, unknown> = {
    session_id: input.sessionId,
    cwd: input.cwd,
    permission_mode: input.permissionMode,
    hook_event_name: input.hookEventName,
  };
  if (input.transcriptPath !== undefined) out.transcript_path = input.transcriptPath;
  if (input.agentId) out.agent_id = input.agentId;
  if (input.agentType) out.agent_type = input.agentType;
  if (input.toolName !== undefined) out.tool_name = input.toolName;
  if (input.toolInput !== undefined) out.tool_input = input.toolInput;
  if (input.toolUseId !== undefined) out.tool_use_id = input.toolUseId;
  if (input.toolOutput !== undefined) out.tool_response = input.toolOutput;
  if (input.prompt !== undefined) out.prompt = input.prompt;
  if (input.message !== undefined) out.message = input.message;
  for (const [k, v] of Object.entries(input.extra)) out[snake(k)] ??= v;
  return out;
}

interface Spawned {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** It printed more than MAX_OUTPUT_CHARS on stdout: what was kept is not its whole answer. */
  overflow?: boolean;
  /** The hook's first line was `{"async": true}`: the rest of its run, which nobody waits for. */
  rest?: Promise<Spawned>;
  /** It ran in the OS sandbox. */
  contained?: boolean;
  /** It was still running when its run ended, and was stopped with it (a background hook). */
  stopped?: boolean;
}

/**
 * Why a sandboxed hook that failed on a write (or on a path of the hidden home) failed: Claude
 * Code runs hooks unsandboxed, so its users' logging hooks (`>> ~/.claude/x.log`,
 * `>> "$CLAUDE_PROJECT_DIR/.claude/hook.log"`) and those keeping their state in `.claude/`
 * (ralph-loop's) fail here, and "Read-only file system" alone did not say why. "" for any other failure.
 */
function sandboxNote(result: Spawned, cwd: string): string {
  if (!result.contained) return "";
  const secret = deniedSecret(result.stderr, cwd);
  if (secret !== undefined)
    return ` (the hook ran in the OS sandbox, which keeps ${secret} unreadable, as it keeps every .env, .env.*, *.pem, *.key and id_* file of the run's folders and the paths of Read deny and ask rules from the commands it runs, hooks included; Claude Code runs hooks unsandboxed. To let hooks read it, add it to sandbox.filesystem.allowRead (["${secret}"]), or run without the sandbox, --no-sandbox)`;
  const home = process.env.HOME;
  // "Device or resource busy": a protected file replaced by a rename (git's `.git/config.lock`), as a
  // hook running `git config core.hooksPath .githooks` (5throck/abap_vibe_coding_plugin's) did.
  const write = /Read-only file system|EROFS|Device or resource busy|EBUSY/.test(result.stderr);
  const hidden =
    !!home && /No such file or directory|ENOENT/.test(result.stderr) && namesHiddenHomePath(result.stderr, home);
  if (!write && !hidden && !refusedFolder(result.stderr)) return "";
  return " (the hook ran in the OS sandbox, which lets it write only the run's folders and a private /tmp, never the files that run code later such as .claude/, .git/config, .git/hooks or .mcp.json, and shows of the home folder only toolchains and caches: have it write under the project or $TMPDIR, add the folder to sandbox.filesystem.allowWrite, or run without the sandbox, --no-sandbox)";
}

/**
 * Why a Python hook could not import a module that sits beside its script: hooks run with
 * `PYTHONSAFEPATH=1`, and a script's folder goes back on the import path only where no sandboxed
 * command can plant a module (the process kit's script-folders.ts); Claude Code runs the script with
 * its folder first on the path, so a dispatcher in the project's `hooks/` importing its helpers
 * there (decider/claude-hooks) fails here with only Python's "No module named". "" otherwise.
 */
function importNote(result: Spawned, hook: CommandHook, cwd: string): string {
  const missing = /ModuleNotFoundError: No module named '([A-Za-z_][\w.]*)'/.exec(result.stderr)?.[1];
  if (!missing) return "";
  const command = hook.args ? [hook.command, ...hook.args].join(" ") : hook.command;
  const folder = unimportedScriptFolder(command, cwd, missing, hook.pluginRoot);
  if (!folder) return "";
  return ` (${missing} is beside the hook's script, in ${folder}, but that folder is not on the hook's import path: ubiquity runs hooks with PYTHONSAFEPATH=1 and puts a script's folder back only where no sandboxed command can plant a module, under .claude/ (such as .claude/hooks), in a plugin's folder outside the project or in ~/.claude, while Claude Code runs the script with its folder on the path. Move the hook's scripts and their modules under .claude/hooks and point the settings there)`;
}

/**
 * Whether `stderr` names a path of the home folder that is there outside the sandbox: one that is
 * nowhere (FradSer's Stop hook runs `$HOME/.claude/consolidate-memory.sh`, a file its dotfiles do not
 * hold) fails unsandboxed too, and blaming the sandbox sent the user to its settings for nothing.
 */
function namesHiddenHomePath(stderr: string, home: string): boolean {
  const paths = stderr.match(new RegExp(`${home.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/[^\\s'"\`:,;()]*`, "g")) ?? [];
  return paths.some((path) => existsSync(path.replace(/[.]+$/, "")));
}

/**
 * Whether `stderr` says a folder could not be made though the folder it goes in is there outside
 * the sandbox: node's `ENOENT: no such file or directory, mkdir '<path>'` (or a shell's `mkdir:
 * cannot create directory`), which is how a write to a folder the sandbox shows read-only came out
 * of a plugin keeping its state beside its code (Dev-GOM's six hook plugins make `<plugin>/.state`),
 * with nothing saying the sandbox was why.
 */
function refusedFolder(stderr: string): boolean {
  const patterns = [
    /ENOENT: no such file or directory, mkdir '([^'\n]+)'/g,
    /mkdir: cannot create directory ['\u2018]([^'\u2019\n]+)['\u2019]: No such file or directory/g,
  ];
  return patterns.some((pattern) => [...stderr.matchAll(pattern)].some((m) => existsSync(dirname(m[1]!))));
}

/** Names the sandbox makes unreadable, whatever folder they are in (docs/guide/sandbox.md). */
const SECRET_NAME = /^(\.env(\..+)?|.+\.pem|.+\.key|id_[^/]+)$/;

/**
 * The secret file a hook was refused (python's `PermissionError: [Errno 13] Permission denied: '/p/.env'`,
 * node's `EACCES: permission denied, open '/p/.env'`, a shell's `/p/.env: Permission denied`), when
 * its name is one the sandbox keeps unreadable (disler's hooks call `load_dotenv()`, which reads the
 * project's .env: each failed with only a traceback). Undefined for any other failure.
 */
function deniedSecret(stderr: string, cwd: string): string | undefined {
  const patterns = [
    /Permission denied: '([^'\n]+)'/gi,
    /EACCES: permission denied, \w+ '([^'\n]+)'/gi,
    /(?:^|\s)([^\s:'"]+): Permission denied/gim,
  ];
  for (const pattern of patterns)
    for (const match of stderr.matchAll(pattern)) {
      const path = match[1]!;
      if (SECRET_NAME.test(path.split("/").pop() ?? "")) return resolve(cwd, path);
    }
  return undefined;
}

/**
 * The time a hook that answered `{"async": true, "asyncTimeout": ms}` on its first line may go on
 * for in the background (its own timeout without `asyncTimeout`); undefined for any other line.
 */
function asyncAnswer(line: string, timeoutMs: number): number | undefined {
  if (!line.trimStart().startsWith("{")) return undefined;
  let answer: unknown;
  try {
    answer = JSON.parse(line);
  } catch {
    return undefined;
  }
  if ((answer as { async?: unknown } | null)?.async !== true) return undefined;
  const ms = (answer as { asyncTimeout?: unknown }).asyncTimeout;
  return typeof ms === "number" && ms > 0 ? Math.min(ms, 2_147_483_647) : timeoutMs;
}

/**
 * A hook's environment: the run's subprocess environment (the allow-list, or everything with
 * `subprocessEnv: "inherit"`) plus the project folder under both products' names.
 */
export function hookEnv(options: SubprocessEnvOptions, cwd: string): Record<string, string> {
  return buildSubprocessEnv(options, { add: [{ UBIQUITY_PROJECT_DIR: cwd, CLAUDE_PROJECT_DIR: cwd }] });
}

const PROJECT_DIR = /\$\{CLAUDE_PROJECT_DIR\}|\$CLAUDE_PROJECT_DIR(?![A-Za-z0-9_])/g;

/** An exec-form word with `${CLAUDE_PROJECT_DIR}` (or `$CLAUDE_PROJECT_DIR`) replaced by the project folder. */
export function withProjectDir(word: string, projectDir: string): string {
  return word.replace(PROJECT_DIR, () => projectDir);
}

/** What a hook's process is spawned as: in the sandbox when there is one (spawnOwned adds the reaper outside it). */
function hookSpawn(command: string, context: HookRunContext, args?: readonly string[], pluginRoot?: string) {
  const { cwd } = context;
  const where = spawnFolder(cwd, context.trusted !== false);
  // shellSpawn: bash with --norc (with stdin a socket and SHLVL unset it would run ~/.bashrc first).
  // Exec form (`args` given, as Claude Code allows): the program runs with its arguments, no shell,
  // so `${CLAUDE_PROJECT_DIR}` in them is filled here (a shell fills it from the environment).
  const program = args
    ? { command: withProjectDir(command, cwd), args: args.map((arg) => withProjectDir(arg, cwd)) }
    : shellSpawn(command);
  // Python imports no module a command planted in the folder the hook runs in (red team p, P1);
  // what the run's env names in that folder (P2), and the packages the hook runs by name from its
  // node_modules (P5), are kept from sandboxed commands: noted before the hook or any later spawn.
  // That also leaves out the folder of a Python script the hook runs: a safe one goes back (the process kit's script-folders.ts).
  const scripts = scriptFolders(args ? [command, ...args].join(" ") : command, cwd, pluginRoot);
  const env = withScriptFolders(withoutFolderImports(hookEnv(context.environment ?? {}, cwd)), scripts);
  if (args) noteServerPackages(program.command, program.args, where, context.environment?.env);
  else noteCommandLinePackages(command, where, context.environment?.env);
  // A plugin's hook finds its own files through CLAUDE_PLUGIN_ROOT (hookify imports its modules by it).
  if (pluginRoot) env.CLAUDE_PLUGIN_ROOT = pluginRoot;
  const plain: SpawnSpec = { ...program, cwd: where, env };
  let wrapped = context.wrap ? context.wrap(plain, command) : plain; // a throw rejects: dispatch logs and skips the hook
  // SessionStart: CLAUDE_ENV_FILE, as the hook sees it (inside the sandbox, a file of its private /tmp).
  if (context.envFile)
    wrapped = { ...wrapped, env: { ...wrapped.env, CLAUDE_ENV_FILE: context.envFile(wrapped.contained === true) } };
  return wrapped;
}

/**
 * Watches a hook's stdout for Claude Code's async answer, `{"async": true}` as its first line:
 * `detach` is called once with the time it may go on for and the line.
 */
function asyncWatch(timeoutMs: number, detach: (ms: number, line: string) => void): (stdout: string) => void {
  let seen = false;
  return (stdout) => {
    const end = seen ? -1 : stdout.indexOf("\n");
    if (end < 0) return;
    seen = true;
    const ms = asyncAnswer(stdout.slice(0, end), timeoutMs);
    if (ms !== undefined) detach(ms, stdout.slice(0, end));
  };
}

/**
 * The hook input as a file descriptor a hook can reopen: Node gives a child's stdin as a socket,
 * which `< /dev/stdin` and `cat /dev/stdin` cannot open (ENXIO), so a hook written as Claude Code's
 * docs write one (`jq -r '.tool_input.command' < /dev/stdin`) read nothing and let every call through.
 * A private file (mode 0600 in a fresh 0700 folder, in /dev/shm where there is one), opened for
 * reading and unlinked before the hook starts: only the open descriptor is left, and /proc/self/fd/0
 * reopens it. Undefined when it cannot be made (the stdin pipe then).
 */
function stdinFile(text: string): number | undefined {
  // In memory where there is a tmpfs for it (/dev/shm): the input (a tool call's content) never reaches a disk.
  for (const base of ["/dev/shm", tmpdir()]) {
    let dir: string | undefined;
    try {
      dir = mkdtempSync(join(base, "ubq-hook-"));
      const file = join(dir, "input.json");
      writeFileSync(file, text, { mode: 0o600 });
      return openSync(file, "r");
    } catch {
      // The next place, then the pipe.
    } finally {
      if (dir) rmSync(dir, { recursive: true, force: true });
    }
  }
  return undefined;
}

/** Start a hook with its input as a file it can reopen (stdinFile), or down the stdin pipe when none can be made. */
function spawnWithInput(spec: Parameters<typeof spawnOwned>[0], stdin: string): ReturnType<typeof spawnOwned> {
  const input = stdinFile(stdin);
  try {
    const owned = spawnOwned(spec, { stdin: input });
    owned.child.stdin?.on("error", () => {}); // a script that never reads stdin closes it early
    owned.child.stdin?.end(stdin);
    return owned;
  } finally {
    if (input !== undefined) closeSync(input); // the child has its own copy
  }
}

function runShell(
  command: string,
  stdin: string,
  context: HookRunContext,
  timeoutMs: number,
  args?: readonly string[],
  pluginRoot?: string,
): Promise<Spawned> {
  const { signal } = context;
  return new Promise((resolve) => {
    // Its own process group, outside the sandbox under the reaper (which ends what the hook leaves
    // behind, setsid or not), tracked until it exits: it ends with this program.
    const spec = hookSpawn(command, context, args, pluginRoot);
    const contained = spec.contained === true;
    const owned = spawnWithInput(spec, stdin);
    const { child, reaper, report } = owned;
    let fallback: NodeJS.Timeout | undefined;
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    let stopping = false;
    let exited = false;
    child.once("exit", () => (exited = true));
    const killGroup = () => {
      if (!child.pid || stopping) return;
      stopping = reaper;
      // A reaper that exited is not signalled (its pid may be another process's by now).
      owned.kill();
      // A reaper that does not end (the hook stopped or traced it) is not waited for forever.
      if (report) {
        fallback = setTimeout(() => {
          if (!exited) {
            sigkillGroup(child.pid);
            sigkillGroup(report.now().shell);
          }
          // Its exit may never be seen (a process of the hook traces it): not waited for either.
          fallback = setTimeout(() => {
            for (const stream of [child.stdout, child.stderr, child.stdio[3]]) stream?.destroy();
            finish(null);
          }, REAPER_GRACE_MS);
        }, REAPER_GRACE_MS);
      }
    };
    const onTimeout = () => {
      timedOut = true;
      killGroup();
    };
    let timer = setTimeout(onTimeout, timeoutMs);
    // Claude Code's async answer lets the caller go on at once; the rest of the run resolves `rest`.
    let rest: ((spawned: Spawned) => void) | undefined;
    const watch = asyncWatch(timeoutMs, (ms, line) => {
      clearTimeout(timer);
      timer = setTimeout(onTimeout, ms);
      resolve({ code: null, stdout: line, stderr: "", timedOut: false, rest: new Promise((r) => (rest = r)) });
    });
    let stopped = false;
    const onAbort = () => {
      stopped = true;
      killGroup();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    let overflow = false;
    child.stdout!.setEncoding("utf8").on("data", (d: string) => {
      if (stdout.length + d.length > MAX_OUTPUT_CHARS) overflow = true;
      else stdout += d;
      watch(stdout);
    });
    child.stderr!.setEncoding("utf8").on("data", (d: string) => {
      if (stderr.length < MAX_OUTPUT_CHARS) stderr += d.slice(0, MAX_OUTPUT_CHARS - stderr.length);
    });
    child.on("error", (error) => {
      stderr += String(error);
    });
    let settled = false;
    const finish = (code: number | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(fallback);
      signal.removeEventListener("abort", onAbort);
      // What the hook left running in the background ends with it (the reaper has ended it already,
      // and its pid is no longer ours to signal).
      if (!reaper) killGroup();
      (rest ?? resolve)({
        code,
        stdout,
        stderr,
        timedOut,
        contained,
        ...(overflow ? { overflow } : {}),
        ...(stopped ? { stopped } : {}),
      });
    };
    child.on("close", (code) => finish(code));
    // Under the reaper its exit is the end (it ended the tree, or was killed): the pipes get a
    // short drain, as a process that escaped a killed reaper may keep them open.
    if (report) {
      child.on("exit", (code, exitSignal) => {
        void report.done.then((said) => {
          // A reaper that ended the whole tree leaves nobody holding the pipes: 'close' comes, with
          // all of the hook's output (its JSON decides). Otherwise it may never come.
          if (said.contained && exitSignal === null) return;
          // In `fallback`, so a 'close' that comes first clears it: a pending timer holds the program open.
          clearTimeout(fallback);
          fallback = setTimeout(() => {
            for (const stream of [child.stdout, child.stderr, child.stdio[3]]) stream?.destroy();
            finish(code);
          }, DRAIN_AFTER_EXIT_MS);
        });
      });
    }
  });
}

/** Turn a command's stdout JSON into a HookOutput. */
export function parseCommandOutput(json: Record<string, unknown>): HookOutput & { ask?: boolean } {
  const out: HookOutput & { ask?: boolean } = {};
  const specific = (json.hookSpecificOutput ?? {}) as Record<string, unknown>;
  if (json.decision === "block" || json.decision === "approve") out.decision = json.decision;
  if (typeof json.reason === "string") out.reason = json.reason;
  if (json.continue === false) {
    out.continue = false;
    if (typeof json.stopReason === "string") out.reason ??= json.stopReason;
  }
  const permission = specific.permissionDecision;
  const permissionReason =
    typeof specific.permissionDecisionReason === "string" ? specific.permissionDecisionReason : undefined;
  if (permission === "deny") {
    out.decision = "block";
    out.reason = permissionReason ?? out.reason;
  } else if (permission === "allow") out.decision ??= "approve";
  else if (permission === "ask") {
    out.ask = true;
    // Claude Code shows the reason in the permission prompt: it stays with the ask (never a block).
    out.reason = permissionReason ?? out.reason;
  }
  const updated = specific.updatedInput ?? json.updatedInput;
  if (updated && typeof updated === "object" && !Array.isArray(updated))
    out.updatedInput = updated as Record<string, unknown>;
  const context = specific.additionalContext ?? json.additionalContext;
  if (typeof context === "string") out.additionalContext = context;
  if (typeof json.systemMessage === "string") out.systemMessage = json.systemMessage;
  if (json.suppressOutput === true) out.suppressOutput = true;
  if (typeof specific.worktreePath === "string") out.worktreePath = specific.worktreePath;
  // SessionStart and FileChanged: the files FileChanged watches besides its matcher's.
  if (Array.isArray(specific.watchPaths))
    out.watchPaths = specific.watchPaths.filter((p): p is string => typeof p === "string");
  // Elicitation and ElicitationResult: the answer to an MCP server's question.
  const action = specific.action;
  if (action === "accept" || action === "decline" || action === "cancel") {
    const content = specific.content;
    const fields = content && typeof content === "object" && !Array.isArray(content) && action === "accept";
    out.elicitation = { action, ...(fields ? { content: content as Record<string, unknown> } : {}) };
  }
  return out;
}

/**
 * Run one command hook and read its answer. Never throws. A hook whose first line is
 * `{"async": true}` is not waited for: it answers undefined now, and `later` gets its answer.
 */
export async function runCommandHook(
  hook: CommandHook,
  input: HookInput,
  context: HookRunContext,
  later?: (output: (HookOutput & { ask?: boolean }) | undefined) => void,
): Promise<(HookOutput & { ask?: boolean }) | undefined> {
  // Red-team fix: a timer takes at most 2^31-1 ms (24.8 days); more fires at once, a guard turned into a no-op.
  const timeoutMs = Math.min((hook.timeout ?? DEFAULT_TIMEOUT_S) * 1000, 2_147_483_647);
  const payload = JSON.stringify(commandPayload(input));
  const result = await runShell(hook.command, payload, context, timeoutMs, hook.args, hook.pluginRoot);
  const label = `${input.hookEventName} hook command ${JSON.stringify(hook.command)}`;
  if (result.rest) {
    // It answered `{"async": true}`: what it says when it ends goes to `later` (asyncRewake), else nowhere.
    context.logger.debug(`${label} went on in the background ({"async": true})`);
    void result.rest.then((ended) => later?.(readAnswer(ended, label, input, hook, context)));
    return undefined;
  }
  return readAnswer(result, label, input, hook, context);
}

/** What a command hook's exit code and output say. */
function readAnswer(
  result: Spawned,
  label: string,
  input: HookInput,
  hook: CommandHook,
  context: HookRunContext,
): (HookOutput & { ask?: boolean }) | undefined {
  const timeoutMs = Math.min((hook.timeout ?? DEFAULT_TIMEOUT_S) * 1000, 2_147_483_647);
  if (result.timedOut) {
    context.logger.warn(`${label} timed out after ${timeoutMs / 1000}s and was killed; it was ignored`);
    return undefined;
  }
  if (result.stopped && result.code !== 0 && result.code !== 2) {
    // Ended with its run (a background hook at the end of `-p`): what it printed while its folders
    // went away (the shell's getcwd errors) says nothing about the hook.
    context.logger.warn(`${label} was stopped with its run (still running when the run ended or was interrupted)`);
    return undefined;
  }
  if (result.code === 2) {
    const said = result.stderr.trim();
    // A blocked prompt is told to the user, who must learn which hook stopped it: a script's own error
    // can end in exit 2 too (python's "can't open file" for a hook script that is not there).
    if (said && input.hookEventName === "UserPromptSubmit")
      return { decision: "block", reason: `${label} blocked it (exit 2): ${said}` };
    return { decision: "block", reason: said || `Blocked by the ${input.hookEventName} hook ${hook.command}` };
  }
  if (result.code !== 0) {
    context.logger.warn(
      `${label} failed (exit ${result.code ?? "signal"}): ${result.stderr.trim().slice(0, 500)}${sandboxNote(result, context.cwd)}${importNote(result, hook, context.cwd)}; it was ignored`,
    );
    return undefined;
  }
  if (result.overflow) {
    context.logger.warn(`${label} printed more than ${MAX_OUTPUT_CHARS} characters; its output was ignored`);
    return undefined;
  }
  const text = result.stdout.trim();
  if (!text) return undefined;
  if (text.startsWith("{")) {
    try {
      return parseCommandOutput(JSON.parse(text) as Record<string, unknown>);
    } catch (error) {
      context.logger.warn(`${label} printed invalid JSON (${String(error)}); its output was ignored`);
      return undefined;
    }
  }
  // Plain text on stdout is context for the prompt events, as in Claude Code.
  if (input.hookEventName === "UserPromptSubmit" || input.hookEventName === "SessionStart")
    return { additionalContext: text };
  // WorktreeCreate's answer is the worktree's path, its last line (what came before is the tool's chatter).
  if (input.hookEventName === "WorktreeCreate") return { worktreePath: text.split("\n").at(-1)!.trim() };
  return undefined;
}
