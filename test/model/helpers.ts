import { z } from "zod";
import { defineTool, summon, type Logger, type Message, type SummonOptions } from "ubiquity";
import modelPlugin from "ubiquity/plugins/model";
import retryPlugin from "ubiquity/plugins/retry";
import pricingPlugin from "ubiquity/plugins/pricing";
import { collect } from "../helpers/collect";

/** A small custom tool for tool-call round trips. */
export const echo = defineTool({
  name: "Echo",
  description: "Echo the text back",
  inputSchema: z.object({ text: z.string() }),
  isReadOnly: true,
  execute: ({ text }) => `echoed: ${text}`,
});

/** The model layer's three plugins and nothing else, so other features cannot interfere. */
export const modelLayer = () => ({ presets: [], plugins: [modelPlugin(), retryPlugin(), pricingPlugin()] });

/** A logger that keeps every line (formatted like console would). */
export function capturingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const push =
    (level: string) =>
    (...args: unknown[]) =>
      lines.push(
        `${level} ${args.map((a) => (a instanceof Error ? `${a.message} ${a.stack}` : typeof a === "string" ? a : JSON.stringify(a))).join(" ")}`,
      );
  return { lines, debug: push("debug"), info: push("info"), warn: push("warn"), error: push("error") };
}

/** Run `prompt` through the model layer with `options`. */
export function run(prompt: string, options: SummonOptions): Promise<Message[]> {
  return collect(summon(prompt, { ...modelLayer(), tools: [echo], ...options }));
}
