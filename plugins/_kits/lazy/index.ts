/**
 * The lazy kit: dependencies loaded on first use instead of at import. A cold `ubiquity run` or
 * `import "ubiquity"` loads every plugin module; a dependency such as micromatch or tinyglobby
 * only pays when a rule, a hook matcher or a walk needs it. CommonJS packages load synchronously
 * (`require`), so the callers keep their synchronous shape. Not a plugin: the only file other
 * folders import.
 */
import { createRequire } from "node:module";
import { UbiquityError } from "../../../src/index";
import type Micromatch from "micromatch";

const require = createRequire(import.meta.url);

/**
 * True when `error` says the package `pkg` (or a file of it) cannot be found: not installed. The
 * package is looked for as the quoted specifier (`'pg'`, `'pg/lib/x.js'`, `'/…/node_modules/pg/…'`),
 * never anywhere in the message: the folder it was imported from (`/tmp/tmp.c5lMwPpgUy/…`) may
 * hold the name too.
 */
export function isMissingModule(error: unknown, pkg: string): boolean {
  const e = error as { code?: string; message?: string } | undefined;
  const message = e?.message ?? "";
  const missing =
    e?.code === "ERR_MODULE_NOT_FOUND" ||
    e?.code === "MODULE_NOT_FOUND" ||
    /Cannot find (module|package)/i.test(message);
  const name = pkg.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  return missing && new RegExp(`['"](?:[^'"]*/node_modules/)?${name}(?:/[^'"]*)?['"]`).test(message);
}

/** An optional peer dependency that is not installed; the message names what needs it and the install command. */
export class MissingPackageError extends UbiquityError {
  override name = "MissingPackageError";
}

/**
 * `load()` an optional peer dependency; when `pkg` is not installed, an error saying what needs it
 * and the command that installs it (`install`, default `npm i <pkg>`). Other failures pass through.
 */
export async function importOptional<T>(
  load: () => Promise<T>,
  pkg: string,
  what: string,
  install = `npm i ${pkg}`,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!isMissingModule(error, pkg)) throw error;
    throw new MissingPackageError(
      `${what} needs the ${pkg} package, an optional peer of ubiquity that is not installed: ${install}`,
    );
  }
}

/**
 * A module imported on first use: `const impl = lazyImport(() => import("./impl"))`, then
 * `(await impl()).serve(…)` inside an async hook. How a plugin keeps its implementation out of a
 * cold start: its `index.ts` keeps what `apply` needs synchronously (the name, the option slice,
 * the taps and cheap gates), and the code a tap runs only when it actually serves something lives
 * in a module reached through this, which the build splits into its own chunk. One import per
 * process; a failed import is retried on the next call (a missing optional peer installed meanwhile).
 * The module must not be imported statically anywhere on the cold path (re-exports included), or
 * it loads at start anyway: `test/kernel/cold-start.test.ts` lists the chunks that must stay out.
 */
export function lazyImport<M>(load: () => Promise<M>): () => Promise<M> {
  let loading: Promise<M> | undefined;
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
}

/** A getter that `require`s `specifier` the first time it is called (resolved from this package). */
export function lazyRequire<T>(specifier: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(specifier) as T);
}

/** micromatch, loaded on first use. */
export const micromatch: () => typeof Micromatch = lazyRequire<typeof Micromatch>("micromatch");

/**
 * micromatch options for globs matched against paths: picomatch compiles `*` and `**` to `.`,
 * which stops at a line break unless the regex has the `s` flag (`secret/**` missed
 * `secret/x<newline>.ts`: red team 2026-12-05, LSP). picomatch passes `flags` to RegExp as written
 * (and then ignores `nocase`, hence the second); @types/micromatch types it a boolean.
 */
export const LINE_BREAKS = { flags: "s" } as unknown as { flags?: boolean };
/** LINE_BREAKS with case ignored. */
export const LINE_BREAKS_NOCASE = { flags: "is" } as unknown as { flags?: boolean };

/** picomatch (the version tinyglobby matches with), loaded on first use. */
export const picomatch: () => typeof import("picomatch") = lazyRequire<typeof import("picomatch")>("picomatch");

/** tinyglobby, loaded on first use. */
export const tinyglobby: () => typeof import("tinyglobby") = lazyRequire<typeof import("tinyglobby")>("tinyglobby");
