import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createKernel, defineTool, type Logger, type Plugin } from "ubiquity";
import { toolJsonSchema } from "../../src/index";
import defaultPreset from "../../presets/default";
import minimalPreset from "../../presets/minimal";
import toolBash, { BashTool } from "../../plugins/tool-bash/index";
import toolEdit from "../../plugins/tool-edit/index";
import toolGlob from "../../plugins/tool-glob/index";
import toolGrep from "../../plugins/tool-grep/index";
import toolRead, { ReadTool } from "../../plugins/tool-read/index";
import toolWrite from "../../plugins/tool-write/index";
import { builtinTools } from "../../plugins/tools/index";
import { tempDir, toolContext } from "./helpers";

const quiet = (): Logger => ({ debug() {}, info() {}, warn() {}, error() {} });
const suite = () => [toolRead(), toolWrite(), toolEdit(), toolBash(), toolGlob(), toolGrep()];
const BUILTIN = ["Read", "Write", "Edit", "Bash", "Glob", "Grep"];
/** What builtinTools() returns: the six file and shell tools, then TodoWrite. */
const SUITE = [...BUILTIN, "TodoWrite"];
const mine = defineTool({
  name: "Mine",
  description: "A custom tool.",
  inputSchema: z.object({}),
  execute: () => "mine",
});

describe("built-in tool plugins", () => {
  it("each registers its one tool, owned by the plugin, in plugin order", () => {
    const kernel = createKernel({ logger: quiet(), plugins: suite() });
    expect(kernel.registries.tools.entries().map((e) => [e.name, e.owner])).toEqual([
      ["Read", "ubiquity:tool-read"],
      ["Write", "ubiquity:tool-write"],
      ["Edit", "ubiquity:tool-edit"],
      ["Bash", "ubiquity:tool-bash"],
      ["Glob", "ubiquity:tool-glob"],
      ["Grep", "ubiquity:tool-grep"],
    ]);
  });

  it("register nothing when options.tools replaces the built-in suite", () => {
    const kernel = createKernel({ logger: quiet(), plugins: suite(), tools: [mine] });
    expect(kernel.registries.tools.entries().map((e) => [e.name, e.owner])).toEqual([["Mine", "options.tools"]]);
    const empty = createKernel({ logger: quiet(), plugins: suite(), tools: [] });
    expect(empty.registries.tools.values()).toEqual([]);
  });

  it("options.tools: [...builtinTools(), mine] adds one tool to the suite", () => {
    const kernel = createKernel({ logger: quiet(), plugins: suite(), tools: [...builtinTools(), mine] });
    expect(kernel.registries.tools.values().map((t) => t.name)).toEqual([...SUITE, "Mine"]);
  });

  it("builtinTools() returns fresh instances in the order Read, Write, Edit, Bash, Glob, Grep, TodoWrite", () => {
    const a = builtinTools();
    const b = builtinTools();
    expect(a.map((t) => t.name)).toEqual(SUITE);
    a.forEach((tool, i) => {
      expect(tool).not.toBe(b[i]);
    });
    expect(a[0]).toBeInstanceOf(ReadTool);
  });

  it("flags read-only and concurrency-safe tools correctly", () => {
    const flags = Object.fromEntries(builtinTools().map((t) => [t.name, [t.isReadOnly({}), t.isConcurrencySafe({})]]));
    expect(flags).toEqual({
      Read: [true, true],
      Write: [false, false],
      Edit: [false, false],
      Bash: [false, false],
      Glob: [true, true],
      Grep: [true, true],
      TodoWrite: [true, false],
    });
  });

  it("a later plugin that registers a tool of the same name during apply wins", () => {
    const custom = new BashTool();
    const later: Plugin = {
      name: "acme:my-bash",
      apply: (k) => k.registries.tools.register("Bash", custom, "acme:my-bash"),
    };
    const kernel = createKernel({ logger: quiet(), plugins: [...suite(), later] });
    expect(kernel.registries.tools.get("Bash")).toBe(custom);
    // ...and an earlier one loses to the built-in that comes after it.
    const earlier: Plugin = {
      name: "acme:early-bash",
      apply: (k) => k.registries.tools.register("Bash", custom, "acme:early-bash"),
    };
    const kernel2 = createKernel({ logger: quiet(), plugins: [earlier, ...suite()] });
    expect(kernel2.registries.tools.get("Bash")).not.toBe(custom);
    expect(kernel2.registries.tools.provenance().find((p) => p.name === "Bash")?.winner.owner).toBe(
      "ubiquity:tool-bash",
    );
  });

  it("a same-name plugin replaces the built-in plugin in place", () => {
    const custom = new BashTool();
    const replacement: Plugin = {
      name: "ubiquity:tool-bash",
      apply: (k) => k.registries.tools.register("Bash", custom, "ubiquity:tool-bash"),
    };
    const kernel = createKernel({ logger: quiet(), plugins: [...suite(), replacement] });
    expect(kernel.registries.tools.get("Bash")).toBe(custom);
    expect(
      kernel.registries.tools
        .values()
        .map((t) => t.name)
        .sort(),
    ).toEqual([...BUILTIN].sort());
  });

  it("the default preset lists all six, in order; the minimal preset only the read-only three", () => {
    const names = (preset: typeof defaultPreset) =>
      createKernel({ logger: quiet(), presets: [preset] })
        .registries.tools.values()
        .map((t) => t.name);
    const tools = names(defaultPreset);
    expect(tools.filter((n) => BUILTIN.includes(n))).toEqual(BUILTIN);
    expect(names(minimalPreset).filter((n) => BUILTIN.includes(n))).toEqual(["Read", "Glob", "Grep"]);
  });

  it("tool descriptions name no other tool (so none mentions a tool that may be absent)", () => {
    const known = [
      ...BUILTIN,
      "TodoWrite",
      "Agent",
      "Task",
      "Skill",
      "LS",
      "MultiEdit",
      "NotebookEdit",
      "WebFetch",
      "WebSearch",
    ];
    for (const tool of builtinTools()) {
      const others = known.filter((n) => n !== tool.name && new RegExp(`\\b${n}\\b`).test(tool.description));
      expect(others, `${tool.name} mentions ${others.join(", ")}`).toEqual([]);
    }
  });

  it("descriptions state the real limits (or their parameters do: the model receives both, each said once)", () => {
    const byName = Object.fromEntries(
      builtinTools().map((t) => [t.name, `${t.description}\n${JSON.stringify(toolJsonSchema(t))}`]),
    );
    expect(byName.Read).toMatch(/2,000 lines/);
    expect(byName.Read).toMatch(/10 MB/);
    expect(byName.Bash).toMatch(/120000.*600000/);
    expect(byName.Bash).toMatch(/30,000 characters/);
    expect(byName.Glob).toMatch(/at most 500/);
    expect(byName.Grep).toMatch(/At most 200 result lines/);
  });

  it("validateInput refuses a path outside the roots before any permission vote", async () => {
    const dir = tempDir();
    const ctx = toolContext(dir);
    for (const tool of builtinTools().filter((t) => t.name !== "Bash" && t.name !== "TodoWrite")) {
      const input =
        tool.name === "Glob" || tool.name === "Grep"
          ? { pattern: "x", path: "/etc" }
          : { file_path: "/etc/passwd", content: "", old_string: "a", new_string: "b" };
      expect(await tool.validateInput(input, ctx), tool.name).toContain(`Permitted: ${dir}`);
      const inside =
        tool.name === "Glob" || tool.name === "Grep"
          ? { pattern: "x" }
          : { file_path: "a.txt", content: "", old_string: "a", new_string: "b" };
      expect(await tool.validateInput(inside, ctx), tool.name).toBeUndefined();
    }
  });
});
