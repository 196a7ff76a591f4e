/**
 * A tool call the model wrote as text. A local model served without its tool-call template or
 * parser (LM Studio with a model whose template has no tools, vLLM without `--tool-call-parser`)
 * writes `{"name": "Glob", "arguments": {…}}` in its answer instead of calling: the server never
 * reads it as a call, the run ends "success" with the JSON as its result, and nothing said why.
 * It is never run (the text is not a call the model made through the API); the warning names the
 * cause.
 */

/** The shapes such text takes: bare JSON, in a ```json fence, or in Hermes/Qwen `<tool_call>` tags. */
const WRAPPERS = [/^```(?:json)?\s*([\s\S]*?)\s*```$/, /^<tool_call>\s*([\s\S]*?)\s*<\/tool_call>$/];

/** The tool `text` names when the whole text is one call written as JSON, else undefined. */
export function textToolCall(text: string, toolNames: readonly string[]): string | undefined {
  let body = text.trim();
  if (body.length > 20_000 || !/[}`>]$/.test(body)) return undefined;
  for (const wrapper of WRAPPERS) body = wrapper.exec(body)?.[1] ?? body;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const call = (Array.isArray(parsed) ? parsed[0] : parsed) as Record<string, unknown> | null | undefined;
  const fn = (call?.function ?? call) as Record<string, unknown> | null | undefined;
  const name = fn?.name;
  const args = fn?.arguments ?? fn?.parameters ?? fn?.input;
  if (typeof name !== "string" || !toolNames.includes(name)) return undefined;
  return args !== undefined && typeof args === "object" ? name : undefined;
}

/** The warning for `label`'s answer that wrote a call of `tool` as text. */
export function textToolCallWarning(label: string, tool: string): string {
  return (
    `${label} wrote a call of ${tool} as text instead of calling it: its server did not read it as a tool call, ` +
    "so nothing ran and the run ended on that text. Serve the model with tool calling (its chat template's tools; " +
    "vLLM: --enable-auto-tool-choice --tool-call-parser <parser>; llama.cpp: --jinja; Ollama: a model tagged tools) or pick one that has it"
  );
}
