/**
 * The lazy kit: dependencies loaded on first use instead of at import. A cold `ubiquity run` or
 * `import "ubiquity"` loads every plugin module; a dependency such as micromatch or tinyglobby
 * only pays when a rule, a hook matcher or a walk needs it. CommonJS packages load synchronously
 * (`require`), so the callers keep their synchronous shape. Not a plugin: the only file other
 * folders import.
 */
import { createRequire } from "node:module";
import type Micromatch from "micromatch";

const require = createRequire(import.meta.url);

/** A getter that `require`s `specifier` the first time it is called (resolved from this package). */
export function lazyRequire<T>(specifier: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(specifier) as T);
}

/** micromatch, loaded on first use. */
export const micromatch: () => typeof Micromatch = lazyRequire<typeof Micromatch>("micromatch");

/** tinyglobby, loaded on first use. */
export const tinyglobby: () => typeof import("tinyglobby") = lazyRequire<typeof import("tinyglobby")>("tinyglobby");
