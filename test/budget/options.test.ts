/** The caps as options: bad values are config errors naming the option; settings files may set them. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import settings from "ubiquity/plugins/settings";
import { collect, resultOf } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { budgetLayer } from "./helpers";

const dirs = tempDirs();

describe("the caps' validation", () => {
  it.each([
    ["maxBudgetUsd", 0],
    ["maxBudgetUsd", -1],
    ["maxBudgetUsd", Number.NaN],
    ["maxBudgetUsd", Number.POSITIVE_INFINITY],
    ["maxBudgetTokens", 0],
    ["maxBudgetTokens", 1.5],
    ["maxBudgetTokens", -100],
  ])("%s: %s is a config error naming the option, and nothing is sent", async (key, value) => {
    const model = scriptedModel(["never"]);
    const result = resultOf(await collect(summon("hi", { model, presets: [], plugins: budgetLayer(), [key]: value })));
    expect(result.isError).toBe(true);
    expect(result.result).toContain(`${key} must be`);
    expect(model.requests).toHaveLength(0);
  });
});

describe("a settings file sets a cap", () => {
  it("maxBudgetTokens from .ubiquity/settings.json refuses the first request; an explicit option wins", async () => {
    const cwd = dirs();
    mkdirSync(join(cwd, ".ubiquity"));
    writeFileSync(join(cwd, ".ubiquity", "settings.json"), JSON.stringify({ maxBudgetTokens: 10 }));
    const model = scriptedModel(["hello"]);
    const options = {
      model,
      cwd,
      presets: [],
      plugins: [settings(), ...budgetLayer()],
      settingSources: ["project" as const],
      trust: true,
    };
    const refused = resultOf(await collect(summon("hi", options)));
    expect(refused.subtype).toBe("error_max_budget_tokens");
    expect(refused.budget?.maxBudgetTokens).toBe(10);
    expect(model.requests).toHaveLength(0);
    const allowed = resultOf(await collect(summon("hi", { ...options, maxBudgetTokens: 1_000_000 })));
    expect(allowed.subtype).toBe("success");
    expect(model.requests).toHaveLength(1);
  });
});
