/**
 * The offline `test` model (`model: "test"`): deterministic, no network, for demos and tests.
 * It never pretends to be a real provider: its label is `test` and its answers say what it is.
 */
import type { LanguageModelV4, LanguageModelV4Prompt } from "@ai-sdk/provider";
import { offlineModel, type OfflineStep } from "./model-base";

function lastUserText(prompt: LanguageModelV4Prompt): string {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const m = prompt[i]!;
    if (m.role === "user") return m.content.map((p) => (p.type === "text" ? p.text : "")).join(" ");
  }
  return "";
}

function answer(prompt: LanguageModelV4Prompt, tools: string[]): OfflineStep {
  const last = prompt[prompt.length - 1];
  if (last?.role === "tool") {
    const lines: string[] = [];
    for (const part of last.content) {
      if (part.type !== "tool-result") continue;
      const out = part.output;
      const value = "value" in out ? (typeof out.value === "string" ? out.value : JSON.stringify(out.value)) : "";
      const body = value.split("\n").slice(0, 40).join("\n");
      lines.push(`${part.toolName} returned${out.type.startsWith("error") ? " an error" : ""}:\n${body}`);
    }
    return { text: `${lines.join("\n\n")}\n\n(This is the offline test model; set a real model for real answers.)` };
  }
  const text = lastUserText(prompt).trim();
  if (tools.includes("Glob") && /\b(list|files?|ls|show)\b/i.test(text)) {
    return { text: "I'll list the files.", toolCalls: [{ toolName: "Glob", input: { pattern: "*" } }] };
  }
  const read = /\bread\s+(\S+\.\w+)/i.exec(text);
  if (tools.includes("Read") && read) {
    return { text: `I'll read ${read[1]}.`, toolCalls: [{ toolName: "Read", input: { file_path: read[1] } }] };
  }
  return {
    text: `Offline test model: you said "${text}". It answers without a network; set a real model (e.g. --model openai:gpt-5) for real work.`,
  };
}

/** The offline deterministic `test` model. */
export function testModel(): LanguageModelV4 {
  return offlineModel("ubiquity-test", "test", (options) => {
    const tools = (options.tools ?? []).map((t) => t.name);
    return answer(options.prompt, tools);
  });
}
