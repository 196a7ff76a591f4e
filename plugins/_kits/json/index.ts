/**
 * The json kit: the shape checks every reader of parsed JSON needs (settings files, Codex's
 * config, plugin manifests, language-server configs, an MCP approver's answer). Not a plugin: the
 * only file other folders import.
 */

/** A plain JSON object (not null, not an array). */
export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A list of strings. */
export const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === "string");
