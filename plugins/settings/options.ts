/** The options the settings plugin reads (`settingSources`, `settings`, `compat`, `codexProfile`, `trust`). */
import { z } from "zod";
import { lazyOptions } from "../_kits/authoring/index";
import type { ResolvedOptions } from "../../src/index";
import { CompatSchema, SourcesSchema } from "../_kits/sources/index";
import { TrustPins } from "../../loader/index";

/** The settings plugin's slice of the config schema. */
export const settingsOptions = lazyOptions(["settingSources", "settings", "compat", "codexProfile", "trust"], () => ({
  settingSources: SourcesSchema.optional(),
  settings: z
    .union([z.string().min(1), z.record(z.string(), z.unknown())])
    .optional()
    .describe(
      "Claude Code settings applied above every settings file (claude's --settings): their contents, as the caller's own, or a JSON file's path (from the cwd), whole only when it is the user's own or trust covers it (else only its deny and ask rules and caps)",
    ),
  compat: CompatSchema.optional(),
  codexProfile: z
    .string()
    .min(1)
    .optional()
    .describe(
      "Codex's profile, as codex --profile <name>: ~/.codex/<name>.config.toml laid over ~/.codex/config.toml, else its legacy [profiles.<name>] table (needs compat: [\"codex\"]) [the file's own profile key]",
    ),
  trust: z
    .union([z.boolean(), z.custom<TrustPins>(TrustPins.is, { message: "expected true, false or TrustPins" })])
    .optional()
    .describe(
      "Whether the cwd's own files (project/local settings beyond their deny and ask rules, .mcp.json, agents, skills, memory) apply: true, false, or TrustPins (each file only while its contents are the ones approved) [true: code that asks for a project source has decided; the runner sets it from the trust store]",
    ),
}));
export type SettingsOptions = z.input<typeof settingsOptions>;
export type SettingsResolvedOptions = ResolvedOptions & Readonly<SettingsOptions>;
