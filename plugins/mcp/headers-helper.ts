/**
 * Claude Code's `headersHelper`: a shell command, run at each connect of a remote server, that
 * prints a JSON object of string headers (short-lived tokens). It runs like a hook: the run's
 * subprocess environment (the allow-list) plus `CLAUDE_CODE_MCP_SERVER_NAME` and
 * `CLAUDE_CODE_MCP_SERVER_URL`, outside an untrusted folder, through the sandbox's wrap.
 * Its headers win over the static `headers`. A failure fails the server, naming the helper.
 */
import { execFile } from "node:child_process";
import { buildSubprocessEnv, shellSpawn, spawnFolder, type SubprocessEnvOptions } from "../_kits/process/index";
import type { SpawnWrap } from "./transport";

/** How long a helper may take [10 s, as in Claude Code]. */
export const HEADERS_HELPER_TIMEOUT_MS = 10_000;

/** Where and how a helper runs. */
export interface HeadersHelperContext {
  cwd: string;
  environment?: SubprocessEnvOptions;
  wrap?: SpawnWrap;
  trusted?: boolean;
}

/** Run `command` and return the headers it printed; rejects with a message naming the server and the helper. */
export function runHeadersHelper(
  command: string,
  server: { name: string; url: string },
  context: HeadersHelperContext,
): Promise<Record<string, string>> {
  const env = buildSubprocessEnv(context.environment ?? {}, {
    add: [{ CLAUDE_CODE_MCP_SERVER_NAME: server.name, CLAUDE_CODE_MCP_SERVER_URL: server.url }],
  });
  const plain = { ...shellSpawn(command), cwd: spawnFolder(context.cwd, context.trusted !== false), env };
  const spec = context.wrap ? context.wrap(plain) : plain;
  const label = `headersHelper ${JSON.stringify(command)}`;
  return new Promise((resolve, reject) => {
    execFile(
      spec.command,
      spec.args,
      {
        cwd: spec.cwd,
        env: spec.env as NodeJS.ProcessEnv,
        timeout: HEADERS_HELPER_TIMEOUT_MS,
        killSignal: "SIGKILL",
        maxBuffer: 64 * 1024,
      },
      (error, stdout, stderr) => {
        if (error) {
          const why = error.killed
            ? `timed out after ${HEADERS_HELPER_TIMEOUT_MS / 1000}s`
            : `failed (${String(stderr).trim().slice(0, 300) || error.message})`;
          return reject(new Error(`${label} ${why}; fix the command or remove it`));
        }
        let parsed: unknown;
        try {
          parsed = JSON.parse(String(stdout));
        } catch {
          return reject(new Error(`${label} did not print a JSON object of headers`));
        }
        if (
          typeof parsed !== "object" ||
          parsed === null ||
          Array.isArray(parsed) ||
          Object.values(parsed).some((v) => typeof v !== "string")
        ) {
          return reject(new Error(`${label} must print a JSON object whose values are strings`));
        }
        resolve(parsed as Record<string, string>);
      },
    );
  });
}
