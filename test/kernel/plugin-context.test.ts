import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createKernel, defineTool, definePlugin, summon, type Kernel, type Plugin } from "ubiquity";
import { createRun } from "../../src/index";
import { HookUsageError, type PluginContext, type RunContext } from "ubiquity/plugin";
import { scriptedModel } from "ubiquity/testing";
import { collect } from "../helpers/collect";

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const abortSignal = new AbortController().signal;

/** A plugin that counts its state factories and hands its context out. */
function counting() {
  const calls = { state: [] as Kernel[], runState: [] as RunContext[] };
  const contexts: PluginContext<{ kernel: Kernel }, { run: RunContext }>[] = [];
  const plugin: Plugin<{ kernel: Kernel }, { run: RunContext }> = {
    name: "acme:counting",
    state(kernel) {
      calls.state.push(kernel);
      return { kernel };
    },
    runState(run) {
      calls.runState.push(run);
      return { run };
    },
    apply(_kernel, context) {
      contexts.push(context);
    },
  };
  return { plugin, calls, contexts };
}

describe("the plugin context", () => {
  it("creates a plugin's state once per kernel, before apply, and hands that value to apply", () => {
    const { plugin, calls, contexts } = counting();
    const first = createKernel({ presets: [], plugins: [plugin], logger: quiet });
    expect(calls.state).toEqual([first]);
    expect(contexts[0]!.state).toEqual({ kernel: first });

    const second = createKernel({ presets: [], plugins: [plugin], logger: quiet });
    expect(calls.state).toEqual([first, second]);
    expect(contexts[1]!.state.kernel).toBe(second);
    expect(contexts[1]!.state).not.toBe(contexts[0]!.state);
  });

  it("creates a plugin's run state on the first context.run(run), once per run; a child run gets its own", () => {
    const { plugin, calls, contexts } = counting();
    const kernel = createKernel({ presets: [], plugins: [plugin], logger: quiet });
    const context = contexts[0]!;
    const parent = createRun({ kernel, abortSignal, sink: () => {} });
    expect(calls.runState).toEqual([]); // nothing until the plugin asks

    const mine = context.run(parent);
    expect(mine).toEqual({ run: parent });
    expect(context.run(parent)).toBe(mine);
    expect(calls.runState).toEqual([parent]);

    const child = createRun({
      kernel,
      abortSignal,
      parent,
      agent: { agentId: "a1", agentType: "worker", parentToolUseId: "u1" },
    });
    const childState = context.run(child);
    expect(childState).not.toBe(mine);
    expect(childState.run).toBe(child);
    expect(calls.runState).toEqual([parent, child]);
    // The parent's state stays reachable from the child, for plugins that share on purpose.
    expect(context.run(child.parent!)).toBe(mine);
  });

  it("keeps two plugins' run states apart", () => {
    const a = counting();
    const b = counting();
    const kernel = createKernel({
      presets: [],
      plugins: [a.plugin, { ...b.plugin, name: "acme:other" }],
      logger: quiet,
    });
    const run = createRun({ kernel, abortSignal, sink: () => {} });
    a.contexts[0]!.run(run);
    expect(b.calls.runState).toEqual([]);
    expect(b.contexts[0]!.run(run)).not.toBe(a.contexts[0]!.run(run));
  });

  it("warns through the kernel's logger, naming the plugin", () => {
    const warnings: string[] = [];
    const logger = { ...quiet, warn: (message: string) => void warnings.push(message) };
    const plugin = definePlugin({
      name: "acme:noisy",
      apply: (_kernel, context) => context.warn("the cache folder is read-only"),
    });
    createKernel({ presets: [], plugins: [plugin()], logger });
    expect(warnings).toEqual(["[acme:noisy] the cache folder is read-only"]);
  });

  it("refuses context.options before configResolved with a HookUsageError naming the plugin, and gives them from then on", () => {
    let early: unknown;
    let resolved: unknown;
    const plugin = definePlugin({
      name: "acme:eager",
      options: z.object({ acmeLevel: z.number().optional() }),
      apply(kernel, context) {
        try {
          void context.options;
        } catch (error) {
          early = error;
        }
        kernel.hooks.kernel.configResolved.tap("acme:eager", () => {
          resolved = context.options.acmeLevel;
        });
      },
    });
    createKernel({ presets: [], plugins: [plugin()], logger: quiet, acmeLevel: 3 } as Parameters<
      typeof createKernel
    >[0]);
    expect(early).toBeInstanceOf(HookUsageError);
    expect((early as Error).message).toMatch(
      /plugin acme:eager read context\.options before the options were resolved/,
    );
    expect(resolved).toBe(3);
  });

  it("lets a tool reach its run through ToolContext.run in a real run, and so the plugin's run state", async () => {
    const seen: { run?: RunContext; calls?: number }[] = [];
    let ended: { calls: number } | undefined;
    const probe = definePlugin({
      name: "acme:probe",
      runState: () => ({ calls: 0 }),
      apply(kernel, context) {
        const tool = defineTool({
          name: "Probe",
          description: "Counts its calls in the run.",
          inputSchema: z.object({}),
          isReadOnly: true,
          execute: (_input, ctx) => {
            const state = ctx.run ? context.run(ctx.run) : undefined;
            if (state) state.calls++;
            seen.push({ run: ctx.run, calls: state?.calls });
            return `call ${state?.calls ?? "without a run"}`;
          },
        });
        kernel.registries.tools.register("Probe", tool, "acme:probe");
        kernel.hooks.session.end.tap("acme:probe", (run) => {
          ended = context.run(run);
        });
      },
    });
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Probe", input: {} }] },
      { toolCalls: [{ toolName: "Probe", input: {} }] },
      "done",
    ]);
    const messages = await collect(summon("probe twice", { presets: [], plugins: [probe()], model, logger: quiet }));
    const results = messages.filter((m) => m.type === "tool_result");
    expect(results.map((m) => m.type === "tool_result" && m.output.content)).toEqual(["call 1", "call 2"]);
    expect(seen).toHaveLength(2);
    expect(seen[0]!.run).toBeDefined();
    expect(seen[1]!.run).toBe(seen[0]!.run);
    expect(seen[0]!.run!.sessionId).toBe(messages.at(-1)!.sessionId);
    expect(ended).toEqual({ calls: 2 });
  });

  it("types and reads a run's own options through context.optionsOf(run): a child run's options are its own", () => {
    const seen: (number | undefined)[] = [];
    const plugin = definePlugin({
      name: "acme:levels",
      options: z.object({ acmeLevel: z.number().optional() }),
      apply(_kernel, context) {
        contextOf.push(context);
      },
    });
    const contextOf: { optionsOf(run: RunContext): { acmeLevel?: number } }[] = [];
    const kernel = createKernel({ presets: [], plugins: [plugin()], logger: quiet, acmeLevel: 1 } as Parameters<
      typeof createKernel
    >[0]);
    const parent = createRun({ kernel, abortSignal, sink: () => {} });
    const child = createRun({
      kernel,
      abortSignal,
      parent,
      options: Object.freeze({ ...kernel.options, acmeLevel: 2 }),
      agent: { agentId: "a1", agentType: "worker", parentToolUseId: "u1" },
    });
    const context = contextOf[0]!;
    // `acmeLevel` is `number | undefined` here, no cast: a wrong type would not compile.
    const level: number | undefined = context.optionsOf(parent).acmeLevel;
    seen.push(level, context.optionsOf(child).acmeLevel);
    expect(seen).toEqual([1, 2]);
  });

  it("validates factoryOptions when the factory is called, names the plugin, and hands them to state and apply", () => {
    const got: { state?: string; apply?: string } = {};
    const plugin = definePlugin({
      name: "acme:banner",
      factoryOptions: z.object({ text: z.string().min(1) }),
      state: (_kernel, options) => ({ text: options.text }),
      apply(_kernel, context) {
        got.state = context.state.text;
        got.apply = context.factoryOptions.text;
      },
    });
    createKernel({ presets: [], plugins: [plugin({ text: "hi" })], logger: quiet });
    expect(got).toEqual({ state: "hi", apply: "hi" });
    expect(() => plugin({ text: "" })).toThrow(/invalid options for plugin acme:banner/);
    // Each call binds its own options.
    expect(plugin({ text: "a" })).not.toBe(plugin({ text: "a" }));
  });

  it("refuses options given to the factory of a plugin that declares no factoryOptions, naming where they belong", () => {
    const plugin = definePlugin({
      name: "acme:runonly",
      options: z.object({ acmeLevel: z.number().optional() }),
      apply() {},
    });
    expect(plugin()).toBe(plugin());
    expect(() => (plugin as (options?: unknown) => unknown)({ acmeLevel: 1 })).toThrow(
      /plugin acme:runonly takes no options where it is listed .*set the options it declares \(acmeLevel\) at the top level/,
    );
  });

  it("still takes the deprecated factory form (a third-party plugin written for it keeps working)", () => {
    let said: string | undefined;
    const legacy = definePlugin("acme:legacy", z.object({ word: z.string() }), (options) => ({
      name: "acme:legacy",
      apply: () => void (said = options.word),
    }));
    createKernel({ presets: [], plugins: [legacy({ word: "still" })], logger: quiet });
    expect(said).toBe("still");
    expect(() => legacy({ word: 1 } as never)).toThrow(/invalid options for plugin acme:legacy/);
  });
});
