/**
 * Codex's `agents/openai.yaml` beside a SKILL.md: display data (`interface`) and `policy`. With
 * `policy.allow_implicit_invocation: false` Codex leaves the skill out of the list the model sees,
 * so only the user's `$name` runs it — Claude Code's `disable-model-invocation: true`, which is how
 * it is applied here. openai/openai-agents-js and -python keep three such skills each
 * (implementation-kickoff, implementation-final-review, …); they were offered to the model.
 */
import { createRequire } from "node:module";
import { join } from "node:path";
import { readRegularFileSync } from "../../loader/index";
import { MAX_DEFINITION_BYTES } from "../_kits/sources/index";
import { isRecord } from "../_kits/json/index";

const require = createRequire(import.meta.url);

/** Where Codex reads a skill's own metadata. */
const POLICY_FILE = join("agents", "openai.yaml");

/**
 * Whether the skill folder's `agents/openai.yaml` keeps the model from invoking it. A file that is
 * there but cannot be read as YAML is reported; it then takes nothing away (Codex skips it too).
 */
export function implicitInvocationOff(dir: string, report: (message: string) => void): boolean {
  const file = join(dir, POLICY_FILE);
  const read = readRegularFileSync(file, MAX_DEFINITION_BYTES);
  if (!read.ok) {
    if (!read.missing) report(`skill ${dir}: ${file} could not be read (${read.problem}); its policy is not applied`);
    return false;
  }
  let data: unknown;
  try {
    data = (require("yaml") as typeof import("yaml")).parse(read.text);
  } catch (error) {
    report(
      `skill ${dir}: ${file} is not valid YAML (${(error as Error).message.split("\n")[0]}); its policy is not applied`,
    );
    return false;
  }
  return isRecord(data) && isRecord(data.policy) && data.policy.allow_implicit_invocation === false;
}
