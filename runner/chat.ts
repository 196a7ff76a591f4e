/**
 * The terminal mode (`ubiquity` with no prompt in a terminal, or `ubiquity chat`): one session,
 * prompt after prompt in one live session, each answer streamed with its tool lines and approvals.
 * Ctrl-C interrupts the current turn (`Query.interrupt()`) and keeps the session; `/model`
 * switches it (`setModel`); Ctrl-D or `/exit` quits. One readline
 * interface owns stdin: the prompt and the approver's questions both go through it.
 */
import { alreadyWarned } from "../sdk/console-logger";
import { createInterface } from "./readline";
import { resolve } from "node:path";
import type { UbiquityConfig } from "../sdk/facade";
import type { RunnerIO } from "./run";
import { terminalApprover } from "./approver";
import { declaresOption } from "./config";
import { terminalText, TextRenderer, thousands, withoutKernelTerms } from "./render";
import { SessionStore } from "../sdk/facade";
import { storageRoot } from "../plugins/_kits/storage/index";
import { Conversation, storedSessionModel, type ConversationTotals } from "./conversation";
import type { TaskInfo } from "../sdk/facade";
import { decideTrust, TrustDeclinedError, untrustedWarning } from "./trust";
import { colorEnabled, createStyle, type Style } from "./style";
import { EXIT } from "./exit";
import { describeError } from "../src/errors";
import type { TerminalAnswerer } from "../loader/index";
import { chatRewind } from "../plugins/checkpoints/index";

/** The commands of the terminal mode, for `/help`. */
export const CHAT_COMMANDS: Record<string, string> = {
  "/clear": "start a new session",
  "/compact [instructions]": "summarize the conversation before the next prompt (optionally: what to keep)",
  "/cost": "turns, tokens and cost of this session so far",
  "/model [spec]": "show the model, or run on another from the next prompt on",
  "/resume [id]": "list recent sessions, or continue one",
  "/rewind [uuid]":
    "list this session's checkpoints, or put the files back as they were before that message (asks first)",
  "/tasks [id]": "background shells and agents of this session, or the latest output of one",
  "/stop <id>": "stop a background task (and everything it started)",
  "/help": "this list",
  "/exit": "quit (also Ctrl-D)",
};

/**
 * Claude Code's own terminal commands that are not commands here, and what does their work (a
 * Claude Code user types them from habit; "Unknown command" alone left them stuck).
 */
const CLAUDE_CODE_COMMANDS: Readonly<Record<string, string>> = {
  "/init":
    'ask the model to write CLAUDE.md (read with compat: ["claude"]) or AGENTS.md (compat: ["codex"]); `ubiquity init` scaffolds a config',
  "/memory":
    'the memory files are CLAUDE.md and the others docs/coming-from-claude-code.md lists (with compat: ["claude"]): edit one, or ask the model to; the next session reads it (/clear), once approved if the folder is trusted file by file',
  "/permissions":
    'rules are in .ubiquity/settings.json (and .claude/settings.json with compat: ["claude"]) and the --allowedTools/--disallowedTools flags; Shift-Tab cycles the mode; an approval\'s [a]lways adds a rule for the session',
  "/bashes": "/tasks lists the background shells, /tasks <id> shows one's latest output, /stop <id> stops one",
  "/plan": "Shift-Tab to plan mode (or --permission-mode plan)",
  "/mcp": "`ubiquity mcp list` (in another terminal) starts and checks the MCP servers; .mcp.json holds them",
  "/agents": 'subagents come from the config\'s agents, --agents, or .claude/agents/*.md with compat: ["claude"]',
  "/hooks":
    'hooks are in the settings files (.ubiquity/settings.json; .claude/settings.json with compat: ["claude"]) and the config\'s hooks; `ubiquity trust .` lists what each settings file adds',
  "/add-dir": "start with --add-dir <dir> (the session keeps its folders)",
  "/context": "/cost shows the session's tokens; the status line too",
  "/status": "the status line shows the model, mode, cost and tokens; /model and /cost say more",
  "/config":
    "settings are files: ubiquity.config.ts and .ubiquity/settings.json; `ubiquity inspect` shows what a run here uses",
  "/export":
    "`ubiquity sessions show <id>` prints a session, `ubiquity sessions export <id>` exports it (/resume lists the ids)",
  "/login": "set the provider's key variable (OPENAI_API_KEY, ANTHROPIC_API_KEY, …); `ubiquity models` lists them",
};

const n = thousands;

/** `/cost`: one line over the session's runs. */
export function formatTotals(t: ConversationTotals, sessionId: string | undefined): string {
  const cost = t.costUsd === null ? "cost unknown" : `$${t.costUsd.toFixed(4)}`;
  const cached = t.usage.cacheReadTokens ? ` (${n(t.usage.cacheReadTokens)} cached)` : "";
  return `session ${sessionId ?? "(not started)"}: ${t.turns} turn${t.turns === 1 ? "" : "s"} · ${n(t.usage.inputTokens)} in / ${n(t.usage.outputTokens)} out tokens${cached} · ${cost}`;
}

function modelName(model: UbiquityConfig["model"]): string {
  if (model === undefined) return process.env.UBIQUITY_MODEL || "(none: set --model or UBIQUITY_MODEL)";
  return typeof model === "string" ? model : `${model.provider}:${model.modelId}`;
}

export interface ChatContext {
  /** --model was given: /resume keeps it instead of the stored session's model. */
  fixedModel: boolean;
  verbose: boolean;
  /** The active plugins' terminal answerers. */
  answerers?: TerminalAnswerer[];
}

/** The terminal UI unless the terminal cannot draw it (`TERM=dumb`) or `UBIQUITY_TUI=0` asks for the plain line mode. */
function terminalUIWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.TERM !== "dumb" && !["0", "false", "off"].includes((env.UBIQUITY_TUI ?? "").toLowerCase());
}

/** Run the terminal mode until /exit or Ctrl-D; resolves to the exit code. */
export async function runChat(options: UbiquityConfig, io: RunnerIO, ctx: ChatContext): Promise<number> {
  // The terminal UI (runner/tui) is loaded here only, so runs with a prompt never load it.
  // It gets the slash commands from here (handed over, so the two modules do not import each other).
  if (terminalUIWanted())
    return (await import("./tui/index")).runTerminalUI(options, io, ctx, {
      command,
      modelName,
      commandNames: Object.keys(CHAT_COMMANDS).map((c) => c.split(" ")[0]!),
    });
  const style = createStyle(colorEnabled(true));
  let conversation: Conversation | undefined;
  const rl = createInterface({
    input: io.stdin,
    output: io.terminal!,
    terminal: true,
    historySize: 200,
    completer: async (line: string): Promise<[string[], string]> => [await complete(line, conversation), line],
  });
  let closed = false;
  const closing = new Promise<null>((done) => rl.once("close", () => ((closed = true), done(null))));
  let turn: AbortController | undefined;
  const interrupt = () => {
    if (turn && !turn.signal.aborted) {
      turn.abort(new Error("interrupted (Ctrl-C)"));
      io.stderr(`\n${style.dim("interrupted; the session stays (Ctrl-D or /exit to quit)")}\n`);
    } else if (!turn) {
      rl.write(null, { ctrl: true, name: "u" }); // clear the line being typed
      io.stderr(`\n${style.dim("(Ctrl-D or /exit to quit)")}\n`);
      rl.prompt();
    }
  };
  // In raw mode Ctrl-C reaches readline as a key; otherwise it is the process's SIGINT.
  rl.on("SIGINT", interrupt);
  process.on("SIGINT", interrupt);

  const renderer = new TextRenderer(
    { out: (t) => io.stdout(terminalText(t)), info: (t) => io.stderr(`${t}\n`), status: (t: string) => io.stderr(t) },
    true,
    style,
    { warned: (text) => alreadyWarned(options.logger, text) },
  );
  const ask = (question: string, signal: AbortSignal) => rl.question(question, { signal });
  options.includePartialMessages = true;
  // Checkpoints are on at the terminal, where /rewind can use them (a config may still say false).
  if (declaresOption(options, "checkpoints")) options.checkpoints ??= true;
  // `@path` in a typed prompt brings the file in, as at Claude Code's prompt (a config may still say false).
  if (declaresOption(options, "fileMentions")) options.fileMentions ??= true;
  if (declaresOption(options, "canUseTool"))
    options.canUseTool ??= terminalApprover(io, {
      ask,
      answerers: ctx.answerers,
      beforeQuestion: (toolName, toolInput, toolUseId) => renderer.toolLine({ toolName, toolInput, toolUseId }),
      typed: (toolName, toolInput, toolUseId) => conversation?.typedCall(toolName, toolInput, toolUseId) ?? false,
    });
  conversation = new Conversation(options);
  const marker = style.prompt("› ");
  io.stdout(
    `${style.bold("ubiquity")} ${style.dim(`· ${modelName(conversation.model)} · /help for commands · Ctrl-C interrupts · Ctrl-D quits`)}\n`,
  );

  try {
    for (;;) {
      const line = await Promise.race([rl.question(marker).catch(() => null), closing]);
      if (line === null || closed) break;
      const text = line.trim();
      if (!text) continue;
      if (text.startsWith("!")) {
        await typedCommand(conversation, text.slice(1).trim(), io, style);
        continue;
      }
      if (text.startsWith("/")) {
        const outcome = await command(text, { conversation, io, style, ctx, options, ask: (q) => rl.question(q) });
        if (outcome === true) break;
        // A command file (or a skill) of that name: the session expands it (ubiquity:commands).
        if (outcome !== "send") continue;
      }
      const current = (turn = new AbortController());
      try {
        // An interrupted turn was announced when Ctrl-C came: its result shows only the closing line.
        await conversation.send(text, current.signal, (m) =>
          renderer.render(m.type === "result" && current.signal.aborted ? { ...m, isError: false } : m),
        );
      } finally {
        turn = undefined;
      }
    }
  } finally {
    process.removeListener("SIGINT", interrupt);
    rl.close();
    await conversation.close();
  }
  io.stdout("\n");
  return EXIT.ok;
}

/** `!command` (Claude Code's bash mode) at the line prompt: run it now, print what it printed; it goes with the next prompt. */
async function typedCommand(conversation: Conversation, command: string, io: RunnerIO, style: Style): Promise<void> {
  if (!command)
    return void io.stdout(style.dim("type a command after ! to run it; its output goes with your next prompt\n"));
  try {
    const outcome = await conversation.shell(command);
    io.stdout(`${outcome.output.replace(/\s+$/, "")}\n`);
    if (!outcome.ran) io.stdout(style.dim("not run: nothing goes to the model\n"));
  } catch (error) {
    io.stderr(`${style.error(`error: ${describeError(error)}`)}\n`);
  }
}

export interface CommandContext {
  conversation: Conversation;
  io: RunnerIO;
  style: Style;
  ctx: ChatContext;
  options: UbiquityConfig;
  ask(question: string): Promise<string>;
}

/**
 * Before a command's new live session: the folder's files approved at the start that changed since
 * (CLAUDE.md edited at the user's request, Claude Code's way to add a memory) would be left out of
 * it without a word, each new session reading the folder under the start's approvals. The trust
 * question is asked again for them, as at the start; approved, the new session reads them. Only
 * under approved digests: a folder trusted whole (--trust) reads every file anyway, and one not
 * trusted is not asked again.
 */
async function recheckTrust(
  conversation: Conversation,
  options: UbiquityConfig,
  ask: (question: string) => Promise<string>,
  say: (line: string) => void,
): Promise<void> {
  const pins = conversation.trust;
  if (typeof pins !== "object" || pins === null) return;
  const cwd = resolve(options.cwd ?? process.cwd());
  try {
    const decision = await decideTrust({ cwd, ask });
    if (decision.trusted && typeof decision.option === "object") conversation.setTrust(decision.option);
    const warning = untrustedWarning(decision, cwd);
    if (warning) say(warning);
  } catch (error) {
    if (!(error instanceof TrustDeclinedError)) throw error;
    say("The changed files stay out of this session; the files approved before still apply.");
  }
}

/** `/` completions: the built-in commands, then the session's command files and skills. */
async function complete(line: string, conversation: Conversation | undefined): Promise<string[]> {
  if (!line.startsWith("/") || /\s/.test(line)) return [];
  const files = (await conversation?.commands().catch(() => [])) ?? [];
  const names = [...Object.keys(CHAT_COMMANDS).map((c) => c.split(" ")[0]!), ...files.map((c) => `/${c.name}`)];
  return names.filter((name) => name.startsWith(line));
}

/** `/tasks [id]`: the session's background tasks, or what one printed last (Claude Code's task view: a dev server's log). */
async function tasksCommand(conversation: Conversation, arg: string, say: (line: string) => void): Promise<void> {
  if (arg) {
    const output = conversation.taskOutput(arg);
    if (output === undefined) say(`${arg} has printed nothing yet (or is no task of this session: /tasks lists them).`);
    else for (const line of output.replace(/\n$/, "").split("\n").slice(-20)) say(`  ${line}`);
    return;
  }
  const tasks = await conversation.tasks();
  if (tasks.length === 0) say("No background task in this session.");
  for (const t of tasks)
    say(`${t.id.padEnd(9)} ${t.state.padEnd(9)} ${t.description}${t.outcome ? `  (${t.outcome})` : ""}`);
}

/** `/resume [id]`: this folder's recent sessions, or continue one (on its stored model unless --model was given). */
async function resumeCommand(
  arg: string,
  {
    conversation,
    ctx,
    options,
    ask,
    say,
    stopped,
  }: Pick<CommandContext, "conversation" | "ctx" | "options" | "ask"> & {
    say: (line: string) => void;
    stopped: (tasks: TaskInfo[]) => void;
  },
): Promise<void> {
  const cwd = resolve(options.cwd ?? process.cwd());
  const store = new SessionStore({ dir: storageRoot(options.sessionDir, cwd, "sessions") });
  if (!arg) {
    const sessions = await store.list({ cwd, limit: 10 });
    if (sessions.length === 0) say("No stored sessions for this folder.");
    for (const s of sessions) say(`${s.sessionId}  ${s.updatedAt.slice(0, 16).replace("T", " ")}  ${s.summary}`);
    if (sessions.length) say("Continue one with /resume <id>.");
    return;
  }
  if (!(await store.get(arg, cwd))) return say(`No stored session with id ${arg} (see /resume for the list).`);
  stopped(await conversation.resume(arg));
  await recheckTrust(conversation, options, ask, say);
  const stored = ctx.fixedModel ? undefined : await storedSessionModel(options, arg);
  if (stored && typeof conversation.model !== "object") await conversation.setModel(stored);
  say(`Resumed ${arg}${stored ? ` on ${stored}` : ""}: the next prompt continues it.`);
}

/** Run one slash command: true for /exit, "send" for a command the session knows (a command file or skill), else false. */
async function command(
  text: string,
  { conversation, io, style, ctx, options, ask }: CommandContext,
): Promise<boolean | "send"> {
  const [name = "", ...rest] = text.split(/\s+/);
  const arg = rest.join(" ").trim();
  // What a command lists comes from elsewhere too (an MCP prompt's or a skill's description, a
  // background task's command, a session's first prompt): its control characters are shown.
  const say = (line: string) => io.stdout(`${style.dim(terminalText(line))}\n`);
  // A command that reopens the session ends its background tasks (a dev server): never without a word.
  const stopped = (tasks: TaskInfo[]) => {
    for (const t of tasks)
      say(
        `Stopped ${t.id} (${t.description}): ${name} ends the live session, and background tasks end with it; start it again if you need it.`,
      );
  };
  switch (name) {
    case "/exit":
    case "/quit":
      return true;
    case "/help":
      for (const [c, what] of Object.entries(CHAT_COMMANDS)) say(`${c.padEnd(24)} ${what}`);
      for (const c of await conversation.commands().catch(() => []))
        say(`${`/${c.name}${c.argumentHint ? ` ${c.argumentHint}` : ""}`.padEnd(24)} ${c.description}`);
      if (io.terminal && terminalUIWanted())
        say(
          "Keys: Shift-Tab cycles the permission mode · Esc interrupts · Tab completes /commands and @paths · @path sends a file with the prompt · !command runs a shell command",
        );
      return false;
    case "/clear":
      stopped(await conversation.clear());
      await recheckTrust(conversation, options, ask, say);
      say("New session: the next prompt starts fresh.");
      return false;
    case "/compact":
      if (!conversation.sessionId) {
        say("Nothing to compact yet.");
        return false;
      }
      stopped(await conversation.compactNext(arg || undefined));
      await recheckTrust(conversation, options, ask, say);
      say("The conversation will be summarized before your next prompt is sent.");
      return false;
    case "/cost":
      say(formatTotals(conversation.totals(), conversation.sessionId));
      return false;
    case "/tasks":
      await tasksCommand(conversation, arg, say);
      return false;
    case "/stop":
      if (!arg) say("Name the task: /stop shell-1 (see /tasks).");
      else say((await conversation.stopTask(arg)) ? `Stopped ${arg}.` : `No running task ${arg} (see /tasks).`);
      return false;
    case "/model":
      if (!arg) say(`model: ${modelName(conversation.model)}`);
      else {
        try {
          await conversation.setModel(arg);
          say(`model: ${arg} from the next prompt on`);
        } catch (error) {
          // For the person at the terminal: the plugin's name, not the kernel's hook (kept for --verbose).
          say(`model unchanged: ${withoutKernelTerms(describeError(error))}`);
        }
      }
      return false;
    case "/resume":
      await resumeCommand(arg, { conversation, ctx, options, ask, say, stopped });
      return false;
    case "/rewind":
      // The live session holds the folder's checkpoint lock while it is open: a rewind ends it
      // first (the next prompt resumes the session, as after /compact).
      if (arg) {
        stopped(await conversation.close());
        await recheckTrust(conversation, options, ask, say);
      }
      await chatRewind(arg, {
        sessionId: conversation.sessionId,
        cwd: resolve(options.cwd ?? process.cwd()),
        sessionDir: options.sessionDir,
        checkpointDir: typeof options.checkpoints === "object" ? options.checkpoints.dir : undefined,
        say,
        ask,
      });
      return false;
    default:
      if ((await conversation.commands().catch(() => [])).some((c) => `/${c.name}` === name)) return "send";
      say(
        CLAUDE_CODE_COMMANDS[name]
          ? `${name} is Claude Code's; here: ${CLAUDE_CODE_COMMANDS[name]}`
          : `Unknown command ${name}; /help lists them.`,
      );
      return false;
  }
}
