/**
 * apply_patch inside real runs (the default preset; a scripted model labelled as OpenAI's
 * gpt-5.1, so the profile offers apply_patch): permission rules written for Edit/Write judge
 * every file a patch touches, and checkpoints snapshot before it so a rewind restores every file
 * the patch added, changed, moved or deleted.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { rewindFiles, summon, type Message, type SummonOptions } from "ubiquity";
import { scriptedModel, type ScriptedTurn } from "ubiquity/testing";
import { ofType, resultOf } from "../helpers/collect";
import { temp, workspace } from "../checkpoints/helpers";

const gpt = (script: ScriptedTurn[]) => scriptedModel(script, { provider: "openai.responses", modelId: "gpt-5.1" });
const patch = (...lines: string[]) => ["*** Begin Patch", ...lines, "*** End Patch"].join("\n");

async function drain(prompt: string, options: SummonOptions): Promise<Message[]> {
  const out: Message[] = [];
  for await (const m of summon(prompt, options)) out.push(m);
  return out;
}

describe("apply_patch in a run", () => {
  it("is what a gpt-5.1 model is offered, and a rewind undoes a whole patch", async () => {
    const { dir, home } = workspace();
    const model = gpt([
      {
        toolCalls: [
          { toolName: "Read", input: { file_path: "a.txt" } },
          { toolName: "Read", input: { file_path: "c.txt" } },
        ],
      },
      {
        toolCalls: [
          {
            toolName: "apply_patch",
            input: {
              input: patch(
                "*** Update File: a.txt",
                "*** Move to: moved/a.txt",
                "@@",
                " alpha",
                "-beta",
                "+BETA",
                "*** Add File: added.txt",
                "+new",
                "*** Delete File: c.txt",
              ),
            },
          },
        ],
      },
      "done",
    ]);
    const query = { cwd: dir, sessionDir: join(home, "sessions") };
    const messages = await drain("change some files", {
      model,
      cwd: dir,
      permissionMode: "bypassPermissions",
      sessionDir: query.sessionDir,
      todoDir: join(home, "todos"),
      checkpoints: { dir: join(home, "checkpoints") },
      marketPricing: false,
    });
    const result = resultOf(messages);
    expect(result.isError, result.result).toBe(false);
    const tools = model.requests[0]!.tools!.map((t) => t.name);
    expect(tools).toContain("apply_patch");
    expect(tools).not.toContain("Edit");
    expect(ofType(messages, "tool_result").map((r) => [r.toolName, r.output.isError])).toEqual([
      ["Read", false],
      ["Read", false],
      ["apply_patch", false],
    ]);
    expect(readFileSync(join(dir, "moved/a.txt"), "utf8")).toBe("alpha\nBETA\ngamma\n");
    expect(existsSync(join(dir, "c.txt"))).toBe(false);

    const [prompt] = ofType(messages, "user");
    const done = await rewindFiles(result.sessionId, prompt!.uuid, query);
    expect(done.refused).toEqual([]);
    expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("alpha\nbeta\ngamma\n");
    expect(readFileSync(join(dir, "c.txt"), "utf8")).toBe("x marks the spot\nxylophone\n");
    expect(existsSync(join(dir, "added.txt"))).toBe(false);
    expect(existsSync(join(dir, "moved/a.txt"))).toBe(false);
  });

  it("is judged by Edit/Write rules on every file it names: all covered runs, one uncovered is refused, a deny wins even in bypass", async () => {
    const dir = temp("ubq-patch-perm-");
    mkdirSync(join(dir, "src"));
    mkdirSync(join(dir, "secret"));
    const base = { cwd: dir, persistSession: false, marketPricing: false } as const;
    const inSrc = patch("*** Add File: src/one.ts", "+export const one = 1;");
    const spills = patch("*** Add File: src/two.ts", "+export const two = 2;", "*** Add File: outside-src.txt", "+x");

    const allowed = await drain("go", {
      ...base,
      model: gpt([{ toolCalls: [{ toolName: "apply_patch", input: { input: inSrc } }] }, "ok"]),
      permissionMode: "dontAsk",
      allowedTools: ["Read", "Edit(src/**)"],
    });
    expect(ofType(allowed, "tool_result")[0]!.output.isError).toBe(false);
    expect(existsSync(join(dir, "src/one.ts"))).toBe(true);

    const refused = await drain("go", {
      ...base,
      model: gpt([{ toolCalls: [{ toolName: "apply_patch", input: { input: spills } }] }, "ok"]),
      permissionMode: "dontAsk",
      allowedTools: ["Read", "Edit(src/**)"],
    });
    expect(ofType(refused, "tool_result")[0]!.output.isError).toBe(true);
    expect(existsSync(join(dir, "src/two.ts"))).toBe(false);
    expect(existsSync(join(dir, "outside-src.txt"))).toBe(false);

    writeFileSync(join(dir, "secret/key.txt"), "k\n");
    const denied = await drain("go", {
      ...base,
      model: gpt([
        { toolCalls: [{ toolName: "apply_patch", input: { input: patch("*** Delete File: secret/key.txt") } }] },
        "ok",
      ]),
      permissionMode: "bypassPermissions",
      disallowedTools: ["Write(secret/**)"],
    });
    const denial = ofType(denied, "tool_result")[0]!;
    expect(denial.output.isError).toBe(true);
    expect(denial.output.content).toMatch(/Write\(secret\/\*\*\)/);
    expect(readFileSync(join(dir, "secret/key.txt"), "utf8")).toBe("k\n");
  });

  it("a PreToolUse hook written for Edit|Write watches apply_patch too", async () => {
    const dir = temp("ubq-patch-hook-");
    const messages = await drain("go", {
      cwd: dir,
      persistSession: false,
      marketPricing: false,
      permissionMode: "bypassPermissions",
      model: gpt([
        { toolCalls: [{ toolName: "apply_patch", input: { input: patch("*** Add File: guarded.txt", "+x") } }] },
        "ok",
      ]),
      hooks: {
        PreToolUse: [
          { matcher: "Edit|Write", hooks: [{ type: "command", command: "echo 'edits are frozen' >&2; exit 2" }] },
        ],
      },
    });
    const result = ofType(messages, "tool_result")[0]!;
    expect(result.output.isError).toBe(true);
    expect(result.output.content).toContain("edits are frozen");
    expect(existsSync(join(dir, "guarded.txt"))).toBe(false);
  });

  it("stands where Edit and Write stand in the tool list: an allow-list entry for Edit keeps it, a bare deny of Edit takes it away", async () => {
    const dir = temp("ubq-patch-avail-");
    const offered = async (options: Partial<SummonOptions>) => {
      const model = gpt(["ok"]);
      await drain("go", { cwd: dir, persistSession: false, marketPricing: false, model, ...options });
      return model.requests[0]!.tools?.map((t) => t.name) ?? [];
    };
    expect(await offered({ allowedTools: ["Read", "Edit(src/**)"] })).toEqual(["Read", "apply_patch"]);
    const denied = await offered({ disallowedTools: ["Edit"] });
    expect(denied).not.toContain("apply_patch");
    expect(denied).not.toContain("Edit");
    expect(await offered({ disallowedTools: ["Write"] })).not.toContain("apply_patch");
  });
});
