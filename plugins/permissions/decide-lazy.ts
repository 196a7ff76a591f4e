/**
 * `decidePermission()` and `explainPermission()` as the package exports them: the engine behind
 * them (rules, the shell analysis) loads with the first call, so importing the plugin stays cheap.
 */
import type { DecidePermissionInput, PermissionDecision } from "./decide";
import type { Decision } from "./engine";
import type { PolicySources } from "./policy";
import { lazyImport } from "../_kits/lazy/index";

const decide = lazyImport(() => import("./decide"));

/** Decide one call the way a run with these rules and mode would, before any handler is asked. */
export async function decidePermission(request: DecidePermissionInput): Promise<PermissionDecision> {
  return (await decide()).decidePermission(request);
}

/** Like `decidePermission`, with the deciding step, the suggestions and the candidates it judged. */
export async function explainPermission(
  request: DecidePermissionInput & { sources?: PolicySources },
): Promise<Decision> {
  return (await decide()).explainPermission(request);
}
