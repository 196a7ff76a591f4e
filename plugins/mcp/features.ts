/**
 * Everything the plugin does with its servers beyond calling tools, wired in one place:
 * resources (tools, mentions, subscriptions), prompts as slash commands, elicitation, roots,
 * progress, logging, `list_changed`, and tool search. Loaded with the servers (only runs that
 * configure servers pay for the MCP SDK).
 */
import type { Client } from "@modelcontextprotocol/client";
import type { Kernel } from "../../src/index";
import { getCommandsApi } from "../commands/api";
import { noteCacheChange } from "../cache-breaks/api";
import type { McpConnection, McpConnectionOptions } from "./connection";
import { ELICITATION_CAPABILITY, installElicitation } from "./elicitation";
import { McpTool } from "./mcp-tool";
import { onSettle } from "./callers";
import { installNotifications } from "./notifications";
import type { McpResolvedOptions } from "./options";
import { McpPrompts } from "./prompts";
import { ListMcpResourcesTool, McpResources, ReadMcpResourceTool } from "./resources";
import type { McpServers } from "./servers";
import { ToolSearch } from "./tool-search";

/** The features of one kernel's servers. */
export class McpFeatures {
  readonly resources: McpResources;
  readonly prompts: McpPrompts;
  readonly toolSearch: ToolSearch;
  /** Re-listings under way (tools, prompts): a call waits for those its server announced, so what follows sees the new lists. */
  #relisting = new Set<Promise<void>>();

  constructor(
    private readonly kernel: Kernel,
    private readonly owner: string,
    private readonly servers: () => McpServers | undefined,
    /** The `mcpToolSearch` option (read through the plugin's context). */
    toolSearchOption: () => McpResolvedOptions["mcpToolSearch"],
  ) {
    const connections = () => servers()?.connections ?? [];
    this.resources = new McpResources(connections);
    this.prompts = new McpPrompts(connections);
    const mcpTools = () =>
      kernel.registries.tools
        .values()
        .filter((t): t is McpTool => t instanceof McpTool)
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.toolSearch = new ToolSearch(toolSearchOption, mcpTools);
  }

  /** What each connection announces and installs: elicitation (form and URL), roots, and the handlers. */
  clientOptions(): Pick<McpConnectionOptions, "capabilities" | "prepare"> {
    return {
      capabilities: { elicitation: ELICITATION_CAPABILITY },
      prepare: (client, connection) => this.#prepare(client, connection),
    };
  }

  #prepare(client: Client, connection: McpConnection): void {
    const { kernel } = this;
    installNotifications(client, connection, kernel, this.owner, {
      tools: (c) =>
        this.#track(async () => {
          const servers = this.servers();
          if (!servers || !(await servers.refreshTools(kernel, c))) return;
          noteCacheChange(kernel, `MCP server "${c.name}" changed its tools (tools/list_changed)`);
        }),
      prompts: (c) => this.#track(() => this.prompts.relist(c)),
    });
    installElicitation(client, connection, kernel);
    onSettle(connection, () => this.settled());
    client.setNotificationHandler("notifications/resources/updated", (notification) =>
      this.resources.updated(connection, notification.params.uri),
    );
  }

  /** Run a re-listing, so a call in progress waits for it (`settled`). */
  #track(work: () => Promise<void>): Promise<void> {
    const done: Promise<void> = work()
      .catch((error: unknown) =>
        this.kernel.logger.warn(`[${this.owner}] re-listing after list_changed failed: ${(error as Error).message}`),
      )
      .finally(() => this.#relisting.delete(done));
    this.#relisting.add(done);
    return done;
  }

  /** Resolves when no re-listing is under way. */
  async settled(): Promise<void> {
    while (this.#relisting.size) await Promise.allSettled(this.#relisting);
  }

  /** After the servers connected: register the resource tools, list the prompts for the commands. (The search tool joins only the runs that defer.) */
  async ready(): Promise<void> {
    const { kernel, owner } = this;
    if (this.resources.servers().length) {
      const readOnly = () =>
        new Set((this.servers()?.connections ?? []).filter((c) => c.config.readOnly === true).map((c) => c.name));
      kernel.registries.tools.register("ListMcpResources", new ListMcpResourcesTool(this.resources), owner);
      kernel.registries.tools.register("ReadMcpResource", new ReadMcpResourceTool(this.resources, readOnly), owner);
    }
    await this.prompts.load();
    getCommandsApi(kernel)?.provide(() => this.prompts.commands());
  }
}
