import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createKernel,
  defineTool,
  definePlugin,
  summon,
  type HookInput,
  type HookOutput,
  type Options,
} from "ubiquity";
import { createRun } from "../../src/index";
import { scriptedModel } from "ubiquity/testing";
import hooksPlugin, { getHooksApi, HOOK_EVENTS } from "ubiquity/plugins/hooks";
import { matches } from "../../plugins/hooks/matcher";
import systemPrompt from "ubiquity/plugins/system-prompt";
import sessions, { SessionStore } from "ubiquity/plugins/sessions";
import { collect, ofType, resultOf } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";

const temp = tempDirs();

const calls: string[] = [];
const echo = defineTool({
  name: "Echo",
  description: "Echo the text back.",
  inputSchema: z.object({ text: z.string() }),
  execute: ({ text }) => {
    calls.push(text);
    return `echo: ${text}`;
  },
});
const boom = defineTool({
  name: "Boom",
  description: "Fails.",
  inputSchema: z.object({}),
  execute: () => ({ content: "it broke", isError: true }),
});

/** A recorder hook: logs every input it gets, answers with `answer`. */
function recorder(log: HookInput[], answer?: (input: HookInput) => HookOutput | undefined) {
  return async (input: HookInput) => {
    log.push(structuredClone(input));
    return answer?.(input);
  };
}

/** A plugin that makes every call of `tool` ask (stands in for a permission rule). */
const askFor = (tool: string) =>
  definePlugin(() => ({
    name: "test:ask",
    apply(kernel) {
      kernel.hooks.tool.permission.tap("test:ask", (v, call) =>
        call.toolName === tool ? { behavior: "ask", message: `${tool} needs approval` } : v,
      );
    },
  }))();

function run(prompt: string, options: Options & { plugins?: unknown[] }) {
  return collect(
    summon(prompt, {
      presets: [],
      ...options,
      plugins: [hooksPlugin(), ...((options.plugins as never[]) ?? [])],
    } as never),
  );
}

describe("hook events", () => {
  it("exports the twenty-six events", () => {
    expect(HOOK_EVENTS).toHaveLength(26);
    expect(new Set(HOOK_EVENTS).size).toBe(26);
  });

  it("PreToolUse fires before the tool with its payload, matching by tool name", async () => {
    const pre: HookInput[] = [];
    const other: HookInput[] = [];
    const model = scriptedModel([{ toolCalls: [{ toolName: "Echo", input: { text: "a" }, id: "t1" }] }, "done"]);
    const messages = await run("go", {
      model,
      tools: [echo],
      permissionMode: "acceptEdits",
      hooks: {
        PreToolUse: [
          { matcher: "Echo", hooks: [recorder(pre)] },
          { matcher: "Write|Edit", hooks: [recorder(other)] },
        ],
      },
    });
    expect(other).toHaveLength(0);
    expect(pre).toHaveLength(1);
    expect(pre[0]).toMatchObject({
      hookEventName: "PreToolUse",
      toolName: "Echo",
      toolInput: { text: "a" },
      toolUseId: "t1",
      permissionMode: "acceptEdits",
      cwd: process.cwd(),
      sessionId: messages[0]!.sessionId,
    });
    expect(pre[0]!.agentId).toBeUndefined();
  });

  it("PreToolUse block: the tool does not run, the reason is the result, the pair is emitted; first block wins", async () => {
    calls.length = 0;
    const second: HookInput[] = [];
    const model = scriptedModel([{ toolCalls: [{ toolName: "Echo", input: { text: "rm" }, id: "t1" }] }, "ok"]);
    const messages = await run("go", {
      model,
      tools: [echo],
      hooks: { PreToolUse: [{ hooks: [async () => ({ decision: "block", reason: "no rm here" }), recorder(second)] }] },
    });
    expect(calls).toEqual([]);
    expect(second).toHaveLength(0);
    expect(ofType(messages, "tool_use")).toHaveLength(1);
    expect(ofType(messages, "tool_result")[0]!.output).toMatchObject({ content: "no rm here", isError: true });
  });

  it("a hook that throws is logged and skipped, never failing the run", async () => {
    const after: HookInput[] = [];
    const errors: unknown[] = [];
    const model = scriptedModel([{ toolCalls: [{ toolName: "Echo", input: { text: "x" } }] }, "ok"]);
    const messages = await run("go", {
      model,
      tools: [echo],
      logger: { debug() {}, info() {}, warn() {}, error: (...a: unknown[]) => errors.push(a.join(" ")) },
      hooks: {
        PreToolUse: [
          {
            hooks: [
              () => {
                throw new Error("hook bug");
              },
              recorder(after),
            ],
          },
        ],
      },
    });
    expect(after).toHaveLength(1);
    expect(resultOf(messages).isError).toBe(false);
    expect(ofType(messages, "tool_result")[0]!.output.content).toBe("echo: x");
    expect(errors.join("\n")).toContain("hook bug");
  });

  it("updatedInput chains: later hooks and the permission vote see the rewrite", async () => {
    calls.length = 0;
    const second: HookInput[] = [];
    const judged: unknown[] = [];
    const judge = definePlugin(() => ({
      name: "test:judge",
      apply(kernel) {
        kernel.hooks.tool.permission.tap("test:judge", (v, call) => {
          judged.push(call.input);
          return call.input.text === "forbidden" ? { behavior: "deny", message: "forbidden text" } : v;
        });
      },
    }))();
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Echo", input: { text: "harmless" }, id: "a" }] },
      { toolCalls: [{ toolName: "Echo", input: { text: "fine" }, id: "b" }] },
      "done",
    ]);
    const messages = await run("go", {
      model,
      tools: [echo],
      plugins: [judge],
      hooks: {
        PreToolUse: [
          {
            hooks: [
              async (i) => ({ updatedInput: { text: i.toolInput!.text === "harmless" ? "forbidden" : "rewritten" } }),
              recorder(second),
            ],
          },
        ],
      },
    });
    expect(second.map((i) => i.toolInput)).toEqual([{ text: "forbidden" }, { text: "rewritten" }]);
    expect(judged).toEqual([{ text: "forbidden" }, { text: "rewritten" }]);
    expect(calls).toEqual(["rewritten"]);
    const results = ofType(messages, "tool_result");
    expect(results[0]!.output).toMatchObject({ content: "forbidden text", isError: true });
    expect(ofType(messages, "tool_use")[1]!.toolInput).toEqual({ text: "rewritten" });
  });

  it("PostToolUse fires after success and appends context; PostToolUseFailure fires on isError", async () => {
    const post: HookInput[] = [];
    const fail: HookInput[] = [];
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: "Echo", input: { text: "a" }, id: "ok" },
          { toolName: "Boom", input: {}, id: "bad" },
        ],
      },
      "done",
    ]);
    await run("go", {
      model,
      tools: [echo, boom],
      hooks: {
        PostToolUse: [{ hooks: [recorder(post, () => ({ additionalContext: "NOTE: reviewed by hook" }))] }],
        PostToolUseFailure: [{ hooks: [recorder(fail)] }],
      },
    });
    expect(post.map((p) => [p.toolUseId, p.toolOutput])).toEqual([["ok", "echo: a"]]);
    expect(fail.map((p) => [p.toolUseId, p.toolOutput])).toEqual([["bad", "it broke"]]);
    const parts = model.requests[1]!.prompt.find((m) => m.role === "tool")!.content;
    const first = parts[0]!;
    expect(first.type === "tool-result" && first.output.type === "text" && first.output.value).toBe(
      "echo: a\n\nNOTE: reviewed by hook",
    );
  });

  it("PermissionRequest fires before the handler is consulted and can answer; PermissionDenied after a denial", async () => {
    const order: string[] = [];
    const denied: HookInput[] = [];
    const handler = definePlugin(() => ({
      name: "test:handler",
      apply(kernel) {
        kernel.hooks.tool.ask.tapPromise("test:handler", async () => {
          order.push("handler");
          return { behavior: "deny", message: "handler says no" };
        });
      },
    }))();
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Echo", input: { text: "please" }, id: "p1" }] },
      { toolCalls: [{ toolName: "Echo", input: { text: "ok" }, id: "p2" }] },
      "done",
    ]);
    const messages = await run("go", {
      model,
      tools: [echo],
      plugins: [askFor("Echo"), handler],
      hooks: {
        PermissionRequest: [
          {
            hooks: [
              async (i) => {
                order.push(`request ${i.toolUseId}`);
                return i.toolInput!.text === "ok" ? { decision: "approve" } : undefined;
              },
            ],
          },
        ],
        PermissionDenied: [{ hooks: [recorder(denied)] }],
      },
    });
    expect(order).toEqual(["request p1", "handler", "request p2"]);
    expect(denied.map((d) => [d.toolUseId, d.message])).toEqual([["p1", "handler says no"]]);
    const results = ofType(messages, "tool_result");
    expect(results.map((r) => r.output.content)).toEqual(["handler says no", "echo: ok"]);
  });

  it("UserPromptSubmit sees the prompt and adds context ahead of it; SessionStart context comes first", async () => {
    const submitted: HookInput[] = [];
    const started: HookInput[] = [];
    const model = scriptedModel(["hi"]);
    await run("what now?", {
      model,
      hooks: {
        SessionStart: [{ hooks: [recorder(started, () => ({ additionalContext: "session context" }))] }],
        UserPromptSubmit: [{ hooks: [recorder(submitted, () => ({ additionalContext: "prompt context" }))] }],
      },
    });
    expect(started).toHaveLength(1);
    expect(started[0]!.extra).toEqual({ source: "startup" });
    expect(submitted).toHaveLength(1);
    expect(submitted[0]!.prompt).toBe("what now?");
    const user = model.requests[0]!.prompt.find((m) => m.role === "user")!;
    expect(user.content.map((p) => (p.type === "text" ? p.text : ""))).toEqual([
      "session context",
      "prompt context",
      "what now?",
    ]);
  });

  it("UserPromptSubmit may block the prompt: the run ends with a result saying why, the model is never called", async () => {
    const model = scriptedModel(["never"]);
    const messages = await run("delete everything", {
      model,
      hooks: { UserPromptSubmit: [{ hooks: [() => ({ decision: "block", reason: "not today" })] }] },
    });
    expect(model.requests).toHaveLength(0);
    expect(resultOf(messages)).toMatchObject({ isError: true });
    expect(resultOf(messages).result).toContain("not today");
  });

  it("SessionEnd fires once at the end with Claude Code's reason (other) and the result's subtype; nothing fires for events without hooks", async () => {
    const ended: HookInput[] = [];
    const model = scriptedModel(["bye"]);
    await run("go", { model, hooks: { SessionEnd: [{ hooks: [recorder(ended)] }] } });
    expect(ended).toHaveLength(1);
    expect(ended[0]).toMatchObject({ message: "bye", extra: { reason: "other", subtype: "success" } });
  });

  it("Stop block sends the agent back with the reason as its next prompt, history and usage carried, still success", async () => {
    const stops: HookInput[] = [];
    let n = 0;
    const model = scriptedModel([
      { text: "I am done", usage: { inputTokens: 10, outputTokens: 2 } },
      { text: "now the tests pass", usage: { inputTokens: 20, outputTokens: 3 } },
    ]);
    const messages = await run("fix it", {
      model,
      hooks: {
        Stop: [
          {
            hooks: [
              recorder(stops, () => (n++ === 0 ? { decision: "block", reason: "run the tests first" } : undefined)),
            ],
          },
        ],
      },
    });
    expect(stops.map((s) => [s.message, s.extra.stopHookActive])).toEqual([
      ["I am done", false],
      ["now the tests pass", true],
    ]);
    const second = model.requests[1]!.prompt.filter((m) => m.role !== "system");
    expect(second.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    const last = second.at(-1)!;
    expect(last.role === "user" && last.content.map((p) => (p.type === "text" ? p.text : "")).join("")).toBe(
      "run the tests first",
    );
    const result = resultOf(messages);
    expect(result).toMatchObject({ subtype: "success", isError: false, result: "now the tests pass", numTurns: 2 });
    expect(result.usage).toMatchObject({ inputTokens: 30, outputTokens: 5, requests: 2 });
  });

  it("a Stop hook that never relents is bounded by maxTurns", async () => {
    const model = scriptedModel(({ index }) => `attempt ${index}`);
    const notes: HookInput[] = [];
    const messages = await run("go", {
      model,
      maxTurns: 4,
      hooks: {
        Stop: [{ hooks: [() => ({ decision: "block", reason: "again" })] }],
        Notification: [{ hooks: [recorder(notes)] }],
      },
    });
    expect(resultOf(messages)).toMatchObject({ subtype: "error_max_turns", numTurns: 4 });
    expect(notes.map((n) => n.extra.reason)).toEqual(["max_turns"]);
  });

  it("the permission_required notification says whether the call will be denied because no canUseTool handler exists", async () => {
    const notes: HookInput[] = [];
    const hooks = { Notification: [{ hooks: [recorder(notes)] }] };
    const script = () => scriptedModel([{ toolCalls: [{ toolName: "Echo", input: { text: "x" } }] }, "ok"]);
    await run("go", { model: script(), tools: [echo], plugins: [askFor("Echo")], hooks });
    await run("go", {
      model: script(),
      tools: [echo],
      plugins: [askFor("Echo")],
      hooks,
      canUseTool: () => ({ behavior: "allow" }),
    });
    expect(notes.map((n) => n.extra)).toEqual([
      { reason: "permission_required", notificationType: "permission_prompt", willBeDenied: true },
      { reason: "permission_required", notificationType: "permission_prompt", willBeDenied: false },
    ]);
    expect(notes[0]!.message).toMatch(/No canUseTool handler is configured, so it will be denied/);
    expect(notes[1]!.message).toBe("Echo needs approval");
  });

  it("a Stop hook's continuation prompt is not emitted or saved when no turn is left", async () => {
    const sessionDir = temp("ubq-stop-sessions-");
    const messages = await run("go", {
      model: scriptedModel(({ index }) => `attempt ${index}`),
      maxTurns: 2,
      sessionDir,
      plugins: [sessions()],
      hooks: { Stop: [{ hooks: [() => ({ decision: "block", reason: "again" })] }] },
    });
    const result = resultOf(messages);
    expect(result).toMatchObject({ subtype: "error_max_turns", numTurns: 2 });
    // One continuation got its turn; the second had none left, so it never appeared.
    expect(ofType(messages, "user").map((m) => m.text)).toEqual(["go", "again"]);
    expect(messages.at(-2)).toMatchObject({ type: "assistant", text: "attempt 1" });
    const stored = await new SessionStore({ dir: sessionDir }).get(result.sessionId);
    expect(stored!.records.flatMap((r) => (r.message.type === "user" ? [r.message.text] : []))).toEqual([
      "go",
      "again",
    ]);
  });

  it("Notification: permission_required, error, stopped; its return value is ignored", async () => {
    const notes: HookInput[] = [];
    const note = {
      Notification: [{ hooks: [recorder(notes, () => ({ decision: "block" as const, reason: "ignored" }))] }],
    };
    // permission_required (and nothing answers: denied)
    await run("go", {
      model: scriptedModel([{ toolCalls: [{ toolName: "Echo", input: { text: "x" } }] }, "ok"]),
      tools: [echo],
      plugins: [askFor("Echo")],
      hooks: note,
    });
    expect(notes.map((n) => n.extra.reason)).toEqual(["permission_required"]);
    expect(notes[0]).toMatchObject({
      toolName: "Echo",
      message: "Echo needs approval. No canUseTool handler is configured, so it will be denied.",
    });
    // error
    notes.length = 0;
    const failed = await run("go", {
      model: scriptedModel([{ error: { status: 400, message: "bad request" } }]),
      hooks: note,
    });
    expect(resultOf(failed).isError).toBe(true);
    expect(notes.map((n) => n.extra.reason)).toEqual(["error"]);
    // stopped: the run ended after a Stop hook kept it going
    notes.length = 0;
    let once = true;
    const stopped = await run("go", {
      model: scriptedModel(["first", "second"]),
      hooks: {
        ...note,
        Stop: [
          { hooks: [() => (once ? ((once = false), { decision: "block" as const, reason: "more" }) : undefined)] },
        ],
      },
    });
    expect(resultOf(stopped).subtype).toBe("success");
    expect(notes.map((n) => n.extra.reason)).toEqual(["stopped"]);
    // a plain successful run notifies nothing
    notes.length = 0;
    await run("go", { model: scriptedModel(["plain"]), hooks: note });
    expect(notes).toEqual([]);
  });

  it("SubagentStart/SubagentStop/PreCompact/PostCompact fire through the API for the plugins that own them, with agentId inside a subagent", async () => {
    const seen: HookInput[] = [];
    const kernel = createKernel({
      plugins: [hooksPlugin()],
      hooks: {
        SubagentStart: [{ hooks: [recorder(seen)] }],
        SubagentStop: [{ hooks: [recorder(seen)] }],
        PreCompact: [{ hooks: [recorder(seen, () => ({ decision: "block", reason: "not now" }))] }],
        PostCompact: [{ hooks: [recorder(seen)] }],
      },
    });
    const parent = createRun({ kernel, abortSignal: new AbortController().signal, sink: () => {} });
    const child = createRun({
      kernel,
      abortSignal: parent.abortSignal,
      sink: () => {},
      parent,
      agent: { agentId: "agent-1", agentType: "reviewer", parentToolUseId: "t9" },
    });
    const api = getHooksApi(kernel)!;
    await api.fire("SubagentStart", child, { extra: { prompt: "review" } });
    await api.fire("SubagentStop", child, { message: "LGTM" });
    const veto = await api.fire("PreCompact", parent, { extra: { trigger: "auto" } });
    await api.fire("PostCompact", parent, { message: "summary text" });
    expect(veto.blocked).toBe("not now");
    expect(seen.map((s) => [s.hookEventName, s.agentId, s.agentType])).toEqual([
      ["SubagentStart", "agent-1", "reviewer"],
      ["SubagentStop", "agent-1", "reviewer"],
      ["PreCompact", undefined, undefined],
      ["PostCompact", undefined, undefined],
    ]);
    expect(seen[1]!.message).toBe("LGTM");
    expect(api.has("Stop")).toBe(false);
  });

  it("the system prompt says hooks are watching only when hooks are configured", async () => {
    const withHooks = scriptedModel(["x"]);
    await collect(
      summon("go", {
        presets: [],
        plugins: [systemPrompt(), hooksPlugin()],
        model: withHooks,
        hooks: { Stop: [{ hooks: [() => undefined] }] },
      }),
    );
    const without = scriptedModel(["x"]);
    await collect(summon("go", { presets: [], plugins: [systemPrompt(), hooksPlugin()], model: without }));
    const sys = (m: ReturnType<typeof scriptedModel>) =>
      m.requests[0]!.prompt.filter((p) => p.role === "system")
        .map((p) => p.content)
        .join("\n");
    expect(sys(withHooks)).toContain("Hooks configured by the user watch this run");
    expect(sys(without)).not.toContain("Hooks");
  });
});

describe("matchers", () => {
  it("absent or * matches everything; events without a tool match only those", () => {
    expect(matches(undefined, "Bash")).toBe(true);
    expect(matches("*", undefined)).toBe(true);
    expect(matches("Bash", undefined)).toBe(false);
    expect(matches("Write|Edit", "Edit")).toBe(true);
    expect(matches("Write|Edit", "Bash")).toBe(false);
    expect(matches("mcp__github__*", "mcp__github__create_issue")).toBe(true);
    expect(matches("mcp__github__*", "mcp__gitlab__x")).toBe(false);
    expect(matches("Notebook.*", "NotebookEdit")).toBe(true);
    expect(matches("Edit", "EditAll")).toBe(false);
  });
});
