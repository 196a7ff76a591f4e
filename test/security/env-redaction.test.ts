/**
 * Keys that live only in the environment are masked like `apiKey`: in the result of a failed
 * run, in the session transcript and in every line logged through the kernel's logger. Driven
 * through summon() with the scripted model and the real sessions plugin.
 */
import { createHash } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { defineTool, summon, type Options } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import sessionsPlugin from "ubiquity/plugins/sessions";
import { BashTool } from "../../plugins/tool-bash/index";
import { collect, ofType, resultOf } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { capturingLogger } from "../model/helpers";
import { main } from "../../runner/cli";

const KEY = "sk-test-SECRET123-only-in-env";
const DB_PASSWORD = "pw-SECRET123-in-url";

const VARS = { OPENAI_API_KEY: KEY, DATABASE_URL: `postgres://app:${DB_PASSWORD}@db:5432/app` };
beforeEach(() => {
  for (const [k, v] of Object.entries(VARS)) vi.stubEnv(k, v);
});
afterEach(() => {
  vi.unstubAllEnvs();
});

const newDir = tempDirs();
const filesUnder = (root: string): string[] =>
  readdirSync(root).flatMap((name) =>
    statSync(join(root, name)).isDirectory() ? filesUnder(join(root, name)) : [join(root, name)],
  );

// A tool that logs what a careless plugin would: an error object carrying the key in its body.
const leaky = defineTool({
  name: "Leaky",
  description: "Logs a provider error",
  inputSchema: z.object({}),
  isReadOnly: true,
  execute: (_input, ctx) => {
    ctx.logger.warn(
      "provider said:",
      Object.assign(new Error("HTTP 401"), { responseBody: `{"error":"bad key ${KEY}"}` }),
    );
    ctx.logger.debug(`connecting to ${process.env.DATABASE_URL}`);
    return "logged";
  },
});

async function run(turns: Parameters<typeof scriptedModel>[0], options: Options = {}) {
  const sessionDir = newDir("ubq-envredact-");
  const logger = capturingLogger();
  const messages = await collect(
    summon("go", {
      presets: [],
      plugins: [sessionsPlugin()],
      tools: [leaky, new BashTool()],
      model: scriptedModel(turns),
      cwd: sessionDir,
      sessionDir,
      logger,
      ...options,
    }),
  );
  const files = filesUnder(sessionDir).filter((f) => f.endsWith(".jsonl"));
  return { messages, logger, files, transcript: files.map((f) => readFileSync(f, "utf8")).join("\n") };
}

describe("keys from the environment are redacted", () => {
  it("in the result, the transcript and the log when the provider echoes the key", async () => {
    const { messages, logger, files, transcript } = await run([
      { toolCalls: [{ toolName: "Leaky", input: {}, id: "t1" }] },
      {
        error: {
          status: 401,
          message: `Incorrect API key provided: ${KEY}`,
          body: `{"error":{"message":"bad key ${KEY}"}}`,
        },
      },
    ]);
    const result = resultOf(messages);
    expect(result.isError).toBe(true);
    expect(result.result).toContain("Incorrect API key provided: [redacted]");
    expect(files.length).toBe(1);
    expect(transcript).toContain("[redacted]");
    expect(logger.lines.some((l) => l.includes("provider said:") && l.includes("bad key [redacted]"))).toBe(true);
    expect(logger.lines.some((l) => l.includes("postgres://app:[redacted]@db"))).toBe(true);
    const everything = [JSON.stringify(messages), transcript, ...logger.lines].join("\n");
    expect(everything).not.toContain(KEY);
    expect(everything).not.toContain(DB_PASSWORD);
  });

  it('in the transcript when `subprocessEnv: "inherit"` lets Bash print the key', async () => {
    const { messages, transcript } = await run(
      [
        {
          toolCalls: [
            {
              toolName: "Bash",
              input: { command: 'echo "key=$OPENAI_API_KEY"; printf %s "$OPENAI_API_KEY" | sha256sum' },
              id: "b1",
            },
          ],
        },
        "done",
      ],
      { subprocessEnv: "inherit" },
    );
    // The command got the key (the caller chose to inherit), but neither the stream nor the record
    // on disk (nor the model) sees it.
    const sha = createHash("sha256").update(KEY).digest("hex");
    expect(ofType(messages, "tool_result")[0]!.output.content).toBe(`key=[redacted]\n${sha}  -`);
    expect(transcript).toContain("key=[redacted]");
    expect(transcript).not.toContain(KEY);
  });

  it("a header list in `env` (OpenTelemetry's exporter headers, a gateway's custom headers) is masked, and each header in it", async () => {
    const otel = "Bearer otel-SECRET123-exporter";
    const custom = "gw-SECRET123-custom";
    const { messages, transcript } = await run(
      [
        {
          toolCalls: [
            {
              toolName: "Bash",
              input: {
                command:
                  'printenv OTEL_EXPORTER_OTLP_HEADERS; printf "%s\\n" "${OTEL_EXPORTER_OTLP_HEADERS#Authorization=}" "${ANTHROPIC_CUSTOM_HEADERS#X-Auth: }"',
              },
              id: "h1",
            },
          ],
        },
        "done",
      ],
      {
        env: {
          OTEL_EXPORTER_OTLP_HEADERS: `Authorization=${otel},x-tenant=acme-co`,
          ANTHROPIC_CUSTOM_HEADERS: `X-Auth: ${custom}`,
        },
      },
    );
    const said = ofType(messages, "tool_result")[0]!.output.content;
    // Every header value counts (a tenant id too: which header is the credential is not known).
    expect(said).toBe("[redacted]\n[redacted],x-tenant=[redacted]\n[redacted]");
    for (const secret of ["otel-SECRET123", custom])
      expect(transcript + JSON.stringify(messages)).not.toContain(secret);
  });
});

it("`ubiquity inspect` (text and JSON) shows no URL password, credential in `env` or MCP server env", async () => {
  const dir = newDir("ubq-inspect-");
  const config = join(dir, "ubiquity.config.json");
  writeFileSync(
    config,
    JSON.stringify({
      model: "groq:llama-3.3-70b-versatile",
      providerSettings: { baseURL: "https://me:proxy-pass-SECRET123@gateway.example/v1" },
      env: { DEPLOY_URL: `postgres://app:${DB_PASSWORD}@db/app`, NPM_TOKEN: "npm-SECRET123-token" },
      mcpServers: { gh: { command: "gh-mcp", env: { GH_TOKEN: "gh-SECRET123-server" } } },
    }),
  );
  for (const args of [
    ["inspect", "--config", config],
    ["inspect", "--json", "--config", config],
  ]) {
    let out = "";
    const code = await main(args, { stdout: (t) => void (out += t), stderr: (t) => void (out += t) });
    expect(code, out).toBe(0);
    expect(out).toContain("ubiquity:model");
    expect(out).not.toContain("SECRET123");
  }
});
