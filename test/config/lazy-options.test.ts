/**
 * Option slices built on first read (`lazyOptions`, issue 40): a config that sets none of a
 * plugin's options never builds them, and one that does is validated exactly as an eager slice
 * (`z.strictObject`) would be: the same errors, word for word, at the same time.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createKernel } from "../../src/index";
import { definePlugin, lazyOptions } from "../../plugins/_kits/authoring/index";

const fields = () => ({
  lazyLevel: z.number().int().positive().optional().describe("a level"),
  lazyName: z.string().optional(),
});

/** The same slice, built lazily (counting its builds) and eagerly. */
function plugins() {
  let builds = 0;
  const lazy = definePlugin({
    name: "test:slice",
    options: lazyOptions(["lazyLevel", "lazyName"], () => {
      builds++;
      return fields();
    }),
    apply() {},
  });
  const eager = definePlugin({ name: "test:slice", options: z.strictObject(fields()), apply() {} });
  return { lazy, eager, builds: () => builds };
}

/** The message `createKernel` throws for `config` with `plugin`, or undefined. */
function failure(plugin: () => ReturnType<ReturnType<typeof plugins>["lazy"]>, config: Record<string, unknown>) {
  try {
    createKernel({ plugins: [plugin()], model: "test", ...config });
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

describe("lazily built option slices", () => {
  it("are not built when the config sets none of their keys", () => {
    const { lazy, builds } = plugins();
    const kernel = createKernel({ plugins: [lazy()], model: "test", maxTurns: 3 });
    expect(kernel.hasPlugin("test:slice")).toBe(true);
    expect(builds()).toBe(0);
  });

  it("are built once a key is set, and the value reaches the options", () => {
    const { lazy, builds } = plugins();
    const kernel = createKernel({ plugins: [lazy()], model: "test", lazyLevel: 2 });
    expect(builds()).toBe(1);
    expect(kernel.options.lazyLevel).toBe(2);
  });

  it("fail a bad value with the eager slice's words", () => {
    const { lazy, eager } = plugins();
    const message = failure(lazy, { lazyLevel: -1, lazyName: 5 });
    expect(message).toMatch(/lazyLevel/);
    expect(message).toMatch(/lazyName/);
    expect(message).toBe(failure(eager, { lazyLevel: -1, lazyName: 5 }));
  });

  it("fail a misspelled key with the eager slice's words, without building the slice", () => {
    const { lazy, eager, builds } = plugins();
    const message = failure(lazy, { lazyLevl: 2 });
    expect(message).toMatch(/lazyLevl.*did you mean.*lazyLevel/is);
    expect(builds()).toBe(0);
    expect(message).toBe(failure(eager, { lazyLevl: 2 }));
  });

  it("refuse a required field and keys that are not the fields built, when built", () => {
    const required = lazyOptions(["must"], () => ({ must: z.string() }));
    expect(() => required.shape.must).toThrow(/every field must be optional: must/);
    const extra = lazyOptions(["a"] as never[], () => ({ a: z.string().optional(), b: z.string().optional() }));
    expect(() => extra.shape).toThrow(/keys listed and the fields built differ: b/);
  });
});
