/**
 * A `canUseTool` callback as the last word on tool calls: writes outside `notes/` are denied,
 * and the denial shows in the result's `permissionDenials`. Runs on the scripted model in a temp
 * folder. Run: npx jiti examples/permissions.ts
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { summon, type CanUseTool } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";

const cwd = mkdtempSync(join(tmpdir(), "ubiquity-example-"));
const notes = join(cwd, "notes");

const canUseTool: CanUseTool = (toolName, input) => {
  const path = typeof input.file_path === "string" ? resolve(cwd, input.file_path) : undefined;
  if (toolName === "Write" && path && !path.startsWith(`${notes}/`))
    return { behavior: "deny", message: "Write only under notes/" };
  return { behavior: "allow" };
};

const model = scriptedModel([
  { toolCalls: [{ toolName: "Write", input: { file_path: join(cwd, "package.json"), content: "{}" } }] },
  { toolCalls: [{ toolName: "Write", input: { file_path: join(notes, "todo.md"), content: "- ship it\n" } }] },
  { text: "Wrote notes/todo.md." },
]);

try {
  for await (const message of summon("Write a todo note", {
    model,
    cwd,
    canUseTool,
    permissionMode: "acceptEdits",
    persistSession: false,
  })) {
    if (message.type === "tool_result")
      console.log(
        `${message.toolName}: ${message.output.isError ? "refused" : "ok"} — ${String(message.output.content).split("\n")[0]}`,
      );
    if (message.type === "result") {
      console.log(`denied: ${message.permissionDenials.map((d) => d.toolName).join(", ") || "nothing"}`);
      console.log(`notes/todo.md: ${JSON.stringify(readFileSync(join(notes, "todo.md"), "utf8"))}`);
      if (message.isError || message.permissionDenials.length !== 1) process.exitCode = 1;
    }
  }
} finally {
  rmSync(cwd, { recursive: true, force: true });
}
