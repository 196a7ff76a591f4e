/** What the agents plugin adds to the `ubiquity` runner: `run --agents` (Claude Code's flag). */
import { readFileSync } from "node:fs";
import { UsageError, type RunFlag } from "../../loader/index";
import { describeError } from "../../src/index";

/** `--agents`: a JSON object of subagent definitions, or (as `claude -p` takes it) the path of a file holding one. */
function agentsOf(spec: string): Record<string, unknown> {
  const inline = spec.trim().startsWith("{");
  let text = spec;
  if (!inline) {
    try {
      text = readFileSync(spec, "utf8");
    } catch (error) {
      throw new UsageError(`--agents ${spec}: neither a JSON object nor a readable file (${describeError(error)})`);
    }
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--agents${inline ? "" : ` ${spec}`}: not valid JSON (${describeError(error)})`);
  }
  if (typeof data !== "object" || data === null || Array.isArray(data))
    throw new UsageError(
      '--agents takes an object of agents by name: {"reviewer": {"description": "…", "prompt": "…"}}',
    );
  return data as Record<string, unknown>;
}

/** The `run` flags of the options this plugin owns. */
export const agentsFlags: Record<string, RunFlag> = {
  agent: {
    type: "string",
    value: "<name>",
    group: "Tools and permissions",
    claude: "--agent",
    description:
      "Run the main agent as this agent (of --agents, the config's agents or the agent files): its prompt, tools and model",
    apply: (o, v) => void (o.agent = String(v)),
  },
  agents: {
    type: "string",
    value: "<json|file>",
    group: "Tools and permissions",
    claude: "--agents",
    description:
      'Subagents by name, as JSON or a file of it: {"reviewer":{"description":"Reviews code","prompt":"You review"}}; added to the config\'s agents',
    // The definitions are checked with the config's (a bad field is a configuration error naming it).
    apply: (o, v) => void (o.agents = { ...(o.agents as object | undefined), ...agentsOf(String(v)) }),
  },
};
