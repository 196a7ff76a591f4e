/**
 * A temp project whose config injects a scripted model for runner tests through the real bin:
 * it answers by the user's last words and logs what each request carried (system prompt, tools
 * offered, the user texts) as one JSON line to $UBQ_LOG. Sessions go under the project.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { binPath, runCli, tempProject, type CliInput } from "./project";

/**
 * The file the scripted config is written to. It is plain JavaScript, so an ES module: a
 * `ubiquity.config.ts` made each fresh temp project's first run load and run jiti's Babel
 * (~0.2 CPU-s; its cache is per file path, so every new project missed it). Loading TypeScript
 * configs through the bin has tests of its own (test/config, test/cli/config-errors, test/security).
 */
export const SCRIPTED_CONFIG_FILE = "ubiquity.config.mjs";

/**
 * A config whose scripted model plays the turns in $UBQ_STEPS (JSON) in order, then answers
 * "done", logging each request's prompt as one JSON line to $UBQ_LOG when set.
 */
export const STEPS_CONFIG = `
import { appendFileSync } from "node:fs";
import { scriptedModel } from "ubiquity/testing";

const steps = JSON.parse(process.env.UBQ_STEPS ?? "[]");
let next = 0;
export default {
  sessionDir: process.env.UBQ_SESSIONS,
  todoDir: process.env.UBQ_SESSIONS + "-todos",
  marketPricing: false,
  maxRetries: 0,
  model: scriptedModel(({ request }) => {
    if (process.env.UBQ_LOG) appendFileSync(process.env.UBQ_LOG, JSON.stringify(request.prompt) + "\\n");
    return steps[next++] ?? "done";
  }),
};
`;

/** The scripted model: answers by the user's last words and logs each request as one JSON line. */
export const SCRIPTED_CONFIG = `
import { appendFileSync } from "node:fs";
import { scriptedModel } from "ubiquity/testing";

const textOf = (m) => (typeof m.content === "string" ? m.content : m.content.map((p) => (p.type === "text" ? p.text : "")).join("\\n"));

export default {
  sessionDir: process.env.UBQ_SESSIONS,
  todoDir: process.env.UBQ_SESSIONS + "-todos",
  marketPricing: false,
  maxRetries: 0,
  model: scriptedModel(({ request }) => {
    const users = request.prompt.filter((m) => m.role === "user").map(textOf);
    const last = request.prompt[request.prompt.length - 1];
    appendFileSync(process.env.UBQ_LOG, JSON.stringify({
      system: request.prompt.filter((m) => m.role === "system").map(textOf).join("\\n"),
      tools: (request.tools ?? []).map((t) => t.name),
      users,
      reasoning: request.reasoning,
    }) + "\\n");
    // The last line of the last user message (piped input goes ahead of the prompt).
    const said = (users[users.length - 1] ?? "").split("\\n").pop();
    if (said.includes("loop")) return { toolCalls: [{ toolName: "Glob", input: { pattern: "*" } }] };
    if (last.role === "tool") return "done";
    if (said.includes("fail")) return { error: { status: 503, message: "overloaded" } };
    if (said.includes("background")) return { toolCalls: [{ toolName: "Bash", input: { command: "sleep 600", run_in_background: true } }] };
    if (said.includes("echo")) return { toolCalls: [{ toolName: "Bash", input: { command: "echo hi" } }] };
    if (said.includes("slow")) return { text: "slow answer", delayMs: 20000 };
    // The summarizer (compaction): a short summary, so that it is smaller than the turns it replaces.
    if (request.prompt.some((m) => m.role === "system" && textOf(m).startsWith("You summarize"))) return "Fruits: apple, pear, plum.";
    return { text: "answer to " + said, chunkSize: 3 };
  }),
};
`;

/** One logged request. */
export interface Logged {
  system: string;
  tools: string[];
  users: string[];
  /** The AI SDK's reasoning call setting the request carried (the reasoning option), if any. */
  reasoning?: string;
}

/**
 * A project whose scripted model plays $UBQ_STEPS (STEPS_CONFIG), with a HOME of its own under it;
 * the folder `fixture` is copied in first when given. `env` is what the bin needs for it (HOME,
 * UBQ_SESSIONS, UBQ_LOG; a run adds UBQ_STEPS); `requests()` is what the model was sent, each
 * request's messages as JSON text.
 */
export function stepsProject(fixture?: string) {
  const dir = tempProject({ [SCRIPTED_CONFIG_FILE]: STEPS_CONFIG }, { linkUbiquity: true });
  if (fixture) cpSync(fixture, dir, { recursive: true });
  const home = join(dir, "home");
  mkdirSync(home);
  const log = join(dir, "model.log");
  writeFileSync(log, "");
  const env = { HOME: home, UBQ_SESSIONS: join(dir, "sessions"), UBQ_LOG: log };
  const requests = () => readFileSync(log, "utf8").split("\n").filter(Boolean);
  return { dir, home, env, requests };
}

let counter = 0;
/** A fresh project with the scripted model; `run` runs the bin there and returns its output with the model's log. */
export function scriptedProject(files: Record<string, string> = {}) {
  const dir = tempProject({ [SCRIPTED_CONFIG_FILE]: SCRIPTED_CONFIG, ...files }, { linkUbiquity: true });
  const sessions = join(dir, "sessions");
  return {
    dir,
    sessions,
    async run(args: string[], input: CliInput = {}, env: Record<string, string> = {}) {
      const log = join(dir, `model-${++counter}.log`);
      writeFileSync(log, "");
      const out = await runCli(["run", ...args], dir, { UBQ_LOG: log, UBQ_SESSIONS: sessions, ...env }, input);
      const requests = readFileSync(log, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Logged);
      const messages =
        out.stdout.startsWith("{") && !out.stdout.startsWith("{\n")
          ? out.stdout
              .split("\n")
              .filter(Boolean)
              .map((l) => JSON.parse(l) as Record<string, unknown>)
          : [];
      return { ...out, requests, messages };
    },
    /**
     * Run the bin with `args` (no `run` added) and send it `signal` once its stdout has shown the
     * user's message (the run has started); its exit code and what it printed.
     */
    signalled(args: string[], signal: NodeJS.Signals): Promise<{ code: number | null; stdout: string }> {
      const log = join(dir, `model-${++counter}.log`);
      writeFileSync(log, "");
      return new Promise((resolve) => {
        const child = spawn(process.execPath, [binPath, ...args], {
          cwd: dir,
          env: { ...process.env, UBIQUITY_TRUST: "1", NO_COLOR: "1", DEBUG: "", UBQ_LOG: log, UBQ_SESSIONS: sessions },
          stdio: ["ignore", "pipe", "ignore"],
        });
        let seen = "";
        child.stdout.on("data", (chunk: Buffer) => {
          seen += chunk.toString();
          if (seen.includes('"type":"user"') && !child.killed) child.kill(signal);
        });
        child.on("close", (code) => resolve({ code, stdout: seen }));
      });
    },
  };
}
