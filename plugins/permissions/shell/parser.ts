/**
 * The bash grammar, loaded once, on first use: web-tree-sitter and its two wasm modules cost a
 * cold start tens of milliseconds and ~9 MB, so nothing loads them until a shell command is judged (the
 * permissions plugin awaits `loadShellParser()` before deciding). After that, parsing is
 * synchronous, so a permission decision never waits on I/O. The grammar is the wasm of the
 * `tree-sitter-bash` package, shipped alone in the build (no native build needed).
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Parser, Tree } from "web-tree-sitter";

let parser: Parser | undefined;
let ParserClass: typeof Parser | undefined;
let loading: Promise<void> | undefined;

/** Start (or join) loading the bash grammar. Safe to call many times. */
export function loadShellParser(): Promise<void> {
  loading ??= (async () => {
    holdBackWasmTiering();
    const require = createRequire(import.meta.url);
    const { Language, Parser } = await import("web-tree-sitter");
    await Parser.init();
    const language = await Language.load(grammarPath(require));
    const instance = new Parser();
    instance.setLanguage(language);
    ParserClass = Parser;
    parser = instance;
  })().catch((error: unknown) => {
    loading = undefined; // let a later call retry instead of caching the failure forever
    throw new Error(
      `could not load the bash grammar (tree-sitter-bash wasm): ${String(error)}; reinstall ubiquity's dependencies`,
    );
  });
  return loading;
}

/**
 * Keep V8 from tiering the grammar up. V8 compiles wasm with its baseline compiler (Liftoff)
 * and recompiles hot functions with its optimizing one (TurboFan); for this grammar a few dozen
 * parses are enough to start it, and the recompilation of its large lexer and parse functions
 * takes ~0.2 s of CPU and a peak of ~575 MB instead of ~65 MB, in the background after the parses
 * (measured with /usr/bin/time, bench/parser-tiering.bench.ts). Raising the tiering budget only
 * delays it (200 parses); `--liftoff-only` works only on the command line; restricting tier-up
 * to a function index no module has works at run time. A parse on the baseline code takes
 * ~40 µs instead of ~30. V8's flags are process-wide, so this holds for any wasm the host program
 * compiles afterwards: `UBIQUITY_WASM_TIERING=default` leaves V8's default alone.
 */
function holdBackWasmTiering(): void {
  if (process.env.UBIQUITY_WASM_TIERING === "default") return;
  // node:v8 loads here, with the grammar: not at a cold start.
  (createRequire(import.meta.url)("node:v8") as typeof import("node:v8")).setFlagsFromString(
    "--wasm-tier-up-filter=1000000000",
  );
}

/**
 * The grammar's wasm: the copy the build ships in the package (`dist/vendor/tree-sitter-bash`,
 * see build.config.ts), else the `tree-sitter-bash` package (the repository's dev install).
 */
function grammarPath(require: NodeJS.Require): string {
  try {
    const shipped = join(
      dirname(require.resolve("ubiquity/package.json")),
      "dist",
      "vendor",
      "tree-sitter-bash",
      "tree-sitter-bash.wasm",
    );
    if (existsSync(shipped)) return shipped;
  } catch {
    // not resolvable by name (a bundled copy): fall through to the package
  }
  return require.resolve("tree-sitter-bash/tree-sitter-bash.wasm");
}

/** True once `loadShellParser()` has finished. */
export function shellParserReady(): boolean {
  return parser !== undefined;
}

/** Longest command text the parser is given, in characters; a longer one cannot be proven safe. */
export const MAX_SHELL_SOURCE = 1_000_000;
/** Longest one parse may take; after that it is cancelled and the command cannot be proven safe. */
export const MAX_PARSE_MS = 2000;

/** The parser gave up (too long, too slow, or it crashed); the command it was given fails closed. */
export class ShellParseError extends Error {}

/**
 * Parse a command synchronously. The caller must `delete()` the tree. A crash inside the wasm
 * parser throws a ShellParseError and replaces the parser, so the next call is judged normally.
 */
export function parseShell(source: string): Tree {
  if (!parser)
    throw new Error(
      "the bash grammar is not loaded yet: await loadShellParser() first (the permissions plugin does it at kernel.ready)",
    );
  if (source.length > MAX_SHELL_SOURCE)
    throw new ShellParseError(`it is too long to analyse (${source.length} characters; at most ${MAX_SHELL_SOURCE})`);
  const deadline = performance.now() + MAX_PARSE_MS;
  let tree: Tree | null;
  try {
    tree = parser.parse(source, null, { progressCallback: () => performance.now() > deadline });
  } catch (error) {
    const language = parser.language;
    parser = new ParserClass!();
    if (language) parser.setLanguage(language);
    throw new ShellParseError(`the bash parser failed on it (${String(error)})`);
  }
  if (!tree) throw new ShellParseError(`parsing it took longer than ${MAX_PARSE_MS} ms`);
  return tree;
}
