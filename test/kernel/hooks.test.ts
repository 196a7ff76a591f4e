import { describe, expect, it, vi } from "vitest";
import { OBSERVER_HOOKS } from "../../src/index";
import { createKernel, PluginError, PluginResolutionError, type Kernel, type Logger, type Plugin } from "ubiquity";
import {
  HookUsageError,
  type KernelEvent,
  type PermissionVerdict,
  type RunContext,
  type ToolCall,
} from "ubiquity/plugin";

const quiet = () => ({
  debug: vi.fn<Logger["debug"]>(),
  info: vi.fn<Logger["info"]>(),
  warn: vi.fn<Logger["warn"]>(),
  error: vi.fn<Logger["error"]>(),
});
const plugin = (name: string, apply: (k: Kernel) => void, extra: Partial<Plugin> = {}): Plugin => ({
  name,
  apply,
  ...extra,
});
const run = {} as RunContext;

type AnyHook = {
  tap(name: string, fn: () => never): void;
  call?: (...a: unknown[]) => unknown;
  promise?: (...a: unknown[]) => Promise<unknown>;
};
/** A hook by its dotted name (`turn.end`, `event`). */
const hookOf = (k: Kernel, name: string) =>
  name.split(".").reduce<unknown>((o, part) => (o as Record<string, unknown>)[part], k.hooks) as AnyHook;

describe("sealing and tap rules", () => {
  it("refuses a tap made after kernel.ready, naming the plugin and the hook", async () => {
    let saved: Kernel | undefined;
    const kernel = createKernel({ logger: quiet(), plugins: [plugin("acme:late", (k) => void (saved = k))] });
    await kernel.ready();
    const late = () => saved!.hooks.turn.end.tapPromise("acme:late", async () => {});
    expect(late).toThrow(HookUsageError);
    expect(late).toThrow(/plugin acme:late tapped turn\.end after kernel\.ready/);
  });

  it("refuses a tap made outside plugin.apply()", () => {
    const kernel = createKernel({ logger: quiet(), plugins: [] });
    expect(() => kernel.hooks.event.tap("acme:stray", () => {})).toThrow(
      /acme:stray tapped event outside plugin\.apply\(\)/,
    );
  });

  it("refuses tapAsync, naming the plugin and the hook", () => {
    const bad = plugin("acme:callbacks", (k) =>
      k.hooks.turn.prompt.tapAsync("acme:callbacks", (p, _r, cb) => cb(null, p)),
    );
    expect(() => createKernel({ logger: quiet(), plugins: [bad] })).toThrow(
      /plugin acme:callbacks used tapAsync on turn\.prompt; use tapPromise/,
    );
  });

  it("refuses an order other than first and last", () => {
    const bad = plugin("acme:order", (k) =>
      k.hooks.turn.system.tap({ name: "acme:order", order: "early" as "first" }, (s) => s),
    );
    expect(() => createKernel({ logger: quiet(), plugins: [bad] })).toThrow(
      /acme:order tapped turn\.system with order early/,
    );
  });
});

describe("error attribution", () => {
  it("wraps an error thrown in a promise tap with the plugin's and the hook's names", async () => {
    const kernel = createKernel({
      logger: quiet(),
      plugins: [
        plugin("acme:prompt", (k) =>
          k.hooks.turn.prompt.tapPromise("acme:prompt", async () => Promise.reject(new Error("no prompts today"))),
        ),
      ],
    });
    const error = await kernel.hooks.turn.prompt
      .promise({ text: "hi", source: "user", context: [] }, run)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PluginError);
    expect((error as PluginError).plugin).toBe("acme:prompt");
    expect((error as PluginError).hook).toBe("turn.prompt");
    expect((error as Error).message).toBe("[plugin acme:prompt] hook turn.prompt: no prompts today");
  });

  it("wraps a synchronous throw in a sync tap of an async hook", async () => {
    const kernel = createKernel({
      logger: quiet(),
      plugins: [
        plugin("acme:sections", (k) =>
          k.hooks.turn.system.tap("acme:sections", () => {
            throw new TypeError("bad section");
          }),
        ),
      ],
    });
    await expect(kernel.hooks.turn.system.promise([], run)).rejects.toThrow(
      "[plugin acme:sections] hook turn.system: bad section",
    );
  });

  it("wraps a throw in a sync hook (kernel.config) raised while the kernel is built", () => {
    const bad = plugin("acme:config", (k) =>
      k.hooks.kernel.config.tap("acme:config", () => {
        throw new Error("cannot rewrite");
      }),
    );
    expect(() => createKernel({ logger: quiet(), plugins: [bad] })).toThrow(
      "[plugin acme:config] hook kernel.config: cannot rewrite",
    );
  });

  it("attributes a throw inside apply() to the plugin", () => {
    const bad = plugin("acme:broken", () => {
      throw new Error("missing dependency");
    });
    const error = (() => {
      try {
        createKernel({ logger: quiet(), plugins: [bad] });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(PluginError);
    expect((error as Error).message).toBe("[plugin acme:broken] hook apply: missing dependency");
  });
});

describe("every non-observer hook attributes a throwing tap", () => {
  const names = Object.keys(createKernel({ plugins: [] }).taps()).filter((n) => !OBSERVER_HOOKS.has(n));

  it.each(names)("%s", async (name) => {
    let error: unknown;
    try {
      // kernel.config and kernel.configResolved run while the kernel is built; the rest are called here.
      const kernel = createKernel({
        logger: quiet(),
        plugins: [
          plugin("acme:thrower", (k) =>
            hookOf(k, name).tap("acme:thrower", () => {
              throw new Error("boom");
            }),
          ),
        ],
      });
      const hook = hookOf(kernel, name);
      await (hook.promise ? hook.promise({}, {}) : hook.call!({}, {}));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PluginError);
    expect(error).toMatchObject({
      plugin: "acme:thrower",
      hook: name,
      message: `[plugin acme:thrower] hook ${name}: boom`,
    });
  });
});

describe("observer hooks isolate a throwing plugin", () => {
  it.each([...OBSERVER_HOOKS])(
    "%s: the error is logged, later taps still run, the caller sees no throw",
    async (hook) => {
      const logger = quiet();
      const after = vi.fn();
      const events: KernelEvent[] = [];
      const kernel = createKernel({
        logger,
        plugins: [
          plugin("acme:watch", (k) => k.hooks.event.tap("acme:watch", (e) => void events.push(e))),
          plugin("acme:bad", (k) =>
            hookOf(k, hook).tap("acme:bad", () => {
              throw new Error("observer broke");
            }),
          ),
          // A second observer on the same hook proves the run went on.
          plugin("acme:after", (k) => hookOf(k, hook).tap("acme:after", after as never)),
        ],
      });
      const target = hookOf(kernel, hook);
      const fire = () =>
        target.promise ? target.promise({}, {}) : target.call!({ type: "warning", source: "test", message: "x" });
      await expect(Promise.resolve().then(fire)).resolves.not.toThrow();
      expect(after).toHaveBeenCalled();
      expect(logger.error).toHaveBeenCalledWith(
        expect.stringContaining(`[plugin acme:bad] hook ${hook} failed (ignored): observer broke`),
      );
      if (hook !== "event")
        expect(events).toContainEqual(expect.objectContaining({ type: "plugin.error", plugin: "acme:bad", hook }));
    },
  );

  it("does not isolate a non-observer hook (a failing turn.prompt stops the caller)", async () => {
    const kernel = createKernel({
      logger: quiet(),
      plugins: [
        plugin("acme:bad", (k) =>
          k.hooks.turn.prompt.tap("acme:bad", () => {
            throw new Error("stop");
          }),
        ),
      ],
    });
    await expect(kernel.hooks.turn.prompt.promise({ text: "", source: "user", context: [] }, run)).rejects.toThrow(
      PluginError,
    );
  });
});

describe("dependsOn", () => {
  it("fails at boot with an error naming both plugins", () => {
    const needy = plugin("acme:needy", () => {}, { dependsOn: ["acme:helper"] });
    expect(() => createKernel({ logger: quiet(), plugins: [needy] })).toThrow(PluginResolutionError);
    expect(() => createKernel({ logger: quiet(), plugins: [needy] })).toThrow(
      "plugin acme:needy depends on acme:helper, which is not in the plugin list; add acme:helper to plugins or remove acme:needy",
    );
  });

  it("says when the dependency was disabled", () => {
    const needy = plugin("acme:needy", () => {}, { dependsOn: ["acme:helper"] });
    const helper = plugin("acme:helper", () => {});
    expect(() => createKernel({ logger: quiet(), plugins: [helper, needy], disable: ["acme:helper"] })).toThrow(
      /\(it was disabled\)/,
    );
  });

  it("boots when the dependency is present, in any order", () => {
    const needy = plugin("acme:needy", () => {}, { dependsOn: ["acme:helper"] });
    const kernel = createKernel({ logger: quiet(), plugins: [needy, plugin("acme:helper", () => {})] });
    expect(kernel.plugins.map((p) => p.plugin.name)).toEqual(["acme:needy", "acme:helper"]);
  });
});

describe("registries", () => {
  it("lets the last registration win, keeps provenance and emits registry.override", () => {
    const events: KernelEvent[] = [];
    const tool = (owner: string) => ({ name: "Bash", owner }) as never;
    const kernel = createKernel({
      logger: quiet(),
      plugins: [
        plugin("acme:watch", (k) => k.hooks.event.tap("acme:watch", (e) => void events.push(e))),
        plugin("ubiquity:tool-bash", (k) => k.registries.tools.register("Bash", tool("builtin"), "ubiquity:tool-bash")),
        plugin("acme:my-bash", (k) => k.registries.tools.register("Bash", tool("mine"), "acme:my-bash")),
      ],
    });
    expect((kernel.registries.tools.get("Bash") as unknown as { owner: string }).owner).toBe("mine");
    expect(kernel.registries.tools.provenance()).toEqual([
      expect.objectContaining({
        name: "Bash",
        winner: expect.objectContaining({ owner: "acme:my-bash" }),
        losers: [expect.objectContaining({ owner: "ubiquity:tool-bash" })],
      }),
    ]);
    expect(events).toContainEqual({
      type: "registry.override",
      registry: "tools",
      name: "Bash",
      winner: "acme:my-bash",
      loser: "ubiquity:tool-bash",
    });
  });
});

describe("tool.permission", () => {
  const call = {} as ToolCall;
  const start: PermissionVerdict = { behavior: "ask" };
  const voter = (name: string, behavior: PermissionVerdict["behavior"]) =>
    plugin(name, (k) => k.hooks.tool.permission.tapPromise(name, async (v) => ({ ...v, behavior, decidedBy: name })));

  it("keeps a deny cast first, whatever later taps vote", async () => {
    const kernel = createKernel({
      logger: quiet(),
      plugins: [voter("acme:deny", "deny"), voter("acme:allow", "allow")],
    });
    const verdict = await kernel.hooks.tool.permission.promise(start, call);
    expect(verdict).toMatchObject({ behavior: "deny", decidedBy: "acme:deny" });
  });

  it("lets a later deny overrule an earlier allow", async () => {
    const kernel = createKernel({
      logger: quiet(),
      plugins: [voter("acme:allow", "allow"), voter("acme:deny", "deny")],
    });
    const verdict = await kernel.hooks.tool.permission.promise(start, call);
    expect(verdict).toMatchObject({ behavior: "deny", decidedBy: "acme:deny" });
  });

  it("does not even call later taps once denied (they cannot mutate the verdict)", async () => {
    const mutate = vi.fn((v: PermissionVerdict) => {
      v.behavior = "allow";
      return v;
    });
    const kernel = createKernel({
      logger: quiet(),
      plugins: [
        voter("acme:deny", "deny"),
        plugin("acme:mutate", (k) => k.hooks.tool.permission.tap("acme:mutate", mutate)),
      ],
    });
    const verdict = await kernel.hooks.tool.permission.promise(start, call);
    expect(verdict.behavior).toBe("deny");
    expect(mutate).not.toHaveBeenCalled();
  });
});

describe("taps()", () => {
  it("lists each hook's taps in run order (stage, then plugin order) with their owner", () => {
    const kernel = createKernel({
      logger: quiet(),
      plugins: [
        plugin("acme:late", (k) => k.hooks.turn.system.tap({ name: "acme:late", stage: 400 }, (s) => s)),
        plugin("acme:early", (k) => k.hooks.turn.system.tap({ name: "acme:early-section", stage: -400 }, (s) => s)),
        plugin("acme:mid", (k) => k.hooks.turn.system.tap("acme:mid", (s) => s)),
      ],
    });
    expect(kernel.taps()["turn.system"]).toEqual([
      { plugin: "acme:early", name: "acme:early-section", stage: -400, type: "sync" },
      { plugin: "acme:mid", name: "acme:mid", stage: 0, type: "sync" },
      { plugin: "acme:late", name: "acme:late", stage: 400, type: "sync" },
    ]);
  });
});
