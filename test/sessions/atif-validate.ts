/**
 * Validation of an ATIF document as Harbor's Pydantic models do it: ajv against the JSON Schema
 * those models generate (test/fixtures/atif/harbor-atif.schema.json: fields, types, required,
 * `extra="forbid"`, the version and source literals, `ge`/`min_length` bounds), plus the models'
 * validators, which a JSON Schema cannot say, restated here one by one.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv from "ajv";

export const schemaPath = join(import.meta.dirname, "..", "fixtures", "atif", "harbor-atif.schema.json");
const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
const validateSchema = ajv.compile(JSON.parse(readFileSync(schemaPath, "utf8")) as object);

type Doc = Record<string, unknown>;
const list = (v: unknown): Doc[] => (Array.isArray(v) ? (v as Doc[]) : []);

/** Python's `datetime.fromisoformat` after Harbor's `Z` → `+00:00`, for the forms a producer writes. */
function isoTimestamp(value: string): boolean {
  return (
    /^\d{4}-\d\d-\d\d([T ]\d\d(:\d\d(:\d\d(\.\d{1,6})?)?)?([+-]\d\d:\d\d)?)?$/.test(value.replace(/Z$/, "+00:00")) &&
    !Number.isNaN(Date.parse(value))
  );
}

/** Step: timestamp, agent-only fields, the no-LLM rule; content parts. */
function stepRules(step: Doc, at: string): string[] {
  const errors: string[] = [];
  if (typeof step.timestamp === "string" && !isoTimestamp(step.timestamp)) errors.push(`${at}.timestamp: not ISO 8601`);
  if (step.source !== "agent")
    for (const f of ["model_name", "reasoning_effort", "reasoning_content", "tool_calls", "metrics"])
      if (step[f] !== undefined && step[f] !== null) errors.push(`${at}.${f}: only on agent steps`);
  if (step.llm_call_count === 0 && step.source === "agent")
    for (const f of ["metrics", "reasoning_content"])
      if (step[f] !== undefined && step[f] !== null) errors.push(`${at}.${f}: absent when llm_call_count is 0`);
  const parts = [step.message, ...list((step.observation as Doc | undefined)?.results).map((r) => r.content)];
  for (const part of parts.flatMap((p) => list(p))) {
    const text = part.text !== undefined && part.text !== null;
    const source = part.source !== undefined && part.source !== null;
    if (part.type === "text" ? !text || source : !source || text) errors.push(`${at}: a ${part.type} part's fields`);
    else if (part.type !== "text" && String((part.source as Doc).media_type).split("/")[0] !== part.type)
      errors.push(`${at}: a ${part.type} part with another kind of source`);
  }
  return errors;
}

/** Trajectory: step ids, call ids, observation references, embedded subagents and their refs. */
function trajectoryRules(t: Doc, at: string): string[] {
  const errors: string[] = [];
  const steps = list(t.steps);
  const embedded = new Set<string>();
  list(t.subagent_trajectories).forEach((sub, i) => {
    const id = sub.trajectory_id;
    if (typeof id !== "string") errors.push(`${at}.subagent_trajectories[${i}].trajectory_id: required when embedded`);
    else if (embedded.has(id)) errors.push(`${at}.subagent_trajectories[${i}].trajectory_id: not unique`);
    else embedded.add(id);
    errors.push(...trajectoryRules(sub, `${at}.subagent_trajectories[${i}]`));
  });
  steps.forEach((step, i) => {
    const where = `${at}.steps[${i}]`;
    if (step.step_id !== i + 1) errors.push(`${where}.step_id: expected ${i + 1}`);
    errors.push(...stepRules(step, where));
    const calls = new Set<unknown>();
    for (const call of list(step.tool_calls)) {
      if (calls.has(call.tool_call_id)) errors.push(`${where}: duplicate tool_call_id ${String(call.tool_call_id)}`);
      calls.add(call.tool_call_id);
    }
    for (const result of list((step.observation as Doc | undefined)?.results)) {
      if (typeof result.source_call_id === "string" && !calls.has(result.source_call_id))
        errors.push(`${where}: source_call_id ${result.source_call_id} names no call of the step`);
      for (const ref of list(result.subagent_trajectory_ref)) {
        const id = typeof ref.trajectory_id === "string" ? ref.trajectory_id.trim() : "";
        const path = typeof ref.trajectory_path === "string" ? ref.trajectory_path.trim() : "";
        if (!id && !path) errors.push(`${where}: a subagent ref with neither trajectory_id nor trajectory_path`);
        else if (!path && !embedded.has(ref.trajectory_id as string))
          errors.push(`${where}: subagent ref ${String(ref.trajectory_id)} is not embedded`);
      }
    }
  });
  return errors;
}

/** Every reason Harbor's models would refuse `document` (empty when they accept it). */
export function harborErrors(document: unknown): string[] {
  if (!validateSchema(document))
    return (validateSchema.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message ?? ""}`);
  return trajectoryRules(document as Doc, "$");
}
