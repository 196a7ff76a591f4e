/**
 * `ubiquity rewind [--session <id>] [--to <uuid>] [--dry-run] [--yes]`: without `--to`, list the
 * session's checkpoints; with it, show the plan (every file restored, removed or recreated, and
 * what is not covered), then apply it once confirmed — at a terminal by answering y, elsewhere
 * only with `--yes` (without it the plan is printed and the command exits 2, changing nothing).
 * The session is the cwd's latest unless `--session` names one.
 */
import type { PluginCommand } from "../../loader/index";
import { lazyImport } from "../_kits/lazy/index";

const work = lazyImport(() => import("./rewind-command"));

/** `ubiquity rewind`. */
export const rewindCommand: PluginCommand = {
  summary: "Rewind the files (and optionally the conversation) of a session to a checkpoint",
  usage: "[--session <id>] [--to <uuid>] [--dry-run] [--yes]",
  flags: {
    session: { type: "string", value: "<id>", description: "The session [the cwd's latest]" },
    to: {
      type: "string",
      value: "<uuid>",
      description:
        "The message to rewind to: files as they were before its turn changed them (without it: list the checkpoints)",
    },
    "dry-run": { type: "boolean", description: "Show what would change; change nothing" },
    yes: { type: "boolean", short: "y", description: "Apply without asking (needed without a terminal)" },
    conversation: {
      type: "boolean",
      description: "Also fork the conversation just before that message (prints the new session id)",
    },
    cwd: { type: "string", value: "<dir>", description: "The project folder [.]" },
    config: { type: "string", value: "<file>", description: "Use this config file for sessionDir (skips the search)" },
    "session-dir": {
      type: "string",
      value: "<dir>",
      description: "The sessions root [config sessionDir, else ~/.ubiquity/sessions]",
    },
    json: { type: "boolean", description: "Print JSON (the checkpoints, or the rewind's result)" },
  },
  run: async (args, io) => (await work()).runRewind(args, io),
};
