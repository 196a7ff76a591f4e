/**
 * `ubiquity acp`: Ubiquity as an Agent Client Protocol agent on stdio, for editors (Zed,
 * JetBrains, Neovim, VS Code extensions). Standard output carries protocol frames only: every
 * log line goes to standard error. The flags are `ubiquity run`'s that make sense for an agent
 * an editor drives (model, tools and permissions, config and trust, …); the prompt, the output
 * format and the working directory come from the client.
 */
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import type { CliIO } from "../types";
import { parseFlags, prescan, runFlagTable, type FlagTable, type RunValues } from "../flags";
import { activePlugins, BUILTIN_PRESETS } from "../plugins";
import { UsageError } from "../../loader/index";
import { importOptional } from "../../plugins/_kits/lazy/index";

/** How to get the ACP SDK, an optional peer: in the project, or next to ubiquity in an editor's `npx` line. */
const ACP_INSTALL =
  "npm i @agentclientprotocol/sdk (or, in an editor's settings: npx -y -p ubiquity -p @agentclientprotocol/sdk ubiquity acp)";

/** The run flags an editor's agent has no use for: the client sends the prompts and the folder, and reads the protocol. */
const NOT_FOR_ACP = new Set(["cwd", "continue", "resume", "fork-session", "session-id", "help"]);

/** `ubiquity acp`'s flag table: `run`'s, without the prompt and output flags and those above. */
export function acpFlagTable(run: FlagTable): FlagTable {
  return Object.fromEntries(
    Object.entries(run).filter(([name, f]) => f.group !== "Prompt and output" && !NOT_FOR_ACP.has(name)),
  );
}

function usage(table: FlagTable): string {
  const left = (name: string, short?: string, value?: string) =>
    `${short ? `-${short}, ` : "    "}--${name}${value ? ` ${value}` : ""}`;
  const width = Math.max(...Object.entries(table).map(([n, f]) => left(n, f.short, f.value).length));
  return [
    "Usage: ubiquity acp [flags]",
    "",
    "Run as an Agent Client Protocol agent on stdin/stdout, for editors (Zed: agent_servers).",
    "Each session's folder comes from the editor; its config, presets and trust apply as for `ubiquity run --cwd <folder>`.",
    "",
    "Flags:",
    ...Object.entries(table).map(([n, f]) => `  ${left(n, f.short, f.value).padEnd(width)}  ${f.description}`),
    `  ${left("help", "h").padEnd(width)}  Show this help`,
    "",
  ].join("\n");
}

/**
 * The user's own files the args name (`--config`, a `--preset` module, an `--mcp-config` file), as
 * absolute paths (`~/` expanded). The editor picks the folder the agent starts in (Zed: the
 * project it opens) and each session resolves from its own folder, so a relative path or a
 * package name would load the opened repository's same-named file as the user's, trusted or not:
 * refused.
 */
function userFiles<V extends RunValues>(values: V): V {
  const own = (flag: string, value: string): string => {
    if (value === "~" || value.startsWith("~/")) return join(homedir(), value.slice(1));
    if (isAbsolute(value)) return value;
    throw new UsageError(
      `acp: --${flag} ${value}: give an absolute path (or ~/…). The editor chooses the folder the agent starts in and each session's folder is the project it opens, so a relative path${flag === "preset" ? " or a package name" : ""} would load that project's own file, trusted or not.`,
    );
  };
  const v = values as RunValues;
  if (typeof v.config === "string") v.config = own("config", v.config);
  if (typeof v.preset === "string" && !Object.hasOwn(BUILTIN_PRESETS, v.preset)) v.preset = own("preset", v.preset);
  const mcp = v["mcp-config"];
  if (mcp !== undefined) {
    const specs = (Array.isArray(mcp) ? mcp : [mcp]).map(String);
    // Inline JSON (`{"mcpServers":…}`) names no file.
    v["mcp-config"] = specs.map((spec) => (spec.trim().startsWith("{") ? spec : own("mcp-config", spec)));
  }
  return values;
}

/**
 * Serve ACP on the process's stdio until the client closes it; resolves to the exit code. The
 * flags and `--help` need no ACP SDK (an optional peer), so a user can read them before installing it.
 */
export async function acpCommand(argv: string[], io: CliIO, version: string): Promise<number> {
  const early = userFiles(prescan(argv));
  const active = await activePlugins(early, "acp");
  const runTable = runFlagTable(active.plugins);
  const table = acpFlagTable(runTable);
  const values = userFiles(
    parseFlags(
      argv,
      { ...table, help: { type: "boolean", short: "h", description: "" } },
      { positionals: false, help: "ubiquity acp --help" },
    ).values,
  );
  if (values.help) {
    io.stdout(usage(table));
    return 0;
  }
  const { serveAcp } = await importOptional(
    () => import("./serve"),
    "@agentclientprotocol/sdk",
    "ubiquity acp",
    ACP_INSTALL,
  );
  return serveAcp({ values, table: runTable, version, io });
}
