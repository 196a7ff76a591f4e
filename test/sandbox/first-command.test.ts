/**
 * The first sandboxed command's one-time walks (the system's folders, ubiquity's own dependency
 * folders) start when the model asks for a Bash command, ahead of the call (SandboxRuntime.warm),
 * and never in a run whose model asks for none. The count of the process's walks of the system's
 * folders (systemWalkCount) says whether the walk ran: it reads them afresh, leaving no file behind.
 */
import { describe, expect, it } from "vitest";
import { summon, type Message } from "ubiquity";
import { createKernel, type Kernel } from "../../src/index";
import sandbox from "../../plugins/sandbox/index";
import { scriptedModel } from "ubiquity/testing";
import { collect } from "../helpers/collect";
import { systemWalkCount } from "../../plugins/sandbox/secrets";
import { getSandboxApi } from "../../plugins/sandbox/api";
import { outputs, runBash, sandboxPlace, SKIP } from "./helpers";

const place = sandboxPlace();
/** Whether the system's folders were walked since `before` (a count of systemWalkCount). */
const walkedSince = (before: number) => systemWalkCount() > before;

/** The model's answer asks for `toolName` (the assistant message a run emits). */
function ask(kernel: Kernel, toolName: string, id = toolName): void {
  kernel.emit({
    type: "message",
    message: {
      type: "assistant",
      uuid: `u-${id}`,
      sessionId: "s",
      text: "",
      model: "test:test",
      stopReason: "tool_use",
      content: [
        { type: "tool_call", toolUseId: `t-${id}`, toolName, input: toolName === "Bash" ? { command: "true" } : {} },
      ],
    } as Message,
  });
}

describe.skipIf(SKIP)("the first command's one-time walks", () => {
  it("a run whose model asks for no command walks nothing", async () => {
    const before = systemWalkCount();
    const messages = await collect(
      summon("hi", {
        model: scriptedModel(["hello"]),
        cwd: place.ws(),
        sandbox: true,
        persistSession: false,
        persistTodos: false,
      }),
    );
    expect(messages.at(-1)).toMatchObject({ type: "result", isError: false });
    expect(walkedSince(before)).toBe(false);
  });

  it("start when the model asks for a Bash command, on the next turn of the event loop, and not for another tool", async () => {
    const before = systemWalkCount();
    const kernel = createKernel({ plugins: [sandbox()], cwd: place.ws(), sandbox: true });
    await kernel.ready();
    try {
      const asked = (toolName: string) => ask(kernel, toolName);
      const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
      asked("Read");
      await nextTurn();
      expect(walkedSince(before), "no walk for a Read").toBe(false);
      asked("Bash");
      expect(walkedSince(before), "not in the emitter's own turn").toBe(false);
      await nextTurn();
      expect(walkedSince(before)).toBe(true);
    } finally {
      await kernel.dispose();
    }
  });

  it("start while the model still streams the Bash call (at its tool-input-start)", async () => {
    const before = systemWalkCount();
    // The scripted model, its stream paused after each tool-input-start (a model writing the
    // command): the walk must have run before the rest of the answer arrives.
    const scripted = scriptedModel([
      { toolCalls: [{ toolName: "Bash", input: { command: "true" }, id: "c0" }] },
      "done",
    ]);
    const walkedMidStream: boolean[] = [];
    const model: typeof scripted = {
      ...scripted,
      async doStream(options) {
        const result = await scripted.doStream(options);
        const pause = new TransformStream({
          async transform(part, controller) {
            controller.enqueue(part);
            if (part.type !== "tool-input-start") return;
            for (let turn = 0; turn < 50 && !walkedSince(before); turn++)
              await new Promise((resolve) => setImmediate(resolve));
            walkedMidStream.push(walkedSince(before));
          },
        });
        return { ...result, stream: result.stream.pipeThrough(pause) };
      },
    };
    const messages = await collect(
      summon("go", {
        model,
        cwd: place.ws(),
        sandbox: true,
        permissionMode: "bypassPermissions",
        persistSession: false,
        persistTodos: false,
      }),
    );
    expect(messages.at(-1)).toMatchObject({ type: "result", isError: false });
    expect(walkedMidStream).toEqual([true]);
  });

  it("the first command waits for the warm-up's walk (find, in a process of its own) and walks no second time", async () => {
    const before = systemWalkCount();
    const messages = await runBash(["cat /etc/shadow | head -c 20; echo end"], {
      cwd: place.ws(),
      sandbox: true,
      permissionMode: "bypassPermissions",
    });
    const out = outputs(messages).c0!.content;
    expect(out).not.toMatch(/root:/);
    expect(out).toContain("end");
    expect(systemWalkCount() - before).toBe(1);
  });

  it("ready() resolves once the warm-up's walk is done: a spawn after it walks no second time, one before it walks itself", async () => {
    const kernel = createKernel({ plugins: [sandbox()], cwd: place.ws(), sandbox: true });
    await kernel.ready();
    try {
      const api = getSandboxApi(kernel);
      const spec = { command: "true", args: [], cwd: place.ws(), env: {} };
      ask(kernel, "Bash", "t");
      const before = systemWalkCount();
      await new Promise((resolve) => setImmediate(resolve));
      expect(systemWalkCount() - before, "the warm-up's walk started").toBe(1);
      // find runs in its own process: its end cannot be read in this turn, so a spawn now walks itself.
      const early = createKernel({ plugins: [sandbox()], cwd: place.ws(), sandbox: true });
      await early.ready();
      try {
        ask(early, "Bash", "t2");
        await new Promise((resolve) => setImmediate(resolve));
        const started = systemWalkCount();
        getSandboxApi(early).wrap(spec, { kind: "bash", subject: "true" });
        expect(systemWalkCount() - started, "a spawn before ready() walks itself").toBe(1);
      } finally {
        await early.dispose();
      }
      const settled = systemWalkCount();
      await api.ready();
      const wrapped = api.wrap(spec, { kind: "bash", subject: "true" });
      expect(wrapped.command, "sandboxed").not.toBe("true");
      expect(systemWalkCount() - settled, "after ready(), the warm-up's reading is used").toBe(0);
    } finally {
      await kernel.dispose();
    }
  });

  it("a kernel disposed before its warm-up began walks nothing", async () => {
    const before = systemWalkCount();
    const kernel = createKernel({ plugins: [sandbox()], cwd: place.ws(), sandbox: true });
    await kernel.ready();
    ask(kernel, "Bash", "t");
    await kernel.dispose();
    await new Promise((resolve) => setImmediate(resolve));
    expect(walkedSince(before)).toBe(false);
  });

  it("the command that follows is sandboxed as before: the secrets hidden, the system's private files masked", async () => {
    const before = systemWalkCount();
    const messages = await runBash(["cat .env; cat /etc/shadow | head -c 20; echo end"], {
      cwd: place.ws(),
      sandbox: true,
      permissionMode: "bypassPermissions",
    });
    const out = outputs(messages).c0!.content;
    expect(out).toContain(".env: Permission denied");
    expect(out).not.toContain("hunter2");
    expect(out).not.toMatch(/root:/);
    expect(out).toContain("end");
    expect(walkedSince(before)).toBe(true);
  });
});
