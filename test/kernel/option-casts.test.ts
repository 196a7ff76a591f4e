/**
 * Issue 45: no code outside the kernel reads run options through a cast. A plugin reads its own
 * options through its typed context (`context.options`, `context.optionsOf(run)`); code without a
 * context (a tool, a runner command, a kit) and a plugin reading another plugin's key go through
 * the owner's slice (`readOption(slice, options, key)` of the authoring kit), and the kernel's own
 * fields (`cwd`, `env`, `additionalDirectories`, …) are typed on `ResolvedOptions` already. A cast
 * (`run.options as { modelAliases?: … }`) compiles whatever the owner declares, so the two drift
 * apart unseen: 16 had come back into plugins and 8 into the runner since the last sweep.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { codeLines } from "../../scripts/code-lines";

const ROOT = join(import.meta.dirname, "..", "..");
const FOLDERS = ["plugins", "runner", "sdk", "loader", "presets", "harness"];

/** `options as {…}`, `run.options.key as T`, `(options ?? x) as T`, `options[key] as T` — not `as const`. */
const OPTION_CAST = /\b[oO]ptions(?:\??\.[A-Za-z]+|\[[A-Za-z]+\])?\)?\s+as\s+(?!const\b)[A-Za-z{(]/;

/**
 * Values named `options` that are not a run's: a provider's `providerOptions` (the AI SDK's
 * shape) and a tsconfig's `compilerOptions.paths` the script scan reads.
 */
const NOT_RUN_OPTIONS = /providerOptions|options\.paths as Record/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile() && d.name.endsWith(".ts") && !d.name.endsWith(".d.ts"))
    .map((d) => join(d.parentPath, d.name));
}

describe("option casts (issue 45)", () => {
  it("no plugin, runner or entry code casts run options", () => {
    const hits = FOLDERS.flatMap((folder) => sources(join(ROOT, folder))).flatMap((file) =>
      codeLines(readFileSync(file, "utf8"))
        .filter((line) => OPTION_CAST.test(line) && !NOT_RUN_OPTIONS.test(line))
        .map((line) => `${relative(ROOT, file)}: ${line}`),
    );
    expect(hits).toEqual([]);
  });

  it("the pattern sees the casts it exists to catch, and not what is no cast", () => {
    for (const cast of [
      "const o = run.options as { sessionDir?: string };",
      "const raw = options.sandbox as SandboxOption | undefined;",
      "const options = (run?.options ?? kernel.options) as { onElicitation?: OnElicitation };",
      "options[key] = [...((options[key] as string[] | undefined) ?? [])];",
      "return (options as SessionsOptions).sessionDir;",
    ])
      expect(OPTION_CAST.test(cast), cast).toBe(true);
    for (const fine of [
      "const { cwd } = context.options;",
      'const aliases = readOption(modelOptions, run.options, "modelAliases");',
      "const modes = options as const;",
      'const settings = sandboxSettings({ ...options, sandbox: readOption(sandboxOptions, options, "sandbox") });',
    ])
      expect(OPTION_CAST.test(fine), fine).toBe(false);
  });
});
