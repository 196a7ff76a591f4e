/**
 * Ubiquity's AskUserQuestion as the harness's `askUserQuestions` built-in: the call goes to the
 * host as a client-executed tool call (`HarnessAgent` pauses for the UI's answer), and the
 * host's answer comes back as the `answers` Ubiquity's permission prompt fills in.
 */
import { z } from "zod";
import type { HarnessV1BuiltinTool } from "@ai-sdk/harness";
import type { PermissionResult } from "../src/index";

/** Ubiquity's tool name, and the harness's. */
export const ASK_USER = "AskUserQuestion";
export const HARNESS_QUESTIONS = "askUserQuestions";

/** The harness's `askUserQuestions` declaration (the same schemas as `@ai-sdk/harness`, which is loaded lazily). */
export function questionsTool(): HarnessV1BuiltinTool {
  const question = z.object({
    id: z.string().min(1),
    question: z.string().min(1),
    header: z.string().optional(),
    options: z
      .array(
        z.object({
          id: z.string().min(1),
          label: z.string().min(1),
          description: z.string().optional(),
          preview: z.string().optional(),
        }),
      )
      .optional(),
    allowMultiple: z.boolean().optional(),
    allowFreeForm: z.union([z.boolean(), z.object({ secret: z.boolean() })]).optional(),
  });
  const answer = z.object({ optionIds: z.array(z.string()), freeform: z.string().optional() });
  return {
    description: "Ask the user one or more questions",
    inputSchema: z.object({ allowPartialAnswers: z.boolean(), questions: z.array(question).min(1) }),
    outputSchema: z.discriminatedUnion("action", [
      z.object({ action: z.literal("answered"), answers: z.record(z.string(), answer) }),
      z.object({ action: z.literal("partially-answered"), answers: z.record(z.string(), answer) }),
      z.object({ action: z.literal("declined") }),
      z.object({ action: z.literal("cancelled") }),
    ]),
  };
}

interface UbiquityQuestion {
  question: string;
  header?: string;
  options: Array<{ label: string; description?: string }>;
  multiSelect?: boolean;
}

function questionsOf(input: unknown): UbiquityQuestion[] {
  const questions = (input as { questions?: unknown } | null)?.questions;
  return Array.isArray(questions) ? (questions as UbiquityQuestion[]) : [];
}

/** The model's AskUserQuestion input as `askUserQuestions` input (question `q<i>`, options by label). */
export function toHarnessQuestions(input: unknown) {
  return {
    allowPartialAnswers: true,
    questions: questionsOf(input).map((q, i) => ({
      id: `q${i}`,
      question: q.question,
      ...(q.header ? { header: q.header } : {}),
      options: (q.options ?? []).map((o) => ({
        id: o.label,
        label: o.label,
        ...(o.description ? { description: o.description } : {}),
      })),
      allowMultiple: q.multiSelect === true,
      allowFreeForm: true,
    })),
  };
}

/** The host's `askUserQuestions` output as the permission answer AskUserQuestion runs with. */
export function answerFromHost(input: Record<string, unknown>, output: unknown): PermissionResult {
  const o = output as { action?: string; answers?: Record<string, { optionIds?: string[]; freeform?: string }> } | null;
  if (o?.action !== "answered" && o?.action !== "partially-answered") {
    return {
      behavior: "deny",
      message: `The user ${o?.action === "cancelled" ? "cancelled" : "declined"} the questions.`,
    };
  }
  const answers: Record<string, string | string[]> = {};
  questionsOf(input).forEach((q, i) => {
    const a = o.answers?.[`q${i}`];
    if (!a) return;
    const picked = [...(a.optionIds ?? []), ...(a.freeform ? [a.freeform] : [])];
    answers[q.question] = q.multiSelect ? picked : (picked[0] ?? "");
  });
  return { behavior: "allow", updatedInput: { ...input, answers } };
}
