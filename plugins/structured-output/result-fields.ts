/** What the structured-output plugin adds to `result`: the validated value, and the subtype of a run that never produced one. */
export {};

declare module "../../src/messages" {
  interface ResultFields {
    /** The final answer as a validated JSON value (with `outputSchema`); absent when the run failed. */
    structuredOutput?: unknown;
  }
  interface ResultSubtypes {
    /** Every value the model gave failed the schema, `maxStructuredOutputRetries` corrections included. */
    error_max_structured_output_retries: true;
  }
}
