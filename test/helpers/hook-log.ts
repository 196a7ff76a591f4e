/**
 * For tests of hooks that go on in the background: a logger that records what it is told and
 * resolves `heard(text)` once an info line holds `text` (the hooks plugin says so when a rewaking
 * hook's report is queued), and a tool whose call waits for such a promise, so a run's next tool
 * result comes only after the report is queued, whatever the machine's load.
 */
import { z } from "zod";
import { defineTool, type Logger } from "ubiquity";

export function recordingLogger() {
  const said: { level: string; text: string }[] = [];
  const waiting: { text: string; resolve: () => void }[] = [];
  const at =
    (level: string) =>
    (...args: unknown[]) => {
      const text = args.map(String).join(" ");
      said.push({ level, text });
      if (level === "info") for (const w of waiting.filter((w) => text.includes(w.text))) w.resolve();
    };
  const logger: Logger = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
  /** Resolves once an info line holds `text`. */
  const heard = (text: string) => new Promise<void>((resolve) => waiting.push({ text, resolve }));
  return { logger, said, heard };
}

/** A read-only tool with no input that answers `<name> done`, after `wait` when given. */
export function waitingTool(name: string, wait?: Promise<void>) {
  return defineTool({
    name,
    description: name,
    inputSchema: z.object({}),
    isReadOnly: true,
    execute: async () => {
      await wait;
      return `${name} done`;
    },
  });
}
