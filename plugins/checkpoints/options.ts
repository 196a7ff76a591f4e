/** The options the checkpoints plugin reads: whether the workspace is snapshotted, where, the size limit, and how long checkpoints are kept. */
import { z } from "zod";
import { lazyOptions } from "../_kits/authoring/index";
import type { ResolvedOptions } from "../../src/index";

/** The checkpoints plugin's slice of the config schema. */
export const checkpointsOptions = lazyOptions(["checkpoints"], () => ({
  checkpoints: z
    .union([
      z.boolean(),
      z.strictObject({
        dir: z.string().optional().describe("The checkpoint stores' root [~/.ubiquity/checkpoints]"),
        maxSizeMb: z.number().positive().optional().describe("Files larger than this are not snapshotted [10]"),
        keepDays: z
          .number()
          .positive()
          .optional()
          .describe(
            "Checkpoints older than this many days are pruned when a run takes its first snapshot (an active session's, and rewind backups, are kept) [30]",
          ),
      }),
    ])
    .optional()
    .describe(
      "Snapshot the permitted folders before each turn's first writing tool call, so `ubiquity rewind` can restore them [false; on in the terminal mode]",
    ),
}));
export type CheckpointsOptions = z.input<typeof checkpointsOptions>;
export type CheckpointsResolvedOptions = ResolvedOptions & Readonly<CheckpointsOptions>;

/** Files larger than this are not snapshotted, unless `maxSizeMb` says otherwise. */
export const DEFAULT_MAX_SIZE_MB = 10;
/** Checkpoints older than this many days are pruned, unless `keepDays` says otherwise (Claude Code's cleanupPeriodDays is 30 too). */
export const DEFAULT_KEEP_DAYS = 30;
/** Binary files (a NUL byte in the first 8 KB) larger than this are not snapshotted. */
export const BINARY_MAX_BYTES = 1024 * 1024;

/** A folder with more new or changed files than this at once is not snapshotted (a run started in a home folder, say). */
export const MAX_FILES_PER_SNAPSHOT = 200_000;

/** The settings a run's `checkpoints` option stands for; undefined when off. */
export interface CheckpointSettings {
  /** The stores' root, as given (`~` and relative paths resolved by `storageRoot`). */
  dir?: string;
  maxBytes: number;
  /** Checkpoints older than this many days are pruned. */
  keepDays: number;
}

/** Read the `checkpoints` option. */
export function checkpointSettings(option: CheckpointsOptions["checkpoints"]): CheckpointSettings | undefined {
  if (!option) return undefined;
  const o = option === true ? {} : option;
  return {
    dir: o.dir,
    maxBytes: Math.round((o.maxSizeMb ?? DEFAULT_MAX_SIZE_MB) * 1024 * 1024),
    keepDays: o.keepDays ?? DEFAULT_KEEP_DAYS,
  };
}
