/**
 * A user's project that type-checks its libraries (`skipLibCheck: false`, strict) and installs
 * none of the optional peers (OpenTelemetry, bullmq, @ai-sdk/harness…) compiles against every
 * entry of the package (newcomer trial s). It failed on our declarations: the telemetry plugin's
 * named `@opentelemetry/api` and `@ai-sdk/otel` ("Cannot find module"), and the shell syntax copy
 * loaded web-tree-sitter's, which need `EmscriptenModule` from @types/emscripten.
 * And under `exactOptionalPropertyTypes` (which `tsc --init` turns on), what a program hands back
 * (a tool's spec and output, a `canUseTool` answer, a hook's answer, a scripted turn) takes an
 * optional field given as `undefined` (`timeoutMs: opts.timeout`), as the options do.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { packedTarball, removePackedDirs } from "../helpers/packed";
import { removeTempProjects, repoRoot, tempProject } from "../helpers/project";

afterAll(() => {
  removeTempProjects();
  removePackedDirs();
});

const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};
const optionalPeers = new Set(
  Object.keys(pkg.peerDependenciesMeta).filter((n) => pkg.peerDependenciesMeta[n]?.optional),
);

/**
 * node_modules as npm leaves it after `npm i ubiquity`: the packed package (its declarations built
 * as for publishing) and this repo's packages, without the optional peers.
 */
function installWithoutOptionalPeers(dir: string): void {
  const modules = join(dir, "node_modules");
  const own = join(modules, "ubiquity");
  mkdirSync(own, { recursive: true });
  execFileSync("tar", ["-xzf", packedTarball(), "-C", own, "--strip-components=1"]);
  const root = join(repoRoot, "node_modules");
  for (const name of readdirSync(root)) {
    if (name.startsWith(".") || name === "ubiquity") continue;
    const names = name.startsWith("@") ? readdirSync(join(root, name)).map((n) => `${name}/${n}`) : [name];
    for (const full of names) {
      if (optionalPeers.has(full) || full.startsWith("@opentelemetry/")) continue;
      mkdirSync(join(modules, full, ".."), { recursive: true });
      symlinkSync(join(root, full), join(modules, full), "dir");
    }
  }
}

describe("the package's declarations, type-checked by a strict project", () => {
  it("compile with skipLibCheck off and no optional peer installed", () => {
    const presets = readdirSync(join(repoRoot, "presets"))
      .filter((f) => f.endsWith(".ts"))
      .map((f) => f.slice(0, -3));
    const entries = ["ubiquity", "ubiquity/plugin", "ubiquity/testing", ...presets.map((p) => `ubiquity/presets/${p}`)];
    const dir = tempProject({
      "app.ts": `${entries.map((e, i) => `import type * as E${i} from "${e}";`).join("\n")}
import { summon, defineTool } from "ubiquity";
import { z } from "zod";
export type All = [${entries.map((_, i) => `typeof E${i}`).join(", ")}];
export const run = summon("hi", { model: "test", telemetry: true, tools: [defineTool({ name: "T", description: "t", inputSchema: z.object({}), execute: () => "ok" })] });
`,
    });
    installWithoutOptionalPeers(dir);
    const program = ts.createProgram([join(dir, "app.ts")], {
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2023,
      types: ["node"],
      preserveSymlinks: true,
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map(
        (d) => `${d.file?.fileName.slice(dir.length) ?? ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`,
      )
      // The AI SDK's own: @ai-sdk/provider imports "json-schema" and ships no types for it;
      // docs/getting-started.md#typescript names the fix (npm i -D @types/json-schema).
      .filter((p) => !(p.includes("/@ai-sdk/provider/") && p.includes("'json-schema'")));
    expect(problems).toEqual([]);
    // The program did read the telemetry plugin's and the shell analysis' declarations.
    const read = program.getSourceFiles().map((f) => f.fileName);
    expect(read.some((f) => f.endsWith("/plugins/telemetry/options.d.ts"))).toBe(true);
    expect(read.some((f) => f.endsWith("/plugins/permissions/shell/syntax.d.ts"))).toBe(true);
  }, 300_000);
});

describe("what a program hands back, under exactOptionalPropertyTypes", () => {
  it("takes optional fields given as undefined", () => {
    const dir = tempProject({
      "app.ts": `import { summon, defineTool, type CanUseTool, type HookInput, type Options } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { z } from "zod";
const text: string | undefined = process.env.X;
const num: number | undefined = process.env.N ? Number(process.env.N) : undefined;
const flag: boolean | undefined = process.env.F ? true : undefined;
export const tool = defineTool({
  name: "A", description: "a", inputSchema: z.object({}),
  timeoutMs: num, maxResultChars: num, isReadOnly: flag, isConcurrencySafe: flag, kind: undefined,
  execute: () => ({ content: "x", isError: flag, metadata: undefined }),
});
export const allow: CanUseTool = async (_name, input) => ({ behavior: "allow", updatedInput: flag ? input : undefined, message: text });
export const deny: CanUseTool = async () => ({ behavior: "deny", message: "no", interrupt: flag });
const hook = async (_input: HookInput) => ({ decision: flag ? ("block" as const) : undefined, reason: text, additionalContext: text });
const options: Options = { model: scriptedModel([{ text, toolCalls: undefined, finishReason: undefined }]), hooks: { PreToolUse: [{ hooks: [hook] }] } };
export const run = summon("x", { ...options, tools: [tool], canUseTool: allow });
`,
    });
    installWithoutOptionalPeers(dir);
    const program = ts.createProgram([join(dir, "app.ts")], {
      strict: true,
      exactOptionalPropertyTypes: true,
      noEmit: true,
      // The AI SDK's own declarations fail under exactOptionalPropertyTypes (getting started says so).
      skipLibCheck: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2023,
      types: ["node"],
      preserveSymlinks: true,
    });
    const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    expect(problems).toEqual([]);
  }, 300_000);
});
