/** The options the AskUserQuestion plugin reads: `canUseTool` (the permissions plugin's), which answers its questions. */
import type { z } from "zod";
import { lazyOptions } from "../_kits/authoring/index";
import type { ResolvedOptions } from "../../src/index";
import { permissionsOptions } from "../permissions/api";

/** The AskUserQuestion plugin's slice of the config schema. */
export const askUserOptions = lazyOptions(["canUseTool"], () => ({
  canUseTool: permissionsOptions.shape.canUseTool,
}));
export type AskUserOptions = z.input<typeof askUserOptions>;
export type AskUserResolvedOptions = ResolvedOptions & Readonly<AskUserOptions>;
