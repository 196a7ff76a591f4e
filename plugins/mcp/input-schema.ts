/**
 * A server's tool input arrives as JSON Schema. The model is offered that schema as given
 * (`Tool.jsonSchema`); the funnel validates with a zod schema whose check is the JSON Schema
 * itself, run by the MCP SDK's own ajv validator, so the rules are exactly the server's.
 */
import { z } from "zod";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { JsonSchemaType, JsonSchemaValidator } from "@modelcontextprotocol/sdk/validation";

/** The validated input of an MCP tool: the arguments object, unchanged. */
export type McpToolInput = Record<string, unknown>;

let shared: AjvJsonSchemaValidator | undefined;

/**
 * A zod schema that accepts an object when `jsonSchema` does. The schema is compiled on first
 * use (a server may list dozens of tools the run never calls). A schema ajv cannot compile
 * validates nothing here: the server still checks its own input, and `onUncompilable` says why.
 */
export function jsonSchemaInput(jsonSchema: Record<string, unknown>, onUncompilable: (error: unknown) => void): z.ZodType<McpToolInput> {
  let check: JsonSchemaValidator<McpToolInput> | null | undefined;
  const compile = () => {
    try {
      shared ??= new AjvJsonSchemaValidator();
      return shared.getValidator<McpToolInput>(jsonSchema as JsonSchemaType);
    } catch (error) {
      onUncompilable(error);
      return null;
    }
  };
  return z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
    if (check === undefined) check = compile();
    if (!check) return;
    const result = check(value);
    if (!result.valid) ctx.addIssue({ code: "custom", message: result.errorMessage });
  });
}
