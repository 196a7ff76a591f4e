/** The options the sessions plugin reads: which session a run continues, and where transcripts go. */
import { z } from "zod";
import { lazyOptions } from "../_kits/authoring/index";
import type { ResolvedOptions } from "../../src/index";

/** The sessions plugin's slice of the config schema. */
export const sessionsOptions = lazyOptions(
  ["resume", "continueConversation", "forkSession", "sessionId", "persistSession", "sessionDir"],
  () => ({
    resume: z.string().optional(),
    continueConversation: z.boolean().optional(),
    forkSession: z.boolean().optional(),
    sessionId: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,128}$/, "a session id is letters, digits, _ and - (a UUID fits)")
      .optional()
      .describe("The id of the run's session [a fresh UUID]; with forkSession, the fork's id"),
    persistSession: z
      .union([z.boolean(), z.literal("best-effort")])
      .optional()
      .describe(
        '[true]: a transcript that cannot be written ends the run (error_session_write); "best-effort" reports it and goes on; false writes none',
      ),
    sessionDir: z.string().optional().describe("[~/.ubiquity/sessions]"),
  }),
);
export type SessionsOptions = z.input<typeof sessionsOptions>;
export type SessionsResolvedOptions = ResolvedOptions & Readonly<SessionsOptions>;
