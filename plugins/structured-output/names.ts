/** The structured-output plugin's constants, shared by its gate (index.ts) and its steps. */

/** The StructuredOutput tool's name. */
export const STRUCTURED_OUTPUT_TOOL = "StructuredOutput";

/** How often an invalid value is sent back by default. */
export const DEFAULT_MAX_STRUCTURED_OUTPUT_RETRIES = 3;

/** The result subtype of a run that never produced a valid value. */
export const MAX_RETRIES_SUBTYPE = "error_max_structured_output_retries";
