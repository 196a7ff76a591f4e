/**
 * AskUserQuestion: the model puts one to four multiple-choice questions to the user. The tool
 * has no waiting machinery of its own — it always asks, and the `canUseTool` handler that
 * answers the prompt renders the questions and hands the answers back in `updatedInput.answers`.
 * The model cannot fill `answers` itself: it is not in the schema the model sees, and a call
 * that carries it is refused.
 */
import { z } from "zod";
import { Tool, type ToolOutput, type ToolPermission } from "../../src/index";

const Option = z.strictObject({
  label: z.string().min(1).describe("The choice, as the user sees it (a few words)"),
  description: z.string().describe("What picking it means"),
});

const Question = z.strictObject({
  question: z.string().min(1).describe("The full question, ending with a question mark"),
  header: z
    .string()
    .min(1)
    .max(12)
    .describe('A very short label for the question (at most 12 characters), e.g. "Auth method"'),
  options: z
    .array(Option)
    .min(2)
    .max(4)
    .describe("2 to 4 choices, each with its own label; the user may also answer in their own words"),
  multiSelect: z.boolean().optional().describe("Let the user pick several options [false]"),
});

/** What the model sends. */
export const AskUserQuestionModelInput = z.strictObject({
  questions: z.array(Question).min(1).max(4).describe("1 to 4 questions"),
});

/** What the tool runs with: the model's questions plus the answers the handler collected. */
export const AskUserQuestionInput = AskUserQuestionModelInput.extend({
  answers: z.record(z.string(), z.union([z.string(), z.array(z.string())])).optional(),
});
export type AskUserQuestionInput = z.output<typeof AskUserQuestionInput>;

const DESCRIPTION = `Put one to four multiple-choice questions to the user and continue with their answers.
Use it when you cannot go on well without the user's decision: a choice between approaches, an ambiguous requirement, a preference. Do not use it to ask for permission to run a tool (that is asked for you) or for questions you can answer by looking at the code.
Each question has a short header (at most 12 characters), 2 to 4 options with a label and a description, and multiSelect when several answers make sense. The user may also answer in their own words.`;

/** The AskUserQuestion tool. */
export class AskUserQuestionTool extends Tool<typeof AskUserQuestionInput> {
  readonly name = "AskUserQuestion";
  /** A person answers: no time limit of the funnel's (the abort still ends it). */
  override timeoutMs = Infinity;
  readonly description = DESCRIPTION;
  readonly inputSchema = AskUserQuestionInput;

  constructor() {
    super();
    // The model sees the questions only: answers come from the user, never from the model.
    // Converted when first read: a run without a question handler never offers the tool (cold start).
    const settle = (value: Record<string, unknown> | undefined) =>
      Object.defineProperty(this, "jsonSchema", { value, writable: true, enumerable: true, configurable: true });
    Object.defineProperty(this, "jsonSchema", {
      get: () => settle(modelSchema()).jsonSchema,
      set: settle,
      enumerable: true,
      configurable: true,
    });
  }

  override isReadOnly() {
    return true;
  }

  // The prompt is the tool: it asks even under bypassPermissions or an allow rule.
  override checkPermissions(): ToolPermission {
    return { behavior: "ask", message: "AskUserQuestion puts questions to the user." };
  }

  override validateInput(input: AskUserQuestionInput): string | undefined {
    if (input.answers !== undefined)
      return "answers is filled in by the user's reply; call AskUserQuestion with questions only";
    const texts = input.questions.map((q) => q.question);
    if (new Set(texts).size !== texts.length)
      return "two questions have the same text; each question must be different";
    for (const q of input.questions) {
      const labels = q.options.map((o) => o.label);
      const twice = labels.find((label, i) => labels.indexOf(label) !== i);
      // An answer names its option by label: two alike would make the user's pick ambiguous.
      if (twice !== undefined)
        return `two options of ${JSON.stringify(q.question)} have the label ${JSON.stringify(twice)}; each option of a question must have its own label`;
    }
    return undefined;
  }

  async call(input: AskUserQuestionInput): Promise<ToolOutput> {
    const answers = input.answers ?? {};
    const given = input.questions.filter((q) => answerText(answers[q.question]) !== "");
    if (given.length === 0) {
      return {
        content:
          "Nobody answered: the permission handler allowed AskUserQuestion without collecting any answers, so the user was never asked. Do not assume an answer; go on with what you know, or ask in your reply.",
        isError: true,
      };
    }
    const lines = ["The user answered:"];
    for (const q of input.questions) {
      const answer = answerText(answers[q.question]);
      lines.push(`- ${q.question}`, `  → ${answer === "" ? "(no answer)" : answer}`);
    }
    return { content: lines.join("\n"), metadata: { answers } };
  }
}

function modelSchema(): Record<string, unknown> {
  const { $schema: _drop, ...schema } = z.toJSONSchema(AskUserQuestionModelInput, { io: "input" }) as Record<
    string,
    unknown
  >;
  return schema;
}

function answerText(answer: string | string[] | undefined): string {
  return (Array.isArray(answer) ? answer.join(", ") : (answer ?? "")).trim();
}
