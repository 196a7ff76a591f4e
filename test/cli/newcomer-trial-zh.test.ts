/**
 * What a newcomer's trial (zh, 2026-12-07: a developer who runs a small open-weights model locally —
 * Ollama, LM Studio, llama.cpp's server, vLLM, all speaking the OpenAI chat wire — because Ubiquity
 * "runs on any model the AI SDK reaches"; the packed package in an empty project, the models
 * guide's `--base-url … --model qwen2.5-coder:7b`, a fake server on 127.0.0.1 with a small window
 * and no usage in its stream, as these servers answer) met:
 * - the server's window is whatever it was started with (vLLM `--max-model-len 8192`, llama.cpp
 *   `-c 8192`), which no price table knows: the run assumed 32,768 tokens, never compacted, and the
 *   server's 400 "This model's maximum context length is 8192 tokens. However, you requested …"
 *   ended it after a few Reads, naming no way on. The window the refusal names is now learned for
 *   the rest of the run, the history compacted against it and the request sent again (once), with a
 *   warning naming `maxContextTokens`; a request that cannot fit (the first one, on a 3k window)
 *   ends with an error naming the server's context flags, `maxContextTokens` and fewer tools;
 * - Ollama refuses nothing: past its window (4,096 tokens by default on a small GPU; its `/v1`
 *   endpoint ignores a request's `num_ctx`) it drops the prompt's start — the system prompt, the
 *   tools, the task — and answers 200, and the model answered a conversation it never saw, with
 *   nothing said. The input count it reports, far under what was sent, now brings a warning (once a
 *   run) naming `OLLAMA_CONTEXT_LENGTH` and `maxContextTokens`;
 * - a reasoning model served without a reasoning parser (Qwen3, DeepSeek-R1, QwQ: vLLM without
 *   `--reasoning-parser`, llama.cpp without `--reasoning-format`) writes its thinking in `<think>`
 *   tags in the answer: `-p` printed it before the answer (Claude Code's `-p` prints the answer).
 *   It is now read as reasoning, as a parser would have sent it.
 * The rest ran as the docs say: the tagged model name kept whole on the wire, a server without
 * usage warned about once with the cost unknown (not "free": a localhost proxy may be paid).
 * Noticed and left: a call written as text (`<tool_call>{…}</tool_call>`) is warned about and not
 * run (a design decision: the text is not a call made through the API); with a window this small,
 * `compactKeepRecent` [6] can keep more than fits (three large Reads), and the refusal then ends the
 * run with the hint; `responseTimeoutMs` [600 s] cuts a CPU-bound model writing a long file.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { installPacked, removePackedDirs, tempDir } from "../helpers/packed";
import { requireDist } from "../helpers/project";

interface Seen {
  model: string;
  tools: number;
  tokens: number;
  refused: boolean;
  text: string;
}
interface Answer {
  text?: string;
  read?: string;
}

/**
 * A local server's chat endpoint: tokens counted as a quarter of the request's characters, a
 * request over `window` refused as vLLM refuses it, answers streamed with no usage chunk.
 */
async function localServer(
  window: number,
  answer: (body: { messages: { role: string; content: unknown }[]; tools?: unknown[] }) => Answer,
  overflow: "refuse" | "cut" = "refuse",
) {
  const seen: Seen[] = [];
  const server: Server = createServer(async (req, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const body = JSON.parse(raw);
    const tokens = Math.ceil(raw.length / 4);
    const text = JSON.stringify(body.messages);
    // Ollama past its window keeps half of it and answers 200, reporting what it kept.
    const refused = tokens > window && overflow === "refuse";
    const kept = tokens > window ? window / 2 + 2 : tokens;
    const usage =
      overflow === "cut" ? { prompt_tokens: kept, completion_tokens: 5, total_tokens: kept + 5 } : undefined;
    seen.push({ model: body.model, tools: body.tools?.length ?? 0, tokens, refused, text });
    if (refused) {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          object: "error",
          message: `This model's maximum context length is ${window} tokens. However, you requested ${tokens} tokens (${tokens - 100} in the messages, 100 in the completion). Please reduce the length of the messages or completion.`,
          type: "BadRequestError",
          param: null,
          code: 400,
        }),
      );
      return;
    }
    const a = answer(body);
    res.writeHead(200, { "content-type": "text/event-stream" });
    const send = (delta: object, finish: string | null = null) =>
      res.write(
        `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
      );
    if (a.read) {
      const call = {
        index: 0,
        id: `call_${seen.length}`,
        type: "function",
        function: { name: "Read", arguments: JSON.stringify({ file_path: a.read }) },
      };
      send({ role: "assistant", tool_calls: [call] });
      send({}, "tool_calls");
    } else {
      send({ role: "assistant", content: a.text ?? "" });
      send({}, "stop");
    }
    if (usage)
      res.write(
        `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: body.model, choices: [], usage })}\n\n`,
      );
    res.end("data: [DONE]\n\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, seen };
}
const servers: Server[] = [];

let app: string | undefined;
/** The trial's project: the packed package and a few source files, nothing else. */
function project(): string {
  if (app) return app;
  app = tempDir("ubiquity-trial-zh-");
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "small-model", private: true, type: "module" }));
  installPacked(app);
  // Six modules of ~2,900 characters each: six Reads overflow an 8k window.
  for (let i = 1; i <= 6; i++)
    writeFileSync(
      join(app, `part${i}.js`),
      Array.from({ length: 50 }, (_, n) => `export const value_${i}_${n} = "${"x".repeat(30)}${n}";`).join("\n"),
    );
  return app;
}
const home = () => (homeDir ??= tempDir("ubiquity-trial-zh-home-"));
let homeDir: string | undefined;

interface Ended {
  code: number | null;
  stdout: string;
  stderr: string;
}

const sessions = () => (sessionsDir ??= tempDir("ubiquity-trial-zh-sessions-"));
let sessionsDir: string | undefined;

/** The packed bin in the project, pointed at `url` as the models guide shows. */
function ubiquity(url: string, ...args: string[]): Promise<Ended> {
  const dir = project();
  const child: ChildProcess = spawn(
    process.execPath,
    [
      join(dir, "node_modules", "ubiquity", "bin", "ubiquity.mjs"),
      "--trust",
      "-p",
      "--base-url",
      url,
      "--model",
      "qwen2.5-coder:7b",
      "--session-dir",
      sessions(),
      ...args,
    ],
    {
      cwd: dir,
      env: { ...process.env, HOME: home(), DEBUG: "", NO_COLOR: "1", UBIQUITY_TRUST: "", UBIQUITY_MODEL: "" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

beforeAll(() => requireDist());
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});
afterAll(() => removePackedDirs());

describe("a small local model's window", () => {
  it("a request refused as longer than an 8k window: the window learned, the history compacted, the request sent again", async () => {
    const SUMMARY = "Summary of the earlier work: part1.js to part3.js were read.";
    const { url, seen } = await localServer(8192, (body) => {
      // The summarizer's request carries no tools; the turns read the four parts one by one.
      if (!body.tools?.length) return { text: SUMMARY };
      if (JSON.stringify(body.messages).includes(SUMMARY)) return { text: "All six parts export constants." };
      const read = body.messages.filter((m) => m.role === "tool").length;
      return read < 6 ? { read: join(project(), `part${read + 1}.js`) } : { text: "unreachable" };
    });
    const run = await ubiquity(url, "read part1.js to part6.js and tell me what they export");
    if (process.env.ZH_DEBUG)
      console.log(
        run,
        seen.map((s) => [s.tools, s.tokens, s.refused, s.text.slice(-300)]),
      );
    expect(run.stderr).toContain("context window (8192 tokens)");
    expect(run.stderr).toContain("maxContextTokens: 8192");
    expect(run.stdout.trim()).toBe("All six parts export constants.");
    expect(run.code).toBe(0);
    const refused = seen.filter((s) => s.refused);
    expect(refused).toHaveLength(1);
    // The request after the summary fits the window the server named.
    const last = seen.at(-1)!;
    expect(last.text).toContain(SUMMARY);
    expect(last.tokens).toBeLessThanOrEqual(8192);
    expect(seen.every((s) => s.model === "qwen2.5-coder:7b")).toBe(true);

    // The next morning: `--continue` resumes the compacted history, not the one the server refused.
    seen.length = 0;
    const next = await ubiquity(url, "--continue", "and what do they have in common?");
    expect(next.code).toBe(0);
    expect(seen[0]!.text).toContain(SUMMARY);
    expect(seen[0]!.text).not.toContain("value_1_0");
    expect(seen.some((s) => s.refused)).toBe(false);
  }, 120_000);

  it("a first request the window cannot hold ends once, naming the server's context flags and maxContextTokens", async () => {
    const { url, seen } = await localServer(1500, () => ({ text: "never" }));
    const run = await ubiquity(url, "what does this project do?");
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("maximum context length is 1500 tokens");
    expect(run.stderr).toContain("--max-model-len");
    expect(run.stderr).toContain("OLLAMA_CONTEXT_LENGTH");
    expect(run.stderr).toContain("maxContextTokens: 1500");
    expect(seen).toHaveLength(1);
  }, 120_000);
});

describe("Ollama past its window", () => {
  const readFive = (body: { messages: { role: string }[] }): Answer => {
    const read = body.messages.filter((m) => m.role === "tool").length;
    return read < 5 ? { read: join(project(), `part${read + 1}.js`) } : { text: "Five parts read." };
  };

  it("a prompt the server cut without an error (200, fewer input tokens reported) is warned about once", async () => {
    const { url, seen } = await localServer(4096, readFive, "cut");
    const run = await ubiquity(url, "--no-session-persistence", "read part1.js to part5.js");
    expect(run.code).toBe(0);
    expect(seen.filter((s) => s.tokens > 4096).length).toBeGreaterThan(1);
    const warnings = run.stderr.split("\n").filter((l) => l.includes("cut the prompt to its context window"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("reported 2050 input tokens");
    expect(warnings[0]).toContain("OLLAMA_CONTEXT_LENGTH");
  }, 120_000);

  it("a server that reports the input it took whole is not warned about", async () => {
    const { url } = await localServer(32_768, readFive, "cut");
    const run = await ubiquity(url, "--no-session-persistence", "read part1.js to part5.js");
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe("Five parts read.");
    expect(run.stderr).not.toContain("cut the prompt");
  }, 120_000);
});

describe("a reasoning model served without a reasoning parser", () => {
  it("its <think> block is read as reasoning: -p prints the answer alone", async () => {
    const { url } = await localServer(32_768, () => ({
      text: "<think>\nThe user wants a summary. The folder has four modules.\n</think>\n\nFour modules of constants.",
    }));
    const run = await ubiquity(url, "what does this project do?");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Four modules of constants.\n");
    expect(run.stdout + run.stderr).not.toContain("<think>");
  }, 120_000);
});
