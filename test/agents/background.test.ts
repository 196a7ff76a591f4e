import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, summon, type Kernel, type Message, type SummonOptions } from "ubiquity";
import { scriptedModel, type Script } from "ubiquity/testing";
import agents, { BACKGROUND_NOTE, SUBAGENT_NOTE } from "../../plugins/agents/index";
import systemPrompt from "ubiquity/plugins/system-prompt";
import permissions from "ubiquity/plugins/permissions";
import pricing from "ubiquity/plugins/pricing";
import { tasksOf } from "../../plugins/_kits/tasks/index";
import { collect, ofType, resultOf } from "../helpers/collect";
import { agentOf, answered, echo, systemOf } from "./helpers";
import { gate, latest, told } from "./background-helpers";
import background from "ubiquity/plugins/background";

const WORKER = { description: "Works on a task", prompt: "You are WORKER." };

async function run(
  script: Script,
  { plugins = [background()], tools = [], ...options }: SummonOptions & { tools?: SummonOptions["tools"] },
) {
  const model = scriptedModel(script);
  const messages: Message[] = await collect(
    summon("go", {
      model,
      presets: [],
      plugins: [systemPrompt(), agents(), ...plugins],
      tools: [echo, ...(tools ?? [])],
      agents: { worker: WORKER },
      ...options,
    }),
  );
  return { model, messages, result: resultOf(messages) };
}

const bg = (id: string, name?: string, prompt = "count the files") => ({
  toolName: "Agent",
  id,
  input: {
    subagent_type: "worker",
    description: "count files",
    prompt,
    run_in_background: true,
    ...(name ? { name } : {}),
  },
});

/** The run's own results of `toolName`, in call order (parallel calls finish in any order). */
const resultsOf = (messages: Message[], toolName: string) =>
  ofType(messages, "tool_result")
    .filter((m) => m.toolName === toolName && !m.agentId)
    .sort((a, b) => (a.toolUseId < b.toolUseId ? -1 : a.toolUseId > b.toolUseId ? 1 : 0));

/** A tool that returns once `reached` resolved (the worker is at its gate). */
const waitFor = (reached: Promise<void>) =>
  defineTool({
    name: "WaitForWorker",
    description: "Wait for the worker.",
    inputSchema: z.object({}),
    isReadOnly: true,
    isConcurrencySafe: true,
    execute: async () => (await reached, "the worker is at its gate"),
  });

describe("background agents", () => {
  it("return at once with the task id, run concurrently, and the run waits for them: the reply is the next prompt, the usage and cost the run's", async () => {
    const g = gate();
    let parentCalls = 0;
    const { model, messages, result } = await run(
      ({ request }) => {
        if (agentOf(request) === "WORKER")
          return answered(request)
            ? { text: "worker report: 42", usage: { outputTokens: 1000 } }
            : { toolCalls: [{ toolName: "Gate", input: {} }], usage: { outputTokens: 1000 } };
        parentCalls++;
        if (told(request).includes("Background work ended"))
          return { text: "final: the worker says 42", usage: { outputTokens: 1 } };
        if (answered(request)) {
          // Only the parent's next step opens the worker's gate: a synchronous Agent call would never get here.
          g.open();
          return { text: "waiting for the worker", usage: { outputTokens: 1 } };
        }
        return { toolCalls: [bg("c1", "worker-1")], usage: { outputTokens: 1 } };
      },
      {
        tools: [g.tool],
        plugins: [background(), pricing()],
        modelPricing: { scripted: { input: 0, output: 1 } },
        marketPricing: false,
      },
    );
    expect(result.isError).toBe(false);
    expect(result.result).toBe("final: the worker says 42");
    expect(parentCalls).toBe(3);
    const started = resultsOf(messages, "Agent")[0]!;
    expect(started.output.isError).toBe(false);
    expect(started.output.content).toMatch(
      /^Started agent-1 \(named "worker-1"\): agent worker works on "count files" in the background\./,
    );
    expect(started.output.metadata).toMatchObject({ taskId: "agent-1", name: "worker-1", background: true });
    // The continuation names the task and carries the reply.
    const last = told(model.requests.at(-1)!);
    expect(last).toMatch(
      /- agent-1 \(agent worker-1: worker — count files\) completed\. Its reply:\nworker report: 42/,
    );
    // The worker's turns are charged to the run: 3 parent turns of 1 token, 2 worker turns of 1000.
    expect(result.usage.outputTokens).toBe(2003);
    expect(result.totalCostUsd).toBeCloseTo(2003 / 1_000_000, 12);
    // Its messages are in the stream, tagged, before the run's result.
    expect(messages.filter((m) => m.agentId).map((m) => m.type)).toContain("result");
    expect(messages.at(-1)).toBe(result);
  });

  it("SendMessage delivers a message mid-run (by task id; by name after): it enters the agent's conversation at its next step", async () => {
    const g = gate();
    const workerSaw: string[] = [];
    const { model, messages, result } = await run(
      ({ request }) => {
        if (agentOf(request) === "WORKER") {
          if (!answered(request)) return { toolCalls: [{ toolName: "Gate", input: {} }] };
          workerSaw.push(told(request));
          return "worker: counted 3 files and 2 tests";
        }
        const said = latest(request);
        if (said.includes("Background work ended"))
          return {
            toolCalls: [
              { toolName: "SendMessage", id: "b-late", input: { to: "worker-1", message: "one more thing" } },
              { toolName: "SendMessage", id: "c-who", input: { to: "nobody", message: "hi" } },
            ],
          };
        if (said.includes("already finished")) return "final";
        if (said.includes("Message queued")) {
          g.open();
          return "waiting";
        }
        if (answered(request))
          return {
            toolCalls: [
              { toolName: "SendMessage", id: "a-m1", input: { to: "agent-1", message: "also count the tests" } },
            ],
          };
        return { toolCalls: [bg("c1", "worker-1")] };
      },
      { tools: [g.tool] },
    );
    expect(result.result).toBe("final");
    const sent = resultsOf(messages, "SendMessage");
    expect(sent.map((m) => [m.toolUseId, m.output.isError])).toEqual([
      ["a-m1", false],
      ["b-late", true],
      ["c-who", true],
    ]);
    expect(sent[0]!.output.content).toBe('Message queued for agent-1 ("worker-1"): it reads it at its next step.');
    // The worker's one answered step saw the gate's result and then the message, as user input.
    expect(workerSaw).toHaveLength(1);
    expect(
      systemOf(model.requests.find((r) => agentOf(r) === "WORKER")!).endsWith(`${SUBAGENT_NOTE}\n${BACKGROUND_NOTE}`),
    ).toBe(true);
    expect(workerSaw[0]).toMatch(
      /gate open[\s\S]*Message from the agent that started you \(sent while you work\):\nalso count the tests/,
    );
    expect(messages.some((m) => m.type === "user" && m.agentId && m.text.includes("also count the tests"))).toBe(true);
    // A finished agent and an unknown name are refused, saying why.
    expect(sent[1]!.output.content).toMatch(
      /^agent-1 \("worker-1"\) has already finished \(completed\), so it cannot be messaged/,
    );
    expect(sent[2]!.output.content).toBe('No background agent is called "nobody". No background agent is running.');
  });

  it("refuses an agent past maxAgents with a message naming the cap", async () => {
    const g = gate();
    const { messages, result } = await run(
      ({ request }) => {
        if (agentOf(request) === "WORKER")
          return answered(request) ? "worker done" : { toolCalls: [{ toolName: "Gate", input: {} }] };
        if (told(request).includes("Background work ended")) return "final";
        if (answered(request)) {
          g.open();
          return "waiting";
        }
        return { toolCalls: [bg("c1", "a"), bg("c2", "b")] };
      },
      { tools: [g.tool], backgroundTasks: { maxAgents: 1 } },
    );
    expect(result.result).toBe("final");
    const outputs = resultsOf(messages, "Agent").map((m) => m.output);
    expect(outputs.filter((o) => !o.isError)).toHaveLength(1);
    const refused = outputs.filter((o) => o.isError);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.content).toBe(
      "Agent worker was not started: 1 background agents are already running, the most a session may have at once (maxAgents: 1): wait for one to finish, or stop one first.",
    );
  });

  it("refuses a name already running, and a session past maxTotal", async () => {
    const g = gate();
    const { messages } = await run(
      ({ request }) => {
        if (agentOf(request) === "WORKER")
          return answered(request) ? "worker done" : { toolCalls: [{ toolName: "Gate", input: {} }] };
        const said = latest(request);
        if (said.includes("maxTotal")) return "final";
        if (said.includes("Background work ended")) return { toolCalls: [bg("c3", "again")] };
        if (answered(request)) {
          g.open();
          return "waiting";
        }
        return { toolCalls: [bg("c1", "same"), bg("c2", "same")] };
      },
      { tools: [g.tool], backgroundTasks: { maxTotal: 1 } },
    );
    const [first, second, third] = resultsOf(messages, "Agent").map((m) => m.output);
    expect([first!.isError, second!.isError]).toEqual([false, true]);
    expect(second!.content).toBe(
      'A background agent named "same" is already running (agent-1): message it with SendMessage, or give this one another name.',
    );
    expect(third!.content).toBe(
      "Agent worker was not started: this session has started 1 background tasks, the most it may (maxTotal: 1).",
    );
  });

  it("sends a background agent's permission prompts to the run's canUseTool", async () => {
    const asked: { tool: string; input: unknown }[] = [];
    const { messages, result } = await run(
      ({ request }) => {
        if (agentOf(request) === "WORKER")
          return answered(request)
            ? "worker echoed"
            : { toolCalls: [{ toolName: "Echo", input: { text: "from the background" } }] };
        if (told(request).includes("Background work ended")) return "final";
        return answered(request) ? "waiting" : { toolCalls: [bg("c1")] };
      },
      {
        plugins: [background(), permissions()],
        askTools: ["Echo"],
        canUseTool: async (tool, input) => (asked.push({ tool, input }), { behavior: "allow" }),
      },
    );
    expect(result.result).toBe("final");
    expect(asked).toEqual([{ tool: "Echo", input: { text: "from the background" } }]);
    const echoed = ofType(messages, "tool_result").find((m) => m.agentId && m.toolName === "Echo")!;
    expect(echoed.output).toMatchObject({ isError: false, content: "echo: from the background" });
  });

  it("is refused, naming the plugin, when the run has no task registry", async () => {
    const { messages } = await run(({ request }) => (answered(request) ? "done" : { toolCalls: [bg("c1")] }), {
      plugins: [],
    });
    expect(resultsOf(messages, "Agent")[0]!.output).toMatchObject({
      isError: true,
      content: expect.stringMatching(
        /could not start in the background: background tasks need the ubiquity:background plugin/,
      ),
    });
  });

  it("stops: the registry's stop aborts the agent's run and records how it ended", async () => {
    const g = gate();
    const stopTool = defineTool({
      name: "StopTask",
      description: "Stop a task.",
      inputSchema: z.object({ id: z.string() }),
      execute: async ({ id }, ctx) => {
        const registry = tasksOf(ctx.run)!;
        await registry.stop(id, "stopped by the test");
        return JSON.stringify(registry.get(id));
      },
    });
    const { messages, result } = await run(
      ({ request }) => {
        if (agentOf(request) === "WORKER") return { toolCalls: [{ toolName: "Gate", input: {} }] };
        if (told(request).includes("killed")) return "final";
        return answered(request)
          ? { toolCalls: [{ toolName: "StopTask", input: { id: "agent-1" } }] }
          : { toolCalls: [bg("c1")] };
      },
      { tools: [g.tool, stopTool] },
    );
    expect(result.result).toBe("final");
    // The tool's own JSON, then the background plugin's note on what ended.
    const [json, note] = resultsOf(messages, "StopTask")[0]!.output.content.split("\n\n");
    const task = JSON.parse(json!);
    expect(note).toMatch(
      /^\[Background task ended:\n- agent-1 \(worker — count files\) stopped: stopped by the test\]$/,
    );
    expect(task).toMatchObject({
      id: "agent-1",
      kind: "agent",
      state: "killed",
      outcome: "stopped: stopped by the test",
    });
    // The agent's run ended (its result is in the stream) before the tool returned.
    expect(messages.some((m) => m.type === "result" && m.agentId)).toBe(true);
  });

  it("ends with the session: an aborted run stops its background agents", async () => {
    const g = gate();
    const controller = new AbortController();
    void g.reached.then(() => controller.abort(new Error("test abort")));
    const { messages, result } = await run(
      ({ request }) => {
        if (agentOf(request) === "WORKER") return { toolCalls: [{ toolName: "Gate", input: {} }] };
        return answered(request) ? "waiting" : { toolCalls: [bg("c1")] };
      },
      { tools: [g.tool], abortSignal: controller.signal },
    );
    expect(result.isError).toBe(true);
    expect(result.agentId).toBeUndefined();
    // The worker's gate saw the abort: its run was stopped with the session.
    expect(g.aborted()).toBe(true);
    expect(
      messages.filter((m) => m.type === "tool_use" && m.agentId).map((m) => m.type === "tool_use" && m.toolName),
    ).toEqual(["Gate"]);
  });

  it("an agent that ended while the model wrote its last response is told as the next prompt", async () => {
    // Ahead of the agents plugin's stop tap: hold the turn's end until the worker has ended.
    const holdUntilEnded = {
      name: "test:hold",
      apply: (kernel: Kernel) =>
        kernel.hooks.turn.stop.tapPromise(
          "test:hold",
          async (_info, r) => void (r.agent ? undefined : await tasksOf(r)?.ended("agent-1")),
        ),
    };
    const model = scriptedModel(({ request }) => {
      if (agentOf(request) === "WORKER") return "worker was quick";
      if (latest(request).includes("Background work ended")) return "final";
      return answered(request) ? "nothing to wait for, I think" : { toolCalls: [bg("c1")] };
    });
    const result = resultOf(
      await collect(
        summon("go", {
          model,
          presets: [],
          plugins: [systemPrompt(), holdUntilEnded, agents(), background()],
          tools: [echo],
          agents: { worker: WORKER },
        }),
      ),
    );
    expect(result.result).toBe("final");
    expect(latest(model.requests.at(-1)!)).toMatch(/completed\. Its reply:\nworker was quick/);
  });

  it("a run that ends on an error stops its agents, and its own result stays the stream's last message", async () => {
    const g = gate();
    const { messages, result } = await run(
      ({ request }) =>
        agentOf(request) === "WORKER"
          ? { toolCalls: [{ toolName: "Gate", input: {} }] }
          : { toolCalls: [bg("c1"), { toolName: "WaitForWorker", input: {} }] },
      { tools: [g.tool, waitFor(g.reached)], maxTurns: 1 },
    );
    expect(result.agentId).toBeUndefined();
    expect(result.subtype).toBe("error_max_turns");
    expect(g.aborted()).toBe(true);
    // The worker was stopped as the session ended; what it said after the run's result is not in the stream.
    expect(messages.findIndex((m) => m.type === "result" && m.agentId)).toBe(-1);
  });

  it("in a live session, interrupting the caller's work leaves its background agents running", async () => {
    const g = gate();
    let interrupted!: () => void;
    const afterInterrupt = new Promise<void>((resolve) => (interrupted = resolve));
    let workerDone!: () => void;
    const doneWorking = new Promise<void>((resolve) => (workerDone = resolve));
    async function* input() {
      yield "start";
      await afterInterrupt;
      await doneWorking;
      yield "and now?";
    }
    const model = scriptedModel(({ request }) => {
      if (agentOf(request) === "WORKER")
        return answered(request)
          ? "worker finished after the interrupt"
          : { toolCalls: [{ toolName: "Gate", input: {} }] };
      if (latest(request).includes("and now?")) return "ok";
      return answered(request) ? "waiting" : { toolCalls: [bg("c1", "w")] };
    });
    const stream = summon(input(), {
      model,
      presets: [],
      plugins: [systemPrompt(), agents(), background()],
      tools: [g.tool],
      agents: { worker: WORKER },
    });
    void g.reached.then(async () => {
      await stream.interrupt();
      interrupted();
      g.open();
    });
    const messages: Message[] = [];
    for await (const m of stream) {
      messages.push(m);
      if (m.type === "result" && m.agentId) workerDone();
    }
    const worker = messages.find((m) => m.type === "result" && m.agentId);
    expect(worker).toMatchObject({ subtype: "success", result: "worker finished after the interrupt" });
    expect(resultOf(messages).result).toBe("ok");
  });
});
