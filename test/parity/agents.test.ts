/** Parity: subagents in code and as files (seed README: "Subagents", "Subagents as files"). */
import { describe, expect, it } from "vitest";
import { existsSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { LanguageModelV4CallOptions } from "@ai-sdk/provider";
import { scriptedModel } from "ubiquity/testing";
import { ofType, resultOf } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { tempHome, writeTree } from "../helpers/temp-home";
import { run, systemOf, toolNames } from "./helpers";

const temp = tempDirs();
const home = tempHome();

const agentOf = (r: LanguageModelV4CallOptions) => /You are ([A-Z0-9]+)\./.exec(systemOf(r))?.[1];
const answered = (r: LanguageModelV4CallOptions) => r.prompt.at(-1)?.role === "tool";
const agentCall = (type: string, id = "a1", prompt = "do it") => ({
  toolCalls: [{ toolName: "Agent", id, input: { subagent_type: type, description: "task", prompt } }],
});

/** A parent that sends "worker" off once; the worker runs `touch <x>` in Bash, then answers. */
function workerTouching(x: string) {
  return scriptedModel(({ request }) => {
    if (agentOf(request) === "WORKER") {
      return answered(request)
        ? "worked"
        : { toolCalls: [{ toolName: "Bash", id: "b", input: { command: `touch ${x}` } }] };
    }
    return answered(request) ? "done" : agentCall("worker");
  });
}

describe("subagents", () => {
  it("only the subagent's final text returns to the parent; its own history stays out of the parent's context", async () => {
    const cwd = realpathSync(temp());
    writeFileSync(join(cwd, "secret.txt"), "INTERMEDIATE-CONTENT\n");
    const model = scriptedModel(({ request }) => {
      if (agentOf(request) === "REVIEWER") {
        return answered(request)
          ? "FINAL-REPORT"
          : { toolCalls: [{ toolName: "Read", id: "r", input: { file_path: join(cwd, "secret.txt") } }] };
      }
      return answered(request) ? "parent done" : agentCall("reviewer");
    });
    const messages = await run("review", {
      model,
      cwd,
      agents: {
        reviewer: { description: "Reviews code", prompt: "You are REVIEWER.", tools: ["Read", "Glob", "Grep"] },
      },
    });
    expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "parent done" });
    const parentFinal = model.requests.filter((r) => !agentOf(r)).at(-1)!;
    const text = JSON.stringify(parentFinal.prompt);
    expect(text).toContain("FINAL-REPORT");
    expect(text).not.toContain("INTERMEDIATE-CONTENT");
    const child = model.requests.find((r) => agentOf(r) === "REVIEWER")!;
    expect(toolNames(child).sort()).toEqual(["Glob", "Grep", "Read"]);
    expect(systemOf(child)).toMatch(/final (reply|message|answer)/i);
  });

  it("a subagent gets fresh file-read bookkeeping: a parent's read does not authorize its write", async () => {
    const cwd = realpathSync(temp());
    const f = join(cwd, "f.txt");
    writeFileSync(f, "old\n");
    let step = 0;
    const model = scriptedModel(({ request }) => {
      if (agentOf(request) === "WRITER") {
        return answered(request)
          ? "wrote?"
          : { toolCalls: [{ toolName: "Write", id: "w", input: { file_path: f, content: "new\n" } }] };
      }
      step++;
      if (step === 1) return { toolCalls: [{ toolName: "Read", id: "r", input: { file_path: f } }] };
      if (step === 2) return agentCall("writer");
      return "done";
    });
    const messages = await run("go", {
      model,
      cwd,
      permissionMode: "acceptEdits",
      agents: { writer: { description: "Writes", prompt: "You are WRITER." } },
    });
    const w = ofType(messages, "tool_result").find((m) => m.toolUseId === "w")!;
    expect(w.output.isError).toBe(true);
    expect(readFileSync(f, "utf8")).toBe("old\n");
  });

  it("a subagent shares the parent's permission context and cannot spawn further subagents", async () => {
    const cwd = realpathSync(temp());
    const x = join(cwd, "x");
    const asked: string[] = [];
    const model = workerTouching(x);
    await run("go", {
      model,
      cwd,
      permissionMode: "bypassPermissions",
      disallowedTools: ["Bash(touch:*)"],
      canUseTool: async (name) => (asked.push(name), { behavior: "allow" }),
      agents: { worker: { description: "Works", prompt: "You are WORKER.", permissionMode: "bypassPermissions" } },
    });
    expect(existsSync(x)).toBe(false);
    const child = model.requests.find((r) => agentOf(r) === "WORKER")!;
    expect(toolNames(child)).not.toContain("Agent");
    expect(toolNames(child)).not.toContain("AskUserQuestion");
  });

  it("a subagent asks through the parent's canUseTool handler", async () => {
    const cwd = realpathSync(temp());
    const x = join(cwd, "x");
    const asked: string[] = [];
    const model = workerTouching(x);
    await run("go", {
      model,
      cwd,
      canUseTool: async (name) => (asked.push(name), { behavior: "allow" }),
      agents: { worker: { description: "Works", prompt: "You are WORKER." } },
    });
    expect(asked).toEqual(["Bash"]);
    expect(existsSync(x)).toBe(true);
  });
});

describe("subagents as files", () => {
  async function offered(cwd: string, options: Record<string, unknown> = {}) {
    const model = scriptedModel(["done"]);
    await run("go", { model, cwd, agentSources: ["user", "project", "local"], ...options });
    const agent = model.requests[0]!.tools?.find((t) => t.name === "Agent") as { description?: string } | undefined;
    return { description: agent?.description ?? "", model };
  }

  it("reads frontmatter fields and the body; name defaults to the file stem; keys may be hyphenated or camelCase", async () => {
    const cwd = realpathSync(temp());
    writeTree(cwd, {
      ".ubiquity/agents/reviewer.md":
        "---\ndescription: Reviews code for correctness\ntools: Read, Glob\nmax-turns: 2\n---\n\nYou are REVIEWER.\n",
      ".ubiquity/agents/group/lister.md":
        "---\nname: lister\ndescription: Lists files\ntools: [Glob]\nmaxTurns: 1\n---\nYou are LISTER.\n",
    });
    const { description } = await offered(cwd, { trust: true });
    expect(description).toContain("reviewer");
    expect(description).toContain("Reviews code for correctness");
    expect(description).toContain("lister");
    expect(description.indexOf("lister")).toBeLessThan(description.indexOf("reviewer"));

    const model = scriptedModel(({ request }) => {
      const who = agentOf(request);
      if (who === "REVIEWER")
        return { toolCalls: [{ toolName: "Glob", id: `g${Math.random()}`, input: { pattern: "*" } }] };
      return answered(request) ? "done" : agentCall("reviewer");
    });
    const messages = await run("go", { model, cwd, agentSources: ["project"], trust: true });
    const child = model.requests.filter((r) => agentOf(r) === "REVIEWER");
    expect(toolNames(child[0]).sort()).toEqual(["Glob", "Read"]);
    expect(child).toHaveLength(2); // max-turns: 2
    expect(resultOf(messages).subtype).toBe("success");
  });

  it("an empty tools list grants nothing, an omitted one inherits", async () => {
    const cwd = realpathSync(temp());
    writeTree(cwd, {
      ".ubiquity/agents/none.md": "---\ndescription: No tools\ntools:\n---\nYou are NONE.\n",
      ".ubiquity/agents/all.md": "---\ndescription: All tools\n---\nYou are ALL.\n",
    });
    const model = scriptedModel(({ request }) => {
      const who = agentOf(request);
      if (who) return `${who} done`;
      if (!answered(request))
        return { toolCalls: [agentCall("none", "a1").toolCalls[0]!, agentCall("all", "a2").toolCalls[0]!] };
      return "done";
    });
    await run("go", { model, cwd, agentSources: ["project"], trust: true });
    expect(toolNames(model.requests.find((r) => agentOf(r) === "NONE"))).toEqual([]);
    expect(toolNames(model.requests.find((r) => agentOf(r) === "ALL"))).toEqual(
      expect.arrayContaining(["Read", "Bash", "Write"]),
    );
  });

  it("a file with no description or no body is skipped; a field that cannot be parsed is dropped", async () => {
    const cwd = realpathSync(temp());
    writeTree(cwd, {
      ".ubiquity/agents/nodesc.md": "---\ntools: Read\n---\nYou are NODESC.\n",
      ".ubiquity/agents/nobody.md": "---\ndescription: Has no body\n---\n",
      ".ubiquity/agents/odd.md":
        "---\ndescription: Odd fields\nmax-turns: lots\npermission-mode: yolo\n---\nYou are ODD.\n",
    });
    const { description } = await offered(cwd, { trust: true });
    expect(description).not.toContain("nodesc");
    expect(description).not.toContain("nobody");
    expect(description).toContain("odd");
    const model = scriptedModel(({ request }) =>
      agentOf(request) ? "odd done" : answered(request) ? "done" : agentCall("odd"),
    );
    const messages = await run("go", { model, cwd, agentSources: ["project"], trust: true });
    expect(ofType(messages, "tool_result").find((m) => m.toolUseId === "a1")!.output).toMatchObject({
      content: "odd done",
    });
  });

  it("later sources win a name, and options.agents wins over every file", async () => {
    const cwd = realpathSync(temp());
    writeTree(home(), { ".ubiquity/agents/helper.md": "---\ndescription: user helper\n---\nYou are USERH.\n" });
    writeTree(cwd, {
      ".ubiquity/agents/helper.md": "---\ndescription: project helper\n---\nYou are PROJH.\n",
      ".ubiquity/agents.local/helper.md": "---\ndescription: local helper\n---\nYou are LOCALH.\n",
      ".ubiquity/agents/coded.md": "---\ndescription: file coded\n---\nYou are FILEC.\n",
    });
    const { description } = await offered(cwd, {
      trust: true,
      agents: { coded: { description: "code coded", prompt: "You are CODEC." } },
    });
    expect(description).toContain("local helper");
    expect(description).not.toContain("project helper");
    expect(description).not.toContain("user helper");
    expect(description).toContain("code coded");
    expect(description).not.toContain("file coded");
  });

  it("nothing is discovered unless agentSources asks", async () => {
    const cwd = realpathSync(temp());
    writeTree(cwd, { ".ubiquity/agents/helper.md": "---\ndescription: project helper\n---\nYou are PROJH.\n" });
    const model = scriptedModel(["done"]);
    await run("go", { model, cwd });
    expect(toolNames(model.requests[0])).not.toContain("Agent");
  });
});
