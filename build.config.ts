import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { defineBuildConfig } from "unbuild";
import type { OutputChunk, OutputOptions, Plugin } from "rollup";

// One entry per public module (each plugin's public.ts is its `ubiquity/plugins/<name>`); rollup shares the kernel between them in chunks.
const plugins = readdirSync("plugins", { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(`plugins/${d.name}/public.ts`))
  .map((d) => ({ input: `plugins/${d.name}/public`, name: `plugins/${d.name}/public` }));
const presets = readdirSync("presets")
  .filter((f) => f.endsWith(".ts"))
  .map((f) => ({ input: `presets/${f.slice(0, -3)}`, name: `presets/${f.slice(0, -3)}` }));

// The entries a process starts from (not each plugin's public module): what they load decides the shared chunks.
const MAIN_ENTRIES = [
  "sdk/index",
  "sdk/plugin",
  "runner/cli",
  "src/testing/index",
  "harness/index",
  ...presets.map((p) => p.input),
];

/**
 * Fewer, larger shared chunks (issue 40). Rollup makes one chunk per set of entries that load a
 * module, and with one entry per plugin a cold `ubiquity run` loaded ~130 small chunks, each a
 * resolve, a read and a link for the ESM loader. So: rollup chunks once (`generate`, not written),
 * then the shared chunks a main entry loads statically are merged with the others loaded by the
 * same main entries, whichever plugin entries load them too (a run loads ~20 of our modules).
 * Each main entry still loads exactly the code it loaded, no more; a plugin's own module
 * (`ubiquity/plugins/<name>`) loads the chunk its plugin shares with the default preset, i.e. the
 * preset's plugins. Chunks no main entry loads statically (what plugins import on first use) stay
 * as rollup made them. `UBIQUITY_CHUNKS=rollup npx unbuild` keeps rollup's chunks (the cold-start
 * bench's per-plugin import costs are read on such a build).
 */
async function mergeMainChunks(
  build: { generate(o: OutputOptions): Promise<{ output: unknown[] }> },
  output: OutputOptions,
) {
  const { output: first } = await build.generate({ ...output });
  const chunks = first.filter((c): c is OutputChunk => (c as OutputChunk).type === "chunk");
  const byFile = new Map(chunks.map((c) => [c.fileName, c]));
  const loadedBy = new Map<string, string[]>();
  for (const [i, entry] of MAIN_ENTRIES.entries()) {
    const start = chunks.find((c) => c.isEntry && c.facadeModuleId?.endsWith(`/${entry}.ts`));
    const stack = start ? [...start.imports] : [];
    const seen = new Set<string>();
    while (stack.length > 0) {
      const file = stack.pop()!;
      if (seen.has(file) || !byFile.has(file)) continue;
      seen.add(file);
      loadedBy.set(file, [...(loadedBy.get(file) ?? []), String(i)]);
      stack.push(...byFile.get(file)!.imports);
    }
  }
  const group = new Map<string, string>();
  for (const [file, by] of loadedBy) {
    const chunk = byFile.get(file)!;
    if (chunk.isEntry) continue;
    for (const id of chunk.moduleIds) group.set(id, `main-${by.join("-")}`);
  }
  output.manualChunks = (id) => group.get(id);
  // Merged chunks must not import each other in a cycle (module order would then depend on which
  // entry loads first): refuse the build rather than ship one.
  const { output: merged } = await build.generate({ ...output });
  const cycle = chunkCycle(merged.filter((c): c is OutputChunk => (c as OutputChunk).type === "chunk"));
  if (cycle) throw new Error(`the merged chunks import each other in a cycle: ${cycle.join(" -> ")}`);
}

/** A cycle of static imports among `chunks` (their file names), or undefined. */
function chunkCycle(chunks: OutputChunk[]): string[] | undefined {
  const byFile = new Map(chunks.map((c) => [c.fileName, c]));
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (file: string): string[] | undefined => {
    if (state.get(file) === "done" || !byFile.has(file)) return undefined;
    if (state.get(file) === "open") return [...path.slice(path.indexOf(file)), file];
    state.set(file, "open");
    path.push(file);
    for (const next of byFile.get(file)!.imports) {
      const found = visit(next);
      if (found) return found;
    }
    path.pop();
    state.set(file, "done");
    return undefined;
  };
  for (const file of byFile.keys()) {
    const found = visit(file);
    if (found) return found;
  }
  return undefined;
}

/**
 * Every character of the output ASCII (non-ASCII ones as `\uXXXX`, which means the same in a
 * string, a regular expression, an identifier or a comment). V8 keeps a module's source text for as
 * long as the module lives, as a one-byte string only if every character fits in one byte: a single
 * "—" left in a comment stored the whole 0.5 MB main chunk at two bytes a character (issue 40).
 */
const asciiOutput: Plugin = {
  name: "ubiquity:ascii-output",
  renderChunk: (code) =>
    /[^\x00-\x7f]/.test(code)
      ? code.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
      : null,
};

let rollupOutputs: OutputOptions[] = [];
// `UBIQUITY_BUILD_OUT=<dir>` builds elsewhere (the cold-start bench's per-plugin build).
const outDir = process.env.UBIQUITY_BUILD_OUT ?? "dist";

export default defineBuildConfig({
  entries: [
    { input: "sdk/index", name: "sdk/index" },
    { input: "sdk/plugin", name: "sdk/plugin" },
    { input: "runner/cli", name: "runner/cli" },
    { input: "src/testing/index", name: "src/testing/index" },
    { input: "harness/index", name: "harness/index" },
    ...plugins,
    ...presets,
  ],
  // Declarations come from `tsc -p tsconfig.build.json` (npm run build:types): rollup-plugin-dts
  // over every plugin entry ran past a 4 GB heap; tsc emits them all in ~25 s and ~0.6 GB.
  declaration: false,
  outDir,
  clean: true,
  failOnWarn: false,
  rollup: { emitCJS: false, esbuild: { target: "node22" } },
  hooks: {
    "rollup:options"(_ctx, options) {
      rollupOutputs = [options.output ?? []].flat();
      options.plugins = [options.plugins ?? [], asciiOutput].flat();
    },
    async "rollup:build"(_ctx, build) {
      if (process.env.UBIQUITY_CHUNKS === "rollup") return;
      for (const output of rollupOutputs) await mergeMainChunks(build, output);
    },
    // The bash grammar ships as its wasm file alone (1.3 MB, with its licence): the
    // tree-sitter-bash package around it is 20 MB of native builds and C sources that the
    // permissions engine never loads (it parses with web-tree-sitter).
    "build:done"() {
      const to = `${outDir}/vendor/tree-sitter-bash`;
      mkdirSync(to, { recursive: true });
      for (const file of ["tree-sitter-bash.wasm", "LICENSE"])
        copyFileSync(`node_modules/tree-sitter-bash/${file}`, `${to}/${file}`);
      // The market price snapshot (scripts/market-prices.ts), read with JSON.parse on first use
      // (plugins/pricing/market.ts), with the licence of the package it comes from beside it.
      const prices = `${outDir}/vendor/genai-prices`;
      mkdirSync(prices, { recursive: true });
      copyFileSync("plugins/pricing/market-prices.json", `${prices}/prices.json`);
      const { license, source } = JSON.parse(readFileSync(`${prices}/prices.json`, "utf8")) as Record<string, string>;
      writeFileSync(`${prices}/LICENSE`, `The price data in prices.json comes from ${source}:\n\n${license}`);
    },
  },
});
