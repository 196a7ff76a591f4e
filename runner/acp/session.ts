/**
 * One ACP session: one live Ubiquity session (`summon()` with an async iterable input) for its
 * lifetime. A `session/prompt` is a user message in, and the messages out become
 * `session/update`s (text and thoughts as they stream, tool calls with their kind, files, diffs
 * and plans) until the stretch's `result`, whose ending is the prompt's stop reason.
 * `session/cancel` is `Query.interrupt()`, a mode switch `Query.setPermissionMode()`.
 */
import { readFile } from "node:fs/promises";
import {
  RequestError,
  type AgentContext,
  type ClientCapabilities,
  type ContentBlock,
  type SessionModeState,
  type SessionUpdate,
  type StopReason,
} from "@agentclientprotocol/sdk";
import { summon, type Query, type UbiquityConfig } from "../../sdk/facade";
import type { Message, ResultMessage } from "../../src/messages";
import type { UserInput } from "../../sdk/live";
import { declaresOption } from "../config";
import { describeError } from "../../src/errors";
import { secretsOf } from "../../src/redact";
import { redactStrings } from "../../plugins/_kits/redaction/index";
import type { HostFiles } from "../../plugins/_kits/file-tools/index";
import { PERMISSION_MODES, type PermissionMode } from "../../plugins/permissions/options";
import { MaskedStream, userInputOf } from "./content";
import { editorApprover } from "./permission";
import { editorPlugin, type FileDiff } from "./editor-plugin";
import { toolCallUpdate, toolResultUpdates } from "./replay";
import { pushInput } from "../push-input";

/** How the permission modes are offered as session modes. */
const MODE_NAMES: Record<PermissionMode, [string, string]> = {
  default: ["Default", "Ask before edits and commands that are not pre-approved"],
  acceptEdits: ["Accept edits", "Edit files in the project without asking; ask for other calls"],
  plan: ["Plan", "Read-only: investigate and propose a plan, change nothing"],
  bypassPermissions: [
    "Bypass permissions",
    "Run without asking, except what a rule denies or asks and sensitive files",
  ],
  dontAsk: ["Don't ask", "Never ask: what is not pre-approved is denied"],
  auto: [
    "Auto-review",
    "A reviewer approves or denies what would prompt; deny rules and sensitive files stay absolute",
  ],
};

/** What a session starts from. */
export interface SessionSetup {
  id: string;
  cwd: string;
  /** The run options, resolved as for `ubiquity run`. */
  options: UbiquityConfig;
  client: AgentContext;
  capabilities: ClientCapabilities | undefined;
  /** Print a line on stderr. */
  warn(line: string): void;
}

/** A live session's input and stream. */
interface Live {
  query: Query;
  push(input: UserInput): void;
  ended: Promise<void>;
}

/** A prompt waiting for its stretch's result. */
interface Waiter {
  cancelled: boolean;
  done(result: ResultMessage | undefined): void;
}

/** One ACP session and the live session behind it. */
export class AcpSession {
  readonly id: string;
  readonly cwd: string;
  readonly client: AgentContext;
  readonly diffs = new Map<string, FileDiff>();
  #options: UbiquityConfig;
  #warn: (line: string) => void;
  #secrets: string[];
  #host: HostFiles | undefined;
  #live: Live | undefined;
  #opened = false;
  #waiters: Waiter[] = [];
  #sent: Promise<void> = Promise.resolve();
  #announced = new Map<string, { promise: Promise<void>; resolve: () => void }>();
  #mode: PermissionMode | undefined;
  /** Prompts pushed, and those the live session has taken (its `user` messages): a cancel before the take waits for it. */
  #pushed = 0;
  #taken = 0;
  #cancelAtTake = false;
  /** The prompt being answered was refused by a tap (its run's result says why). */
  #blocked = false;

  constructor(setup: SessionSetup) {
    this.id = setup.id;
    this.cwd = setup.cwd;
    this.client = setup.client;
    this.#options = setup.options;
    this.#warn = setup.warn;
    this.#secrets = secretsOf(setup.options);
    this.#host = hostFiles(setup);
    if (declaresOption(setup.options, "permissionMode")) this.#mode = setup.options.permissionMode ?? "default";
  }

  /** The permission modes as session modes, when the preset has the permissions plugin. */
  get modes(): SessionModeState | null {
    if (!this.#mode) return null;
    return {
      currentModeId: this.#mode,
      availableModes: PERMISSION_MODES.map((id) => ({ id, name: MODE_NAMES[id][0], description: MODE_NAMES[id][1] })),
    };
  }

  /** Mask the run's secrets (its keys and the environment's credentials) in what goes to the client. */
  redact<T>(value: T): T {
    return redactStrings(value, this.#secrets);
  }

  /** Send one update, in order after the ones before. */
  send(update: SessionUpdate): Promise<void> {
    const frame = this.redact({ sessionId: this.id, update });
    this.#sent = this.#sent
      .then(() => this.client.notify("session/update", frame))
      .catch((error) => this.#warn(`acp: could not send an update: ${describeError(error)}`));
    return this.#sent;
  }

  /** Resolves once the client heard of the tool call (bounded: a call it never hears of is asked about anyway). */
  announced(toolUseId: string): Promise<void> {
    return Promise.race([this.#announcement(toolUseId).promise, new Promise<void>((r) => setTimeout(r, 2000).unref())]);
  }

  #announcement(toolUseId: string) {
    let entry = this.#announced.get(toolUseId);
    if (!entry) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      entry = { promise, resolve };
      this.#announced.set(toolUseId, entry);
    }
    return entry;
  }

  /**
   * Tell the client the session's slash commands (`available_commands_update`, sent when a live
   * session opens and knows some). The list comes from the live session, so it is opened now —
   * only when the options ask for command files, skills, plugins or MCP servers, so a session without any
   * starts as lazily as before (its first prompt opens it, and its commands are sent then).
   */
  async announceCommands(): Promise<void> {
    // The keys of the plugins that make commands, as given (none of them is this file's to type).
    const o: Readonly<Record<string, unknown>> = { ...this.#options };
    // MCP servers may offer prompts, which are commands too (`/mcp__<server>__<prompt>`).
    const servers = o.mcpServers && typeof o.mcpServers === "object" ? Object.keys(o.mcpServers) : [];
    const lists = [o.commands, o.commandSources, o.compat, o.skills, o.skillSources, o.claudePlugins, servers];
    if (!lists.some((list) => Array.isArray(list) && list.length > 0)) return;
    this.#live ??= this.#open();
  }

  #commandsAnnounced = false;

  /** Send the live session's commands once (the first live session to know some: settings files may add plugins). */
  async #announce(query: Query): Promise<void> {
    const commands = await query.supportedCommands().catch(() => []);
    if (commands.length === 0 || this.#commandsAnnounced) return;
    this.#commandsAnnounced = true;
    const availableCommands = commands.map((c) => ({
      name: c.name,
      description: c.description,
      ...(c.argumentHint ? { input: { hint: c.argumentHint } } : {}),
    }));
    await this.send({ sessionUpdate: "available_commands_update", availableCommands });
  }

  /** Run one prompt to the end of its stretch; a prompt sent while one runs interrupts it (that one ends cancelled). */
  async prompt(blocks: readonly ContentBlock[]): Promise<StopReason> {
    const input = userInputOf(blocks);
    const live = (this.#live ??= this.#open());
    const busy = this.#waiters.length > 0;
    for (const w of this.#waiters) w.cancelled = true;
    const waiter: Waiter = { cancelled: false, done: () => {} };
    this.#blocked = false;
    const result = await new Promise<ResultMessage | undefined>((done) => {
      waiter.done = done;
      this.#waiters.push(waiter);
      this.#pushed++;
      live.push(
        busy
          ? { ...(typeof input === "string" ? { type: "user" as const, text: input } : input), interrupt: true }
          : input,
      );
    });
    await this.#sent;
    if (waiter.cancelled) return "cancelled";
    if (!result) throw RequestError.internalError(undefined, "the session ended before answering");
    if (result.subtype === "error_max_turns") return "max_turn_requests";
    if (result.stopReason === "max_tokens") return "max_tokens";
    if (result.stopReason === "refusal") return "refusal";
    if (result.isError && this.#blocked) {
      // Refused before the model saw it (a hook, a command's missing argument): the reason is the answer.
      await this.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: result.result } });
      return "end_turn";
    }
    if (result.isError) throw RequestError.internalError(undefined, this.redact(result.result));
    return "end_turn";
  }

  /** `session/cancel`: stop the work in progress; its prompt ends "cancelled". */
  cancel(): void {
    if (this.#waiters.length === 0 || !this.#live) return;
    for (const w of this.#waiters) w.cancelled = true;
    // An interrupt stops the stretch in progress; one not started yet (the session still starting) is stopped when it takes the prompt.
    if (this.#taken < this.#pushed) this.#cancelAtTake = true;
    else void this.#live.query.interrupt();
  }

  /** `session/set_mode`: judge the next tool calls in `modeId`. */
  async setMode(modeId: string): Promise<void> {
    if (!this.#mode)
      throw RequestError.invalidParams(
        undefined,
        "this preset has no permission modes (it lacks the ubiquity:permissions plugin)",
      );
    if (!(PERMISSION_MODES as readonly string[]).includes(modeId))
      throw RequestError.invalidParams(
        undefined,
        `unknown mode ${JSON.stringify(modeId)}; the modes are ${PERMISSION_MODES.join(", ")}`,
      );
    await this.#live?.query.setPermissionMode(modeId as PermissionMode);
    this.#mode = modeId as PermissionMode;
    await this.send({ sessionUpdate: "current_mode_update", currentModeId: modeId });
  }

  /** End the live session (the connection closed). */
  async close(): Promise<void> {
    const live = this.#live;
    if (!live) return;
    live.query.close();
    await live.ended;
  }

  /** The options of the next live session: the first starts (or resumes) the session, a later one resumes it. */
  #next(): UbiquityConfig {
    const { sessionId: _s, resume: _r, continueConversation: _c, forkSession: _f, ...rest } = this.#options;
    const base: UbiquityConfig = this.#opened
      ? { ...rest, ...(declaresOption(rest, "resume") ? { resume: this.id } : {}) }
      : { ...this.#options };
    const options: UbiquityConfig = {
      ...base,
      cwd: this.cwd,
      includePartialMessages: true,
      plugins: [...(base.plugins ?? []), editorPlugin(this.#host, this.diffs, () => (this.#blocked = true))],
    };
    if (this.#mode) options.permissionMode = this.#mode;
    if (declaresOption(options, "canUseTool")) options.canUseTool ??= editorApprover(this);
    return options;
  }

  #open(): Live {
    const inbox = pushInput<UserInput>();
    const query = summon(inbox.input, this.#next());
    this.#opened = true;
    void this.#announce(query);
    const live: Live = { query, push: (m) => inbox.push(m), ended: Promise.resolve() };
    live.ended = (async () => {
      const text = new MaskedStream(this.#secrets);
      const thought = new MaskedStream(this.#secrets);
      let streamed = false;
      try {
        for await (const message of query) streamed = this.#translate(message, text, thought, streamed);
      } catch (error) {
        this.#warn(`acp: the session stopped: ${describeError(error)}`);
      } finally {
        inbox.close();
        if (this.#live === live) this.#live = undefined;
        // What this live session never took is answered below; the next one starts even.
        this.#taken = this.#pushed;
        this.#cancelAtTake = false;
        for (const w of this.#waiters.splice(0)) w.done(undefined);
      }
    })();
    return live;
  }

  /** One message out as updates; returns whether text was streamed since the last response. */
  #translate(m: Message, text: MaskedStream, thought: MaskedStream, streamed: boolean): boolean {
    const main = m.agentId === undefined;
    const chunk = (kind: "agent_message_chunk" | "agent_thought_chunk", t: string) =>
      t && void this.send({ sessionUpdate: kind, content: { type: "text", text: t } });
    const flush = () => (chunk("agent_message_chunk", text.flush()), chunk("agent_thought_chunk", thought.flush()));
    switch (m.type) {
      case "user":
        if (main && ++this.#taken >= this.#pushed && this.#cancelAtTake) {
          this.#cancelAtTake = false;
          void this.#live?.query.interrupt();
        }
        return streamed;
      case "stream_event":
        if (!main || m.delta.type === "tool_input") return streamed;
        chunk(
          m.delta.type === "text" ? "agent_message_chunk" : "agent_thought_chunk",
          (m.delta.type === "text" ? text : thought).push(m.delta.text),
        );
        return true;
      case "assistant":
        if (main) {
          flush();
          // A response that did not stream (no deltas came) is sent whole.
          if (!streamed)
            for (const b of m.content)
              if (b.type === "text" || b.type === "reasoning")
                chunk(b.type === "text" ? "agent_message_chunk" : "agent_thought_chunk", b.text);
        }
        for (const b of m.content) {
          if (b.type !== "tool_call") continue;
          const entry = this.#announcement(b.toolUseId);
          void this.send(toolCallUpdate(b.toolUseId, b.toolName, b.input, this.cwd)).then(entry.resolve);
        }
        return false;
      case "tool_use":
        void this.send({ sessionUpdate: "tool_call_update", toolCallId: m.toolUseId, status: "in_progress" });
        return streamed;
      case "system":
        // Auto-review: the reviewer's decision shows on the call it was about.
        if (m.subtype === "permission_review") {
          const text = `Reviewer (${m.reviewer}) ${m.decision === "allow" ? "allowed" : "denied"} this call${m.reason ? `: ${m.reason}` : ""}`;
          void this.send({
            sessionUpdate: "tool_call_update",
            toolCallId: m.toolUseId,
            content: [{ type: "content", content: { type: "text", text } }],
          });
        }
        return streamed;
      case "tool_result": {
        const diff = this.diffs.get(m.toolUseId);
        this.diffs.delete(m.toolUseId);
        this.#announced.delete(m.toolUseId);
        const shown =
          diff?.newText !== undefined ? { path: diff.path, oldText: diff.oldText, newText: diff.newText } : undefined;
        for (const update of toolResultUpdates(m.toolUseId, m.toolName, m.output, shown))
          if (main || update.sessionUpdate !== "plan") void this.send(update);
        return streamed;
      }
      case "result":
        if (!main) return streamed;
        flush();
        this.#waiters.shift()?.done(m);
        // Nothing left waiting: every prompt was taken (the counts cannot drift over a session).
        if (this.#waiters.length === 0) this.#taken = this.#pushed;
        return false;
      default:
        return streamed;
    }
  }
}

/** The editor's file access, when it offers any: a read it cannot serve falls back to the disk. */
function hostFiles({ id, client, capabilities }: SessionSetup): HostFiles | undefined {
  const fs = capabilities?.fs;
  if (!fs?.readTextFile && !fs?.writeTextFile) return undefined;
  return {
    ...(fs.readTextFile
      ? {
          readText: (path: string, signal?: AbortSignal) =>
            client
              .request(
                "fs/read_text_file",
                { sessionId: id, path },
                { cancellationSignal: signal, stopWaitingOnCancel: true },
              )
              .then(
                (r) => r.content,
                (error: unknown) => (signal?.aborted ? Promise.reject(error) : readFile(path, "utf8")),
              ),
        }
      : {}),
    ...(fs.writeTextFile
      ? {
          writeText: async (path: string, content: string, signal?: AbortSignal) =>
            void (await client.request(
              "fs/write_text_file",
              { sessionId: id, path, content },
              { cancellationSignal: signal, stopWaitingOnCancel: true },
            )),
        }
      : {}),
  };
}
