import { copyFileSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import { defineBuildConfig } from "unbuild";

// One entry per public module (each plugin's public.ts is its `ubiquity/plugins/<name>`); rollup shares the kernel between them in chunks.
const plugins = readdirSync("plugins", { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(`plugins/${d.name}/public.ts`))
  .map((d) => ({ input: `plugins/${d.name}/public`, name: `plugins/${d.name}/public` }));
const presets = readdirSync("presets")
  .filter((f) => f.endsWith(".ts"))
  .map((f) => ({ input: `presets/${f.slice(0, -3)}`, name: `presets/${f.slice(0, -3)}` }));

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
  clean: true,
  failOnWarn: false,
  rollup: { emitCJS: false, esbuild: { target: "node22" } },
  hooks: {
    // The bash grammar ships as its wasm file alone (1.3 MB, with its licence): the
    // tree-sitter-bash package around it is 20 MB of native builds and C sources that the
    // permissions engine never loads (it parses with web-tree-sitter).
    "build:done"() {
      const to = "dist/vendor/tree-sitter-bash";
      mkdirSync(to, { recursive: true });
      for (const file of ["tree-sitter-bash.wasm", "LICENSE"])
        copyFileSync(`node_modules/tree-sitter-bash/${file}`, `${to}/${file}`);
    },
  },
});
