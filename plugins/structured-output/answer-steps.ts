/**
 * What the structured-output plugin does for a run with an `outputSchema`, loaded when such a run
 * first lists its tools (index.ts keeps the gate): the schema's compilation, the path chosen, the
 * StructuredOutput tool, the guidance, the response format and the checks of each attempt.
 */
import { Output, jsonSchema } from "ai";
import {
  RunEnd,
  type ModelRequest,
  type PluginContext,
  type RunContext,
  type StopInfo,
  type SystemSection,
  type Tool,
  type ToolOutput,
} from "../../src/index";
import { isZodSchema, type StructuredOutputOptions } from "./options";
import { checkText, compileSchema, loadJsonSchemaValidator, type Checked, type CompiledSchema } from "./schema";
import { chooseMode } from "./mode";
import { StructuredOutputTool } from "./tool";
import type { RunState } from "./index";
import { DEFAULT_MAX_STRUCTURED_OUTPUT_RETRIES, MAX_RETRIES_SUBTYPE, STRUCTURED_OUTPUT_TOOL } from "./names";

type StructuredOutputContext = PluginContext<undefined, RunState, StructuredOutputOptions>;

/** A run with an `outputSchema`: its compiled schema, its path and its attempts. */
export interface Active {
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

function guidance(active: Active): string {
  return active.mode === "native"
    ? "# Final answer\nYour final answer — the response in which you call no tool — must be only a JSON value that matches the required response format: no other text, no code fence."
    : `# Final answer\nWhen the task is done, give the final answer by calling the ${STRUCTURED_OUTPUT_TOOL} tool once, with the answer as its input (it must match the tool's schema). Do not write the answer as text: the run ends when the tool accepts the value.`;
}

/** A run's attempts at its answer: the state set up on first use, an accepted value, a failed attempt. */
function answers(context: StructuredOutputContext) {
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
    const state = context.run(run);
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

/** The plugin's steps for runs with an `outputSchema` (one set per kernel). */
export function answerSteps(context: StructuredOutputContext) {
  const { fail, accept, activeOf } = answers(context);
  return {
    /** `tool.list`: compile the schema (its validator loaded first), choose the path, offer the tool. */
    async tools(tools: Tool[], run: RunContext): Promise<Tool[]> {
      const { outputSchema } = context.optionsOf(run);
      if (outputSchema !== undefined && !isZodSchema(outputSchema)) await loadJsonSchemaValidator();
      const active = activeOf(run);
      return active?.tool ? [...tools.filter((t) => t.name !== STRUCTURED_OUTPUT_TOOL), active.tool] : tools;
    },
    /** `turn.system`: tell the model how the answer is given. */
    system(sections: SystemSection[], run: RunContext): SystemSection[] {
      const active = activeOf(run);
      // A new stretch of work (the next message of a live session) asks for a new answer, with fresh attempts.
      if (active && active.stretch !== run.abortSignal) {
        Object.assign(active, { stretch: run.abortSignal, failures: 0, accepted: false, exhausted: undefined });
        delete run.resultFields.structuredOutput;
      }
      return active ? [...sections, { id: "structured-output", text: guidance(active) }] : sections;
    },
    /** `model.request`: the response format; end a run whose attempts ran out in a tool call. */
    request(request: ModelRequest, run: RunContext): ModelRequest {
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
    },
    /** `turn.stop`: check a native answer, or send back a run that answered without the tool. */
    stop(info: StopInfo, run: RunContext) {
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
    },
  };
}
