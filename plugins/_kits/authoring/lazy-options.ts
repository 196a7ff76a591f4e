/**
 * `lazyOptions`: a plugin's `options` slice whose field schemas are built the first time one is
 * read (issue 40). The kernel composes and validates a config from the slices' keys, and parses
 * only the keys a config sets (`fieldsOf` in src/plugin.ts), so a run whose config sets none of a
 * plugin's options never builds them: zod building ~40 option schemas at module scope was a tenth
 * of a cold start. Every field must be optional (a config may leave any of them out); the keys
 * listed must be the keys built. Both are checked when the fields are built.
 */
import { z } from "zod";

/** A strict options slice with the fields `build` returns, built on first read; `keys` lists them (they are needed before). */
export function lazyOptions<S extends z.ZodRawShape>(
  keys: readonly (keyof S & string)[],
  build: () => S,
): z.ZodObject<S, z.core.$strict> {
  let built: S | undefined;
  const field = (key: string) => {
    if (!built) {
      const fields = build();
      const listed = new Set<string>(keys);
      const off = [...Object.keys(fields).filter((k) => !listed.has(k)), ...keys.filter((k) => !(k in fields))];
      if (off.length)
        throw new TypeError(`lazyOptions: the keys listed and the fields built differ: ${off.join(", ")}`);
      const required = Object.keys(fields).filter((k) => fields[k]!._zod.optin !== "optional");
      if (required.length) throw new TypeError(`lazyOptions: every field must be optional: ${required.join(", ")}`);
      built = fields;
    }
    return built[key];
  };
  const shape = {} as S;
  for (const key of keys)
    Object.defineProperty(shape, key, { get: () => field(key), enumerable: true, configurable: true });
  return z.strictObject(shape);
}
