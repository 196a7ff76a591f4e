/**
 * Listings of definitions (skills in the Skill tool, agents in the Agent tool) and the names they
 * go by. Both listings sit in the cached prefix of every request, so each is sorted (the same set
 * renders the same bytes) and budgeted by the context window: a description is kept whole up to
 * Claude Code's 1,536 characters; a listing over its budget shortens descriptions, then drops
 * them, then leaves entries out — and says which step it took and how many it left out.
 */

/** Longest description kept in a listing, in characters (Claude Code's limit). */
export const DESCRIPTION_LIMIT = 1_536;
/** What descriptions are shortened to when the full listing is over its budget. */
export const SHORT_DESCRIPTION_LIMIT = 250;
/** The smallest listing budget, in characters (also the budget of an unknown window). */
export const MIN_LISTING_CHARS = 8_000;
/** The share of the context window one listing may take (at ~4 characters a token). */
export const LISTING_WINDOW_SHARE = 0.02;

/** A listing's budget in characters for a context window of `windowTokens` [the minimum]. */
export function listingBudget(windowTokens?: number): number {
  if (!windowTokens || !Number.isFinite(windowTokens)) return MIN_LISTING_CHARS;
  return Math.max(MIN_LISTING_CHARS, Math.floor(windowTokens * 4 * LISTING_WINDOW_SHARE));
}

/** `text` on one line, cut to `limit` characters (an ellipsis marks the cut). */
export function clamp(text: string, limit = DESCRIPTION_LIMIT): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= limit ? line : `${line.slice(0, limit - 1).trimEnd()}…`;
}

/** One entry of a listing. */
export interface ListingEntry {
  /** The identifier the tool is called with. */
  name: string;
  /** A name written for people ("Systematic Debugging"), shown next to the identifier. */
  displayName?: string;
  description: string;
  /** Appended after the description (e.g. an agent's tools). */
  suffix?: string;
}

/** A rendered listing. */
export interface Listing {
  text: string;
  /** Which step made it fit: all descriptions whole, shortened, names only, or some left out. */
  level: "full" | "shortened" | "names" | "partial";
  /** How many entries were left out (level `partial`). */
  omitted: number;
  /** One sentence saying what the listing left out, or "" when nothing. */
  note: string;
}

const byName = (a: ListingEntry, b: ListingEntry) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
const head = (e: ListingEntry) =>
  `- ${e.name}${e.displayName && e.displayName !== e.name ? ` (${e.displayName})` : ""}`;

/** The listing of `entries` in at most `budget` characters, sorted by name. `noun` names an entry in the note ("skill"). */
export function budgetedListing(entries: readonly ListingEntry[], budget: number, noun: string): Listing {
  const sorted = [...entries].sort(byName);
  const render = (limit: number) =>
    sorted.map((e) => `${head(e)}: ${clamp(e.description, limit)}${e.suffix ?? ""}`).join("\n");
  const full = render(DESCRIPTION_LIMIT);
  if (full.length <= budget) return { text: full, level: "full", omitted: 0, note: "" };
  const short = render(SHORT_DESCRIPTION_LIMIT);
  if (short.length <= budget) {
    return {
      text: short,
      level: "shortened",
      omitted: 0,
      note: `Descriptions longer than ${SHORT_DESCRIPTION_LIMIT} characters are shortened to fit this listing's budget (${budget} characters); the ${noun} itself has the whole text.`,
    };
  }
  const names = sorted.map(head).join("\n");
  if (names.length <= budget)
    return {
      text: names,
      level: "names",
      omitted: 0,
      note: `Names only: the descriptions of these ${sorted.length} ${noun}s do not fit this listing's budget (${budget} characters).`,
    };
  const kept: string[] = [];
  let used = 0;
  for (const e of sorted) {
    const line = head(e);
    if (used + line.length + 1 > budget) break;
    kept.push(line);
    used += line.length + 1;
  }
  const omitted = sorted.length - kept.length;
  return {
    text: kept.join("\n"),
    level: "partial",
    omitted,
    note: `Names only, and ${omitted} of ${sorted.length} ${noun}s (from ${sorted[kept.length]!.name} on, by name) are left out: they do not fit this listing's budget (${budget} characters).`,
  };
}

const CONTROL = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;

/**
 * A name written for people ("Systematic Debugging", "v2.0 Release"), or "" when it cannot be
 * one: a line break or another control character (a name that would start a new listing entry
 * is refused, never repaired), or over 64 characters.
 */
export function displayNameOf(name: string): string {
  CONTROL.lastIndex = 0;
  if (CONTROL.test(name)) return "";
  const text = name.replace(/\s+/g, " ").trim();
  return text.length <= 64 ? text : "";
}

/** An identifier derived from a display name: "Systematic Debugging" → "systematic-debugging"; "" when nothing is left. */
export function slugOf(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64)
    .replace(/-+$/, "");
}
