/**
 * The main agent as a named agent (Claude Code's `--agent <name>` and `agent` setting): the
 * definition's prompt is the run's guidance, its tools narrow the run's, its model answers; an
 * unknown name ends the run naming the agents there are. Through `summon()` and the built bin.
 */
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, afterAll, describe, expect, it } from "vitest";
import { summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { collect, resultOf } from "../helpers/collect";
import { removeTempProjects, requireDist, runCli, streamMessages, tempProject } from "../helpers/project";
import { tempDirs } from "../helpers/temp-dirs";
import { tempHome } from "../helpers/temp-home";
import { toolNames } from "./helpers";

const temp = tempDirs();
const home = tempHome();
beforeAll(() => requireDist());
afterAll(() => removeTempProjects());

const REVIEWER = {
  description: "Reviews diffs",
  prompt: "You are REVIEWER. Point out bugs; change nothing.",
  tools: ["Read", "Grep"],
};

describe("the main agent as a named agent", () => {
  it("takes the definition's prompt as its guidance, its tools, and its model", async () => {
    const cwd = realpathSync(temp("ubq-main-agent-"));
    const seen: { tools: string[]; system: string }[] = [];
    const main = scriptedModel(["the run's own model answered"]);
    const own = scriptedModel(({ request }) => {
      seen.push({ tools: toolNames(request), system: JSON.stringify(request.prompt[0]) });
      return "reviewed";
    });
    const messages = await collect(
      summon("review the diff", {
        model: main,
        cwd,
        agents: { reviewer: { ...REVIEWER, model: own } },
        agent: "reviewer",
        persistSession: false,
        persistTodos: false,
        marketPricing: false,
      }),
    );
    expect(resultOf(messages)).toMatchObject({ isError: false, result: "reviewed" });
    expect(main.requests).toHaveLength(0);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.tools.sort()).toEqual(["Grep", "Read"]);
    expect(seen[0]!.system).toContain("You are REVIEWER. Point out bugs; change nothing.");
    // The base guidance is replaced; the run's own sections (environment, permissions) follow.
    expect(seen[0]!.system).not.toContain("Do the task rather than describe");
    expect(seen[0]!.system).toContain("Working directory:");
  });

  it("without a model of its own, the run's model answers; without `agent`, nothing changes", async () => {
    const cwd = realpathSync(temp("ubq-main-agent-"));
    const systems: string[] = [];
    const model = scriptedModel(({ request }) => {
      systems.push(JSON.stringify(request.prompt[0]));
      return "ok";
    });
    const options = {
      model,
      cwd,
      agents: { reviewer: REVIEWER },
      persistSession: false,
      persistTodos: false,
      marketPricing: false,
    };
    expect(resultOf(await collect(summon("a", { ...options, agent: "reviewer" }))).isError).toBe(false);
    expect(resultOf(await collect(summon("b", options))).isError).toBe(false);
    expect(systems[0]).toContain("You are REVIEWER.");
    expect(systems[1]).not.toContain("You are REVIEWER.");
    expect(systems[1]).toContain("Do the task rather than describe");
  });

  it("an unknown name ends the run before the model is asked, naming the agents there are", async () => {
    const model = scriptedModel(["unexpected"]);
    const result = resultOf(
      await collect(
        summon("go", {
          model,
          cwd: realpathSync(temp("ubq-main-agent-")),
          agents: { reviewer: REVIEWER },
          agent: "reveiwer",
          persistSession: false,
          marketPricing: false,
        }),
      ),
    );
    expect(result.isError).toBe(true);
    expect(result.result).toContain('No agent named "reveiwer"');
    expect(result.result).toContain("the agents are reviewer");
    expect(model.requests).toHaveLength(0);
  });
});

describe("ubiquity run --agent, and Claude Code's `agent` setting", () => {
  it("--agent with --agents narrows the tools (the run offers Read and Grep only); an unknown name is exit 2", async () => {
    const dir = tempProject({}, { linkUbiquity: true });
    const out = await runCli(
      [
        "run",
        "-p",
        "--model",
        "test",
        "--output-format",
        "stream-json",
        "--agents",
        JSON.stringify({ reviewer: REVIEWER }),
        "--agent",
        "reviewer",
        "use Write",
      ],
      dir,
      { HOME: home() },
    );
    // `use Write` names no tool of the run (Write is not the agent's): the test model answers in words.
    expect(out.code, out.stderr).toBe(0);
    const lines = streamMessages(out.stdout);
    expect(lines.find((m) => m.type === "system" && m.subtype === "init").tools.sort()).toEqual(["Grep", "Read"]);
    expect(lines.at(-1)).toMatchObject({ type: "result", isError: false });
    expect(lines.some((m) => m.type === "tool_use")).toBe(false);
    // A configuration mistake: exit 2, naming the agents there are.
    const unknown = await runCli(["run", "-p", "--model", "test", "--agent", "nobody", "hi"], dir, { HOME: home() });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('No agent named "nobody"');
  });

  it("a trusted project's .claude/settings.json `agent` picks an agent file of .claude/agents", async () => {
    const dir = tempProject({}, { linkUbiquity: true });
    mkdirSync(join(dir, ".claude", "agents"), { recursive: true });
    writeFileSync(
      join(dir, ".claude", "agents", "auditor.md"),
      "---\nname: auditor\ndescription: Audits\ntools: Read\n---\nYou are AUDITOR.\n",
    );
    writeFileSync(join(dir, ".claude", "settings.json"), JSON.stringify({ agent: "auditor" }));
    const env = { HOME: home(), UBIQUITY_TRUST: "" };
    const initOf = (stdout: string) => streamMessages(stdout).find((m) => m.type === "system" && m.subtype === "init");
    const args = ["run", "-p", "--compat", "claude", "--model", "test", "--output-format", "stream-json", "use Write"];
    // Not trusted yet: the folder's settings say nothing that gives or changes power.
    const before = await runCli(args, dir, env);
    expect(before.code, before.stderr).toBe(0);
    expect(initOf(before.stdout).tools).toContain("Write");
    expect((await runCli(["trust", "."], dir, env)).code).toBe(0);
    const out = await runCli(args, dir, env);
    expect(out.code, out.stderr).toBe(0);
    expect(initOf(out.stdout).tools).toEqual(["Read"]);
  });
});
