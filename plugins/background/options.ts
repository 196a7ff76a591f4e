/** The options the background plugin reads. */
import { z } from "zod";
import { lazyOptions } from "../_kits/authoring/index";
import type { ResolvedOptions } from "../../src/index";

const positive = () => z.number().int().positive();

/** The background plugin's slice of the config schema. */
export const backgroundOptions = lazyOptions(["backgroundTasks"], () => ({
  backgroundTasks: z
    .strictObject({
      maxShells: positive().optional().describe("Background shells running at once [10]"),
      maxAgents: positive().optional().describe("Background agents running at once [4]"),
      maxTotal: positive().optional().describe("Background tasks a session may start in all [100]"),
      shellOutputChars: positive()
        .optional()
        .describe("Output a background shell keeps for BashOutput: its newest characters [1000000]"),
      shellMaxDurationMs: positive().optional().describe("Longest a background shell runs [7200000]"),
      shellIdleTimeoutMs: positive()
        .optional()
        .describe("Longest a background shell may write nothing before it is stopped [none]"),
      stopGraceMs: z
        .number()
        .int()
        .nonnegative()
        .optional()
        .describe("Between SIGTERM and SIGKILL when a task is stopped [2000]"),
      backgroundOnTimeout: z
        .boolean()
        .optional()
        .describe("A foreground Bash call past its timeout moves to the background instead of being killed [false]"),
    })
    .optional()
    .describe("Caps and limits of background shells and agents"),
}));
export type BackgroundOptions = z.input<typeof backgroundOptions>;
/** The run options as the background plugin reads them. */
export type BackgroundResolvedOptions = ResolvedOptions & Readonly<BackgroundOptions>;
