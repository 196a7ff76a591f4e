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
import { REQUEST_STAGE, SYSTEM_STAGE, type RunContext } from "../../src/index";
import { definePlugin } from "../_kits/authoring/index";
import { lazyImport } from "../_kits/lazy/index";
import type { Active } from "./answer-steps";
import { structuredOutputOptions } from "./options";
import { structuredOutputFlags } from "./cli";
import "./result-fields";

export type { CompiledSchema, Checked } from "./schema";
export { structuredOutputFlags, readSchemaFile } from "./cli";
export { DEFAULT_MAX_STRUCTURED_OUTPUT_RETRIES, MAX_RETRIES_SUBTYPE, STRUCTURED_OUTPUT_TOOL } from "./names";

// What a run with an `outputSchema` needs: loaded by the first such run's first hook.
const steps = lazyImport(() => import("./answer-steps"));

/** The plugin's name. */
export const NAME = "ubiquity:structured-output";

/** A run's structured-output state (`null`: the run has no `outputSchema`). */
export interface RunState {
  active?: Active | null;
}

/** The structured-output plugin. */
export const structuredOutputPlugin = definePlugin({
  name: NAME,
  options: structuredOutputOptions,
  flags: structuredOutputFlags,
  runState: (): RunState => ({}),
  apply(kernel, context) {
    let loaded: ReturnType<Awaited<ReturnType<typeof steps>>["answerSteps"]> | undefined;
    /** The steps, for a run with an `outputSchema`; a run without one loads nothing. */
    const stepsFor = async (run: RunContext) => {
      if (context.optionsOf(run).outputSchema === undefined) return undefined;
      loaded ??= (await steps()).answerSteps(context);
      return loaded;
    };

    kernel.hooks.tool.list.tapPromise(NAME, async (tools, run) => {
      // The first hook of a run: the code (and a JSON Schema's validator) is loaded here, only when a schema is given.
      const s = await stepsFor(run);
      return s ? s.tools(tools, run) : tools;
    });

    kernel.hooks.turn.system.tapPromise({ name: NAME, stage: SYSTEM_STAGE.FEATURES }, async (sections, run) => {
      const s = await stepsFor(run);
      return s ? s.system(sections, run) : sections;
    });

    kernel.hooks.model.request.tapPromise({ name: NAME, stage: REQUEST_STAGE.ASSEMBLE }, async (request, run) => {
      if ((request.purpose ?? "turn") !== "turn") return request;
      const s = await stepsFor(run);
      return s ? s.request(request, run) : request;
    });

    kernel.hooks.turn.stop.tapPromise(NAME, async (info, run) => {
      const s = await stepsFor(run);
      return s ? s.stop(info, run) : undefined;
    });
  },
});

export default structuredOutputPlugin;

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
