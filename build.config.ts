import { readdirSync, existsSync } from "node:fs";
import { defineBuildConfig } from "unbuild";

// One entry per public module; rollup shares the kernel between them in chunks.
const plugins = readdirSync("plugins", { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(`plugins/${d.name}/index.ts`))
  .map((d) => ({ input: `plugins/${d.name}/index`, name: `plugins/${d.name}/index` }));
const presets = readdirSync("presets")
  .filter((f) => f.endsWith(".ts"))
  .map((f) => ({ input: `presets/${f.slice(0, -3)}`, name: `presets/${f.slice(0, -3)}` }));

export default defineBuildConfig({
  entries: [
    { input: "src/main", name: "src/main" },
    { input: "runner/cli", name: "runner/cli" },
    { input: "src/testing/index", name: "src/testing/index" },
    ...plugins,
    ...presets,
  ],
  // Declarations come from `tsc -p tsconfig.build.json` (npm run build:types): rollup-plugin-dts
  // over every plugin entry ran past a 4 GB heap; tsc emits them all in ~25 s and ~0.6 GB.
  declaration: false,
  clean: true,
  failOnWarn: false,
  rollup: { emitCJS: false, esbuild: { target: "node22" } },
});
