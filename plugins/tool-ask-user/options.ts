/** The options the AskUserQuestion plugin reads: `canUseTool` (the permissions plugin's), which answers its questions. */
import { z } from "zod";
import type { ResolvedOptions } from "../../src/index";
import { permissionsOptions } from "../permissions/api";

/** The AskUserQuestion plugin's slice of the config schema. */
export const askUserOptions = z.strictObject({
  canUseTool: permissionsOptions.shape.canUseTool,
});
export type AskUserOptions = z.input<typeof askUserOptions>;
export type AskUserResolvedOptions = ResolvedOptions & Readonly<AskUserOptions>;
