/** A Bash tool that records the commands it was asked to run and runs none: for tests whose subject is the decision (permissions, hooks), not the shell. */
import { z } from "zod";
import { defineTool } from "ubiquity";

/** A recording Bash tool and the list it appends each command to. */
export function recordedBash() {
  const ran: string[] = [];
  const tool = defineTool({
    name: "Bash",
    description: "Run a command (recorded, not executed, in this test).",
    inputSchema: z.object({ command: z.string() }),
    execute: ({ command }) => {
      ran.push(command);
      return `ran: ${command}`;
    },
  });
  return { tool, ran };
}
