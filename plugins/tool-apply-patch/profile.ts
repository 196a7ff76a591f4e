/**
 * Which edit tools a model is offered. The defaults follow the vendors' own guidance: OpenAI
 * trains its GPT-5.x and codex models on `apply_patch` (and recommends it for them), Anthropic's
 * models are trained on exact string replacement (`str_replace`, our Edit) — see README "Harness".
 */
import type { EditSurface } from "./options";

/** The tools of each surface; a tool of neither (Read, Bash, …) is always offered. */
export const SURFACE_TOOLS: Readonly<Record<Exclude<EditSurface, "both">, readonly string[]>> = {
  apply_patch: ["apply_patch"],
  edit: ["Edit", "Write"],
};

/** Every edit tool a profile chooses among. */
export const EDIT_TOOLS: ReadonlySet<string> = new Set(Object.values(SURFACE_TOOLS).flat());

/** The built-in table, checked after the user's `toolProfile` entries. */
export const DEFAULT_PROFILE: Readonly<Record<string, EditSurface>> = {
  "openai:gpt-5*": "apply_patch",
  "azure:gpt-5*": "apply_patch",
  "openrouter:openai/gpt-5*": "apply_patch",
  "*codex*": "apply_patch",
  "*": "edit",
};

const compiled = new Map<string, RegExp>();

/** `*` matches any run of characters (also `/` and `:`); case-insensitive, whole label. */
function matches(pattern: string, label: string): boolean {
  let re = compiled.get(pattern);
  if (!re) {
    re = new RegExp(
      `^${pattern
        .split("*")
        .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
        .join(".*")}$`,
      "i",
    );
    compiled.set(pattern, re);
  }
  return re.test(label);
}

/** The surface for a model label: the first matching pattern of `profile`, then of the defaults. */
export function surfaceFor(
  label: string | null | undefined,
  profile: Readonly<Record<string, EditSurface>> | false | undefined,
): EditSurface {
  if (profile === false || label === undefined || label === null) return "both";
  for (const table of [profile ?? {}, DEFAULT_PROFILE]) {
    for (const [pattern, surface] of Object.entries(table)) if (matches(pattern, label)) return surface;
  }
  return "edit";
}

/** True when a tool of this name is offered under `surface`. */
export function offered(name: string, surface: EditSurface): boolean {
  if (!EDIT_TOOLS.has(name) || surface === "both") return true;
  return SURFACE_TOOLS[surface].includes(name);
}
