import { describe, expect, it } from "vitest";
import { definePlugin, summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { collect } from "../helpers/collect";

/** A plugin that reports a fact in `system/init`, as MCP reports its servers. */
const reporter = definePlugin(() => ({
  name: "test:reporter",
  apply(kernel) {
    kernel.hooks.session.start.tap("test:reporter", (run) => {
      run.initExtra.servers = [{ name: "a", status: "connected" }];
    });
  },
}));

describe("system/init extra", () => {
  it("is empty when no plugin contributes", async () => {
    const [init] = await collect(summon("hi", { presets: [], model: scriptedModel(["ok"]) }));
    expect(init).toMatchObject({ type: "system", subtype: "init", extra: {} });
  });

  it("carries what plugins put in run.initExtra at session.start", async () => {
    const [init] = await collect(summon("hi", { presets: [], plugins: [reporter()], model: scriptedModel(["ok"]) }));
    expect(init).toMatchObject({ subtype: "init", extra: { servers: [{ name: "a", status: "connected" }] } });
  });

  it("is sent also when the run fails before the first turn", async () => {
    // No plugin resolves model strings, so the run fails after session.start.
    const messages = await collect(summon("hi", { presets: [], plugins: [reporter()], model: "nowhere:model" }));
    expect(messages[0]).toMatchObject({ subtype: "init", extra: { servers: [{ name: "a" }] } });
    expect(messages.at(-1)).toMatchObject({ type: "result", isError: true });
  });
});
