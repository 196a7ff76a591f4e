/**
 * `ubiquity acp`: Ubiquity as an Agent Client Protocol agent on stdio, for editors (Zed,
 * JetBrains, Neovim, VS Code extensions). Standard output carries protocol frames only: every
 * log line goes to standard error. The flags are `ubiquity run`'s that make sense for an agent
 * an editor drives (model, tools and permissions, config and trust, …); the prompt, the output
 * format and the working directory come from the client.
 */
import { resolve } from "node:path";
import { Readable, Writable } from "node:stream";
import { MessageTooLargeError, ndJsonStream } from "@agentclientprotocol/sdk";
import type { CliIO } from "../types";
import { parseFlags, prescan, runFlagTable, type FlagTable } from "../flags";
import { activePlugins, BUILTIN_PRESETS } from "../plugins";
import { createModuleLoader } from "../../src/config/module";
import { acpAgent } from "./agent";

/** The run flags an editor's agent has no use for: the client sends the prompts and the folder, and reads the protocol. */
const NOT_FOR_ACP = new Set(["cwd", "continue", "resume", "fork-session", "session-id", "help"]);

/** `ubiquity acp`'s flag table: `run`'s, without the prompt and output flags and those above. */
export function acpFlagTable(run: FlagTable): FlagTable {
  return Object.fromEntries(Object.entries(run).filter(([name, f]) => f.group !== "Prompt and output" && !NOT_FOR_ACP.has(name)));
}

function usage(table: FlagTable): string {
  const left = (name: string, short?: string, value?: string) => `${short ? `-${short}, ` : "    "}--${name}${value ? ` ${value}` : ""}`;
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

/** Serve ACP on the process's stdio until the client closes it; resolves to the exit code. */
export async function acpCommand(argv: string[], io: CliIO, version: string): Promise<number> {
  const active = await activePlugins(prescan(argv), "acp");
  const runTable = runFlagTable(active.plugins);
  const table = acpFlagTable(runTable);
  const { values } = parseFlags(argv, { ...table, help: { type: "boolean", short: "h", description: "" } }, { positionals: false, help: "ubiquity acp --help" });
  if (values.help) {
    io.stdout(usage(table));
    return 0;
  }
  // The files the args name are the user's, found from where the editor started the agent: each
  // session resolves from its own folder, where an opened repository could ship a same-named one.
  if (typeof values.config === "string") values.config = resolve(values.config);
  if (typeof values.preset === "string" && !Object.hasOwn(BUILTIN_PRESETS, values.preset)) values.preset = createModuleLoader(process.cwd()).resolve(values.preset, "--preset");
  // Standard output is the protocol's: whatever prints (a plugin's console.log) goes to stderr.
  for (const method of ["log", "info", "debug"] as const) console[method] = (...args: unknown[]) => console.error(...args);
  const warn = (line: string) => io.stderr(`${line}\n`);
  if (process.stdin.isTTY) warn("ubiquity acp speaks the Agent Client Protocol on stdin and stdout: an editor starts it (see `ubiquity acp --help`). Ctrl-D ends it.");
  const { app, sessions } = acpAgent({ values, table: runTable, version, warn });
  const stream = ndJsonStream(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>);
  const connection = app.connect(stream);
  await connection.closed;
  await Promise.all([...sessions.values()].map((s) => s.close()));
  // The SDK ends the connection on a message over its size limit: say so, rather than vanish.
  const reason: unknown = connection.signal.reason;
  if (reason instanceof MessageTooLargeError) {
    warn(`acp: the client sent a message over ${reason.maxMessageBytes / 1024 / 1024} MB (the protocol's limit), so the connection was closed. Attach large files by reference (@-mention) rather than pasting them whole.`);
    return 1;
  }
  return 0;
}
