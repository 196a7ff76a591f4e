/**
 * The permitted roots are resolved once per run: a working directory reached through a symlink is
 * where that symlink led when the run first judged a call. Re-pointed mid-run (by the agent's own
 * shell, or anyone), the permitted area does not move with it: a write through the new target
 * resolves outside the roots and asks (a headless ask is a deny), and nothing is created there.
 */
import { existsSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import permissions from "ubiquity/plugins/permissions";
import { builtinTools } from "../../plugins/tools/index";
import { collect, ofType } from "../helpers/collect";
import { tempDir } from "./helpers";

describe("the permitted roots of a run", () => {
  it("stay where a symlinked cwd led at the first call when the symlink is re-pointed mid-run", async () => {
    const base = tempDir();
    const project = join(base, "project");
    const victim = join(base, "victim");
    mkdirSync(project);
    mkdirSync(victim);
    const link = join(base, "link");
    symlinkSync(project, link);
    const model = scriptedModel(({ index }) => {
      if (index === 1) {
        // Between the two calls the cwd's symlink is pointed at another folder.
        rmSync(link);
        symlinkSync(victim, link);
      }
      return index < 2
        ? { toolCalls: [{ toolName: "Write", input: { file_path: `note-${index}.txt`, content: "x\n" } }] }
        : { text: "done" };
    });
    const messages = await collect(
      summon("go", {
        presets: [],
        plugins: [permissions()],
        tools: builtinTools(),
        cwd: link,
        permissionMode: "acceptEdits",
        model,
      }),
    );
    const results = ofType(messages, "tool_result");
    expect(results).toHaveLength(2);
    // The first write lands in the project, inside the run's root.
    expect(results[0]!.output.isError, results[0]!.output.content).toBe(false);
    expect(existsSync(join(project, "note-0.txt"))).toBe(true);
    // The second resolves to the victim folder, outside the root the run started with: not allowed.
    expect(results[1]!.output.isError).toBe(true);
    expect(results[1]!.output.content).toMatch(/needs approval/);
    expect(existsSync(join(victim, "note-1.txt"))).toBe(false);
  });
});
