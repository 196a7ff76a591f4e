// A user's HarnessAgent program on the installed tarball: ubiquity/harness with @ai-sdk/harness
// (the optional peer, installed as a user would), type-checked strict + nodenext, then run on
// the scripted model: a Write call through HarnessAgent, and the file on disk.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HarnessAgent } from "@ai-sdk/harness/agent";
import { localSandbox, ubiquityHarness } from "ubiquity/harness";
import { scriptedModel } from "ubiquity/testing";

const root = mkdtempSync(join(tmpdir(), "harness-check-"));
const file = join(root, "ubiquity-check", "hello.txt");
const model = scriptedModel([
  { toolCalls: [{ toolName: "Write", input: { file_path: file, content: "hi\n" } }] },
  "Wrote hello.txt.",
]);
const agent = new HarnessAgent({
  harness: ubiquityHarness({ model, persistSession: false }),
  sandbox: localSandbox({ root }),
});
const session = await agent.createSession({ sessionId: "check" });
const seen: string[] = [];
try {
  const result = await agent.stream({ session, prompt: "write hello.txt" });
  for await (const part of result.fullStream)
    if (part.type === "tool-call" || part.type === "tool-result") seen.push(`${part.type} ${part.toolName}`);
  const text = await result.text;
  if (
    text !== "Wrote hello.txt." ||
    readFileSync(file, "utf8") !== "hi\n" ||
    seen.join(",") !== "tool-call Write,tool-result Write"
  ) {
    throw new Error(`unexpected harness run: ${JSON.stringify({ text, seen })}`);
  }
  console.log(`harness: ${seen.join(", ")}; ${text}`);
} finally {
  await session.destroy();
}
