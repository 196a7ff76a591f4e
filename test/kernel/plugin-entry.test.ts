/**
 * A plugin list entry's type (trial x, finding 8): a function has a `name` and an `apply`
 * (Function.prototype.apply), so a factory given uncalled fitted the `Plugin` branch of
 * `PluginEntry` and tsc took `plugins: [weather]` even when its options are required; the run
 * then failed. A function is only a factory now: one whose options are required must be called.
 * The `@ts-expect-error` below is checked by `npm run typecheck` (test/ is in tsconfig).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createKernel, definePlugin, type PluginEntry } from "ubiquity";

const weather = definePlugin({ name: "test:weather", factoryOptions: z.object({ key: z.string() }), apply() {} });
const optional = definePlugin({
  name: "test:optional",
  factoryOptions: z.object({ key: z.string().optional() }),
  apply() {},
});

describe("a plugin list entry", () => {
  it("a factory whose options are required is refused uncalled (tsc), and the run names the plugin", () => {
    const bare: PluginEntry[] = [
      // @ts-expect-error its options are required: weather({ key }) is the entry
      weather,
    ];
    expect(() => createKernel({ presets: [], plugins: bare })).toThrow(/test:weather/);
  });

  it("called, or a factory whose options may be left out, is an entry", () => {
    const entries: PluginEntry[] = [weather({ key: "k" }), optional, false];
    expect(createKernel({ presets: [], plugins: entries }).plugins.map((p) => p.plugin.name)).toEqual([
      "test:weather",
      "test:optional",
    ]);
  });
});
