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

type Schema = Record<string, unknown>;

/**
 * A value `schema` (JSON Schema, as tools carry it) accepts, made from what it says: an enum's or
 * const's value, a default, each required property (all of them when none is required), minimum
 * lengths and bounds, the first branch of a union. What it cannot read gives null, which the
 * schema then refuses as a real model's wrong answer would be refused.
 */
export function exampleOf(schema: unknown, depth = 0): unknown {
  if (typeof schema !== "object" || schema === null || depth > 8) return null;
  const s = schema as Schema;
  if ("const" in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  if ("default" in s) return s.default;
  const branch = [s.anyOf, s.oneOf, s.allOf].find((b) => Array.isArray(b) && b.length > 0) as unknown[] | undefined;
  if (branch) return exampleOf(branch[0], depth + 1);
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type;
  const min = (key: string) => (typeof s[key] === "number" ? (s[key] as number) : undefined);
  switch (type) {
    case "object": {
      const properties = (s.properties ?? {}) as Record<string, unknown>;
      const required =
        Array.isArray(s.required) && s.required.length > 0 ? (s.required as string[]) : Object.keys(properties);
      return Object.fromEntries(required.map((key) => [key, exampleOf(properties[key], depth + 1)]));
    }
    case "array":
      return Array.from({ length: min("minItems") ?? 0 }, () => exampleOf(s.items, depth + 1));
    case "string":
      return s.format === "date-time" ? new Date(0).toISOString() : "example".padEnd(min("minLength") ?? 0, "!");
    case "integer":
    case "number":
      return min("minimum") ?? (min("exclusiveMinimum") === undefined ? 0 : Math.floor(min("exclusiveMinimum")!) + 1);
    case "boolean":
      return false;
    default:
      return null;
  }
}

function answer(prompt: LanguageModelV4Prompt, tools: { name: string; inputSchema?: unknown }[]): OfflineStep {
  const last = prompt[prompt.length - 1];
  // A run asked for a structured result (`--json-schema`, `outputSchema`): the answer is one value
  // the schema accepts, made from the schema, so the offline model shows where a real one's lands.
  const structured = tools.find((t) => t.name === "StructuredOutput");
  if (structured) {
    return {
      text: "Offline test model: an example value made from the schema.",
      toolCalls: [{ toolName: structured.name, input: exampleOf(structured.inputSchema) as Record<string, unknown> }],
    };
  }
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
  const names = tools.map((t) => t.name);
  // "use Weather" / "call Weather {"city":"Paris"}": a tool of the run by its name, with the JSON
  // given or a value made from its schema, so a plugin's tool can be tried from the command line.
  const use = /\b(?:use|call)\s+([\w.-]+)(?:\s+(\{[\s\S]*\}))?/i.exec(text);
  const tool = use && tools.find((t) => t.name.toLowerCase() === use[1]!.toLowerCase());
  if (tool) {
    let input = exampleOf(tool.inputSchema);
    try {
      if (use[2]) input = JSON.parse(use[2]);
    } catch {
      // not JSON: the value made from the schema
    }
    return {
      text: `I'll call ${tool.name}.`,
      toolCalls: [{ toolName: tool.name, input: input as Record<string, unknown> }],
    };
  }
  if (names.includes("Glob") && /\b(list|files?|ls|show)\b/i.test(text)) {
    return { text: "I'll list the files.", toolCalls: [{ toolName: "Glob", input: { pattern: "*" } }] };
  }
  const read = /\bread\s+(\S+\.\w+)/i.exec(text);
  if (names.includes("Read") && read) {
    return { text: `I'll read ${read[1]}.`, toolCalls: [{ toolName: "Read", input: { file_path: read[1] } }] };
  }
  return {
    text: `Offline test model: you said "${text}". It answers without a network; set a real model (e.g. --model openai:gpt-5) for real work.`,
  };
}

/** The offline deterministic `test` model. */
export function testModel(): LanguageModelV4 {
  return offlineModel("ubiquity-test", "test", (options) => {
    // Asked for JSON text (a native structured output): an example value of the schema.
    if (options.responseFormat?.type === "json" && options.responseFormat.schema)
      return { text: JSON.stringify(exampleOf(options.responseFormat.schema)) };
    const tools = (options.tools ?? []).map((t) => ({
      name: t.name,
      inputSchema: "inputSchema" in t ? t.inputSchema : undefined,
    }));
    return answer(options.prompt, tools);
  });
}
