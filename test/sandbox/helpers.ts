/** Shared parts of the sandbox tests: real bubblewrap, a temp workspace and home, and a scripted run of Bash calls. */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, vi } from "vitest";
import { summon, type Message, type SummonOptions } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { sandboxAvailability } from "../../plugins/sandbox/availability";
import { collect } from "../helpers/collect";

const found = sandboxAvailability();
/** Why the sandbox tests skip (undefined: they run). CI installs bubblewrap, so there they never skip. */
export const SKIP =
  found.ok && found.socat
    ? undefined
    : `bubblewrap and socat are needed for these tests: ${found.reason ?? "socat is missing"} (apt-get install -y bubblewrap socat)`;
// .ci/run sets UBIQUITY_TEST_SANDBOX_REQUIRED: there a missing sandbox fails the run instead of skipping.
if (SKIP && process.env.UBIQUITY_TEST_SANDBOX_REQUIRED)
  throw new Error(`UBIQUITY_TEST_SANDBOX_REQUIRED is set and the sandbox cannot run: ${SKIP}`);
if (SKIP) console.warn(`[sandbox tests skipped] ${SKIP}`);

/** A fresh workspace (a git repo with a .env) and HOME (with ~/.ssh/id_rsa and ~/.bashrc) per test. */
export function sandboxPlace(): { ws: () => string; home: () => string } {
  let ws = "";
  let home = "";
  beforeEach(() => {
    home = realpathSync(mkdtempSync(join(tmpdir(), "ubq-sbx-home-")));
    ws = realpathSync(mkdtempSync(join(tmpdir(), "ubq-sbx-ws-")));
    vi.stubEnv("HOME", home);
    mkdirSync(join(home, ".ssh"));
    writeFileSync(join(home, ".ssh", "id_rsa"), "-----BEGIN PRIVATE KEY-----\n");
    writeFileSync(join(home, ".bashrc"), "# rc\n");
    execFileSync("git", ["init", "-q", ws]);
    writeFileSync(join(ws, ".env"), "API_TOKEN=hunter2\n");
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    rmSync(ws, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });
  return { ws: () => ws, home: () => home };
}

/** Run `commands` as one turn of Bash calls (ids c0, c1, ...) and return every message. */
export function runBash(commands: string[], options: SummonOptions): Promise<Message[]> {
  const model = scriptedModel([
    { toolCalls: commands.map((command, i) => ({ toolName: "Bash", input: { command }, id: `c${i}` })) },
    "done",
  ]);
  return collect(summon("go", { model, persistSession: false, persistTodos: false, ...options }));
}

/** The tool result contents, by tool use id. */
export function outputs(messages: Message[]): Record<string, { content: string; isError: boolean }> {
  const out: Record<string, { content: string; isError: boolean }> = {};
  for (const m of messages)
    if (m.type === "tool_result") out[m.toolUseId] = { content: m.output.content, isError: m.output.isError === true };
  return out;
}

/** A real HTTP server on 127.0.0.1 that records what reached it. */
export async function recordingServer(): Promise<{ server: Server; port: number; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? "");
    res.end("hello from the test server\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address();
  return { server, port: typeof address === "object" && address ? address.port : 0, hits };
}

/** Live (not zombie) processes whose command line contains `needle` (the MCP tests' /proc scan). */
export { processesWith } from "../mcp/helpers";

/** A host process listening on `dev.sock` in the workspace (a docker or D-Bus socket stands so); who connected, and how to close it. */
export async function hostSocket(ws: string) {
  const hits: string[] = [];
  const server = createNetServer((s) => {
    hits.push("connected");
    s.end("HELLO-FROM-HOST\n");
  });
  await new Promise<void>((r) => server.listen(join(ws, "dev.sock"), r));
  return { hits, close: () => server.close() };
}
