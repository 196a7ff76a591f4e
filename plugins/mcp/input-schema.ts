/**
 * A server's tool input arrives as JSON Schema. The model is offered that schema as given
 * (`Tool.jsonSchema`); the funnel validates with a zod schema whose check is the JSON Schema
 * itself (less what the server fills in or strips, lenient-schema.ts), run by the MCP SDK's own
 * ajv validator: a call the server would take is never refused here.
 */
import { z } from "zod";
import { Ajv, addFormats, AjvJsonSchemaValidator } from "@modelcontextprotocol/client/validators/ajv";
import type { JsonSchemaType, JsonSchemaValidator } from "@modelcontextprotocol/client";
import { lenientInputSchema } from "./lenient-schema";

/** The validated input of an MCP tool: the arguments object, unchanged. */
export type McpToolInput = Record<string, unknown>;

let shared: AjvJsonSchemaValidator | undefined;

/**
 * The validator for server schemas (tool inputs here, tool outputs in the client): one draft-07
 * ajv with formats, as MCP SDK 1.x built it. The client package's default would pick the engine
 * by `$schema` (2020-12 when absent, an error for an unknown one), which judges some schemas differently.
 */
export function mcpSchemaValidator(): AjvJsonSchemaValidator {
  if (!shared) {
    const ajv = new Ajv({ strict: false, validateFormats: true, validateSchema: false, allErrors: true });
    addFormats(ajv);
    shared = new AjvJsonSchemaValidator(ajv);
  }
  return shared;
}

/**
 * A zod schema that accepts an object when the lenient form of `jsonSchema` does
 * (lenient-schema.ts: what the server fills in or strips is not checked here). The schema is
 * compiled on first use (a server may list dozens of tools the run never calls). A schema ajv
 * cannot compile or run validates nothing here: the server still checks its own input, and
 * `onUncompilable` says why.
 */
export function jsonSchemaInput(
  jsonSchema: Record<string, unknown>,
  onUncompilable: (error: unknown) => void,
): z.ZodType<McpToolInput> {
  let check: JsonSchemaValidator<McpToolInput> | null | undefined;
  const compile = () => {
    try {
      return mcpSchemaValidator().getValidator<McpToolInput>(lenientInputSchema(jsonSchema) as JsonSchemaType);
    } catch (error) {
      onUncompilable(error);
      return null;
    }
  };
  return z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
    if (check === undefined) check = compile();
    if (!check) return;
    let result: ReturnType<JsonSchemaValidator<McpToolInput>>;
    try {
      result = check(value);
    } catch (error) {
      onUncompilable(error);
      check = null;
      return;
    }
    if (!result.valid) ctx.addIssue({ code: "custom", message: result.errorMessage });
  });
}
