/**
 * `ubiquity acp` (issue 24): the built bin as an ACP agent, driven over its stdio by the ACP
 * SDK's own client side with a scripted model — initialize, sessions, prompts that need
 * permission, streamed updates in order, cancel, load in a new process, modes, and what must
 * never reach the client.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { commandsGone } from "../helpers/processes";
import { removeTempProjects, requireDist, runCli, tempProject } from "../helpers/project";
import { ACP_CONFIG_FILE, acpProject, messageText, startAgent, until, updatesOf, type AgentProcess } from "./helpers";

afterAll(removeTempProjects);
beforeAll(requireDist);

const running: AgentProcess[] = [];
afterAll(async () => void (await Promise.all(running.map((p) => p.close()))));
function start(...args: Parameters<typeof startAgent>) {
  const proc = startAgent(...args);
  running.push(proc);
  return proc;
}

const indexOf = (updates: SessionUpdate[], test: (u: SessionUpdate) => boolean) => updates.findIndex(test);
const lastIndexOf = (updates: SessionUpdate[], test: (u: SessionUpdate) => boolean) =>
  updates.length - 1 - [...updates].reverse().findIndex(test);

describe("ubiquity acp: a round trip with the SDK's client", () => {
  const project = acpProject();
  let firstSession = "";

  it("initializes, opens a session, runs a Write the client approves, streams the updates in order", async () => {
    const proc = start(project);
    const init = (await proc.initialized) as { protocolVersion: number; agentCapabilities: Record<string, unknown> };
    expect(init.protocolVersion).toBe(1);
    expect(init.agentCapabilities).toMatchObject({
      loadSession: true,
      promptCapabilities: { image: true, embeddedContext: true },
      mcpCapabilities: { http: true, sse: true },
    });

    const session = await proc.agent.request("session/new", { cwd: project.dir, mcpServers: [] });
    firstSession = session.sessionId;
    expect(session.modes?.currentModeId).toBe("default");
    expect(session.modes?.availableModes.map((m) => m.id)).toEqual(
      expect.arrayContaining(["default", "acceptEdits", "plan", "bypassPermissions"]),
    );

    const answer = await proc.agent.request("session/prompt", {
      sessionId: session.sessionId,
      prompt: [{ type: "text", text: "please write the file" }],
    });
    expect(answer.stopReason).toBe("end_turn");
    // The tool really ran, after the client's approval.
    expect(readFileSync(join(project.dir, "out.txt"), "utf8")).toBe("hello from acp\n");
    expect(proc.permissions).toHaveLength(1);
    const asked = proc.permissions[0]!;
    expect(asked.toolCall).toMatchObject({
      kind: "edit",
      title: "Write out.txt",
      locations: [{ path: join(project.dir, "out.txt") }],
    });
    expect(asked.options.map((o) => o.kind)).toEqual(
      expect.arrayContaining(["allow_once", "allow_always", "reject_once"]),
    );

    const updates = updatesOf(proc, session.sessionId);
    const id = asked.toolCall.toolCallId;
    const call = indexOf(updates, (u) => u.sessionUpdate === "tool_call" && u.toolCallId === id);
    const done = indexOf(
      updates,
      (u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === id && u.status === "completed",
    );
    const lastChunk = lastIndexOf(updates, (u) => u.sessionUpdate === "agent_message_chunk");
    expect(call).toBeGreaterThanOrEqual(0);
    expect(done).toBeGreaterThan(call);
    expect(lastChunk).toBeGreaterThan(done);
    expect(updates[call]).toMatchObject({ kind: "edit", rawInput: { file_path: "out.txt" } });
    // Write's result carries the diff: a new file (no old text) and its content.
    const completed = updates[done] as Extract<SessionUpdate, { sessionUpdate: "tool_call_update" }>;
    expect(completed.content).toContainEqual({
      type: "diff",
      path: join(project.dir, "out.txt"),
      oldText: null,
      newText: "hello from acp\n",
    });
    // The answer streamed in several chunks.
    expect(updates.filter((u) => u.sessionUpdate === "agent_message_chunk").length).toBeGreaterThan(1);
    expect(messageText(proc, session.sessionId)).toBe("finished: please write the file");
    await proc.close();
  });

  it("cancel during a slow tool call: the prompt ends cancelled and the command's side effect never happens", async () => {
    const proc = start(project);
    await proc.initialized;
    const { sessionId } = await proc.agent.request("session/new", { cwd: project.dir, mcpServers: [] });
    // Bypass mode: the slow Bash call runs without a question.
    await proc.agent.request("session/set_mode", { sessionId, modeId: "bypassPermissions" });
    expect(updatesOf(proc, sessionId)).toContainEqual({
      sessionUpdate: "current_mode_update",
      currentModeId: "bypassPermissions",
    });
    const prompt = proc.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "something slow" }],
    });
    await until(() =>
      updatesOf(proc, sessionId).some((u) => u.sessionUpdate === "tool_call_update" && u.status === "in_progress"),
    );
    await proc.agent.notify("session/cancel", { sessionId });
    expect((await prompt).stopReason).toBe("cancelled");
    expect(proc.permissions).toHaveLength(0);
    // The command writes its marker as its last step: once no such command runs, it was killed if there is none.
    await commandsGone(project.dir, "slow-marker.txt");
    expect(existsSync(join(project.dir, "slow-marker.txt"))).toBe(false);
    // The session goes on.
    const next = await proc.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "hello again" }],
    });
    expect(next.stopReason).toBe("end_turn");

    // A cancel right behind a new session's first prompt, while the session still starts (an MCP
    // server to connect first), stops it too.
    const everything = join(
      process.cwd(),
      "node_modules",
      "@modelcontextprotocol",
      "server-everything",
      "dist",
      "index.js",
    );
    const fresh = await proc.agent.request("session/new", {
      cwd: project.dir,
      mcpServers: [{ name: "everything", command: process.execPath, args: [everything], env: [] }],
    });
    await proc.agent.request("session/set_mode", { sessionId: fresh.sessionId, modeId: "bypassPermissions" });
    const early = proc.agent.request("session/prompt", {
      sessionId: fresh.sessionId,
      prompt: [{ type: "text", text: "slow again" }],
    });
    await proc.agent.notify("session/cancel", { sessionId: fresh.sessionId });
    expect((await early).stopReason).toBe("cancelled");
    await commandsGone(project.dir, "slow-marker.txt");
    expect(existsSync(join(project.dir, "slow-marker.txt"))).toBe(false);
    expect(
      (await proc.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "still here" }] }))
        .stopReason,
    ).toBe("end_turn");
    await proc.close();
  });

  it("session/load in a new process replays the stored conversation, and the next prompt continues it", async () => {
    const proc = start(project);
    await proc.initialized;
    const listed = await proc.agent.request("session/list", { cwd: project.dir });
    expect(listed.sessions).toContainEqual(
      expect.objectContaining({ sessionId: firstSession, cwd: project.dir, title: "please write the file" }),
    );
    const loaded = await proc.agent.request("session/load", {
      sessionId: firstSession,
      cwd: project.dir,
      mcpServers: [],
    });
    expect(loaded.modes?.currentModeId).toBe("default");
    const replayed = updatesOf(proc, firstSession);
    expect(replayed).toContainEqual({
      sessionUpdate: "user_message_chunk",
      content: { type: "text", text: "please write the file" },
    });
    expect(messageText(proc, firstSession)).toBe("finished: please write the file");
    expect(replayed.some((u) => u.sessionUpdate === "tool_call" && u.kind === "edit")).toBe(true);
    expect(replayed.some((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed")).toBe(true);

    proc.updates.length = 0;
    const answer = await proc.agent.request("session/prompt", {
      sessionId: firstSession,
      prompt: [{ type: "text", text: "what now" }],
    });
    expect(answer.stopReason).toBe("end_turn");
    // The model saw the earlier prompt too: the session was resumed, not started afresh.
    expect(messageText(proc, firstSession)).toBe("answer to what now (2 user messages)");
    await proc.close();
  });
});

describe("ubiquity acp: permissions, plans, errors and secrets", () => {
  // One agent for the cases an editor runs side by side in one process: each opens its own
  // session and checks only that session's updates and questions (the permission requests name
  // their session). The secret case needs its own environment, so its own process.
  const shared = acpProject();
  let sharedAgent: ReturnType<typeof start> | undefined;
  const agent = async () => {
    sharedAgent ??= start(shared);
    await sharedAgent.initialized;
    return sharedAgent;
  };
  const askedIn = (proc: AgentProcess, sessionId: string) => proc.permissions.filter((p) => p.sessionId === sessionId);

  it("a rejected permission leaves no file; allow always becomes a session rule", async () => {
    const proc = await agent();
    const { sessionId } = await proc.agent.request("session/new", { cwd: shared.dir, mcpServers: [] });
    proc.answer = () => "reject_once";
    expect(
      (await proc.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write it" }] }))
        .stopReason,
    ).toBe("end_turn");
    expect(existsSync(join(shared.dir, "out.txt"))).toBe(false);
    expect(
      updatesOf(proc, sessionId).some((u) => u.sessionUpdate === "tool_call_update" && u.status === "failed"),
    ).toBe(true);

    proc.answer = () => "allow_always";
    await proc.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "echo" }] });
    await proc.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "echo once more" }] });
    // Asked for the Write and the first echo only: "always" covered the second.
    expect(askedIn(proc, sessionId).map((p) => p.toolCall.title)).toEqual(["Write out.txt", "`echo hi`"]);
    const results = updatesOf(proc, sessionId).filter(
      (u) => u.sessionUpdate === "tool_call_update" && u.status === "completed",
    );
    expect(results).toHaveLength(2);
    proc.answer = () => "allow_once";
  });

  it("TodoWrite becomes a plan; reasoning streams as thought chunks", async () => {
    const proc = await agent();
    const { sessionId } = await proc.agent.request("session/new", { cwd: shared.dir, mcpServers: [] });
    await proc.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "make a plan" }] });
    const updates = updatesOf(proc, sessionId);
    expect(updates).toContainEqual({
      sessionUpdate: "plan",
      entries: [
        { content: "first step", priority: "medium", status: "in_progress" },
        { content: "second step", priority: "medium", status: "pending" },
      ],
    });
    const thought = updates
      .flatMap((u) => (u.sessionUpdate === "agent_thought_chunk" && u.content.type === "text" ? [u.content.text] : []))
      .join("");
    expect(thought).toBe("Two steps, then done.");
    expect(updates.find((u) => u.sessionUpdate === "tool_call")).toMatchObject({
      kind: "think",
      title: "Update the plan",
    });
  });

  it("a relative cwd is a protocol error naming the fix", async () => {
    const proc = await agent();
    await expect(proc.agent.request("session/new", { cwd: "some/project", mcpServers: [] })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("must be an absolute path"),
    });
    await expect(
      proc.agent.request("session/prompt", { sessionId: "no-such-session", prompt: [{ type: "text", text: "hi" }] }),
    ).rejects.toMatchObject({ code: -32002 });
  });

  it("a secret from the environment never appears in a frame, even streamed in pieces", async () => {
    const project = acpProject();
    const secret = "sk-test-0123456789abcdefSECRET";
    const proc = start(project, [], { OPENAI_API_KEY: secret });
    await proc.initialized;
    const { sessionId } = await proc.agent.request("session/new", { cwd: project.dir, mcpServers: [] });
    await proc.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "tell the secret" }] });
    expect(messageText(proc, sessionId)).toBe("the key is [redacted] indeed");
    expect(proc.frames.length).toBeGreaterThan(3);
    expect(proc.frames.join("\n")).not.toContain(secret);
    expect(proc.frames.join("\n")).not.toContain(secret.slice(0, 12));
    // Nothing but protocol frames on stdout.
    for (const frame of proc.frames) expect(JSON.parse(frame)).toMatchObject({ jsonrpc: "2.0" });
    await proc.close();
  });

  it("mode auto: the reviewer answers instead of the editor, and its decision shows on the call", async () => {
    const proc = await agent();
    const session = await proc.agent.request("session/new", { cwd: shared.dir, mcpServers: [] });
    expect(session.modes?.availableModes.map((m) => m.id)).toContain("auto");
    await proc.agent.request("session/set_mode", { sessionId: session.sessionId, modeId: "auto" });
    // The scripted model gives no decision when asked to review: the call is denied (fail closed), nobody is asked.
    await proc.agent.request("session/prompt", {
      sessionId: session.sessionId,
      prompt: [{ type: "text", text: "echo please" }],
    });
    expect(askedIn(proc, session.sessionId)).toHaveLength(0);
    const shown = updatesOf(proc, session.sessionId).filter(
      (u) =>
        u.sessionUpdate === "tool_call_update" &&
        JSON.stringify(u).includes("Reviewer (the run's model) denied this call"),
    );
    expect(shown).toHaveLength(1);
    // Every frame of the shared agent, across the sessions above, is a protocol frame.
    for (const frame of proc.frames) expect(JSON.parse(frame)).toMatchObject({ jsonrpc: "2.0" });
  });
});

describe("ubiquity acp: the editor's files, MCP servers and flags", () => {
  it("with the client's fs capabilities, Read sees the unsaved buffer and Edit writes through the editor; path checks still hold", async () => {
    const project = acpProject();
    const notes = join(project.dir, "notes.txt");
    writeFileSync(notes, "on disk\n");
    const buffers = new Map([[notes, "unsaved buffer text\n"]]);
    const proc = start(project, [], {}, { fs: { readTextFile: true, writeTextFile: true } }, buffers);
    await proc.initialized;
    const { sessionId } = await proc.agent.request("session/new", { cwd: project.dir, mcpServers: [] });
    await proc.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "read the notes" }] });
    const read = updatesOf(proc, sessionId).find(
      (u) => u.sessionUpdate === "tool_call_update" && u.status === "completed",
    );
    expect(JSON.stringify(read)).toContain("unsaved buffer text");
    expect(JSON.stringify(read)).not.toContain("on disk");

    await proc.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "now edit them" }] });
    // The edit went to the editor's buffer (read-before-write judged the buffer the model saw), not to the disk.
    expect(buffers.get(notes)).toBe("saved buffer text\n");
    expect(readFileSync(notes, "utf8")).toBe("on disk\n");
    const edited = updatesOf(proc, sessionId)
      .filter((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed")
      .at(-1) as Extract<SessionUpdate, { sessionUpdate: "tool_call_update" }>;
    expect(edited.content).toContainEqual({
      type: "diff",
      path: notes,
      oldText: "unsaved buffer text\n",
      newText: "saved buffer text\n",
    });

    // A path outside the project is refused by the tool's own check, even though the client would write anything.
    await proc.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "escape" }] });
    expect([...buffers.keys()]).toEqual([notes]);
    expect(existsSync(join(project.dir, "..", "escaped.txt"))).toBe(false);
    expect(
      updatesOf(proc, sessionId).filter((u) => u.sessionUpdate === "tool_call_update" && u.status === "failed"),
    ).toHaveLength(1);
    await proc.close();
  });

  it("the client's MCP servers join the session's tools", async () => {
    const project = acpProject();
    const proc = start(project);
    await proc.initialized;
    const everything = join(
      process.cwd(),
      "node_modules",
      "@modelcontextprotocol",
      "server-everything",
      "dist",
      "index.js",
    );
    const { sessionId } = await proc.agent.request("session/new", {
      cwd: project.dir,
      mcpServers: [{ name: "everything", command: process.execPath, args: [everything], env: [] }],
    });
    await proc.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "call mcp" }] });
    const done = updatesOf(proc, sessionId).find(
      (u) => u.sessionUpdate === "tool_call_update" && u.status === "completed",
    );
    expect(JSON.stringify(done)).toContain("from the editor");
    await proc.close();
  });

  it("run's flags apply: --permission-mode is the session's mode; acp --help lists no prompt flags", async () => {
    const project = acpProject();
    const proc = start(project, ["--permission-mode", "plan"]);
    await proc.initialized;
    const session = await proc.agent.request("session/new", { cwd: project.dir, mcpServers: [] });
    expect(session.modes?.currentModeId).toBe("plan");
    await proc.close();
    const help = await runCli(["acp", "--help"], project.dir);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--model");
    expect(help.stdout).toContain("--permission-mode");
    expect(help.stdout).not.toContain("--output-format");
    expect(help.stdout).not.toContain("--resume");
  });
});

describe("ubiquity acp: session lifecycle and stop reasons", () => {
  it("additionalDirectories widen where the tools may write; session/close ends the session", async () => {
    const project = acpProject();
    const other = tempProject({}, { packageJson: false });
    const proc = start(project, [], { UBQ_OTHER: other });
    const init = (await proc.initialized) as { agentCapabilities: { sessionCapabilities?: Record<string, unknown> } };
    expect(init.agentCapabilities.sessionCapabilities).toMatchObject({ close: {}, additionalDirectories: {} });
    const plain = await proc.agent.request("session/new", { cwd: project.dir, mcpServers: [] });
    await proc.agent.request("session/prompt", {
      sessionId: plain.sessionId,
      prompt: [{ type: "text", text: "put it in the other folder" }],
    });
    expect(existsSync(join(other, "other.txt"))).toBe(false);
    const wide = await proc.agent.request("session/new", {
      cwd: project.dir,
      mcpServers: [],
      additionalDirectories: [other],
    });
    await proc.agent.request("session/prompt", {
      sessionId: wide.sessionId,
      prompt: [{ type: "text", text: "put it in the other folder" }],
    });
    expect(readFileSync(join(other, "other.txt"), "utf8")).toBe("there");
    await expect(
      proc.agent.request("session/new", { cwd: project.dir, mcpServers: [], additionalDirectories: ["rel"] }),
    ).rejects.toMatchObject({ code: -32602 });

    await proc.agent.request("session/close", { sessionId: wide.sessionId });
    await expect(
      proc.agent.request("session/prompt", { sessionId: wide.sessionId, prompt: [{ type: "text", text: "hi" }] }),
    ).rejects.toMatchObject({ code: -32002 });
    await proc.close();
  });

  it("--max-turns ends a prompt with max_turn_requests; a run that fails is a protocol error naming the fix", async () => {
    const project = acpProject();
    const proc = start(project, ["--max-turns", "1"]);
    await proc.initialized;
    const { sessionId } = await proc.agent.request("session/new", { cwd: project.dir, mcpServers: [] });
    expect(
      (await proc.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "echo" }] })).stopReason,
    ).toBe("max_turn_requests");
    await proc.close();

    const bare = tempProject(
      { "ubiquity.config.ts": "export default { marketPricing: false };" },
      { linkUbiquity: true },
    );
    const none = start({ dir: bare, sessions: join(bare, "sessions") }, [], { UBIQUITY_MODEL: "" });
    await none.initialized;
    const s = await none.agent.request("session/new", { cwd: bare, mcpServers: [] });
    await expect(
      none.agent.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "hi" }] }),
    ).rejects.toMatchObject({ code: -32603, message: expect.stringContaining("UBIQUITY_MODEL") });
    await none.close();
  });
});

describe("ubiquity acp: cancel while asking, and trust", () => {
  it("session/cancel while a permission question is open: the prompt ends cancelled and nothing is written", async () => {
    const project = acpProject();
    const proc = start(project);
    await proc.initialized;
    const { sessionId } = await proc.agent.request("session/new", { cwd: project.dir, mcpServers: [] });
    let answerCancelled!: () => void;
    // As the protocol asks of a client: the open question is answered "cancelled" once the prompt is cancelled.
    proc.answer = () => new Promise<string>((r) => (answerCancelled = () => r("cancelled")));
    const prompt = proc.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "write the file" }],
    });
    await until(() => proc.permissions.length === 1);
    await proc.agent.notify("session/cancel", { sessionId });
    answerCancelled();
    expect((await prompt).stopReason).toBe("cancelled");
    expect(existsSync(join(project.dir, "out.txt"))).toBe(false);

    // A question answered "cancelled" on its own is the client cancelling the turn too.
    proc.answer = () => "cancelled";
    expect(
      (await proc.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write the file" }] }))
        .stopReason,
    ).toBe("cancelled");
    expect(existsSync(join(project.dir, "out.txt"))).toBe(false);
    expect(
      (await proc.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] })).stopReason,
    ).toBe("end_turn");
    await proc.close();
  });

  it("an untrusted folder's own config is skipped, with a warning on stderr, as for run; --trust applies it", async () => {
    const project = acpProject();
    const home = tempProject({}, { packageJson: false });
    const untrusted = start(project, [], { UBIQUITY_TRUST: "", UBIQUITY_MODEL: "", HOME: home });
    await untrusted.initialized;
    const s = await untrusted.agent.request("session/new", { cwd: project.dir, mcpServers: [] });
    // Without the folder's config there is no model: the prompt fails naming the fix.
    await expect(
      untrusted.agent.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "hi" }] }),
    ).rejects.toMatchObject({ message: expect.stringContaining("UBIQUITY_MODEL") });
    expect(untrusted.stderr()).toContain(ACP_CONFIG_FILE);
    await untrusted.close();

    const trusted = start(project, ["--trust"], { UBIQUITY_TRUST: "", UBIQUITY_MODEL: "", HOME: home });
    await trusted.initialized;
    const t = await trusted.agent.request("session/new", { cwd: project.dir, mcpServers: [] });
    expect(
      (
        await trusted.agent.request("session/prompt", {
          sessionId: t.sessionId,
          prompt: [{ type: "text", text: "hi" }],
        })
      ).stopReason,
    ).toBe("end_turn");
    expect(messageText(trusted, t.sessionId)).toBe("answer to hi (1 user messages)");
    await trusted.close();
  });
});
