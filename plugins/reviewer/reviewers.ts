/**
 * The three kinds of reviewer: a model (one call through the kernel's model path, charged to the
 * run), a command (the request as JSON on stdin, a decision as JSON on stdout, killed with its
 * process group on timeout, through the sandbox like a hook), and a function. Each resolves to a
 * decision or throws; the plugin denies on any throw (fail closed).
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { callModel, modelLabel, requestedModel, resolveModel, type RunContext } from "../../src/index";
import { buildSubprocessEnv, shellSpawn, spawnOwned } from "../_kits/process/index";
import { getSandboxApi, type SpawnSpec } from "../sandbox/api";
import {
  readDecision,
  REVIEW_INSTRUCTIONS,
  reviewPrompt,
  type ReviewDecision,
  type ReviewFunction,
  type ReviewRequest,
} from "./api";
import type { ReviewerOption } from "./options";

/** The most of a command reviewer's output that is read. */
const MAX_OUTPUT = 64 * 1024;

/** A reviewer, resolved from the option. */
export type Reviewer =
  | {
      kind: "model";
      model: string | NonNullable<RunContext["model"]> | undefined;
      instructions?: string;
      label: string;
    }
  | { kind: "command"; command: string; label: string }
  | { kind: "function"; review: ReviewFunction; label: string };

/** The reviewer an option names (undefined: the run's own model, for mode auto). */
export function reviewerOf(option: ReviewerOption | undefined): Reviewer {
  if (option === undefined) return { kind: "model", model: undefined, label: "the run's model" };
  if (typeof option === "string") return { kind: "model", model: option, label: option };
  if (typeof option === "function")
    return { kind: "function", review: option as ReviewFunction, label: "a review function" };
  if ("command" in option)
    return { kind: "command", command: option.command, label: `the command ${JSON.stringify(option.command)}` };
  if ("review" in option)
    return { kind: "function", review: option.review as ReviewFunction, label: "a review function" };
  const model = option.model as string | NonNullable<RunContext["model"]>;
  return {
    kind: "model",
    model,
    ...(option.instructions ? { instructions: option.instructions } : {}),
    label: typeof model === "string" ? model : "the reviewer model",
  };
}

/** Ask `reviewer` about `request`; throws when it gives no decision. */
export async function review(
  reviewer: Reviewer,
  request: ReviewRequest,
  run: RunContext,
  signal: AbortSignal,
): Promise<ReviewDecision> {
  switch (reviewer.kind) {
    case "function": {
      const answer = (await reviewer.review(structuredClone(request), { signal })) as unknown;
      const decision =
        typeof answer === "object" && answer !== null
          ? readDecision(JSON.stringify(answer))
          : `it returned ${JSON.stringify(answer)}`;
      if (typeof decision === "string") throw new Error(decision);
      return decision;
    }
    case "command":
      return commandReview(reviewer.command, request, run, signal);
    case "model": {
      const own = requestedModel(run.options);
      const model =
        reviewer.model !== undefined
          ? await resolveModel(run, reviewer.model, "subagent")
          : (run.model ?? (own !== undefined ? await resolveModel(run, own, "main") : undefined));
      if (!model) throw new Error("the run has no model to review with; set the reviewer option");
      const { response } = await callModel(
        run,
        {
          model,
          modelLabel: modelLabel(model, run.kernel),
          instructions: REVIEW_INSTRUCTIONS,
          messages: [{ role: "user", content: reviewPrompt(request, reviewer.instructions) }],
          maxOutputTokens: 512,
        },
        { purpose: "review" },
      );
      const decision = readDecision(response.text);
      if (typeof decision === "string") throw new Error(decision);
      return decision;
    }
  }
}

function commandReview(
  command: string,
  request: ReviewRequest,
  run: RunContext,
  signal: AbortSignal,
): Promise<ReviewDecision> {
  const payload = {
    tool_name: request.toolName,
    tool_input: request.input,
    reason: request.reason,
    intent: request.intent,
    conversation: request.conversation,
    cwd: request.cwd,
    permission_mode: request.permissionMode,
    session_id: run.sessionId,
  };
  const plain: SpawnSpec = { ...shellSpawn(command), cwd: run.cwd, env: buildSubprocessEnv(run.options) };
  const spec = getSandboxApi(run.kernel).wrap(plain, { kind: "hook", subject: command });
  return new Promise<ReviewDecision>((resolve, reject) => {
    // Its own process group under the reaper (or the sandbox), tracked: it ends with this program.
    const owned = spawnOwned(spec);
    const child = owned.child as ChildProcessWithoutNullStreams;
    let out = "";
    let err = "";
    const kill = () => owned.kill();
    const onAbort = () => {
      kill();
      reject(new Error("it did not answer in time"));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      if (out.length < MAX_OUTPUT) out += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      if (err.length < MAX_OUTPUT) err += d;
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
    child.on("error", (error) => {
      signal.removeEventListener("abort", onAbort);
      reject(error);
    });
    child.on("close", (code) => {
      signal.removeEventListener("abort", onAbort);
      kill(); // what it left running goes with it
      if (code !== 0)
        return reject(
          new Error(`it exited with ${code ?? "a signal"}${err.trim() ? `: ${err.trim().slice(0, 300)}` : ""}`),
        );
      const decision = readDecision(out);
      if (typeof decision === "string") reject(new Error(decision));
      else resolve(decision);
    });
  });
}
