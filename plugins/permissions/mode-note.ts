/**
 * The system prompt's permissions section: the mode, what is pre-approved, denied or always
 * asked, and how compound commands are judged — so the model can pick calls that will run.
 * Built only from the options, so it is byte-stable across turns (prompt caching).
 */
import type { PermissionMode } from "./options";
import type { Policy } from "./policy";

const MODES: Record<PermissionMode, string> = {
  default: "Calls that are not pre-approved need the user's approval; read-only calls run without asking.",
  acceptEdits:
    "File edits inside the permitted folders, and shell commands made only of mkdir, touch and cp on files there, are approved automatically, except writes to sensitive files (.env, .git/, package.json, the agent's config and memory files, …); other calls not pre-approved need the user's approval.",
  bypassPermissions:
    "Calls run without approval, except those a rule denies or asks about and writes to sensitive files (.env, .git/, .ssh/, package.json, the agent's config and memory files, …).",
  plan: "Plan mode: only read-only tools run. Investigate, then present a plan for the user to approve instead of making changes.",
  dontAsk: "Nobody is available to approve anything: calls that are not pre-approved are denied without asking.",
  auto: "Calls that are not pre-approved go to a reviewer that approves or denies them for the user; a denial says why — change the approach rather than repeating the call. Rules that deny or ask, and writes to sensitive files, are not the reviewer's to answer.",
};

/** The text of the permissions section. */
export function modeNote(mode: PermissionMode, policy: Policy): string {
  const lines = ["# Permissions", `Permission mode: ${mode}. ${MODES[mode]}`];
  const list = (label: string, rules: Policy["allow"]) => {
    if (rules.length > 0) lines.push(`${label}: ${[...new Set(rules.map((r) => r.text))].join(", ")}.`);
  };
  list("Pre-approved", policy.allow);
  list("Always denied", policy.deny);
  list("Always asks", policy.ask);
  // In bypassPermissions nothing needs approval but what a rule denies or asks about, so without
  // such rules there is nothing to say about how a shell command is judged.
  if (mode !== "bypassPermissions")
    lines.push(
      "Shell commands are judged one by one (each of a list, pipeline or substitution); one whose effect is known only when it runs (a computed program name, eval, a redirect outside the permitted folders, options that run programs) always needs approval.",
    );
  else if (policy.deny.length > 0 || policy.ask.length > 0)
    lines.push(
      "Shell commands are judged one by one against those rules (each of a list, pipeline or substitution); one whose effect is known only when it runs is denied or asked about when it could run a program they name.",
    );
  // "Never repeat a failing action unchanged" is the base guidance's; said once.
  lines.push("A denied call comes back as a result saying why: adjust, or tell the user what you need.");
  return lines.join("\n");
}
