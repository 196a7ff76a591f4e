import { describe, expect, it } from "vitest";
import { createKernel, type Message } from "ubiquity";
import { createRun } from "../../src/index";

describe("createRun sink", () => {
  const kernel = createKernel({ presets: [], plugins: [] });
  const abortSignal = new AbortController().signal;

  it("a subagent run without a sink publishes into its parent's stream, stamped once and announced once", () => {
    const stream: Message[] = [];
    const announced: Message[] = [];
    const k = createKernel({
      presets: [],
      plugins: [
        {
          name: "test:watch",
          apply: (kk) =>
            kk.hooks.event.tap("test:watch", (e) => void (e.type === "message" && announced.push(e.message))),
        },
      ],
    });
    const parent = createRun({ kernel: k, abortSignal, sink: (m) => stream.push(m) });
    const child = createRun({
      kernel: k,
      abortSignal,
      parent,
      agent: { agentId: "a1", agentType: "worker", parentToolUseId: "u1" },
    });
    const sent = child.emit({ type: "user", text: "side task" });
    expect(stream).toEqual([sent]);
    expect(announced).toEqual([sent]);
    expect(sent).toMatchObject({ agentId: "a1", parentToolUseId: "u1", sessionId: parent.sessionId });
  });

  it("a run with neither a sink nor a parent is refused with the fix", () => {
    expect(() => createRun({ kernel, abortSignal })).toThrow(/pass a sink/);
  });
});
