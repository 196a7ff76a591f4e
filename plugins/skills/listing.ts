/**
 * The skill listing in the Skill tool's description: the only place it appears (the tool block
 * and the system prompt are both in the cached prefix; listing it twice is paid twice). It is
 * sorted and budgeted by the run's context window (see the sources kit's `budgetedListing`):
 * descriptions whole up to 1,536 characters, then shortened, then names, then some left out —
 * and the tool's description says which.
 */
import { budgetedListing, clamp, DESCRIPTION_LIMIT, MIN_LISTING_CHARS, type Listing } from "../_kits/sources/index";
import type { Skill } from "./skill";

export { clamp, DESCRIPTION_LIMIT };
/** The listing budget of an unknown window, in characters (a run's budget grows with its window). */
export const LISTING_LIMIT = MIN_LISTING_CHARS;

/** The listing, sorted by name, within `budget` characters; `degraded` when it fell back to names. */
export function skillListing(
  skills: readonly Skill[],
  budget: number = LISTING_LIMIT,
): Listing & { degraded: boolean } {
  const listing = budgetedListing(
    skills.map((s) => ({
      name: s.name,
      ...(s.displayName ? { displayName: s.displayName } : {}),
      description: s.description,
    })),
    budget,
    "skill",
  );
  return { ...listing, degraded: listing.level === "names" || listing.level === "partial" };
}
