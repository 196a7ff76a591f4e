/**
 * MCP resources: the `ListMcpResources` and `ReadMcpResource` tools (registered when a connected
 * server offers resources), `@server:uri` mentions in a user prompt (read through the funnel, as
 * the model's own call would be, and put ahead of the prompt), `readMcpResource()` on the API,
 * and subscriptions: a resource a run read from a server that supports them is subscribed to,
 * and when the server says it changed, the run's next tool result (or, between prompts, its next
 * prompt) carries its new contents.
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { ReadResourceResult } from "@modelcontextprotocol/client";
import {
  runToolCall,
  Tool,
  type Kernel,
  type RunContext,
  type ToolContext,
  type ToolOutput,
  type TurnPrompt,
} from "../../src/index";
import type { McpConnection } from "./connection";
import { describeBlock } from "./content";
import { McpResourceError } from "./resource-error";

/** The read tool's name (also used by the mention expansion). */
export const READ_RESOURCE = "ReadMcpResource";
/** The list tool's name. */
export const LIST_RESOURCES = "ListMcpResources";

export { McpResourceError };

/** One resource of one server, as `ListMcpResources` and `listMcpResources()` report it. */
export interface McpResourceInfo {
  server: string;
  uri: string;
  name: string;
  mimeType?: string;
  description?: string;
}

/** A resource template (`uriTemplate` with `{placeholders}`) a server offers. */
export interface McpResourceTemplateInfo {
  server: string;
  uriTemplate: string;
  name: string;
  mimeType?: string;
  description?: string;
}

/** What the read contents of a resource are (the server's `resources/read` result). */
export type McpResourceContents = ReadResourceResult["contents"];

/** `@server:uri` after whitespace or at the start; trailing punctuation is not part of the uri. */
const MENTION = /(^|\s)@([A-Za-z0-9_-]+):(\S+)/g;

/** The resources of every connected server that offers them (and of the connected servers named by `server`). */
export class McpResources {
  /** Runs holding each subscribed resource (`server\0uri`), and the updates they have not seen. */
  #holders = new Map<string, Set<RunContext>>();
  #subscribed = new Set<string>();
  #pending = new WeakMap<RunContext, Set<string>>();

  constructor(private readonly connections: () => McpConnection[]) {}

  /** Connected servers that advertise resources. */
  servers(): McpConnection[] {
    return this.connections().filter((c) => c.client?.getServerCapabilities()?.resources);
  }

  #server(name: string): McpConnection {
    const all = this.connections();
    const connection = all.find((c) => c.name === name);
    if (!connection)
      throw new McpResourceError(
        `no MCP server is named "${name}" (servers: ${all.map((c) => c.name).join(", ") || "none"})`,
      );
    if (!connection.client)
      throw new McpResourceError(`MCP server "${name}" ${connection.error ?? "is not connected"}`);
    if (!connection.client.getServerCapabilities()?.resources)
      throw new McpResourceError(`MCP server "${name}" offers no resources`);
    return connection;
  }

  /** Every resource (and template) of the servers, or of `server`. */
  async list(server?: string): Promise<{ resources: McpResourceInfo[]; templates: McpResourceTemplateInfo[] }> {
    const targets = server === undefined ? this.servers() : [this.#server(server)];
    const resources: McpResourceInfo[] = [];
    const templates: McpResourceTemplateInfo[] = [];
    for (const connection of targets) {
      const client = connection.client!;
      const listed = await client.listResources(undefined, { cacheMode: "refresh" });
      for (const r of listed.resources)
        resources.push({ server: connection.name, uri: r.uri, name: r.name, ...pick(r) });
      const listedTemplates = await client
        .listResourceTemplates(undefined, { cacheMode: "refresh" })
        .catch(() => ({ resourceTemplates: [] }));
      for (const t of listedTemplates.resourceTemplates)
        templates.push({ server: connection.name, uriTemplate: t.uriTemplate, name: t.name, ...pick(t) });
    }
    return { resources, templates };
  }

  /** Read `uri` from `server`; with `run`, the run holds it (and hears of its changes when the server supports subscriptions). */
  async read(server: string, uri: string, run?: RunContext, signal?: AbortSignal): Promise<McpResourceContents> {
    const connection = this.#server(server);
    const client = connection.client!;
    let result: ReadResourceResult;
    try {
      result = await client.readResource({ uri }, { cacheMode: "refresh", ...(signal ? { signal } : {}) });
    } catch (error) {
      throw new McpResourceError(`MCP server "${server}" could not read ${uri}: ${connection.describe(error)}`);
    }
    if (run && client.getServerCapabilities()?.resources?.subscribe) await this.#hold(connection, uri, run);
    return result.contents;
  }

  async #hold(connection: McpConnection, uri: string, run: RunContext): Promise<void> {
    const key = `${connection.name}\0${uri}`;
    const holders = this.#holders.get(key) ?? new Set();
    this.#holders.set(key, holders);
    holders.add(run);
    if (this.#subscribed.has(key)) return;
    this.#subscribed.add(key);
    await connection.client!.subscribeResource({ uri }).catch((error: unknown) => {
      this.#subscribed.delete(key);
      connection.logger.debug(`[mcp ${connection.name}] could not subscribe to ${uri}: ${connection.describe(error)}`);
    });
  }

  /** A server said `uri` changed: each run holding it hears of it with its next prompt. */
  updated(connection: McpConnection, uri: string): void {
    for (const run of this.#holders.get(`${connection.name}\0${uri}`) ?? []) {
      const pending = this.#pending.get(run) ?? new Set<string>();
      this.#pending.set(run, pending);
      pending.add(`${connection.name}\0${uri}`);
    }
  }

  /** The run's held resources that changed since it read them, read again (each as one block of context). */
  async changedFor(run: RunContext): Promise<string[]> {
    const pending = this.#pending.get(run);
    if (!pending?.size) return [];
    this.#pending.delete(run);
    const context: string[] = [];
    for (const key of pending) {
      const [server, uri] = key.split("\0") as [string, string];
      try {
        context.push(
          `The MCP resource ${server}:${uri} changed since it was read. Its contents now:\n${contentsText(await this.read(server, uri))}`,
        );
      } catch (error) {
        context.push(
          `The MCP resource ${server}:${uri} changed since it was read, and could not be read again: ${(error as Error).message}`,
        );
      }
    }
    return context;
  }

  /** Forget a run (it ended). */
  release(run: RunContext): void {
    for (const holders of this.#holders.values()) holders.delete(run);
  }

  /**
   * The prompt with each `@server:uri` of a known server read (through the funnel) and put in its
   * context. A mention that was not read blocks the prompt, naming it.
   */
  async expandMentions(prompt: TurnPrompt, run: RunContext): Promise<TurnPrompt> {
    const names = new Set(this.connections().map((c) => c.name));
    const context: string[] = [];
    const seen = new Set<string>();
    for (const match of prompt.text.matchAll(MENTION)) {
      const server = match[2]!;
      const uri = match[3]!.replace(/[.,;!?)\]]+$/, "");
      if (!names.has(server) || seen.has(`${server}\0${uri}`)) continue;
      seen.add(`${server}\0${uri}`);
      const tool = run.tools.find((t) => t.name === READ_RESOURCE);
      if (!tool)
        return {
          ...prompt,
          blocked: `@${server}:${uri} was not read: this run has no ${READ_RESOURCE} tool (MCP server "${server}" offers no resources, or the tool is disallowed)`,
        };
      const outcome = await runToolCall(run, new Map([[tool.name, tool]]), {
        toolCallId: `mention_${randomUUID()}`,
        toolName: tool.name,
        input: { server, uri },
      });
      const output = outcome.message.output;
      if (output.isError) return { ...prompt, blocked: `@${server}:${uri} was not read: ${output.content}` };
      context.push(`Contents of the MCP resource ${server}:${uri} (mentioned in the prompt):\n${output.content}`);
    }
    return context.length ? { ...prompt, context: [...prompt.context, ...context] } : prompt;
  }
}

function pick(r: { mimeType?: string; description?: string }) {
  return { ...(r.mimeType ? { mimeType: r.mimeType } : {}), ...(r.description ? { description: r.description } : {}) };
}

/** Read contents as text: text as is, binary described (type and size). */
export function contentsText(contents: McpResourceContents): string {
  return (
    contents
      .map((resource) => describeBlock({ type: "resource", resource } as Parameters<typeof describeBlock>[0]))
      .join("\n") || "(empty)"
  );
}

const ListInput = z.strictObject({
  server: z.string().min(1).optional().describe("Only this server's resources (default: every server's)"),
});

/** Lists the resources of the connected MCP servers. */
export class ListMcpResourcesTool extends Tool<typeof ListInput> {
  readonly name = LIST_RESOURCES;
  readonly description =
    "List the resources (files, records, documents) that the connected MCP servers offer: each with its server, uri, name and type, and the uri templates a server accepts. Read one by its server and uri.";
  readonly inputSchema = ListInput;
  constructor(private readonly resources: McpResources) {
    super();
  }
  // It sends the servers nothing the model wrote but a server's name.
  override isReadOnly(): boolean {
    return true;
  }
  async call(input: z.output<typeof ListInput>): Promise<ToolOutput> {
    try {
      const { resources, templates } = await this.resources.list(input.server);
      const lines = resources.map(
        (r) =>
          `${r.server}:${r.uri} — ${r.name}${r.mimeType ? ` (${r.mimeType})` : ""}${r.description ? `: ${r.description}` : ""}`,
      );
      const templateLines = templates.map(
        (t) => `${t.server}:${t.uriTemplate} — ${t.name} (template)${t.description ? `: ${t.description}` : ""}`,
      );
      const content = [...lines, ...templateLines].join("\n") || "No MCP server offers resources.";
      return { content, isError: false, metadata: { resources, templates } };
    } catch (error) {
      return { content: (error as Error).message, isError: true };
    }
  }
}

const ReadInput = z.strictObject({
  server: z.string().min(1).describe("The MCP server's name"),
  uri: z.string().min(1).describe("The resource's uri, as listed"),
});

/** Reads one resource of a connected MCP server. */
export class ReadMcpResourceTool extends Tool<typeof ReadInput> {
  readonly name = READ_RESOURCE;
  readonly description =
    "Read one resource of a connected MCP server by its server name and uri. Text comes back as it is; binary contents are described (type and size).";
  readonly inputSchema = ReadInput;
  constructor(
    private readonly resources: McpResources,
    private readonly readOnlyServers: () => Set<string>,
  ) {
    super();
  }
  // The uri goes to the server, which may act on it: read-only only for servers the user's config calls read-only.
  override isReadOnly(input: z.output<typeof ReadInput>): boolean {
    return this.readOnlyServers().has(input.server);
  }
  async call(input: z.output<typeof ReadInput>, ctx: ToolContext): Promise<ToolOutput> {
    try {
      const contents = await this.resources.read(input.server, input.uri, ctx.run, ctx.abortSignal);
      return { content: contentsText(contents), isError: false, metadata: { mcpServer: input.server, uri: input.uri } };
    } catch (error) {
      return { content: (error as Error).message, isError: true };
    }
  }
}

/** The resources of a kernel's servers, once the plugin connected them. */
export type ResourcesOf = (kernel: Kernel) => McpResources | undefined;
