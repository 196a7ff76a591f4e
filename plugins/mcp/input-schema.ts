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
import { lazyRequire } from "../_kits/lazy/index";

/** The validated input of an MCP tool: the arguments object, unchanged. */
export type McpToolInput = Record<string, unknown>;

let shared: AjvJsonSchemaValidator | undefined;

// Loaded with the first schema compiled (a run without MCP tools never needs it).
const v8 = lazyRequire<typeof import("node:v8")>("node:v8");
let linearEngine: boolean | undefined;

/** True when V8's linear-time engine (the `l` flag) can be had; it is turned on the first time. */
function hasLinearEngine(): boolean {
  if (linearEngine === undefined) {
    try {
      // Only adds the `l` flag: no other regular expression of the process changes engine.
      v8().setFlagsFromString("--enable-experimental-regexp-engine");
      // biome-ignore lint/complexity/useRegexLiterals: a literal with the \`l\` flag does not parse without the V8 flag
      linearEngine = new RegExp("a", "l").test("a");
    } catch {
      linearEngine = false;
    }
  }
  return linearEngine;
}

/** True for a pattern that means the same with and without `u`: ASCII without `\p{…}`, `\P{…}`, `\u{…}`. */
const sameWithoutU = (pattern: string) => /^[\x20-\x7e\t]*$/.test(pattern) && !/\\[pP]\{|\\u\{/.test(pattern);

/** A pattern that is not run (below): it takes every string, the server checking its own data. */
const NOT_RUN = { test: () => true, toString: () => "(a pattern with no linear-time form: not run)" };

/**
 * How ajv runs the regular expressions of a server's schema (`pattern`, `patternProperties`): in
 * V8's linear-time engine. JavaScript's own engine backtracks, and the server writes both the
 * pattern and (for its output, or by asking the model) the text: `^(a|a)*$` against 40 a's and a
 * "!" held the host's thread for days, every session and timer with it (red team za, Z6). A pattern
 * that engine cannot run (a backreference, a lookaround), or a runtime without it, checks nothing:
 * these checks are a courtesy to the model, the server checks its own input.
 */
export const linearRegExp = Object.assign(
  (pattern: string, flags: string) => {
    // The linear engine takes no `u` (ajv's default): a pattern means the same without it when
    // it is ASCII and names no property (\p) or code point (\u{…}); any other is not run.
    if (!hasLinearEngine() || (flags.includes("u") && !sameWithoutU(pattern))) return NOT_RUN;
    try {
      return new RegExp(pattern, `${flags.replace("u", "")}l`);
    } catch {
      return NOT_RUN;
    }
  },
  { code: "linearRegExp" },
);

/**
 * The validator for server schemas (tool inputs here, tool outputs in the client): one draft-07
 * ajv with formats, as MCP SDK 1.x built it. The client package's default would pick the engine
 * by `$schema` (2020-12 when absent, an error for an unknown one), which judges some schemas differently.
 */
export function mcpSchemaValidator(): AjvJsonSchemaValidator {
  if (!shared) {
    const ajv = new Ajv({
      strict: false,
      validateFormats: true,
      validateSchema: false,
      allErrors: true,
      code: { regExp: linearRegExp },
    });
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
