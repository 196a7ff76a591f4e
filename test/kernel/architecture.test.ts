/**
 * The layout rules of DESIGN.md §5, checked on the import graph of src/, plugins/ and presets/:
 *
 * 1. A plugin imports its own folder, the kernel's public entry (`src/index.ts`), another
 *    plugin's `index.ts` or `api.ts`, or a kit's `index.ts` (`plugins/_kits/<kit>/index.ts`). A
 *    kit imports its own folder, `src/index.ts`, another kit's `index.ts`, or a plugin's
 *    `index.ts` / `api.ts`. A preset imports `src/index.ts`, plugins' and kits' `index.ts`, and presets.
 *    Plugins and kits may also import the loader's entry (`loader/index.ts`: safe reads, trust).
 * 2. `src/` (the kernel) imports nothing outside `src/`: no plugin, preset, loader or product
 *    (`sdk/`, the package entry that binds `summon()` to the default preset; `runner/`;
 *    `harness/`). The loader imports the kernel only through `src/index.ts`, and no plugin,
 *    preset or product.
 * 3. No import cycle (value imports: `import type` is erased, so a type cycle is harmless).
 *
 * The graph comes from a regex over the sources (static imports and re-exports, side-effect
 * imports, `import("…")`), relative specifiers resolved to files. Every import counts for the
 * boundaries; value imports (static and dynamic) for cycles.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SCANNED = ["src", "loader", "sdk", "runner", "plugins", "presets", "harness"];

/**
 * Known exceptions, file → targets: edges from src/ to plugins/ or presets/ other than the
 * facade's, plugin → preset edges, and cycles (each the exact set of files in one strongly
 * connected component). All empty since the runner left src/ and plugin commands came from the
 * plugins themselves; keep them empty. An entry that no longer occurs fails, so they only shrink.
 */
const KNOWN_SRC_TO_PRODUCT: Record<string, string[]> = {};
const KNOWN_PLUGIN_TO_PRESET: Record<string, string[]> = {};
const KNOWN_CYCLES: string[][] = [];

interface Edge {
  from: string;
  to: string;
  /** True for `import type` / `export type` (and `import { type A }`): erased at runtime. */
  typeOnly: boolean;
  dynamic: boolean;
}

// ---------------------------------------------------------------- parsing

// Clause characters of `import … from` / `export … from`: names, braces, commas, `*`, and the
// comments a multi-line specifier list may hold. No parentheses, quotes or `=`, so a match never
// spans code.
const CLAUSE = String.raw`(?:[\w$*{},\s]|\/\/[^\n]*|\/\*[\s\S]*?\*\/)*?`;
const STATIC = new RegExp(String.raw`^[ \t]*(import|export)\s+(type\s+)?(${CLAUSE})\s*from\s*["']([^"'\n]+)["']`, "gm");
const SIDE_EFFECT = /^[ \t]*import\s*["']([^"'\n]+)["']/gm;
const DYNAMIC = /\bimport\(\s*["']([^"'\n]+)["']\s*\)/g;

/** `import { type A, type B } from` is erased whole; a default, namespace or plain name is a value. */
function clauseIsTypeOnly(clause: string): boolean {
  const text = clause.replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g, "").trim();
  const braces = /^\{([\s\S]*)\}$/.exec(text);
  if (!braces) return false;
  const names = braces[1]!
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  return names.length > 0 && names.every((n) => /^type\s/.test(n));
}

/** Every import specifier of a source text. */
function importsOf(source: string): { specifier: string; typeOnly: boolean; dynamic: boolean }[] {
  const out: { specifier: string; typeOnly: boolean; dynamic: boolean }[] = [];
  for (const m of source.matchAll(STATIC))
    out.push({ specifier: m[4]!, typeOnly: Boolean(m[2]) || clauseIsTypeOnly(m[3]!), dynamic: false });
  for (const m of source.matchAll(SIDE_EFFECT)) out.push({ specifier: m[1]!, typeOnly: false, dynamic: false });
  for (const line of source.split("\n")) {
    // A dynamic import named in a comment is no import.
    if (/^\s*(\*|\/\/|\/\*)/.test(line)) continue;
    for (const m of line.matchAll(DYNAMIC)) out.push({ specifier: m[1]!, typeOnly: false, dynamic: true });
  }
  return out;
}

// The package's own aliases (tsconfig `paths`), so `import … from "ubiquity"` is resolved too.
const ALIASES: [RegExp, string][] = [
  [/^ubiquity$/, "sdk/index"],
  [/^ubiquity\/plugin$/, "sdk/plugin"],
  [/^ubiquity\/testing$/, "src/testing/index"],
  [/^ubiquity\/plugins\/(.+)$/, "plugins/$1/public"],
  [/^ubiquity\/presets\/(.+)$/, "presets/$1"],
];

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The repository-relative file `specifier` names from `from`, or undefined for a package. Throws when a relative one names no file. */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  let base: string | undefined;
  if (specifier.startsWith(".")) base = resolve(ROOT, dirname(from), specifier);
  for (const [pattern, target] of ALIASES)
    if (pattern.test(specifier)) base = resolve(ROOT, specifier.replace(pattern, target));
  if (base === undefined) return undefined;
  const candidates = [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts"), base.replace(/\.js$/, ".ts")];
  const hit = candidates.find(isFile);
  if (!hit) throw new Error(`${from}: cannot resolve the import "${specifier}"`);
  return relative(ROOT, hit).split(sep).join("/");
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && /\.tsx?$/.test(d.name) && !d.name.endsWith(".d.ts"))
    .map((d) => relative(ROOT, join(d.parentPath, d.name)).split(sep).join("/"))
    .sort();
}

/** The import graph of src/, plugins/ and presets/. */
function importGraph(): Edge[] {
  const edges: Edge[] = [];
  for (const file of SCANNED.flatMap(sourceFiles)) {
    for (const found of importsOf(readFileSync(join(ROOT, file), "utf8"))) {
      const to = resolveSpecifier(file, found.specifier);
      if (to !== undefined) edges.push({ from: file, to, typeOnly: found.typeOnly, dynamic: found.dynamic });
    }
  }
  return edges;
}

// ---------------------------------------------------------------- rules

/** `plugins/<name>/…` → name (`_kits/<kit>` for a kit), else undefined. */
function ownerOf(file: string): { kind: "plugin" | "kit"; name: string } | undefined {
  const kit = /^plugins\/_kits\/([^/]+)\//.exec(file);
  if (kit) return { kind: "kit", name: kit[1]! };
  const plugin = /^plugins\/([^/]+)\//.exec(file);
  return plugin ? { kind: "plugin", name: plugin[1]! } : undefined;
}

const isPluginPublic = (file: string) => /^plugins\/(?!_kits\/)[^/]+\/(index|api)\.ts$/.test(file);
const isKitIndex = (file: string) => /^plugins\/_kits\/[^/]+\/index\.ts$/.test(file);
const KERNEL_ENTRY = "src/index.ts";
const LOADER_ENTRY = "loader/index.ts";

/** Why the edge breaks rule 1 or 2, or undefined when it keeps them. */
function boundaryProblem(edge: Pick<Edge, "from" | "to">): string | undefined {
  const { from, to } = edge;
  const owner = ownerOf(from);
  if (owner) {
    const own = owner.kind === "kit" ? `plugins/_kits/${owner.name}/` : `plugins/${owner.name}/`;
    if (to.startsWith(own) || to === KERNEL_ENTRY || to === LOADER_ENTRY || isPluginPublic(to) || isKitIndex(to))
      return undefined;
    if (to.startsWith("src/"))
      return `a ${owner.kind} imports the kernel only through ${KERNEL_ENTRY} (src/testing is for tests)`;
    if (to.startsWith("plugins/_kits/")) return "another kit is imported only through its index.ts";
    if (to.startsWith("plugins/")) return "another plugin is imported only through its index.ts or api.ts";
    return `a ${owner.kind} imports no presets and nothing outside plugins/ but ${KERNEL_ENTRY} and ${LOADER_ENTRY}`;
  }
  if (from.startsWith("presets/")) {
    if (
      to === KERNEL_ENTRY ||
      /^plugins\/(?!_kits\/)[^/]+\/index\.ts$/.test(to) ||
      isKitIndex(to) ||
      to.startsWith("presets/")
    )
      return undefined;
    return `a preset imports only ${KERNEL_ENTRY}, plugins' and kits' index.ts and presets`;
  }
  if (from.startsWith("src/") && !to.startsWith("src/")) {
    return "src/ (the kernel) imports nothing outside src/: the product binding (sdk/facade.ts) binds the default preset and the loader";
  }
  if (from.startsWith("loader/")) {
    if (to.startsWith("loader/") || to === KERNEL_ENTRY) return undefined;
    return `the loader imports its own folder and the kernel only through ${KERNEL_ENTRY}`;
  }
  return undefined;
}

/** The strongly connected components with a cycle (Tarjan), members sorted. */
function cycles(edges: readonly Pick<Edge, "from" | "to">[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    if (!next.has(from)) next.set(from, new Set());
    next.get(from)!.add(to);
    if (!next.has(to)) next.set(to, new Set());
  }
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || next.get(v)!.has(v)) found.push(component.sort());
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** One concrete loop through a component, for the failure message (`a → b → a`). */
function loopThrough(component: readonly string[], edges: readonly Pick<Edge, "from" | "to">[]): string {
  const members = new Set(component);
  const start = component[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const e of edges) {
      if (e.from !== v || !members.has(e.to)) continue;
      if (e.to === start) {
        const path = [start];
        for (let u: string | undefined = v; u !== undefined && u !== start; u = previous.get(u)) path.splice(1, 0, u);
        return [...path, start].join(" → ");
      }
      if (!previous.has(e.to)) {
        previous.set(e.to, v);
        queue.push(e.to);
      }
    }
  }
  return component.join(", ");
}

const key = (files: readonly string[]) => [...files].sort().join(" | ");

// ---------------------------------------------------------------- tests

describe("architecture: the import graph keeps the layout rules", () => {
  const edges = importGraph();
  const valueEdges = edges.filter((e) => !e.typeOnly);

  it("sees the graph (the parser finds imports of every kind)", () => {
    expect(edges.length).toBeGreaterThan(500);
    expect(edges.some((e) => e.from === "sdk/facade.ts" && e.to === "presets/default.ts")).toBe(true);
    expect(edges.some((e) => e.typeOnly)).toBe(true);
    expect(edges.some((e) => e.dynamic)).toBe(true);
    expect(edges.some((e) => e.from.startsWith("plugins/_kits/"))).toBe(true);
  });

  it("plugins, kits and presets import each other only through index.ts / api.ts, and the kernel only through src/index.ts", () => {
    const problems = edges
      .filter((e) => !e.from.startsWith("src/"))
      .filter((e) => !KNOWN_PLUGIN_TO_PRESET[e.from]?.includes(e.to))
      .map((e) => ({ e, why: boundaryProblem(e) }))
      .filter((p) => p.why !== undefined)
      .map(({ e, why }) => `${e.from} → ${e.to}: ${why}`);
    expect(problems).toEqual([]);
  });

  it("src/ imports nothing outside src/ (but the known, shrinking list)", () => {
    const offending = edges.filter((e) => e.from.startsWith("src/") && boundaryProblem(e) !== undefined);
    const fresh = offending
      .filter((e) => !KNOWN_SRC_TO_PRODUCT[e.from]?.includes(e.to))
      .map((e) => `${e.from} → ${e.to}: ${boundaryProblem(e)}`);
    expect(fresh).toEqual([]);
  });

  it("the allow-lists hold only edges that still exist (remove an entry once its import is gone)", () => {
    const present = new Set(edges.map((e) => `${e.from} → ${e.to}`));
    const listed = [...Object.entries(KNOWN_SRC_TO_PRODUCT), ...Object.entries(KNOWN_PLUGIN_TO_PRESET)].flatMap(
      ([from, tos]) => tos.map((to) => `${from} → ${to}`),
    );
    expect(listed.filter((edge) => !present.has(edge))).toEqual([]);
  });

  it("has no import cycle but the known ones (value imports, static and dynamic)", () => {
    const known = new Set(KNOWN_CYCLES.map(key));
    const found = cycles(valueEdges);
    const fresh = found.filter((c) => !known.has(key(c))).map((c) => loopThrough(c, valueEdges));
    expect(fresh).toEqual([]);
    const gone = KNOWN_CYCLES.filter((c) => !found.some((f) => key(f) === key(c))).map((c) => c.join(", "));
    expect(gone, "a known cycle is gone: remove it from KNOWN_CYCLES").toEqual([]);
  });

  it("the checks catch what they exist to catch", () => {
    // Parsing: every form, type-only ones marked.
    const parsed = importsOf(
      [
        `import { a } from "./a";`,
        `import type { B } from "./b";`,
        `import {\n  type C, // why\n  type D,\n} from "./c";`,
        `export { e } from "./e";`,
        `export type * from "./f";`,
        `import "./g";`,
        `const h = await import("./h");`,
        ` * see import("./not-an-import")`,
      ].join("\n"),
    );
    expect(
      parsed.map((p) => `${p.specifier}:${p.typeOnly ? "type" : "value"}${p.dynamic ? ":dynamic" : ""}`).sort(),
    ).toEqual(["./a:value", "./b:type", "./c:type", "./e:value", "./f:type", "./g:value", "./h:value:dynamic"].sort());
    // Boundaries.
    expect(boundaryProblem({ from: "plugins/sandbox/index.ts", to: "plugins/permissions/rules.ts" })).toMatch(
      /index\.ts or api\.ts/,
    );
    expect(
      boundaryProblem({ from: "plugins/tool-read/read-tool.ts", to: "plugins/_kits/file-tools/paths.ts" }),
    ).toMatch(/kit/);
    expect(boundaryProblem({ from: "plugins/tool-read/read-tool.ts", to: "src/errors.ts" })).toMatch(/src\/index\.ts/);
    expect(boundaryProblem({ from: "plugins/tool-read/read-tool.ts", to: "src/testing/index.ts" })).toMatch(
      /src\/index\.ts/,
    );
    expect(
      boundaryProblem({ from: "plugins/_kits/storage/stale-temps.ts", to: "plugins/_kits/process/live-groups.ts" }),
    ).toMatch(/kit/);
    expect(
      boundaryProblem({ from: "plugins/_kits/compaction/context-budget.ts", to: "plugins/pricing/table.ts" }),
    ).toMatch(/plugin/);
    expect(boundaryProblem({ from: "src/loop.ts", to: "plugins/model/index.ts" })).toMatch(
      /src\/ \(the kernel\) imports nothing/,
    );
    expect(
      boundaryProblem({ from: "plugins/tool-read/read-tool.ts", to: "plugins/_kits/file-tools/index.ts" }),
    ).toBeUndefined();
    expect(
      boundaryProblem({ from: "plugins/_kits/compaction/context-budget.ts", to: "plugins/pricing/api.ts" }),
    ).toBeUndefined();
    expect(boundaryProblem({ from: "sdk/facade.ts", to: "presets/default.ts" })).toBeUndefined();
    expect(boundaryProblem({ from: "src/index.ts", to: "sdk/facade.ts" })).toMatch(
      /src\/ \(the kernel\) imports nothing/,
    );
    expect(boundaryProblem({ from: "src/kernel.ts", to: "loader/index.ts" })).toMatch(
      /src\/ \(the kernel\) imports nothing/,
    );
    expect(boundaryProblem({ from: "loader/load.ts", to: "src/kernel.ts" })).toMatch(/src\/index\.ts/);
    expect(boundaryProblem({ from: "loader/load.ts", to: "plugins/model/index.ts" })).toMatch(/loader imports/);
    expect(boundaryProblem({ from: "plugins/settings/read.ts", to: "loader/safe-read.ts" })).toMatch(/nothing outside/);
    expect(boundaryProblem({ from: "plugins/settings/read.ts", to: "loader/index.ts" })).toBeUndefined();
    // Cycles, and only value edges count.
    const loop = [
      { from: "plugins/a/index.ts", to: "plugins/b/index.ts" },
      { from: "plugins/b/index.ts", to: "plugins/c/x.ts" },
      { from: "plugins/c/x.ts", to: "plugins/a/index.ts" },
      { from: "plugins/c/x.ts", to: "plugins/d/index.ts" },
    ];
    expect(cycles(loop)).toEqual([["plugins/a/index.ts", "plugins/b/index.ts", "plugins/c/x.ts"]]);
    expect(loopThrough(cycles(loop)[0]!, loop)).toBe(
      "plugins/a/index.ts → plugins/b/index.ts → plugins/c/x.ts → plugins/a/index.ts",
    );
    expect(cycles(loop.slice(1))).toEqual([]);
  });
});
