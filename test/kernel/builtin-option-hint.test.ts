/**
 * `summon()` with a smaller preset and an option of a built-in plugin it does not have: the error
 * names the built-in, as the runner's does. The kernel knows which plugin declares an option only
 * once that plugin was made in this process, and this file makes none before the run.
 */
import { describe, expect, it } from "vitest";
import { summon } from "ubiquity";
import minimal from "ubiquity/presets/minimal";
import { collect, resultOf } from "../helpers/collect";

describe("an option of a built-in left out of the presets", () => {
  it("summon() names the plugin that declares it, and how to add it", async () => {
    const result = resultOf(await collect(summon("hi", { model: "test", presets: [minimal], persistSession: false })));
    expect(result.isError).toBe(true);
    expect(result.result).toContain('Unrecognized key: "persistSession"');
    expect(result.result).toContain(
      '"persistSession" is an option of the plugin ubiquity:sessions, which is not in the plugin list; add it to plugins (or a preset that has it)',
    );
  });

  it("a key no plugin declares still gets the did-you-mean, once", async () => {
    const result = resultOf(await collect(summon("hi", { model: "test", presets: [minimal], maxTurn: 2 } as never)));
    expect(result.isError).toBe(true);
    expect(result.result).toContain('"maxTurn" (did you mean "maxTurns"?)');
    expect(result.result.match(/did you mean/g)).toHaveLength(1);
  });
});
