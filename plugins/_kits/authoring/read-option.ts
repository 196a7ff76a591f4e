/**
 * `readOption`: one option of another plugin's slice (or of a plugin's own, where no context is at
 * hand: a tool, a runner command, a kit), read through that slice's schema instead of a cast. The
 * kernel validated the value against the slice when the config was read; reading it again through
 * the schema keeps its type tied to the owner's declaration, so a change there is a type error
 * here, and a value that did not pass through the kernel (raw options a command holds) is refused,
 * never used as some other shape.
 */
import { z } from "zod";
import { ConfigError } from "../../../src/index";

/** `options[key]` as `slice` declares it: undefined when unset; a value that does not parse is a ConfigError naming the key. */
export function readOption<S extends z.ZodObject, K extends keyof S["shape"] & string>(
  slice: S,
  options: object,
  key: K,
): z.output<S["shape"][K]> | undefined {
  const value: unknown = Reflect.get(options, key);
  if (value === undefined) return undefined;
  const read = (slice.shape[key] as z.ZodType).safeParse(value);
  if (!read.success) throw new ConfigError(`${key}: ${z.prettifyError(read.error)}`);
  return read.data as z.output<S["shape"][K]>;
}
