/**
 * MCP prompts as slash commands: `/mcp__<server>__<prompt> args` (Claude Code's form). The
 * servers' prompts are listed at connect and again on `prompts/list_changed`; the commands
 * plugin lists them with the command files (summon's `supportedCommands()`, the terminal, ACP's
 * `available_commands_update`) and, when a prompt starts with one, fetches it with the
 * arguments (`prompts/get`) and sends its messages as the prompt.
 */
import type { Prompt, GetPromptResult } from "@modelcontextprotocol/client";
import type { SlashCommand } from "../commands/api";
import { CommandError, splitArguments } from "../commands/index";
import type { McpConnection } from "./connection";
import { describeBlock } from "./content";
import { mcpToolName } from "./names";

/** The prompts of each connected server that offers them. */
export class McpPrompts {
  #prompts = new Map<McpConnection, Prompt[]>();

  constructor(private readonly connections: () => McpConnection[]) {}

  /** List the prompts of every connected server that offers them. */
  async load(): Promise<void> {
    await Promise.all(this.connections().map((c) => this.relist(c)));
  }

  /** List one server's prompts again (at connect, and when it says they changed). */
  async relist(connection: McpConnection): Promise<void> {
    const client = connection.client;
    if (!client?.getServerCapabilities()?.prompts) return void this.#prompts.delete(connection);
    try {
      const { prompts } = await client.listPrompts(undefined, { cacheMode: "refresh" });
      this.#prompts.set(
        connection,
        [...prompts].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
      );
    } catch (error) {
      connection.logger.warn(
        `MCP server "${connection.name}" offers prompts but could not list them: ${connection.describe(error)}`,
      );
    }
  }

  /** Every prompt as a slash command, servers by name. */
  commands(): SlashCommand[] {
    const out: SlashCommand[] = [];
    for (const connection of this.connections()) {
      if (!connection.client) continue;
      for (const prompt of this.#prompts.get(connection) ?? []) out.push(promptCommand(connection, prompt));
    }
    return out;
  }
}

/** `[a] [b]`, with `<required>` arguments in angle brackets. */
function argumentHint(prompt: Prompt): string | undefined {
  const args = prompt.arguments ?? [];
  return args.length ? args.map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`)).join(" ") : undefined;
}

/**
 * The arguments of `/prompt a b c` by the prompt's argument order: one word each, the last one
 * takes the rest. Quotes group words. A missing required argument is refused, naming it.
 */
export function promptArguments(prompt: Prompt, args: string, command: string): Record<string, string> {
  const declared = prompt.arguments ?? [];
  const words = splitArguments(args);
  const values: Record<string, string> = {};
  declared.forEach((arg, i) => {
    const value = i === declared.length - 1 && words.length > declared.length ? words.slice(i).join(" ") : words[i];
    if (value !== undefined) values[arg.name] = value;
  });
  if (declared.length === 0 && words.length) throw new CommandError(`/${command} takes no arguments (got "${args}")`);
  const missing = declared.filter((a) => a.required && values[a.name] === undefined).map((a) => a.name);
  if (missing.length)
    throw new CommandError(`/${command} needs ${missing.join(", ")}: /${command} ${argumentHint(prompt)}`);
  return values;
}

/** A prompt's messages as one prompt text: a lone user message as it is, else each under its role. */
export function promptText(result: GetPromptResult): string {
  const messages = result.messages.map((m) => ({
    role: m.role,
    text: describeBlock(m.content as Parameters<typeof describeBlock>[0]),
  }));
  if (messages.length === 1 && messages[0]!.role === "user") return messages[0]!.text;
  return messages.map((m) => `[${m.role}]\n${m.text}`).join("\n\n");
}

function promptCommand(connection: McpConnection, prompt: Prompt): SlashCommand {
  const name = mcpToolName(connection.name, prompt.name);
  const hint = argumentHint(prompt);
  return {
    name,
    description: `${prompt.description ?? prompt.title ?? prompt.name} (MCP prompt of ${connection.name})`,
    ...(hint ? { argumentHint: hint } : {}),
    body: "",
    file: `mcp:${connection.name}/${prompt.name}`,
    source: "mcp",
    async expand(args, run) {
      const client = connection.client;
      if (!client)
        throw new CommandError(`/${name}: MCP server "${connection.name}" ${connection.error ?? "is not connected"}`);
      const values = promptArguments(prompt, args, name);
      try {
        const result = await client.getPrompt({ name: prompt.name, arguments: values }, { signal: run.abortSignal });
        return { text: promptText(result), context: [] };
      } catch (error) {
        throw new CommandError(
          `/${name}: MCP server "${connection.name}" could not give its prompt: ${connection.describe(error)}`,
        );
      }
    },
  };
}
