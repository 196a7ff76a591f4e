/**
 * `ubiquity acp` through the real bin, driven by the ACP SDK's own client (`client()`, the app
 * API that replaced `ClientSideConnection` in @agentclientprotocol/sdk 2.x) over the child's
 * stdio. The project's config injects a scripted model that answers by the user's last words.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import {
  client,
  ndJsonStream,
  type ClientCapabilities,
  type ClientContext,
  type RequestPermissionRequest,
  type SessionNotification,
} from "@agentclientprotocol/sdk";
import { binPath, tempProject } from "../helpers/project";

/**
 * The file the ACP tests' config is written to: plain JavaScript, so an ES module (as
 * SCRIPTED_CONFIG_FILE in test/helpers/scripted-project.ts: a `.ts` one ran jiti's Babel in every
 * fresh project, ~0.2 CPU-s).
 */
export const ACP_CONFIG_FILE = "ubiquity.config.mjs";

/** The scripted model of the ACP tests, by the user's last words. */
export const ACP_CONFIG = `
import { scriptedModel } from "ubiquity/testing";

const textOf = (m) => (typeof m.content === "string" ? m.content : m.content.map((p) => (p.type === "text" ? p.text : "")).join("\\n"));

export default {
  sessionDir: process.env.UBQ_SESSIONS,
  todoDir: process.env.UBQ_SESSIONS + "-todos",
  marketPricing: false,
  maxRetries: 0,
  model: scriptedModel(({ request }) => {
    const users = request.prompt.filter((m) => m.role === "user").map(textOf);
    const last = request.prompt[request.prompt.length - 1];
    const said = (users[users.length - 1] ?? "").split("\\n").pop();
    if (last.role === "tool") return { text: "finished: " + said, chunkSize: 4 };
    if (said.includes("write")) return { toolCalls: [{ toolName: "Write", input: { file_path: "out.txt", content: "hello from acp\\n" } }] };
    if (said.includes("echo")) return { toolCalls: [{ toolName: "Bash", input: { command: "echo hi" } }] };
    // Waits for a file no test makes: it ends only when it is killed (a fixed sleep let it finish
    // under load before a cancel the agent had not read yet could stop it).
    if (said.includes("slow")) return { toolCalls: [{ toolName: "Bash", input: { command: "until [ -e slow-never ]; do sleep 0.05; done; echo late > slow-marker.txt" } }] };
    if (said.includes("read")) return { toolCalls: [{ toolName: "Read", input: { file_path: "notes.txt" } }] };
    if (said.includes("edit")) return { toolCalls: [{ toolName: "Edit", input: { file_path: "notes.txt", old_string: "unsaved", new_string: "saved" } }] };
    if (said.includes("other folder")) return { toolCalls: [{ toolName: "Write", input: { file_path: process.env.UBQ_OTHER + "/other.txt", content: "there" } }] };
    if (said.includes("escape")) return { toolCalls: [{ toolName: "Write", input: { file_path: "../escaped.txt", content: "out" } }] };
    if (said.includes("mcp")) return { toolCalls: [{ toolName: "mcp__everything__echo", input: { message: "from the editor" } }] };
    if (said.includes("plan")) return { reasoning: "Two steps, then done.", toolCalls: [{ toolName: "TodoWrite", input: { todos: [{ content: "first step", status: "in_progress" }, { content: "second step", status: "pending" }] } }] };
    if (said.includes("secret")) return { text: "the key is " + process.env.OPENAI_API_KEY + " indeed", chunkSize: 3 };
    return { text: "answer to " + said + " (" + users.length + " user messages)", chunkSize: 3 };
  }),
};
`;

/** A temp project for the ACP tests, with its sessions folder. */
export function acpProject() {
  const dir = tempProject({ [ACP_CONFIG_FILE]: ACP_CONFIG }, { linkUbiquity: true });
  return { dir, sessions: join(dir, "sessions") };
}

/** What the test client answers to a permission request: an option id, or "cancelled". */
export type Answer = (request: RequestPermissionRequest) => string | Promise<string>;

/** A running `ubiquity acp` and the SDK client connected to it. */
export interface AgentProcess {
  agent: ClientContext;
  /** Every `session/update` received, in order. */
  updates: SessionNotification[];
  /** Every permission request received. */
  permissions: RequestPermissionRequest[];
  /** Every line the agent wrote on stdout, raw. */
  frames: string[];
  /** Every `fs/read_text_file` / `fs/write_text_file` request the agent sent, in order. */
  fsCalls: { method: "read" | "write"; path: string }[];
  /** The agent's process. */
  child: ChildProcessWithoutNullStreams;
  stderr(): string;
  /** How the next permission requests are answered [allow_once]. */
  answer: Answer;
  close(): Promise<void>;
}

/** Start `ubiquity acp [args]` in `dir` and connect the SDK's client to it. */
export function startAgent(
  project: { dir: string; sessions: string },
  args: string[] = [],
  env: Record<string, string> = {},
  capabilities: ClientCapabilities = {},
  files?: Map<string, string | Promise<string>>,
): AgentProcess & { initialized: Promise<unknown> } {
  const home = env.HOME ?? realpathSync(mkdtempSync(join(tmpdir(), "ubq-acp-home-")));
  const child = spawn(process.execPath, [binPath, "acp", ...args], {
    cwd: project.dir,
    env: {
      ...process.env,
      HOME: home,
      DEBUG: "",
      NO_COLOR: "1",
      UBIQUITY_TRUST: "1",
      UBQ_SESSIONS: project.sessions,
      ...env,
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  // A HOME made here is the agent's alone: removed once it has exited.
  if (env.HOME === undefined) child.once("close", () => rmSync(home, { recursive: true, force: true }));
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const frames: string[] = [];
  let partial = "";
  child.stdout.on("data", (d: Buffer) => {
    const lines = (partial + d.toString("utf8")).split("\n");
    partial = lines.pop()!;
    frames.push(...lines);
  });
  const proc: AgentProcess = {
    agent: undefined as unknown as ClientContext,
    updates: [],
    permissions: [],
    frames,
    fsCalls: [],
    child,
    stderr: () => stderr,
    answer: () => "allow_once",
    async close() {
      connection.close();
      child.stdin.end();
      if (child.exitCode === null && child.signalCode === null) await new Promise((r) => child.once("exit", r));
    },
  };
  const app = client({ name: "ubiquity-acp-test" })
    .onNotification("session/update", ({ params }) => void proc.updates.push(params))
    .onRequest("session/request_permission", async ({ params }) => {
      proc.permissions.push(params);
      const chosen = await proc.answer(params);
      return chosen === "cancelled"
        ? { outcome: { outcome: "cancelled" } }
        : { outcome: { outcome: "selected", optionId: chosen } };
    })
    // An editor's buffers: what `files` holds is what the editor has open (unsaved).
    .onRequest("fs/read_text_file", async ({ params }) => {
      proc.fsCalls.push({ method: "read", path: params.path });
      const text = await files?.get(params.path);
      if (text === undefined) throw new Error(`not open: ${params.path}`);
      return { content: text };
    })
    .onRequest("fs/write_text_file", ({ params }) => {
      proc.fsCalls.push({ method: "write", path: params.path });
      files?.set(params.path, params.content);
      return {};
    });
  const connection = app.connect(
    ndJsonStream(
      Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
    ),
  );
  proc.agent = connection.agent;
  const initialized = proc.agent.request("initialize", {
    protocolVersion: 1,
    clientCapabilities: capabilities,
    clientInfo: { name: "test", version: "0" },
  });
  return Object.assign(proc, { initialized });
}

/** The updates of one session, by kind. */
export function updatesOf(proc: AgentProcess, sessionId: string) {
  return proc.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update);
}

/** The text of the agent's message chunks. */
export function messageText(proc: AgentProcess, sessionId: string): string {
  return updatesOf(proc, sessionId)
    .flatMap((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? [u.content.text] : []))
    .join("");
}

/** Resolves once `test` holds (polling). */
export async function until(test: () => boolean, timeoutMs = 60_000): Promise<void> {
  const start = Date.now();
  while (!test()) {
    if (Date.now() - start > timeoutMs) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}
