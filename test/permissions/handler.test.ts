/** The canUseTool contract: what the handler receives, what its answers do, timeout and abort. */
import { describe, expect, it } from "vitest";
import { summon, type CanUseTool } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import permissions from "ubiquity/plugins/permissions";
import { builtinTools } from "../../plugins/tools/index";
import { collect, ofType, resultOf } from "../helpers/collect";
import { probeTool, recordingHandler, runCalls, tempDir } from "./helpers";

const call = (value: string, id?: string) => ({ toolName: "Probe", input: { value }, ...(id ? { id } : {}) });

describe("canUseTool", () => {
  it("receives the tool name, a copy of the input, and { signal, suggestions, toolUseId }", async () => {
    const { handler, asked } = recordingHandler({ behavior: "deny", message: "no" });
    await runCalls([{ toolName: "Bash", input: { command: "npm test && git status" }, id: "use_7" }], {
      cwd: tempDir(),
      tools: builtinTools(),
      canUseTool: handler,
    });
    expect(asked).toHaveLength(1);
    const { toolName, input, ctx } = asked[0]!;
    expect(toolName).toBe("Bash");
    expect(input).toEqual({ command: "npm test && git status" });
    expect(ctx.toolUseId).toBe("use_7");
    expect(ctx.signal).toBeInstanceOf(AbortSignal);
    expect(ctx.signal.aborted).toBe(false);
    expect(ctx.suggestions).toEqual(["Bash(npm test:*)", "Bash(git status:*)"]);
  });

  it("allow with updatedInput: the tool receives, and tool_use shows, the authorized input", async () => {
    const probe = probeTool();
    const { handler } = recordingHandler((_name, input) => ({
      behavior: "allow",
      updatedInput: { ...input, value: "edited by the user" },
    }));
    const { results, uses } = await runCalls([call("as the model wrote it")], {
      cwd: tempDir(),
      tools: [probe.tool],
      canUseTool: handler,
    });
    expect(probe.seen).toEqual(["edited by the user"]);
    expect(uses[0]!.toolInput).toEqual({ value: "edited by the user" });
    expect(results[0]!.output.content).toBe("ran edited by the user");
  });

  it("changing the input it was shown changes nothing: only updatedInput counts", async () => {
    const probe = probeTool();
    const sneaky: CanUseTool = (_name, input) => {
      input.value = "mutated";
      return { behavior: "allow" };
    };
    await runCalls([call("original")], { cwd: tempDir(), tools: [probe.tool], canUseTool: sneaky });
    expect(probe.seen).toEqual(["original"]);
  });

  it("deny: the message is the tool result, and the call is listed in permissionDenials", async () => {
    const probe = probeTool();
    const { handler } = recordingHandler({ behavior: "deny", message: "Not on a Friday." });
    const { results, result } = await runCalls([call("x", "c1")], {
      cwd: tempDir(),
      tools: [probe.tool],
      canUseTool: handler,
    });
    expect(results[0]!.output).toMatchObject({ isError: true, content: "Not on a Friday." });
    expect(result.permissionDenials).toEqual([
      { toolName: "Probe", toolUseId: "c1", toolInput: { value: "x" }, message: "Not on a Friday." },
    ]);
    expect(result.isError).toBe(false);
  });

  it("deny with interrupt: true ends the run", async () => {
    const probe = probeTool();
    const { handler } = recordingHandler({ behavior: "deny", message: "Stop everything.", interrupt: true });
    const { result, model } = await runCalls([call("a"), call("b")], {
      cwd: tempDir(),
      tools: [probe.tool],
      canUseTool: handler,
    });
    expect(result).toMatchObject({ isError: true, subtype: "error_during_execution" });
    expect(result.result).toContain("Stop everything.");
    expect(model.requests).toHaveLength(1); // the model was not called again
    expect(probe.seen).toEqual([]);
  });

  it("no handler: denied with a message saying no handler is configured — never a hang", async () => {
    const probe = probeTool();
    const { results } = await runCalls([call("x")], { cwd: tempDir(), tools: [probe.tool] });
    expect(results[0]!.output.content).toMatch(/No canUseTool handler is configured to ask the user, so it was denied/);
  });

  it("no handler: the denial names the rules that would pre-approve the call, in code and on the command line", async () => {
    const { results } = await runCalls([{ toolName: "Bash", input: { command: "npm test && git status" } }], {
      cwd: tempDir(),
      tools: builtinTools(),
    });
    expect(results[0]!.output.content).toContain(
      'pre-approve the call with allowedTools (["Bash(npm test:*)","Bash(git status:*)"]; on the command line --allowedTools "Bash(npm test:*),Bash(git status:*)")',
    );
  });

  it("a handler that throws, or answers nonsense, denies", async () => {
    const probe = probeTool();
    const throwing: CanUseTool = () => {
      throw new Error("UI crashed");
    };
    const nonsense = (() => ({ behavior: "maybe" })) as unknown as CanUseTool;
    const a = await runCalls([call("x")], { cwd: tempDir(), tools: [probe.tool], canUseTool: throwing });
    expect(a.results[0]!.output.content).toBe("The canUseTool handler failed, so Probe was denied: UI crashed");
    const b = await runCalls([call("x")], { cwd: tempDir(), tools: [probe.tool], canUseTool: nonsense });
    expect(b.results[0]!.output.content).toContain(
      'it must return { behavior: "allow", updatedInput? } or { behavior: "deny", message }',
    );
    expect(probe.seen).toEqual([]);
  });

  it("permissionPromptTimeoutMs: an unanswered prompt is denied on expiry, and the handler's signal aborts", async () => {
    const probe = probeTool();
    let signal: AbortSignal | undefined;
    const never: CanUseTool = (_n, _i, ctx) => {
      signal = ctx.signal;
      return new Promise(() => {});
    };
    // The handler never answers: a denial at all is the expiry (how soon is load, not asserted).
    const { results, result } = await runCalls([call("x")], {
      cwd: tempDir(),
      tools: [probe.tool],
      canUseTool: never,
      permissionPromptTimeoutMs: 50,
    });
    expect(results[0]!.output.content).toBe(
      "Nobody answered the approval prompt for Probe within 50 ms (permissionPromptTimeoutMs), so it was denied.",
    );
    expect(signal?.aborted).toBe(true);
    expect(result.isError).toBe(false);
    expect(probe.seen).toEqual([]);
  });

  it("abortSignal ends a pending prompt and interrupts the run", async () => {
    const probe = probeTool();
    const controller = new AbortController();
    let signal: AbortSignal | undefined;
    const pending: CanUseTool = (_n, _i, ctx) => {
      signal = ctx.signal;
      setTimeout(() => controller.abort(new Error("user pressed Ctrl-C")), 20);
      return new Promise(() => {});
    };
    const model = scriptedModel([{ toolCalls: [call("x", "c1"), call("y", "c2")] }, "never reached"]);
    const messages = await collect(
      summon("go", {
        presets: [],
        plugins: [permissions()],
        model,
        cwd: tempDir(),
        tools: [probe.tool],
        canUseTool: pending,
        abortSignal: controller.signal,
      }),
    );
    const results = ofType(messages, "tool_result");
    expect(results.map((r) => r.toolUseId)).toEqual(["c1", "c2"]);
    expect(results[0]!.output.content).toBe("The run was aborted while waiting for approval of Probe.");
    expect(signal?.aborted).toBe(true);
    expect(resultOf(messages)).toMatchObject({ isError: true });
    expect(model.requests).toHaveLength(1);
    expect(probe.seen).toEqual([]);
  });
});
