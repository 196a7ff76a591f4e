/**
 * The ACP agent: `initialize`, `session/new`, `session/load`, `session/prompt`, `session/cancel`
 * and `session/set_mode` on the official SDK's agent app. Each session's options are resolved
 * the way `ubiquity run` resolves them, for the session's own folder (its config, presets and
 * trust), with the command line's flags on top.
 */
import { randomUUID } from "node:crypto";
import { isAbsolute } from "node:path";
import { stat } from "node:fs/promises";
import {
  agent,
  PROTOCOL_VERSION,
  RequestError,
  type AgentApp,
  type AgentContext,
  type ClientCapabilities,
  type McpServer,
} from "@agentclientprotocol/sdk";
import { SessionStore, type UbiquityConfig } from "../../sdk/facade";
import { declaresOption } from "../config";
import { describeError } from "../../src/errors";
import { oneLine } from "../render";
import { redactText, secretsOf } from "../../src/redact";
import { storageRoot } from "../../plugins/_kits/storage/index";
import type { McpServerConfig } from "../../plugins/mcp/options";
import { resolveRunOptions } from "../run";
import { activePlugins } from "../plugins";
import type { FlagTable, RunValues } from "../flags";
import { AcpSession } from "./session";
import { replayUpdates } from "./replay";

/** What the agent is started with: the command line's flags and where its lines go. */
export interface AgentSetup {
  /** The command line's flags. */
  values: RunValues;
  /** `run`'s whole flag table: a session's own values (`session-id`, `resume`) apply through it too. */
  table: FlagTable;
  version: string;
  warn(line: string): void;
}

/** The client's MCP servers as `mcpServers` entries (a name the config has too is the client's). */
export function mcpServersOf(servers: readonly McpServer[]): Record<string, McpServerConfig> {
  const pairs = (list: readonly { name: string; value: string }[]) =>
    Object.fromEntries(list.map((h) => [h.name, h.value]));
  return Object.fromEntries(
    servers.map((s) => [
      s.name,
      "type" in s && (s.type === "http" || s.type === "sse")
        ? { type: s.type, url: s.url, headers: pairs(s.headers) }
        : {
            command: (s as Extract<McpServer, { command: string }>).command,
            args: (s as Extract<McpServer, { command: string }>).args,
            env: pairs((s as Extract<McpServer, { command: string }>).env),
          },
    ]),
  );
}

/** Sessions per `session/list` page. */
const PAGE = 50;

/** The sessions plugin's store the options point at. */
function storeFor(options: UbiquityConfig, cwd: string): SessionStore {
  return new SessionStore({ dir: storageRoot(options.sessionDir, cwd, "sessions") });
}

/** The options of a session in `cwd`, as `ubiquity run --cwd <cwd>` would run with (plus `extra` flags). */
async function sessionOptions(
  setup: AgentSetup,
  cwd: string,
  extra: RunValues,
  servers: readonly McpServer[],
  directories: readonly string[] = [],
): Promise<UbiquityConfig> {
  const relative = directories.find((d) => !isAbsolute(d));
  if (relative !== undefined)
    throw RequestError.invalidParams(
      { additionalDirectories: directories },
      `additionalDirectories must be absolute paths, not ${JSON.stringify(relative)}`,
    );
  if (!isAbsolute(cwd))
    throw RequestError.invalidParams(
      { cwd },
      `cwd must be an absolute path, not ${JSON.stringify(cwd)}: send the workspace folder's full path (e.g. /home/me/project)`,
    );
  const info = await stat(cwd).catch(() => undefined);
  if (!info?.isDirectory())
    throw RequestError.invalidParams(
      { cwd },
      `cwd ${JSON.stringify(cwd)} is not a folder on this machine: send the workspace folder's full path`,
    );
  const values = { ...setup.values, ...extra, cwd };
  let options: UbiquityConfig;
  let configuredMode: unknown;
  try {
    ({ options, configuredMode } = await resolveRunOptions(await activePlugins(values, "acp"), values, setup.table, {
      warn: setup.warn,
    }));
  } catch (error) {
    throw RequestError.internalError(undefined, oneLine(redactText(describeError(error), secretsOf(undefined))));
  }
  // The session sets its mode on every run (session/set_mode changes it): without --permission-mode it
  // starts in the one the settings files give (Codex's approval_policy = "never" is dontAsk), not in default.
  if (options.permissionMode === undefined && typeof configuredMode === "string")
    options.permissionMode = configuredMode as UbiquityConfig["permissionMode"];
  if (directories.length > 0)
    options.additionalDirectories = [...(options.additionalDirectories ?? []), ...directories];
  if (servers.length > 0) {
    if (declaresOption(options, "mcpServers"))
      options.mcpServers = {
        ...options.mcpServers,
        ...mcpServersOf(servers),
      };
    else
      setup.warn(
        `acp: the client's MCP servers (${servers.map((s) => s.name).join(", ")}) are not used: this preset has no ubiquity:mcp plugin`,
      );
  }
  return options;
}

/** The ACP agent app, and the sessions it opened (closed when the connection ends). */
export function acpAgent(setup: AgentSetup): { app: AgentApp; sessions: Map<string, AcpSession> } {
  const sessions = new Map<string, AcpSession>();
  let capabilities: ClientCapabilities | undefined;

  const open = (id: string, cwd: string, options: UbiquityConfig, client: AgentContext) => {
    const session = new AcpSession({ id, cwd, options, client, capabilities, warn: setup.warn });
    sessions.set(id, session);
    return session;
  };
  const sessionOf = (id: string) => {
    const session = sessions.get(id);
    if (!session) throw RequestError.sessionNotFound(id);
    return session;
  };

  const app = agent({ name: "ubiquity" })
    .onRequest("initialize", ({ params }) => {
      capabilities = params.clientCapabilities;
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: true, audio: false, embeddedContext: true },
          mcpCapabilities: { http: true, sse: true },
          sessionCapabilities: { list: {}, close: {}, additionalDirectories: {} },
        },
        agentInfo: { name: "ubiquity", title: "Ubiquity", version: setup.version },
        authMethods: [],
      };
    })
    .onRequest("session/new", async ({ params, client }) => {
      const id = randomUUID();
      const options = await sessionOptions(
        setup,
        params.cwd,
        { "session-id": id },
        params.mcpServers ?? [],
        params.additionalDirectories,
      );
      const session = open(id, params.cwd, options, client);
      // After the answer: the client knows the session id before it hears of its commands.
      setImmediate(() => void session.announceCommands());
      return { sessionId: id, modes: session.modes };
    })
    .onRequest("session/load", async ({ params, client }) => {
      const options = await sessionOptions(
        setup,
        params.cwd,
        { resume: params.sessionId },
        params.mcpServers ?? [],
        params.additionalDirectories,
      );
      if (!declaresOption(options, "resume"))
        throw RequestError.invalidParams(
          undefined,
          "this preset keeps no sessions (it lacks the ubiquity:sessions plugin), so none can be loaded",
        );
      const stored = await storeFor(options, params.cwd)
        .get(params.sessionId, params.cwd)
        .catch(() => undefined);
      if (!stored) throw RequestError.sessionNotFound(params.sessionId);
      await sessions.get(params.sessionId)?.close();
      const session = open(params.sessionId, params.cwd, options, client);
      // The replay is out before the answer, as the protocol asks.
      let replayed = Promise.resolve();
      for (const update of replayUpdates(stored.records, params.cwd)) replayed = session.send(update);
      await replayed;
      setImmediate(() => void session.announceCommands());
      return { modes: session.modes };
    })
    .onRequest("session/prompt", async ({ params }) => ({
      stopReason: await sessionOf(params.sessionId).prompt(params.prompt),
    }))
    .onRequest("session/set_mode", async ({ params }) => {
      await sessionOf(params.sessionId).setMode(params.modeId);
      return {};
    })
    .onRequest("session/list", async ({ params }) => {
      const cwd = params.cwd ?? process.cwd();
      const options = await sessionOptions(setup, cwd, {}, []);
      if (!declaresOption(options, "resume")) return { sessions: [] };
      const from = Number(params.cursor ?? 0) || 0;
      const found = await storeFor(options, cwd).list({ ...(params.cwd ? { cwd } : {}), limit: from + PAGE + 1 });
      const page = found
        .slice(from, from + PAGE)
        .map((s) => ({ sessionId: s.sessionId, cwd: s.cwd, title: s.summary, updatedAt: s.updatedAt }));
      return { sessions: page, ...(found.length > from + PAGE ? { nextCursor: String(from + PAGE) } : {}) };
    })
    .onRequest("session/close", async ({ params }) => {
      await sessionOf(params.sessionId).close();
      sessions.delete(params.sessionId);
      return {};
    })
    .onNotification("session/cancel", ({ params }) => sessions.get(params.sessionId)?.cancel());
  return { app, sessions };
}
