/** What other plugins use of structured output: the schema of an `outputSchema` (subagent definitions declare one too). */
export { OutputSchemaSchema, isZodSchema, type OutputSchema, type JsonSchemaObject } from "./options";
