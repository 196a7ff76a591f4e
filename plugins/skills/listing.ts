/**
 * The skill listing in the Skill tool's description: the only place it appears (the tool block
 * and the system prompt are both in the cached prefix; listing it twice is paid twice). It is
 * budgeted: each description is clamped, and a listing still too long degrades to names.
 */
import type { Skill } from "./skill";

/** Longest description in the listing, in characters. */
export const DESCRIPTION_LIMIT = 250;
/** Longest listing with descriptions; past it, names alone. */
export const LISTING_LIMIT = 8_000;

/** `text` on one line, cut to `limit` characters (an ellipsis marks the cut). */
export function clamp(text: string, limit = DESCRIPTION_LIMIT): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= limit ? line : `${line.slice(0, limit - 1).trimEnd()}…`;
}

/** The listing, sorted by name; `degraded` when it fell back to names alone. */
export function skillListing(skills: readonly Skill[]): { text: string; degraded: boolean } {
  const sorted = [...skills].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const full = sorted.map((s) => `- ${s.name}: ${clamp(s.description)}`).join("\n");
  if (full.length <= LISTING_LIMIT) return { text: full, degraded: false };
  return { text: sorted.map((s) => `- ${s.name}`).join("\n"), degraded: true };
}
