/**
 * The lifecycle points of issue 45 point 3, observed on real runs: `tool.allowed` fires once the
 * verdict is final and before the tool runs (and a throw there refuses the call), `event` taps
 * get the run, `model.resolve` gets it as `ref.run`, and the kernel fires `context.compacted`
 * for what the compaction tiers report.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, summon } from "ubiquity";
import type { Plugin, RunContext } from "ubiquity/plugin";
import { scriptedModel } from "ubiquity/testing";
import { collect, resultOf } from "../helpers/collect";

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

function probe(log: string[], opts: { throwAt?: "allowed"; deny?: boolean } = {}): Plugin {
  return {
    name: "acme:probe",
    apply(kernel) {
      kernel.registries.tools.register(
        "Probe",
        defineTool({
          name: "Probe",
          description: "Records that it ran",
          inputSchema: z.object({}),
          execute: () => {
            log.push("execute");
            return "ran";
          },
        }),
        "acme:probe",
      );
      kernel.hooks.tool.permission.tap("acme:probe", (verdict) => {
        log.push(`permission:${verdict.behavior}`);
        return opts.deny ? { behavior: "deny", message: "no" } : verdict;
      });
      kernel.hooks.tool.allowed.tapPromise("acme:probe", async (verdict, call) => {
        log.push(`allowed:${verdict.behavior}:${call.toolName}`);
        if (opts.throwAt === "allowed") throw new Error("snapshot failed");
      });
      kernel.hooks.tool.denied.tap("acme:probe", () => void log.push("denied"));
    },
  };
}

const script = () => scriptedModel([{ text: "probing", toolCalls: [{ toolName: "Probe", input: {} }] }, "done"]);

describe("tool.allowed", () => {
  it("fires after the final verdict and before the tool runs", async () => {
    const log: string[] = [];
    const messages = await collect(
      summon("go", { presets: [], plugins: [probe(log)], model: script(), logger: quiet }),
    );
    expect(resultOf(messages).subtype).toBe("success");
    expect(log).toEqual(["permission:allow", "allowed:allow:Probe", "execute"]);
  });

  it("does not fire for a denied call", async () => {
    const log: string[] = [];
    await collect(summon("go", { presets: [], plugins: [probe(log, { deny: true })], model: script(), logger: quiet }));
    expect(log).toEqual(["permission:allow", "denied"]);
  });

  it("a throwing tap refuses the call: the tool does not run, the call is denied in the tap's words", async () => {
    const log: string[] = [];
    const messages = await collect(
      summon("go", { presets: [], plugins: [probe(log, { throwAt: "allowed" })], model: script(), logger: quiet }),
    );
    expect(log).not.toContain("execute");
    const result = messages.find((m) => m.type === "tool_result");
    expect(result?.type === "tool_result" && result.output.isError).toBe(true);
    expect(result?.type === "tool_result" && result.output.content).toBe(
      "Probe was refused before it ran: snapshot failed (acme:probe)",
    );
    // A refusal, as a deny is: told to tool.denied, listed in the result's permissionDenials.
    expect(log).toContain("denied");
    expect(resultOf(messages).permissionDenials).toEqual([
      expect.objectContaining({
        toolName: "Probe",
        message: "Probe was refused before it ran: snapshot failed (acme:probe)",
      }),
    ]);
  });
});

describe("the run on every event", () => {
  it("event taps get the run each message belongs to; model.resolve gets it as ref.run", async () => {
    const seen: (RunContext | undefined)[] = [];
    let resolvedFor: RunContext | undefined;
    const watcher: Plugin = {
      name: "acme:watch",
      apply(kernel) {
        kernel.hooks.event.tap("acme:watch", (event, run) => void (event.type === "message" && seen.push(run)));
        kernel.hooks.model.resolve.tapPromise("acme:watch", async (ref) => {
          resolvedFor = ref.run;
          return scriptedModel(["hello"]);
        });
      },
    };
    await collect(summon("go", { presets: [], plugins: [watcher], model: "acme:model", logger: quiet }));
    expect(seen.length).toBeGreaterThan(2);
    expect(seen.every((run) => run !== undefined && run === resolvedFor)).toBe(true);
  });
});

describe("context.compacted", () => {
  it("is fired by the kernel for each compaction a tier reports, after the tiers ran", async () => {
    const log: string[] = [];
    const tier: Plugin = {
      name: "acme:tier",
      apply(kernel) {
        kernel.hooks.context.compact.tap("acme:tier", (state) => {
          log.push("tier");
          if (state.messages.length === 0) return state;
          return {
            ...state,
            changed: true,
            compactions: [...(state.compactions ?? []), { tier: "acme", tokensBefore: 2, tokensAfter: 1 }],
          };
        });
        kernel.hooks.context.compact.tap(
          { name: "acme:tier", order: "last" },
          (state) => (log.push("last tier"), state),
        );
        kernel.hooks.context.compacted.tap("acme:tier", (info) => void log.push(`compacted:${info.tier}`));
      },
    };
    await collect(summon("go", { presets: [], plugins: [tier], model: scriptedModel(["hi"]), logger: quiet }));
    expect(log).toEqual(["tier", "last tier", "compacted:acme"]);
  });
});
