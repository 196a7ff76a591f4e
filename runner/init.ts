/**
 * `ubiquity init [dir]`: scaffold a project that runs green at once: a config, a custom tool, a
 * plugin skeleton and a test on the scripted model. Existing files are never overwritten (it
 * refuses and names them, unless --force); package.json gets `type` and the scripts it lacks.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { UsageError } from "../loader/index";
import type { FlagCommand } from "./types";

// What `npm init -y` writes as the test script: replaced, since it only fails.
const NPM_PLACEHOLDER_TEST = /no test specified/;

/** The `init` command. */
export const initCommand: FlagCommand = {
  summary: "Scaffold a project: a config, a custom tool, a plugin skeleton and a test on the scripted model",
  usage: "[dir]",
  positionals: true,
  flags: {
    force: { type: "boolean", description: "Overwrite scaffold files that already exist" },
  },
  async run({ values, positionals }, io) {
    if (positionals.length > 1) throw new UsageError("init takes one folder; see `ubiquity init --help`");
    const dir = resolve(positionals[0] ?? ".");
    // The templates (a few KB of text) load only when a project is scaffolded.
    const { SCAFFOLD_FILES, SCAFFOLD_SCRIPTS, SCAFFOLD_TSCONFIG } = await import("./init-templates");
    if (existsSync(dir) && !statSync(dir).isDirectory())
      throw new UsageError(`${dir} is not a folder; name the folder to scaffold into`);
    const files: Record<string, string> = { ...SCAFFOLD_FILES };
    const tsconfig = join(dir, "tsconfig.json");
    if (!existsSync(tsconfig)) files["tsconfig.json"] = SCAFFOLD_TSCONFIG;
    const present = Object.keys(SCAFFOLD_FILES).filter((path) => existsSync(join(dir, path)));
    if (present.length > 0 && values.force !== true) {
      throw new UsageError(`init would overwrite ${present.join(", ")} in ${dir}; move them away or pass --force`);
    }
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content);
      io.stdout(`wrote ${path}\n`);
    }
    if (!files["tsconfig.json"]) io.stdout(`${keptTsconfig(tsconfig)}\n`);
    io.stdout(`${updatePackageJson(dir, SCAFFOLD_SCRIPTS)}\n`);
    io.stdout(
      [
        "",
        "Next:",
        "  npm i ubiquity zod            (if not yet installed; npm i -D typescript @types/node for `npm run typecheck`)",
        "  npm test                      runs test/agent.test.ts on the scripted model (no LLM, no key; Node ≥ 22.18)",
        "  npx ubiquity trust            lets the runner apply this folder's ubiquity.config.ts",
        "  npx ubiquity inspect          shows the word-count plugin and its WordCount tool among the built-ins",
        '  npx ubiquity run --model test "list the files"   the offline model (no key); a real one answers with WordCount:',
        '  npx ubiquity run --model openai:gpt-5 "count the words in package.json"   (npm i @ai-sdk/openai; OPENAI_API_KEY)',
        "",
      ].join("\n"),
    );
    return 0;
  },
};

/**
 * The folder's own tsconfig.json is kept; the scaffold's files import each other as `.ts` and use
 * Node's types, so `npm run typecheck` fails (TS5097, "Cannot find name 'node:test'") unless it
 * allows both: say which options, when its text does not mention them.
 */
function keptTsconfig(path: string): string {
  const text = readFileSync(path, "utf8");
  const missing = [
    /allowImportingTsExtensions|rewriteRelativeImportExtensions/.test(text)
      ? ""
      : '"allowImportingTsExtensions": true (with "noEmit": true)',
    // TypeScript 6 and later read no @types package unless "types" names it.
    /"types"\s*:\s*\[[^\]]*"node"/.test(text) ? "" : '"types": ["node"] (npm i -D @types/node)',
  ].filter(Boolean);
  if (missing.length === 0) return "kept tsconfig.json (the folder's own)";
  return `kept tsconfig.json (the folder's own); the scaffold imports .ts files and Node's types, so for \`npm run typecheck\` add to its compilerOptions: ${missing.join(", ")}`;
}

/** Add `type: module` and the scaffold's scripts to package.json (created when missing); says what changed. */
function updatePackageJson(dir: string, scripts: Record<string, string>): string {
  const path = join(dir, "package.json");
  if (!existsSync(path)) {
    const manifest = {
      name:
        basename(dir)
          .toLowerCase()
          .replace(/[^a-z0-9-]+/g, "-") || "agent",
      private: true,
      type: "module",
      scripts,
    };
    writeFileSync(path, `${JSON.stringify(manifest, null, 2)}\n`);
    return "wrote package.json";
  }
  let manifest: { type?: string; scripts?: Record<string, string> };
  try {
    manifest = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new UsageError(`${path} is not valid JSON (${(error as Error).message}); fix it and run init again`);
  }
  const changed: string[] = [];
  if (manifest.type === undefined) {
    manifest.type = "module";
    changed.push('"type": "module"');
  }
  manifest.scripts ??= {};
  for (const [name, script] of Object.entries(scripts)) {
    const current = manifest.scripts[name];
    if (current === undefined || (name === "test" && NPM_PLACEHOLDER_TEST.test(current))) {
      manifest.scripts[name] = script;
      changed.push(`scripts.${name}`);
    }
  }
  if (changed.length === 0) return "package.json already has the scripts (test, typecheck); left as is";
  writeFileSync(path, `${JSON.stringify(manifest, null, 2)}\n`);
  return `package.json: added ${changed.join(", ")}`;
}
