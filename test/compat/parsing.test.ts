/**
 * Parsing like Claude Code, on real files (test/fixtures/compat/SOURCE.md): skills whose `name`
 * is written for people (obra/superpowers: "Systematic Debugging"), an agent whose description
 * holds unquoted colons (anthropics/claude-plugins-official's silent-failure-hunter, 1,428
 * characters), agents asking for `model: sonnet` / `opus`; listings sorted and budgeted by the
 * context window, saying what they left out.
 */
import { cpSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { parse as parseYaml } from "yaml";
import { summon, type Options } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import skillsPlugin, { loadSkills } from "../../plugins/skills/index";
import agentsPlugin, { parseAgentFile } from "../../plugins/agents/index";
import modelPlugin from "ubiquity/plugins/model";
import {
  budgetedListing,
  listingBudget,
  MIN_LISTING_CHARS,
  quotePlainValues,
  readByFields,
  slugOf,
  splitFrontmatter,
} from "../../plugins/_kits/sources/index";
import { loadCommands } from "../../plugins/commands/load";
import { agentModel } from "../../plugins/agents/launch";
import { keepTool } from "../../plugins/agents/narrow";
import { tempDirs } from "../helpers/temp-dirs";
import { collect, ofType, resultOf } from "../helpers/collect";

const FIXTURES = fileURLToPath(new URL("../fixtures/compat/", import.meta.url));
const tempDir = tempDirs();
const temp = () => realpathSync(tempDir("ubq-compat-parse-"));
afterEach(() => {
  vi.unstubAllEnvs();
});

const toolDescription = (request: { tools?: readonly { name: string; description?: string }[] }, name: string) =>
  (request.tools ?? []).find((t) => t.name === name)?.description ?? "";

describe("skills whose name is written for people (obra/superpowers)", () => {
  it("load under their folder's name, with the display name kept", async () => {
    const reports: string[] = [];
    const skills = await loadSkills(
      { skills: [join(FIXTURES, "superpowers", "skills")] },
      { cwd: FIXTURES, home: FIXTURES },
      (m) => reports.push(m),
    );
    expect(reports).toEqual([]);
    expect(skills.map((s) => [s.name, s.displayName])).toEqual([
      ["defense-in-depth", "Defense-in-Depth Validation"],
      ["root-cause-tracing", "Root Cause Tracing"],
      ["systematic-debugging", "Systematic Debugging"],
    ]);
  });

  it("are listed as `id (Display Name)` and load by id through the Skill tool", async () => {
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Skill", input: { skill: "systematic-debugging" } }] },
      "done",
    ]);
    const messages = await collect(
      summon("go", {
        presets: [],
        plugins: [skillsPlugin()],
        model,
        skills: [join(FIXTURES, "superpowers", "skills")],
      }),
    );
    expect(toolDescription(model.requests[0]!, "Skill")).toContain(
      "- systematic-debugging (Systematic Debugging): Four-phase debugging framework",
    );
    const result = ofType(messages, "tool_result")[0]!;
    expect(result.output.isError).toBe(false);
    expect(result.output.content).toContain("Skill: systematic-debugging (Systematic Debugging)");
  });

  it("a display name with no usable folder name gets a derived id", () => {
    expect(slugOf("Root Cause Tracing")).toBe("root-cause-tracing");
    expect(slugOf("Release v2.0 Notes")).toBe("release-v2-0-notes");
    expect(slugOf("Crème brûlée")).toBe("creme-brulee");
  });
});

describe("an agent with unquoted colons (silent-failure-hunter)", () => {
  const text = readFileSync(join(FIXTURES, "claude-plugins-official", "agents", "silent-failure-hunter.md"), "utf8");

  it("parses, with its whole 1,428-character description", () => {
    const parsed = parseAgentFile(text, "silent-failure-hunter");
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.name).toBe("silent-failure-hunter");
    expect(parsed.definition.description.length).toBe(1428);
    expect(parsed.definition.description).toContain("Context:");
    expect(parsed.definition.model).toBe("inherit");
  });

  it("quotePlainValues quotes only plain top-level values", () => {
    expect(quotePlainValues("name: a\ndescription: x: y\ntools:\n  - Read\nnote: |\n  keep: this")).toBe(
      'name: "a"\ndescription: "x: y"\ntools:\n  - Read\nnote: |\n  keep: this',
    );
  });

  it("is listed whole (up to 1,536 characters) in the Agent tool", async () => {
    const cwd = temp();
    mkdirSync(join(cwd, ".ubiquity", "agents"), { recursive: true });
    cpSync(
      join(FIXTURES, "claude-plugins-official", "agents", "silent-failure-hunter.md"),
      join(cwd, ".ubiquity", "agents", "silent-failure-hunter.md"),
    );
    const model = scriptedModel(["done"]);
    await collect(summon("go", { presets: [], plugins: [agentsPlugin()], model, cwd, agentSources: ["project"] }));
    const description = toolDescription(model.requests[0]!, "Agent");
    expect(description).toContain("- silent-failure-hunter: Use this agent when reviewing code changes");
    expect(description).toContain('Daisy: "I\'ve added error handling to the API client. Can you review it?"');
  });
});

describe("agents whose description runs on over unindented lines (claude-plugins-official, before 82d0412)", () => {
  // The same files before and after their maintainers made them YAML (a `|` block): the reading by
  // field lines must give what the authors meant, which the fixed file says.
  const dir = join(FIXTURES, "claude-plugins-official", "agents-multiline");
  const read = (when: string, name: string) => {
    const parsed = parseAgentFile(readFileSync(join(dir, when, `${name}.md`), "utf8"), name);
    if (!parsed.ok) throw new Error(`${when}/${name}: ${parsed.problem}`);
    return parsed;
  };
  // The block scalar indents each line; the original's lines are not indented.
  const unindent = (s: string) => s.replace(/\n[ \t]+/g, "\n").trim();

  it.each(["agent-creator", "code-simplifier"])("%s: strict YAML refuses the original's frontmatter", (name) => {
    const text = readFileSync(join(dir, "before-fix", `${name}.md`), "utf8");
    const yaml = /^---\n([\s\S]*?)\n---/.exec(text)![1]!;
    expect(() => parseYaml(yaml)).toThrow();
    expect(() => parseYaml(quotePlainValues(yaml))).toThrow();
  });

  it("agent-creator loads with the fixed file's description, tools and model", () => {
    const before = read("before-fix", "agent-creator");
    const after = read("after-fix", "agent-creator");
    expect(before.dropped).toEqual([]);
    expect(before.definition.description).toBe(unindent(after.definition.description));
    expect(before.definition.description).toContain('user: "Create an agent that reviews code for quality issues"');
    expect(before.definition.tools).toEqual(["Write", "Read"]);
    expect(before.definition.model).toBe("sonnet");
    expect(before.definition.prompt).toBe(after.definition.prompt);
  });

  it("code-simplifier loads with the fixed file's description (its `\\n` written out) and model", () => {
    const before = read("before-fix", "code-simplifier");
    const after = read("after-fix", "code-simplifier");
    expect(before.definition.description.replaceAll("\\n", "\n")).toBe(unindent(after.definition.description));
    expect(before.definition.model).toBe("opus");
    expect(before.definition.prompt).toBe(after.definition.prompt);
  });

  it("is listed in the Agent tool with its examples", async () => {
    const cwd = temp();
    mkdirSync(join(cwd, ".ubiquity", "agents"), { recursive: true });
    cpSync(join(dir, "before-fix", "agent-creator.md"), join(cwd, ".ubiquity", "agents", "agent-creator.md"));
    const model = scriptedModel(["done"]);
    await collect(summon("go", { presets: [], plugins: [agentsPlugin()], model, cwd, agentSources: ["project"] }));
    const description = toolDescription(model.requests[0]!, "Agent");
    expect(description).toContain("- agent-creator: Use this agent when the user asks to");
    expect(description).toContain("Context: User wants to create a code review agent");
  });

  it("only a known field in lower case starts an entry; text before the first field is still refused", () => {
    expect(readByFields('description: one\nContext: two\nuser: "three"\nmodel: haiku')).toEqual({
      description: 'one\nContext: two\nuser: "three"',
      model: "haiku",
    });
    expect(readByFields("tools: [Read, Grep]\ndescription: |\n  kept: as YAML")).toEqual({
      tools: ["Read", "Grep"],
      description: "kept: as YAML\n",
    });
    expect(readByFields("<example>\ndescription: x")).toBeUndefined();
    expect(readByFields("description: [unclosed\nmore")).toBeUndefined();
    const refused = parseAgentFile("---\n<example>\nuser: x: y\n---\nbody", "x");
    expect(refused.ok).toBe(false);
  });
});

describe("listing budgets scale with the context window and say what they left out", () => {
  const entries = Array.from({ length: 120 }, (_, i) => ({
    name: `entry-${String(119 - i).padStart(3, "0")}`,
    description: `Does thing ${i}. ${"detail ".repeat(60)}`,
  }));

  it("a budget is 2% of the window at 4 characters a token, never under 8,000 characters", () => {
    expect(listingBudget(undefined)).toBe(MIN_LISTING_CHARS);
    expect(listingBudget(32_768)).toBe(MIN_LISTING_CHARS);
    expect(listingBudget(200_000)).toBe(16_000);
    expect(listingBudget(1_000_000)).toBe(80_000);
  });

  it("full, shortened, names, then some left out — sorted, within the budget, with a note", () => {
    const full = budgetedListing(entries, 1_000_000, "skill");
    expect(full.level).toBe("full");
    const lines = full.text.split("\n");
    expect(lines).toHaveLength(120);
    expect(lines[0]!.startsWith("- entry-000:")).toBe(true);
    expect([...lines].sort()).toEqual(lines);
    const short = budgetedListing(entries, 40_000, "skill");
    expect(short.level).toBe("shortened");
    expect(short.text.length).toBeLessThanOrEqual(40_000);
    expect(short.note).toMatch(/shortened/);
    const names = budgetedListing(entries, 2_000, "skill");
    expect(names.level).toBe("names");
    expect(names.note).toMatch(/Names only/);
    const partial = budgetedListing(entries, 500, "skill");
    expect(partial.level).toBe("partial");
    expect(partial.text.length).toBeLessThanOrEqual(500);
    expect(partial.note).toContain(`${partial.omitted} of 120 skills`);
    expect(partial.omitted).toBe(120 - partial.text.split("\n").length);
  });

  it("the Skill tool's listing grows with the run's window (UBIQUITY_MAX_CONTEXT_TOKENS)", async () => {
    const root = temp();
    for (const e of entries) {
      mkdirSync(join(root, e.name), { recursive: true });
      writeFileSync(
        join(root, e.name, "SKILL.md"),
        `---\nname: ${e.name}\ndescription: ${e.description}\n---\nBody.\n`,
      );
    }
    const listingAt = async (_window: number) => {
      const model = scriptedModel(["done"]);
      await collect(summon("go", { presets: [], plugins: [skillsPlugin()], model, skills: [root] }));
      return toolDescription(model.requests[0]!, "Skill");
    };
    vi.stubEnv("UBIQUITY_MAX_CONTEXT_TOKENS", "32000");
    const small = await listingAt(32_000);
    expect(small).toContain("Names only");
    expect(small).not.toContain("Does thing");
    vi.stubEnv("UBIQUITY_MAX_CONTEXT_TOKENS", "1000000");
    const large = await listingAt(1_000_000);
    expect(large).toContain("- entry-000: Does thing 119.");
    expect(large).not.toContain("Names only");
  });

  it("the Agent tool's listing is budgeted too", async () => {
    const cwd = temp();
    mkdirSync(join(cwd, ".ubiquity", "agents"), { recursive: true });
    for (const e of entries)
      writeFileSync(
        join(cwd, ".ubiquity", "agents", `${e.name}.md`),
        `---\nname: ${e.name}\ndescription: ${e.description}\n---\nYou are ${e.name}.\n`,
      );
    const model = scriptedModel(["done"]);
    await collect(summon("go", { presets: [], plugins: [agentsPlugin()], model, cwd, agentSources: ["project"] }));
    const description = toolDescription(model.requests[0]!, "Agent");
    expect(description.length).toBeLessThan(MIN_LISTING_CHARS + 1_000);
    expect(description).toMatch(/Names only/);
    expect(description.indexOf("- entry-000")).toBeLessThan(description.indexOf("- entry-001"));
  });
});

describe("model: sonnet / opus / haiku / inherit in agent files", () => {
  it("resolve to the run's model unless an alias maps them", () => {
    expect(agentModel("sonnet", undefined)).toBeUndefined();
    expect(agentModel("opus", {})).toBeUndefined();
    expect(agentModel("haiku", undefined)).toBeUndefined();
    expect(agentModel("inherit", undefined)).toBeUndefined();
    expect(agentModel("sonnet", { sonnet: "openai:gpt-5" })).toBe("sonnet");
    expect(agentModel("openai:gpt-5-mini", undefined)).toBe("openai:gpt-5-mini");
  });

  async function delegate(options: Options) {
    const cwd = temp();
    mkdirSync(join(cwd, ".ubiquity", "agents"), { recursive: true });
    // feature-dev's code-explorer: `model: sonnet`, Claude Code's tool names.
    cpSync(
      join(FIXTURES, "claude-plugins-official", "agents", "code-explorer.md"),
      join(cwd, ".ubiquity", "agents", "code-explorer.md"),
    );
    const model = scriptedModel(({ request }) => {
      const system = request.prompt
        .filter((m) => m.role === "system")
        .map((m) => String(m.content))
        .join("\n");
      if (system.includes("You are a subagent")) return "explored: three modules";
      if (request.prompt.at(-1)?.role === "tool") return "done";
      return {
        toolCalls: [
          {
            toolName: "Agent",
            input: { subagent_type: "code-explorer", description: "explore", prompt: "Map the modules." },
          },
        ],
      };
    });
    const messages = await collect(
      summon("go", {
        presets: [],
        plugins: [modelPlugin(), agentsPlugin()],
        model,
        cwd,
        agentSources: ["project"],
        ...options,
      }),
    );
    return { messages, result: ofType(messages, "tool_result")[0]!.output };
  }

  it("a real `model: sonnet` agent runs on a non-Anthropic run's model", async () => {
    const { result, messages } = await delegate({});
    expect(result.isError).toBe(false);
    expect(result.content).toContain("explored: three modules");
    expect(resultOf(messages).isError).toBe(false);
  });

  it("modelAliases decides when it maps the tier", async () => {
    const { result } = await delegate({ modelAliases: { sonnet: "nowhere:no-such-model" } });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("nowhere");
  });
});

describe("a command whose argument-hint is not YAML (012090120901209/ahk-converter)", () => {
  // `argument-hint: [feature-name] | [feature-type] [name]`: strict YAML refuses it; Claude Code's own
  // docs write `argument-hint: [pr-number] [priority] [assignee]`. 5 of 273 public command files did.
  it("loads, with its hint as written and its other fields", async () => {
    const reports: string[] = [];
    const commands = await loadCommands(
      [{ path: join(FIXTURES, "commands", "ahk-converter"), source: "project" }],
      (m) => reports.push(m),
    );
    expect(reports).toEqual([]);
    expect(commands).toHaveLength(1);
    expect(commands[0]).toMatchObject({
      name: "create-feature",
      argumentHint: "[feature-name] | [feature-type] [name]",
      allowedTools: ["Read", "Write", "Edit", "Bash"],
      description: "Scaffold new feature with boilerplate code, tests, and documentation",
    });
  });

  it("a broken flow value in another field still refuses the file", () => {
    expect(splitFrontmatter("---\nallowed-tools: [Read] [Bash]\n---\nbody\n").ok).toBe(false);
  });
});

describe("a lone * in frontmatter (Claude Code's allowed-tools: * and tools: *)", () => {
  it("is read as the string * (no YAML alias has an empty name), not as broken frontmatter", () => {
    const read = splitFrontmatter("---\ndescription: All of them\nallowed-tools: *\ntools: *\n---\nBody.\n");
    expect(read).toMatchObject({ ok: true, data: { "allowed-tools": "*", tools: "*" }, body: "Body.\n" });
    // A real alias still needs its anchor: `*anchor` alone stays refused.
    expect(splitFrontmatter("---\nallowed-tools: *anchor\n---\n").ok).toBe(false);
  });

  it("an agent's tools: * keeps every tool its parent has (as when tools is left out), never more", () => {
    const parent = new Set(["Read", "Bash"]);
    const agent = { tools: ["*"] } as Parameters<typeof keepTool>[2];
    expect(keepTool("Read", parent, agent)).toBe(true);
    expect(keepTool("Bash", parent, agent)).toBe(true);
    expect(keepTool("Write", parent, agent)).toBe(false);
  });
});
