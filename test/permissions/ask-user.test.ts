/** AskUserQuestion: offered only where someone can answer, always asks, answers come only from the handler. */
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createKernel, summon, type SummonOptions } from "ubiquity";
import { createRun, toolJsonSchema } from "../../src/index";
import { scriptedModel } from "ubiquity/testing";
import permissions from "ubiquity/plugins/permissions";
import toolAskUser, { AskUserQuestionTool, askInTerminal } from "../../plugins/tool-ask-user/index";
import { terminalApprover } from "../../runner/run";
import { collect } from "../helpers/collect";
import { recordingHandler, runCalls, tempDir } from "./helpers";

const QUESTIONS = [
  {
    question: "Which database should the service use?",
    header: "Database",
    options: [
      { label: "Postgres", description: "Relational, already in the stack" },
      { label: "SQLite", description: "One file, no server" },
    ],
  },
];
const ask = (input: Record<string, unknown> = { questions: QUESTIONS }) => ({ toolName: "AskUserQuestion", input });
const plugins = () => [permissions(), toolAskUser()];

async function offeredTools(options: SummonOptions) {
  const messages = await collect(
    summon("hi", { presets: [], plugins: plugins(), model: scriptedModel(["ok"]), cwd: tempDir(), ...options }),
  );
  return (messages[0] as { tools: string[] }).tools;
}

describe("AskUserQuestion", () => {
  it("is offered only when canUseTool is set", async () => {
    expect(await offeredTools({})).not.toContain("AskUserQuestion");
    expect(await offeredTools({ canUseTool: () => ({ behavior: "deny", message: "x" }) })).toContain("AskUserQuestion");
  });

  it("is never offered to a subagent", async () => {
    const kernel = createKernel({
      presets: [],
      plugins: plugins(),
      canUseTool: () => ({ behavior: "deny", message: "x" }),
    });
    const abortSignal = new AbortController().signal;
    const parent = createRun({ kernel, abortSignal, sink: () => {} });
    const child = createRun({
      kernel,
      abortSignal,
      sink: () => {},
      parent,
      agent: { agentId: "a1", agentType: "worker", parentToolUseId: "u1" },
    });
    const names = async (run: typeof parent) =>
      (await kernel.hooks.tool.list.promise(kernel.registries.tools.values(), run)).map((t) => t.name);
    expect(await names(parent)).toContain("AskUserQuestion");
    expect(await names(child)).not.toContain("AskUserQuestion");
  });

  it("always asks, even under bypassPermissions and an allow rule; the handler answers through updatedInput.answers", async () => {
    const { handler, asked } = recordingHandler((_n, input) => ({
      behavior: "allow",
      updatedInput: { ...input, answers: { "Which database should the service use?": "SQLite" } },
    }));
    const { results } = await runCalls([ask()], {
      cwd: tempDir(),
      plugins: plugins(),
      canUseTool: handler,
      permissionMode: "bypassPermissions",
      allowedTools: ["AskUserQuestion"],
    });
    expect(asked.map((a) => a.toolName)).toEqual(["AskUserQuestion"]);
    expect(asked[0]!.input).toEqual({ questions: QUESTIONS });
    expect(results[0]!.output).toMatchObject({
      isError: false,
      content: "The user answered:\n- Which database should the service use?\n  → SQLite",
    });
  });

  it("the model cannot fill answers itself, and does not see the field", async () => {
    const { handler, asked } = recordingHandler();
    const { results } = await runCalls(
      [ask({ questions: QUESTIONS, answers: { "Which database should the service use?": "Postgres" } })],
      {
        cwd: tempDir(),
        plugins: plugins(),
        canUseTool: handler,
      },
    );
    expect(results[0]!.output.isError).toBe(true);
    expect(results[0]!.output.content).toContain("answers is filled in by the user's reply");
    expect(asked).toEqual([]);
    const schema = toolJsonSchema(new AskUserQuestionTool()) as {
      properties: Record<string, unknown>;
      additionalProperties?: unknown;
    };
    expect(Object.keys(schema.properties)).toEqual(["questions"]);
  });

  it("refuses two options with the same label in one question", async () => {
    const { handler, asked } = recordingHandler();
    const twice = [
      {
        ...QUESTIONS[0]!,
        options: [
          { label: "Postgres", description: "a" },
          { label: "Postgres", description: "b" },
        ],
      },
    ];
    const { results } = await runCalls([ask({ questions: twice })], {
      cwd: tempDir(),
      plugins: plugins(),
      canUseTool: handler,
    });
    expect(results[0]!.output.isError).toBe(true);
    expect(results[0]!.output.content).toContain('have the label "Postgres"');
    expect(asked).toEqual([]);
  });

  it("an allow with no answers returns an error result telling the model nobody was asked", async () => {
    const { handler } = recordingHandler({ behavior: "allow" });
    const { results } = await runCalls([ask()], { cwd: tempDir(), plugins: plugins(), canUseTool: handler });
    expect(results[0]!.output.isError).toBe(true);
    expect(results[0]!.output.content).toMatch(/^Nobody answered: .* so the user was never asked/);
  });

  it("dontAsk declines it without asking", async () => {
    const { handler, asked } = recordingHandler();
    const { results } = await runCalls([ask()], {
      cwd: tempDir(),
      plugins: plugins(),
      canUseTool: handler,
      permissionMode: "dontAsk",
    });
    expect(results[0]!.output.isError).toBe(true);
    expect(results[0]!.output.content).toContain("dontAsk");
    expect(asked).toEqual([]);
  });

  it("validates the questions: 1–4 questions, a header of at most 12 characters, 2–4 options", () => {
    const schema = new AskUserQuestionTool().inputSchema;
    const q = QUESTIONS[0]!;
    expect(schema.safeParse({ questions: [q] }).success).toBe(true);
    expect(schema.safeParse({ questions: [] }).success).toBe(false);
    expect(schema.safeParse({ questions: [q, q, q, q, q] }).success).toBe(false);
    expect(schema.safeParse({ questions: [{ ...q, header: "Thirteen chars" }] }).success).toBe(false);
    expect(schema.safeParse({ questions: [{ ...q, options: [q.options[0]] }] }).success).toBe(false);
    expect(schema.safeParse({ questions: [{ ...q, multiSelect: true }] }).success).toBe(true);
  });

  it("the runner's terminal approver answers it with its numbered picker", async () => {
    const errors: string[] = [];
    const approver = terminalApprover(
      { stdout: () => {}, stderr: (t) => void errors.push(t), stdin: Readable.from(["2\n"]), stdoutIsTTY: true },
      { answerers: [askInTerminal] },
    );
    const answer = await approver(
      "AskUserQuestion",
      { questions: QUESTIONS },
      { signal: new AbortController().signal, suggestions: [], toolUseId: "u1" },
    );
    expect(answer).toMatchObject({
      behavior: "allow",
      updatedInput: { answers: { "Which database should the service use?": "SQLite" } },
    });
    const tool = new AskUserQuestionTool();
    const parsed = tool.inputSchema.parse((answer as { updatedInput: unknown }).updatedInput);
    expect((await tool.call(parsed)).content).toContain("→ SQLite");
    expect(errors.join("")).toContain("2. SQLite");
  });
});
