/** `ubiquity acp`'s protocol side, on the ACP SDK (an optional peer): loaded once the flags are read. */
import { Readable, Writable } from "node:stream";
import { MessageTooLargeError, ndJsonStream } from "@agentclientprotocol/sdk";
import type { CliIO } from "../types";
import type { FlagTable, RunValues } from "../flags";
import { acpAgent } from "./agent";

/** Serve ACP on the process's stdio until the client closes it; resolves to the exit code. */
export async function serveAcp({
  values,
  table: runTable,
  version,
  io,
}: {
  values: RunValues;
  table: FlagTable;
  version: string;
  io: CliIO;
}): Promise<number> {
  // Standard output is the protocol's: whatever prints (a plugin's console.log) goes to stderr.
  for (const method of ["log", "info", "debug"] as const)
    console[method] = (...args: unknown[]) => console.error(...args);
  const warn = (line: string) => io.stderr(`${line}\n`);
  if (process.stdin.isTTY)
    warn(
      "ubiquity acp speaks the Agent Client Protocol on stdin and stdout: an editor starts it (see `ubiquity acp --help`). Ctrl-D ends it.",
    );
  const { app, sessions } = acpAgent({ values, table: runTable, version, warn });
  const stream = ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  );
  const connection = app.connect(stream);
  await connection.closed;
  await Promise.all([...sessions.values()].map((s) => s.close()));
  // The SDK ends the connection on a message over its size limit: say so, rather than vanish.
  const reason: unknown = connection.signal.reason;
  if (reason instanceof MessageTooLargeError) {
    warn(
      `acp: the client sent a message over ${reason.maxMessageBytes / 1024 / 1024} MB (the protocol's limit), so the connection was closed. Attach large files by reference (@-mention) rather than pasting them whole.`,
    );
    return 1;
  }
  return 0;
}
