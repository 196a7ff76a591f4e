/** Zod fields a plugin's `options` slice uses for what only code can supply. */
import { z } from "zod";

/** A zod field for an option only code can supply: a function (`what` names it in the error). */
export const functionSchema = <T extends (...args: never[]) => unknown>(what: string) =>
  z.custom<T>((v) => typeof v === "function", { message: `expected a function (${what})` });
