import type { LanguageModelV4CallOptions } from "@ai-sdk/provider";
import { z } from "zod";
import { defineTool } from "ubiquity";

/** A tool that blocks until the test opens it (or the call is aborted). */
export function gate(name = "Gate") {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  let aborted = false;
  let entered!: () => void;
  const reached = new Promise<void>((resolve) => (entered = resolve));
  const tool = defineTool({
    name,
    description: "Wait until told to go on.",
    inputSchema: z.object({}),
    isReadOnly: true,
    isConcurrencySafe: true,
    timeoutMs: Infinity,
    execute: async (_input, ctx) => {
      entered();
      await new Promise<void>((resolve, reject) => {
        void opened.then(resolve);
        ctx.abortSignal.addEventListener("abort", () => ((aborted = true), reject(new Error("gate aborted"))), {
          once: true,
        });
      });
      return "gate open";
    },
  });
  return { tool, open, reached, aborted: () => aborted };
}

/** Every text of a request's user and tool messages, joined (what the model was told). */
export function told(request: LanguageModelV4CallOptions, last = false): string {
  return (last ? request.prompt.slice(-1) : request.prompt)
    .filter((m) => m.role === "user" || m.role === "tool")
    .flatMap((m) =>
      (m.content as { type: string; text?: string; output?: { value?: unknown } }[]).map((p) =>
        p.type === "text" ? p.text : JSON.stringify(p.output?.value ?? ""),
      ),
    )
    .join("\n");
}

/** What the model was told since its last response (the request's last message). */
export const latest = (request: LanguageModelV4CallOptions) => told(request, true);

/** Poll `check` until it holds (generous deadline: never a timing assertion). */
export async function until(check: () => boolean, what: string, deadlineMs = 60_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
