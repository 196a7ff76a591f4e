/**
 * The bash grammar, loaded once. web-tree-sitter needs an async start (it compiles two wasm
 * modules); after that, parsing is synchronous, so a permission decision never waits on I/O.
 * The grammar is the wasm shipped in the `tree-sitter-bash` package (no native build needed).
 */
import { createRequire } from "node:module";
import { Language, Parser, type Tree } from "web-tree-sitter";

let parser: Parser | undefined;
let loading: Promise<void> | undefined;

/** Start (or join) loading the bash grammar. Safe to call many times. */
export function loadShellParser(): Promise<void> {
  loading ??= (async () => {
    const require = createRequire(import.meta.url);
    await Parser.init();
    const language = await Language.load(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"));
    const instance = new Parser();
    instance.setLanguage(language);
    parser = instance;
  })().catch((error: unknown) => {
    loading = undefined; // let a later call retry instead of caching the failure forever
    throw new Error(`could not load the bash grammar (tree-sitter-bash wasm): ${String(error)}; reinstall ubiquity's dependencies`);
  });
  return loading;
}

/** True once `loadShellParser()` has finished. */
export function shellParserReady(): boolean {
  return parser !== undefined;
}

/** Parse a command synchronously. The caller must `delete()` the tree. */
export function parseShell(source: string): Tree {
  if (!parser) throw new Error("the bash grammar is not loaded yet: await loadShellParser() first (the permissions plugin does it at kernel.ready)");
  const tree = parser.parse(source);
  if (!tree) throw new Error("tree-sitter returned no tree for a shell command");
  return tree;
}
