/** Model aliases: registerAlias, UBIQUITY_MODEL_ALIASES, run-scoped modelAliases, transitive expansion, cycles. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { registerAlias } from "ubiquity";
import { clearAliases, expandAlias, MAX_ALIAS_HOPS, parseAliasList } from "../../plugins/model/index";
import { startProviderServer, type FakeProviderServer } from "ubiquity/testing";
import { resultOf } from "../helpers/collect";
import { run } from "./helpers";

let server: FakeProviderServer | undefined;
beforeEach(() => {
  vi.stubEnv("UBIQUITY_MODEL_ALIASES", undefined);
});
afterEach(async () => {
  clearAliases();
  vi.unstubAllEnvs();
  await server?.close();
  server = undefined;
});

describe("through summon()", () => {
  it("registerAlias names a role; the run's modelAliases beat it", async () => {
    server = await startProviderServer(["from groq", "from anthropic"]);
    registerAlias("fast", "groq:llama-3.3-70b-versatile");
    const settings = { apiKey: "k", providerSettings: { baseURL: server.baseURL } };
    const viaRegistry = resultOf(await run("hi", { model: "fast", ...settings }));
    expect(Object.keys(viaRegistry.modelUsage ?? {})).toEqual(["groq:llama-3.3-70b-versatile"]);
    const viaRun = resultOf(
      await run("hi", { model: "fast", modelAliases: { fast: "anthropic:claude-haiku-4-5" }, ...settings }),
    );
    expect(Object.keys(viaRun.modelUsage ?? {})).toEqual(["anthropic:claude-haiku-4-5"]);
    expect(server.requests.map((r) => r.family)).toEqual(["openai-chat", "anthropic"]);
  });

  it("an alias may name the offline test model", async () => {
    registerAlias("demo", "test");
    const result = resultOf(await run("hello", { model: "demo" }));
    expect(result.isError).toBe(false);
    expect(Object.keys(result.modelUsage ?? {})).toEqual(["test"]);
    expect(result.result).toContain("Offline test model");
  });

  it("UBIQUITY_MODEL_ALIASES maps names from the environment, and aliases apply to fallbackModel", async () => {
    server = await startProviderServer([{ status: 400 }, "fallback via env alias"]);
    vi.stubEnv("UBIQUITY_MODEL_ALIASES", "main=groq:m,backup=anthropic:claude-haiku-4-5");
    const result = resultOf(
      await run("hi", {
        model: "main",
        fallbackModel: "backup",
        apiKey: "k",
        providerSettings: { baseURL: server.baseURL },
      }),
    );
    expect(result.result).toBe("fallback via env alias");
    expect(Object.keys(result.modelUsage ?? {})).toEqual(["anthropic:claude-haiku-4-5"]);
  });

  it("a cycle stops and fails with an error naming the alias, instead of spinning", async () => {
    const result = resultOf(await run("hi", { model: "a", modelAliases: { a: "b", b: "a" } }));
    expect(result.isError).toBe(true);
    expect(result.result).toMatch(/"a" names no provider/);
  });
});

describe("expansion", () => {
  it("ignores malformed UBIQUITY_MODEL_ALIASES entries", () => {
    expect([...parseAliasList("fast=groq:x, bad ,=nameless,empty=,big = openai:gpt-5,,")]).toEqual([
      ["fast", "groq:x"],
      ["big", "openai:gpt-5"],
    ]);
    expect(parseAliasList(undefined).size).toBe(0);
  });

  it("is transitive up to ten hops", () => {
    const chain = Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`h${i}`, `h${i + 1}`]));
    expect(MAX_ALIAS_HOPS).toBe(10);
    expect(expandAlias("h0", chain)).toBe("h10");
    expect(expandAlias("x", { x: "y", y: "groq:z" })).toBe("groq:z");
  });

  it("run scope beats the registry, which beats the environment", () => {
    const env = { UBIQUITY_MODEL_ALIASES: "r=env:m" };
    expect(expandAlias("r", undefined, env)).toBe("env:m");
    registerAlias("r", "registry:m");
    expect(expandAlias("r", undefined, env)).toBe("registry:m");
    expect(expandAlias("r", { r: "run:m" }, env)).toBe("run:m");
  });

  it("stops a cycle at the first repeated name", () => {
    expect(expandAlias("a", { a: "b", b: "c", c: "a" })).toBe("c");
  });
});
