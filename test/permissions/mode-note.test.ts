/** The permissions section of the system prompt: the mode and the rules, replacing the built-in section. */
import { describe, expect, it } from "vitest";
import { summon, type SummonOptions } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import permissions from "ubiquity/plugins/permissions";
import systemPrompt from "ubiquity/plugins/system-prompt";
import { collect } from "../helpers/collect";
import { tempDir } from "./helpers";

async function instructions(options: SummonOptions) {
  const model = scriptedModel(["ok", "ok"]);
  await collect(
    summon("hi", { presets: [], plugins: [systemPrompt(), permissions()], model, cwd: tempDir(), ...options }),
  );
  return model.requests[0]!.prompt.filter((m) => m.role === "system")
    .map((m) => m.content)
    .join("\n");
}

describe("mode note", () => {
  it("states the mode and the rules, once", async () => {
    const text = await instructions({
      permissionMode: "acceptEdits",
      allowedTools: ["Bash(git:*)", "Read"],
      disallowedTools: ["Bash(rm:*)"],
      askTools: ["Bash(git push:*)"],
    });
    expect(text.match(/# Permissions/g)).toHaveLength(1);
    expect(text).toContain(
      "Permission mode: acceptEdits. File edits inside the permitted folders, and shell commands made only of mkdir, touch and cp on files there, are approved automatically",
    );
    expect(text).toContain("Pre-approved: Bash(git:*), Read.");
    expect(text).toContain("Always denied: Bash(rm:*).");
    expect(text).toContain("Always asks: Bash(git push:*).");
    // Each simple command is judged on its own, and one known only at run time always asks.
    expect(text).toMatch(/Shell commands are judged one by one \(each of a list, pipeline or substitution\)/);
    expect(text).toContain("always needs approval");
  });

  it("in bypassPermissions says how shell commands are judged only when a rule denies or asks", async () => {
    const bare = await instructions({ permissionMode: "bypassPermissions" });
    expect(bare).toContain("Permission mode: bypassPermissions.");
    expect(bare).not.toContain("Shell commands are judged");
    const ruled = await instructions({ permissionMode: "bypassPermissions", disallowedTools: ["Bash(rm:*)"] });
    expect(ruled).toContain("Always denied: Bash(rm:*).");
    expect(ruled).toContain("Shell commands are judged one by one against those rules");
    expect(ruled).not.toContain("always needs approval");
  });

  it("is the same bytes for the same options", async () => {
    const options = { permissionMode: "plan" as const, allowedTools: ["Read"], cwd: tempDir() };
    expect(await instructions(options)).toBe(await instructions(options));
  });
});
