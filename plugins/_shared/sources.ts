/** The `user` / `project` / `local` vocabulary of settingSources, agentSources, skillSources, memorySources. */

/** A conventional place to read from. */
export type Source = "user" | "project" | "local";

/** Weakest first: a later source wins a name (or has the last word). */
export const SOURCE_ORDER: readonly Source[] = ["user", "project", "local"];

/** The asked-for sources in canonical order, whatever order the option lists them in. */
export function orderedSources(wanted: readonly string[] | undefined): Source[] {
  const set = new Set(wanted ?? []);
  return SOURCE_ORDER.filter((s) => set.has(s));
}
