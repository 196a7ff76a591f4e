/**
 * An output schema compiled once per run: the JSON Schema the model is shown (a zod schema's is
 * derived, a JSON Schema is passed as given) and the check a value must pass. A zod schema checks
 * with zod (its output, defaults and transforms applied, is the value); a JSON Schema with the
 * ajv validator the MCP client package ships (bundled in it), so no second validator is installed.
 */
import { z } from "zod";
import type { AjvJsonSchemaValidator } from "@modelcontextprotocol/client/validators/ajv";
import type { JsonSchemaType } from "@modelcontextprotocol/client";
import { describeError } from "../../src/index";
import { isZodSchema, type JsonSchemaObject, type OutputSchema } from "./options";

/** A check's verdict: the value (zod's output for a zod schema), or what is wrong with it. */
export type Checked = { ok: true; value: unknown } | { ok: false; error: string };

/** A compiled output schema. */
export interface CompiledSchema {
  /** The JSON Schema of the value, without `$schema`. */
  jsonSchema: JsonSchemaObject;
  /** True when the value must be a JSON object (what native response formats and tool inputs require). */
  isObject: boolean;
  /** True when every object in it closes its properties and requires them all (what OpenAI's strict mode accepts). */
  strict: boolean;
  check(value: unknown): Checked;
}

type AjvModule = typeof import("@modelcontextprotocol/client/validators/ajv");
let loaded: AjvModule | undefined;
let ajv: AjvJsonSchemaValidator | undefined;

/** Load the JSON Schema validator (ajv, bundled in the MCP client package) before `compileSchema` meets a JSON Schema: a run without one never loads it. */
export async function loadJsonSchemaValidator(): Promise<void> {
  loaded ??= await import("@modelcontextprotocol/client/validators/ajv");
}

/**
 * One draft-07 ajv with formats, as MCP SDK 1.x built it (the client package's default picks
 * the engine by `$schema`, and `$schema` is dropped before compiling).
 */
function validator(module: AjvModule): AjvJsonSchemaValidator {
  if (!ajv) {
    const engine = new module.Ajv({ strict: false, validateFormats: true, validateSchema: false, allErrors: true });
    module.addFormats(engine);
    ajv = new module.AjvJsonSchemaValidator(engine);
  }
  return ajv;
}

/** Compile `schema`; throws a clear error for a JSON Schema ajv cannot compile. */
export function compileSchema(schema: OutputSchema): CompiledSchema {
  if (isZodSchema(schema)) {
    const { $schema: _drop, ...jsonSchema } = closeObjects(
      z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }),
    ) as JsonSchemaObject;
    const check = (value: unknown): Checked => {
      const parsed = schema.safeParse(value);
      return parsed.success ? { ok: true, value: parsed.data } : { ok: false, error: z.prettifyError(parsed.error) };
    };
    return describe(jsonSchema, check);
  }
  const { $schema: _drop, ...jsonSchema } = schema;
  let validate: ReturnType<AjvJsonSchemaValidator["getValidator"]>;
  if (!loaded) throw new Error("the JSON Schema validator is not loaded (await loadJsonSchemaValidator() first)");
  try {
    validate = validator(loaded).getValidator(jsonSchema as JsonSchemaType);
  } catch (error) {
    throw new Error(`outputSchema is not a JSON Schema that can be compiled: ${describeError(error)}`);
  }
  const check = (value: unknown): Checked => {
    const result = validate(value);
    return result.valid
      ? { ok: true, value }
      : { ok: false, error: result.errorMessage ?? "the value does not match the schema" };
  };
  return describe(jsonSchema, check);
}

function describe(jsonSchema: JsonSchemaObject, check: CompiledSchema["check"]): CompiledSchema {
  return { jsonSchema, isObject: jsonSchema.type === "object", strict: isStrict(jsonSchema), check };
}

/**
 * A zod object drops unknown keys when it parses, so its input schema leaves them open; the model
 * is shown them closed (`additionalProperties: false`, which OpenAI's strict mode requires).
 */
function closeObjects<T>(node: T): T {
  if (Array.isArray(node)) return node.map(closeObjects) as T;
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) out[key] = closeObjects(value);
  if (out.type === "object" && typeof out.properties === "object" && !("additionalProperties" in out))
    out.additionalProperties = false;
  return out as T;
}

/** Every object schema inside `node` lists all its properties as required and allows no others. */
function isStrict(node: unknown): boolean {
  if (Array.isArray(node)) return node.every(isStrict);
  if (typeof node !== "object" || node === null) return true;
  const n = node as Record<string, unknown>;
  if (typeof n.properties === "object" && n.properties !== null) {
    const keys = Object.keys(n.properties);
    const required = Array.isArray(n.required) ? n.required : [];
    if (n.additionalProperties !== false || !keys.every((k) => required.includes(k))) return false;
  }
  return Object.values(n).every(isStrict);
}

/** Parse a final answer's text as JSON (a single surrounding code fence is tolerated) and check it. */
export function checkText(text: string, compiled: CompiledSchema): Checked {
  const trimmed = text.trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(trimmed);
  let value: unknown;
  try {
    value = JSON.parse(fenced ? fenced[1]! : trimmed);
  } catch (error) {
    return {
      ok: false,
      error: trimmed
        ? `the answer is not valid JSON (${describeError(error)})`
        : "the answer is empty: it must be a JSON value",
    };
  }
  return compiled.check(value);
}
