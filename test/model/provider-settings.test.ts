/**
 * The provider table's accepted settings keys, checked against each package's own settings
 * type (read from its .d.ts with the TypeScript compiler), and the TypeError for a key the
 * named provider does not accept — through summon(), createKernel() and the direct helpers.
 */
import { describe, expect, it } from "vitest";
import ts from "typescript";
import { writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { createKernel, summon } from "ubiquity";
import { checkProviderSettings, PROVIDERS, type ProviderSpec } from "../../plugins/model/index";
import { createModel } from "ubiquity/plugins/model";
import { resultOf, collect } from "../helpers/collect";
import { modelLayer } from "./helpers";

/** The keys of each factory's first parameter, as the package declares them. */
function declaredSettingsKeys(): Map<string, string[]> {
  const packages = new Map<string, string>();
  for (const spec of Object.values(PROVIDERS) as ProviderSpec[]) packages.set(spec.package, spec.factory);
  const dir = mkdtempSync(join(process.cwd(), "node_modules", ".settings-probe-"));
  const file = join(dir, "probe.ts");
  const names = [...packages.keys()];
  writeFileSync(
    file,
    names
      .map(
        (pkg, i) =>
          `import { ${packages.get(pkg)} as f${i} } from "${pkg}";\nexport type K${i} = keyof NonNullable<Parameters<typeof f${i}>[0]>;`,
      )
      .join("\n"),
  );
  try {
    const program = ts.createProgram([file], {
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      target: ts.ScriptTarget.ES2022,
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      types: [],
    });
    const checker = program.getTypeChecker();
    const out = new Map<string, string[]>();
    for (const statement of program.getSourceFile(file)!.statements) {
      if (!ts.isTypeAliasDeclaration(statement)) continue;
      const type = checker.getTypeAtLocation(statement.name);
      const keys = (type.isUnion() ? type.types : [type]).map((t) =>
        t.isStringLiteral() ? t.value : checker.typeToString(t),
      );
      out.set(names[Number(statement.name.text.slice(1))]!, keys.sort());
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("the per-provider settings lists", () => {
  it("match each package's settings type exactly (openai-compatible entries set `name` themselves)", () => {
    const declared = declaredSettingsKeys();
    for (const [name, spec] of Object.entries(PROVIDERS) as [string, ProviderSpec][]) {
      const keys = declared.get(spec.package);
      expect(keys, `${spec.package} declares no settings type`).toBeDefined();
      const expected = spec.compatible ? keys!.filter((k) => k !== "name") : keys;
      expect([...spec.settings].sort(), `${name} (${spec.package})`).toEqual(expected);
    }
  });
});

describe("a settings key the provider does not accept", () => {
  const bad = { providerSettings: { azureEndpoint: "https://example.openai.azure.com" } };

  it("is a TypeError naming the key and the provider from the direct helpers", async () => {
    expect(() => checkProviderSettings("groq", bad.providerSettings)).toThrow(TypeError);
    expect(() => checkProviderSettings("groq", bad.providerSettings)).toThrow(/azureEndpoint.*"groq"/);
    await expect(createModel("groq:llama-3.3-70b-versatile", bad)).rejects.toThrow(TypeError);
    await expect(createModel("groq:llama-3.3-70b-versatile", bad)).rejects.toThrow(
      /providerSettings\.azureEndpoint .*"groq"/,
    );
  });

  it("makes createKernel throw when the run's model names that provider", () => {
    expect(() => createKernel({ ...modelLayer(), model: "groq:llama-3.3-70b-versatile", ...bad })).toThrow(
      /azureEndpoint.*"groq"/,
    );
  });

  it("createKernel() throws the provider's TypeError itself for an unknown providerSettings key (the message adds the plugin)", () => {
    let thrown: unknown;
    try {
      createKernel({ ...modelLayer(), model: "groq:llama-3.3-70b-versatile", ...bad });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TypeError);
    expect((thrown as TypeError).message).toMatch(
      /^\[plugin ubiquity:model\] hook kernel\.configResolved: providerSettings\.azureEndpoint is not a setting of provider "groq"/,
    );
    // A fallback model's provider is checked the same way.
    expect(() =>
      createKernel({ ...modelLayer(), model: "test", fallbackModel: "groq:llama-3.3-70b-versatile", ...bad }),
    ).toThrow(TypeError);
  });

  it("arrives as the result error of summon(), naming key and provider", async () => {
    const messages = await collect(summon("hi", { ...modelLayer(), model: "groq:llama-3.3-70b-versatile", ...bad }));
    const result = resultOf(messages);
    expect(result.isError).toBe(true);
    expect(result.result).toMatch(/azureEndpoint/);
    expect(result.result).toMatch(/groq/);
  });

  it("is accepted when the provider takes it (azure's resourceName), and a constructed model ignores providerSettings", async () => {
    expect(() => checkProviderSettings("azure", { resourceName: "r", apiVersion: "v1" })).not.toThrow();
    const messages = await collect(summon("hi", { ...modelLayer(), model: "test", ...bad }));
    expect(resultOf(messages).isError).toBe(false);
  });
});

describe("model strings", () => {
  it("name the missing package and its install command", async () => {
    const { loadProviderModule } = await import("../../plugins/model/load-provider");
    const missing = { package: "@ai-sdk/not-installed-anywhere", major: 4 };
    await expect(loadProviderModule("nowhere", missing)).rejects.toThrow(
      /@ai-sdk\/not-installed-anywhere.*npm i @ai-sdk\/not-installed-anywhere@4/,
    );
  });

  it("reject an unknown provider with the list of known ones, and a string without a provider", async () => {
    const unknown = resultOf(await collect(summon("hi", { ...modelLayer(), model: "acme:big" })));
    expect(unknown.result).toMatch(/unknown provider "acme".*openai, anthropic/);
    const bare = resultOf(await collect(summon("hi", { ...modelLayer(), model: "gpt-5" })));
    expect(bare.result).toMatch(/"gpt-5" names no provider: write "provider:model"/);
    // Claude Code's shorthand is answered with the model string it means here.
    const tier = resultOf(await collect(summon("hi", { ...modelLayer(), model: "sonnet" })));
    expect(tier.result).toMatch(
      /"sonnet" names no provider: write "provider:model" \(e\.g\. "anthropic:claude-sonnet-4-5"\)/,
    );
  });

  it("split at the first colon only, and reach model kinds with provider.kind", async () => {
    const { splitSpec } = await import("../../plugins/model/index");
    expect(splitSpec("bedrock:meta.llama3-70b-instruct-v1:0")).toEqual({
      provider: "bedrock",
      modelId: "meta.llama3-70b-instruct-v1:0",
    });
    expect(splitSpec("openai.chat:gpt-4o")).toEqual({ provider: "openai", variant: "chat", modelId: "gpt-4o" });
    const model = await createModel("openai.chat:gpt-4o", { apiKey: "k" });
    expect(model.provider).toBe("openai.chat");
    await expect(createModel("groq.chat:x", { apiKey: "k" })).rejects.toThrow(/no model kind "chat"/);
  });
});
