/**
 * Plugins add their own fields (and subtypes) to `result` through `run.resultFields`, declared by
 * module augmentation of `ResultFields`/`ResultSubtypes`; they follow the kernel's fields and
 * never replace one of them.
 */
import { describe, expect, it } from "vitest";
import { summon, type Plugin, type ResultMessage } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { collect } from "../helpers/collect";

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

function adding(fields: Record<string, unknown>): Plugin {
  return {
    name: "acme:result-fields",
    apply(kernel) {
      kernel.hooks.session.start.tap("acme:result-fields", (run) => {
        Object.assign(run.resultFields, fields);
      });
    },
  };
}

async function resultOf(plugin: Plugin): Promise<ResultMessage> {
  const messages = await collect(
    summon("hi", { presets: [], plugins: [plugin], model: scriptedModel([{ text: "done" }]), logger: quiet }),
  );
  const last = messages.at(-1)!;
  if (last.type !== "result") throw new Error(`last message is ${last.type}`);
  return last;
}

describe("result fields from plugins", () => {
  it("carries a plugin's fields after the kernel's", async () => {
    const result = await resultOf(adding({ acmeFigure: 42 }));
    expect(result.subtype).toBe("success");
    expect((result as unknown as Record<string, unknown>).acmeFigure).toBe(42);
    const keys = Object.keys(result);
    expect(keys.indexOf("acmeFigure")).toBeGreaterThan(keys.indexOf("stopReason"));
  });

  it("never lets a plugin's field replace a kernel field", async () => {
    const result = await resultOf(
      adding({ subtype: "error_max_turns", isError: true, result: "forged", acmeOther: "kept" }),
    );
    expect(result.subtype).toBe("success");
    expect(result.isError).toBe(false);
    expect(result.result).toBe("done");
    expect((result as unknown as Record<string, unknown>).acmeOther).toBe("kept");
  });
});
