import { describe, expect, it, vi } from "vitest";
import { ConfigError, createKernel, definePlugin, definePreset, type Logger, type Plugin } from "ubiquity";
import { expandPlugins } from "../../src/index";
import permissions from "ubiquity/plugins/permissions";

const quiet = (): Logger => ({ debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() });

/** A plugin that records its apply in `applied`. */
function recorder(applied: string[]) {
  return (name: string, tag = name): Plugin => ({ name, apply: () => void applied.push(tag) });
}

describe("preset expansion", () => {
  it("is depth-first in reading order: nested presets, then the preset's plugins, then the config's plugins", () => {
    const applied: string[] = [];
    const p = recorder(applied);
    const inner = definePreset({ name: "inner", plugins: [p("i1"), p("i2")] });
    const middle = definePreset({ name: "middle", presets: [inner], plugins: [p("m1")] });
    const other = definePreset({ name: "other", plugins: [p("o1")] });
    const kernel = createKernel({ logger: quiet(), presets: [middle, other], plugins: [p("c1")] });
    expect(kernel.plugins.map((x) => [x.plugin.name, x.origin])).toEqual([
      ["i1", "preset middle > inner"],
      ["i2", "preset middle > inner"],
      ["m1", "preset middle"],
      ["o1", "preset other"],
      ["c1", "config"],
    ]);
    expect(applied).toEqual(["i1", "i2", "m1", "o1", "c1"]);
  });

  it("replaces a same-name plugin in place; the replaced plugin's apply never runs", () => {
    const applied: string[] = [];
    const p = recorder(applied);
    const builtins = definePreset({
      name: "builtins",
      plugins: [p("ubiquity:a"), p("ubiquity:tool-bash", "builtin bash"), p("ubiquity:c")],
    });
    const kernel = createKernel({
      logger: quiet(),
      presets: [builtins],
      plugins: [p("acme:x"), p("ubiquity:tool-bash", "my bash")],
    });
    expect(kernel.plugins.map((x) => x.plugin.name)).toEqual([
      "ubiquity:a",
      "ubiquity:tool-bash",
      "ubiquity:c",
      "acme:x",
    ]);
    expect(kernel.plugins[1]).toMatchObject({ origin: "config", replaced: [{ origin: "preset builtins" }] });
    expect(applied).toEqual(["ubiquity:a", "my bash", "ubiquity:c", "acme:x"]);
  });

  it("replaces across presets too (a later preset overrides an earlier one)", () => {
    const applied: string[] = [];
    const p = recorder(applied);
    const a = definePreset({ name: "a", plugins: [p("x", "x from a"), p("y")] });
    const b = definePreset({ name: "b", plugins: [p("x", "x from b")] });
    createKernel({ logger: quiet(), presets: [a, b] });
    expect(applied).toEqual(["x from b", "y"]);
  });

  it("skips false and null entries", () => {
    const applied: string[] = [];
    const p = recorder(applied);
    const debug = process.env.NO_SUCH_FLAG === "1";
    const kernel = createKernel({ logger: quiet(), plugins: [p("a"), debug && p("debug"), null, p("b")] });
    expect(kernel.plugins.map((x) => x.plugin.name)).toEqual(["a", "b"]);
    expect(applied).toEqual(["a", "b"]);
  });

  it("removes plugins named in disable (their apply never runs) and lists them as disabled", () => {
    const applied: string[] = [];
    const p = recorder(applied);
    const preset = definePreset({ name: "builtins", plugins: [p("ubiquity:memory"), p("ubiquity:todos")] });
    const kernel = createKernel({ logger: quiet(), presets: [preset], disable: ["ubiquity:memory"] });
    expect(kernel.plugins.map((x) => x.plugin.name)).toEqual(["ubiquity:todos"]);
    expect(kernel.disabled.map((x) => [x.plugin.name, x.origin])).toEqual([["ubiquity:memory", "preset builtins"]]);
    expect(applied).toEqual(["ubiquity:todos"]);
  });

  it("warns about a disable name that matches nothing (a typo disables nothing)", () => {
    const logger = quiet();
    createKernel({ logger, plugins: [], disable: ["ubiquity:memroy"] });
    expect(logger.warn).toHaveBeenCalledWith(expect.stringContaining("disable: no plugin named ubiquity:memroy"));
  });

  it("calls factories in the list (definePlugin) with no options", () => {
    const factory = definePlugin(() => ({ name: "acme:factory", apply() {} }));
    expect(expandPlugins({ plugins: [factory] }).plugins.map((x) => x.plugin.name)).toEqual(["acme:factory"]);
  });

  it("merges preset config defaults in reading order; the user's options win", () => {
    const a = definePreset({ name: "a", config: { maxTurns: 5, permissionMode: "plan" } });
    const b = definePreset({ name: "b", presets: [a], config: { maxTurns: 7 } });
    const kernel = createKernel({
      logger: quiet(),
      presets: [b],
      plugins: [permissions()],
      permissionMode: "acceptEdits",
    });
    expect(kernel.options.maxTurns).toBe(7);
    expect(kernel.options.permissionMode).toBe("acceptEdits");
  });

  it("rejects a preset that includes itself", () => {
    const loop: { name: string; presets: unknown[] } = { name: "loop", presets: [] };
    loop.presets.push(loop);
    expect(() => expandPlugins({ presets: [loop as never] })).toThrow(/preset loop includes itself/);
  });

  it("rejects an entry that is neither a plugin nor a factory", () => {
    expect(() => createKernel({ logger: quiet(), plugins: [{ nam: "typo" } as never] })).toThrow(ConfigError);
    expect(() => createKernel({ logger: quiet(), plugins: [{ nam: "typo" } as never] })).toThrow(
      /is not a plugin: expected \{ name: string, apply\(kernel\) \}/,
    );
  });
});
