/**
 * `ubiquity:structured-output`: with `outputSchema`, the run's final answer is a JSON value that
 * validates, in `result.structuredOutput`. The value comes through the provider's response format
 * (native) or a final `StructuredOutput` tool call (see `mode.ts` for which); an invalid value
 * goes back to the model with the schema's error, `maxStructuredOutputRetries` times at most,
 * then the run ends with `error_max_structured_output_retries`.
 * - `tool.list`: compile the schema, choose the path, offer the tool (after every filter)
 * - `turn.system`: tell the model how the answer is given
 * - `model.request` (ASSEMBLE): the response format; end a run whose attempts ran out in a tool call
 * - `turn.stop`: check a native answer, or send back a run that answered without the tool
 */
import { Output, jsonSchema } from "ai";
import {
  REQUEST_STAGE,
  RunEnd,
  SYSTEM_STAGE,
  type PluginContext,
  type RunContext,
  type ToolOutput,
} from "../../src/index";
import { definePlugin } from "../_kits/authoring/index";
import { isZodSchema, structuredOutputOptions, type StructuredOutputOptions } from "./options";
import { checkText, compileSchema, loadJsonSchemaValidator, type Checked, type CompiledSchema } from "./schema";
import { chooseMode } from "./mode";
import { STRUCTURED_OUTPUT_TOOL, StructuredOutputTool } from "./tool";
import { structuredOutputFlags } from "./cli";
import "./result-fields";

export { STRUCTURED_OUTPUT_TOOL, StructuredOutputTool } from "./tool";
export { compileSchema, checkText, type CompiledSchema, type Checked } from "./schema";
export { chooseMode } from "./mode";
export { structuredOutputFlags, readSchemaFile } from "./cli";

/** The plugin's name. */
export const NAME = "ubiquity:structured-output";

/** How often an invalid value is sent back by default. */
export const DEFAULT_MAX_STRUCTURED_OUTPUT_RETRIES = 3;

/** The result subtype of a run that never produced a valid value. */
export const MAX_RETRIES_SUBTYPE = "error_max_structured_output_retries";

/** A run with an `outputSchema`: its compiled schema, its path and its attempts. */
interface Active {
  compiled: CompiledSchema;
  mode: "native" | "tool";
  tool?: StructuredOutputTool;
  failures: number;
  /** Set when the tool accepted a value (the run ends after that response's calls, `run.finished`). */
  accepted: boolean;
  /** Set when the attempts ran out inside a tool call: the run ends before its next request. */
  exhausted?: string;
  /** The signal of the stretch of work these attempts belong to: each stretch of a live session gives its own answer. */
  stretch?: AbortSignal;
}

interface RunState {
  active?: Active | null;
}

function guidance(active: Active): string {
  return active.mode === "native"
    ? "# Final answer\nYour final answer — the response in which you call no tool — must be only a JSON value that matches the required response format: no other text, no code fence."
    : `# Final answer\nWhen the task is done, give the final answer by calling the ${STRUCTURED_OUTPUT_TOOL} tool once, with the answer as its input (it must match the tool's schema). Do not write the answer as text: the run ends when the tool accepts the value.`;
}

/** A run's attempts at its answer: the state set up on first use, an accepted value, a failed attempt. */
function answers(context: PluginContext<undefined, RunState, StructuredOutputOptions>) {
  /** A failed attempt: the words for the model, or (attempts spent) the reason the run ends. */
  const fail = (run: RunContext, active: Active, error: string): { retry: string } | { end: string } => {
    const max = context.optionsOf(run).maxStructuredOutputRetries ?? DEFAULT_MAX_STRUCTURED_OUTPUT_RETRIES;
    active.failures++;
    if (active.failures > max) {
      return {
        end: `No valid structured output after ${active.failures} attempts (maxStructuredOutputRetries: ${max}); the last one: ${error}`,
      };
    }
    return { retry: error };
  };

  const accept = (run: RunContext, value: unknown) => {
    run.resultFields.structuredOutput = value;
  };

  /** The run's structured-output state, set up on its first tool listing (the model is resolved by then). */
  const activeOf = (run: RunContext): Active | undefined => {
    const state = context.run(run) as RunState;
    if (state.active !== undefined) return state.active ?? undefined;
    const options = context.optionsOf(run);
    if (options.outputSchema === undefined) {
      state.active = null;
      return undefined;
    }
    const compiled = compileSchema(options.outputSchema);
    const active: Active = {
      compiled,
      mode: chooseMode(options.outputMode, run.model, compiled),
      failures: 0,
      accepted: false,
    };
    if (active.mode === "tool") {
      active.tool = new StructuredOutputTool(compiled, (checked: Checked): ToolOutput => {
        // A second call in the response that gave the answer neither replaces it nor spends an attempt.
        if (active.accepted)
          return { content: "Not taken: a value was already accepted in this response; the run ends with that one." };
        if (checked.ok) {
          active.accepted = true;
          accept(run, checked.value);
          // The answer is given: the run ends once this response's calls are answered.
          run.finished = true;
          return { content: "Accepted: this is the final answer. The run ends now." };
        }
        const outcome = fail(run, active, checked.error);
        if ("end" in outcome) {
          active.exhausted = outcome.end;
          return { content: `Refused: ${checked.error}\nNo attempts are left: the run ends.`, isError: true };
        }
        return {
          content: `Refused: the value does not match the schema:\n${checked.error}\nCall ${STRUCTURED_OUTPUT_TOOL} again with a corrected value.`,
          isError: true,
        };
      });
    }
    state.active = active;
    return active;
  };

  return { fail, accept, activeOf };
}

/** The structured-output plugin. */
export const structuredOutputPlugin = definePlugin({
  name: NAME,
  options: structuredOutputOptions,
  flags: structuredOutputFlags,
  runState: (): RunState => ({}),
  apply(kernel, context) {
    const { fail, accept, activeOf } = answers(context);

    kernel.hooks.tool.list.tapPromise(NAME, async (tools, run) => {
      // The first hook of a run: a JSON Schema's validator is loaded here, only when one is given.
      const { outputSchema } = context.optionsOf(run);
      if (outputSchema !== undefined && !isZodSchema(outputSchema)) await loadJsonSchemaValidator();
      const active = activeOf(run);
      return active?.tool ? [...tools.filter((t) => t.name !== STRUCTURED_OUTPUT_TOOL), active.tool] : tools;
    });

    kernel.hooks.turn.system.tap({ name: NAME, stage: SYSTEM_STAGE.FEATURES }, (sections, run) => {
      const active = activeOf(run);
      // A new stretch of work (the next message of a live session) asks for a new answer, with fresh attempts.
      if (active && active.stretch !== run.abortSignal) {
        Object.assign(active, { stretch: run.abortSignal, failures: 0, accepted: false, exhausted: undefined });
        delete run.resultFields.structuredOutput;
      }
      return active ? [...sections, { id: "structured-output", text: guidance(active) }] : sections;
    });

    kernel.hooks.model.request.tap({ name: NAME, stage: REQUEST_STAGE.ASSEMBLE }, (request, run) => {
      if ((request.purpose ?? "turn") !== "turn") return request;
      const active = activeOf(run);
      if (!active) return request;
      if (active.exhausted) throw new RunEnd(active.exhausted, MAX_RETRIES_SUBTYPE);
      if (active.mode !== "native") return request;
      return {
        ...request,
        output: Output.object({
          schema: jsonSchema(active.compiled.jsonSchema as Parameters<typeof jsonSchema>[0]),
          name: "final_answer",
        }),
      };
    });

    kernel.hooks.turn.stop.tap(NAME, (info, run) => {
      const active = activeOf(run);
      if (!active || active.accepted) return undefined;
      if (active.mode === "native") {
        const checked = checkText(info.text, active.compiled);
        if (checked.ok) {
          accept(run, checked.value);
          return undefined;
        }
        const outcome = fail(run, active, checked.error);
        if ("end" in outcome) throw new RunEnd(outcome.end, MAX_RETRIES_SUBTYPE);
        return {
          continueWith: `Your final answer does not match the required output schema:\n${outcome.retry}\nAnswer again with only the corrected JSON value.`,
        };
      }
      const outcome = fail(run, active, `the run ended without a ${STRUCTURED_OUTPUT_TOOL} call`);
      if ("end" in outcome) throw new RunEnd(outcome.end, MAX_RETRIES_SUBTYPE);
      return {
        continueWith: `You ended without giving the final answer. Call the ${STRUCTURED_OUTPUT_TOOL} tool now, with the answer as its input.`,
      };
    });
  },
});

export default structuredOutputPlugin;

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
