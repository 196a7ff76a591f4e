/**
 * Named tap order (issue 45): `order: "first" | "last"` and `before` / `after` a named plugin,
 * instead of stage arithmetic. Checked on the order the taps actually run in.
 */
import { describe, expect, it } from "vitest";
import { createKernel } from "ubiquity";
import { HookUsageError, type Kernel, type Plugin, type TapOrder } from "ubiquity/plugin";

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const ran: string[] = [];
const tapper = (name: string, options: TapOrder & { stage?: number } = {}): Plugin => ({
  name,
  apply: (k: Kernel) =>
    k.hooks.kernel.config.tap({ name, ...options, before: options.before as string | undefined }, (config) => {
      ran.push(name);
      return config;
    }),
});
const order = (...plugins: Plugin[]) => {
  ran.length = 0;
  createKernel({ logger: quiet, plugins });
  return [...ran];
};

describe("tap order without arithmetic", () => {
  it("first and last run before and after every other tap, whatever their stage", () => {
    expect(
      order(
        tapper("a", { stage: -1_000_000 }),
        tapper("last", { order: "last" }),
        tapper("b", { stage: 1_000_000 }),
        tapper("first", { order: "first", stage: 5 }),
      ),
    ).toEqual(["first", "a", "b", "last"]);
  });

  it("two firsts keep plugin order", () => {
    expect(order(tapper("x"), tapper("f1", { order: "first" }), tapper("f2", { order: "first" }))).toEqual([
      "f1",
      "f2",
      "x",
    ]);
  });

  it("before and after a named plugin hold whichever comes first in the list", () => {
    expect(order(tapper("a"), tapper("b"), tapper("c", { before: "a" }))).toEqual(["c", "a", "b"]);
    expect(order(tapper("c", { after: "b" }), tapper("a"), tapper("b"))).toEqual(["a", "b", "c"]);
    expect(order(tapper("c", { after: ["a"], before: "b" }), tapper("b"), tapper("a"))).toEqual(["a", "c", "b"]);
  });

  it("a named plugin that is not in the list is ignored", () => {
    expect(order(tapper("a"), tapper("c", { after: "absent" }), tapper("b"))).toEqual(["a", "c", "b"]);
  });

  it("contradicting constraints fail at createKernel, naming the plugins and the hook", () => {
    expect(() => order(tapper("a", { before: "b" }), tapper("b", { before: "a" }))).toThrow(HookUsageError);
    expect(() => order(tapper("a", { before: "b" }), tapper("b", { before: "a" }))).toThrow(
      /orders of (a, b|b, a) on kernel\.config contradict/,
    );
  });

  it("inspect shows the order", () => {
    const kernel = createKernel({ logger: quiet, plugins: [tapper("a"), tapper("z", { order: "first" })] });
    expect(kernel.taps()["kernel.config"]!.map((t) => [t.plugin, t.order])).toEqual([
      ["z", "first"],
      ["a", undefined],
    ]);
  });
});

describe("the built-ins compute no stages (issue 45: at most 3)", () => {
  it("no tap stage or stage constant outside src/stages.ts is arithmetic on another", async () => {
    const { readdirSync, readFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const root = join(import.meta.dirname, "..", "..");
    const files = ["plugins", "runner", "sdk", "loader", "presets"].flatMap((dir) =>
      readdirSync(join(root, dir), { recursive: true, encoding: "utf8" })
        .filter((f) => f.endsWith(".ts"))
        .map((f) => join(dir, f)),
    );
    const computed = files.flatMap((file) =>
      readFileSync(join(root, file), "utf8")
        .split("\n")
        .filter((line) =>
          /stage: *[^,}]*[-+*/] *[\w(]|_STAGE = .*[-+*/]|_STAGE = -?\d|= -?\d[\d_]* *;.*stage/i.test(line),
        )
        .map((line) => `${file}: ${line.trim()}`),
    );
    expect(computed.length, computed.join("\n")).toBeLessThanOrEqual(3);
    expect(computed).toEqual([]);
  });
});
