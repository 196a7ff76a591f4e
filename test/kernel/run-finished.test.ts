/**
 * `run.finished`: a plugin (here, from its tool) ends the run successfully once the response's tool
 * calls are answered — no further request, also on the last turn `maxTurns` allows.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, summon, type Plugin } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { collect, resultOf } from "../helpers/collect";

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

const finishing: Plugin = {
  name: "acme:finish",
  apply(kernel) {
    const tool = defineTool({
      name: "Finish",
      description: "Ends the run",
      inputSchema: z.object({}),
      execute: (_input, ctx) => {
        ctx.run!.finished = true;
        return "finished";
      },
    });
    kernel.registries.tools.register("Finish", tool, "acme:finish");
  },
};

describe("run.finished", () => {
  it("ends the run with success after the calls are answered, without another request", async () => {
    const model = scriptedModel([{ text: "finishing", toolCalls: [{ toolName: "Finish", input: {} }] }, "never asked"]);
    const messages = await collect(
      summon("go", { presets: [], plugins: [finishing], model, maxTurns: 1, logger: quiet }),
    );
    const result = resultOf(messages);
    expect(result.subtype).toBe("success");
    expect(result.result).toBe("finishing");
    expect(model.requests).toHaveLength(1);
    expect(messages.filter((m) => m.type === "tool_result")).toHaveLength(1);
  });
});
