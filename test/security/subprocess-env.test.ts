/**
 * The three places a run starts a process — the Bash tool, a command hook, a stdio MCP server —
 * driven through summon() by the scripted model, each reporting the environment it really got.
 * The environment is an allow-list: credentials set in this process, and every variable no
 * pattern would call one (SENTRY_DSN, DB_PASS, SLACK_WEBHOOK_URL, GH_PAT), reach none of them
 * unless `env` lists them or `subprocessEnv: "inherit"` asks for the old behaviour.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { summon, type Options } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import toolBash from "ubiquity/plugins/tool-bash";
import hooksPlugin from "ubiquity/plugins/hooks";
import mcp from "ubiquity/plugins/mcp";
import { collect, ofType, resultOf } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { scriptedRun, workspace } from "../checkpoints/helpers";
import { hostEnv } from "../../plugins/_kits/process/index";

const ENV_SERVER = fileURLToPath(new URL("./fixtures/env-server.mjs", import.meta.url));

// Fake credentials in the parent: the provider table's kinds, generic patterns, a URL with a
// password, and one of ubiquity's own variables. Every value carries the marker.
const MARKER = "SECRET123";
const CREDENTIALS: Record<string, string> = {
  OPENAI_API_KEY: `sk-test-${MARKER}-openai`,
  ANTHROPIC_API_KEY: `sk-ant-${MARKER}`,
  AWS_ACCESS_KEY_ID: `AKIA${MARKER}`,
  AWS_SECRET_ACCESS_KEY: `aws-${MARKER}`,
  AWS_SESSION_TOKEN: `aws-session-${MARKER}`,
  AWS_BEARER_TOKEN_BEDROCK: `bedrock-${MARKER}`,
  GOOGLE_GENERATIVE_AI_API_KEY: `goog-${MARKER}`,
  AZURE_API_KEY: `azure-${MARKER}`,
  GROQ_API_KEY: `groq-${MARKER}`,
  MISTRAL_API_KEY: `mistral-${MARKER}`,
  XAI_API_KEY: `xai-${MARKER}`,
  OPENROUTER_API_KEY: `or-${MARKER}`,
  AI_GATEWAY_API_KEY: `gw-${MARKER}`,
  GITHUB_TOKEN: `ghp-${MARKER}`,
  MY_SERVICE_SECRET: `svc-${MARKER}`,
  DATABASE_URL: `postgres://app:pw-${MARKER}@db:5432/app`,
  UBIQUITY_FAKE_SETTING: `own-${MARKER}`,
  // Secrets by any other name: a name pattern misses them, the allow-list does not.
  SENTRY_DSN: `https://${MARKER}@o1.ingest.sentry.io/1`,
  DB_PASS: `db-${MARKER}`,
  SLACK_WEBHOOK_URL: `https://hooks.slack.com/services/T0/B0/${MARKER}`,
  GH_PAT: `github_pat_${MARKER}`,
};
const PLAIN = { UBQ_PLAIN_VARIABLE: "visible-to-children" };
const LISTED = { GITHUB_TOKEN: "listed-by-the-user", UBQ_ADDED: "added-by-env" };

beforeEach(() => {
  for (const [k, v] of Object.entries({ ...CREDENTIALS, ...PLAIN })) vi.stubEnv(k, v);
});
afterEach(() => {
  vi.unstubAllEnvs();
});

const newDir = tempDirs();

/** `NAME=value` lines (as `env` prints them) into a record; continuation lines of multi-line values are dropped. */
function parseEnv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const at = line.indexOf("=");
    if (at > 0 && /^[A-Za-z_][A-Za-z0-9_]*$/.test(line.slice(0, at))) out[line.slice(0, at)] = line.slice(at + 1);
  }
  return out;
}

/**
 * One run in which Bash runs `env`, a PreToolUse hook runs `env > file`, and the MCP server reports
 * its env, each also into a file: what comes back to the run is masked with its secrets, so the
 * files are what each process really got.
 */
async function environments(options: Options) {
  const dir = newDir("ubq-subenv-");
  const hookFile = join(dir, "hook-env.txt");
  const bashFile = join(dir, "bash-env.txt");
  const mcpFile = join(dir, "mcp-env.json");
  const model = scriptedModel([
    { toolCalls: [{ toolName: "Bash", input: { command: `env | tee ${JSON.stringify(bashFile)}` }, id: "bash" }] },
    { toolCalls: [{ toolName: "mcp__env__env", input: {}, id: "mcp" }] },
    "done",
  ]);
  const messages = await collect(
    summon("show me the environment", {
      presets: [],
      plugins: [toolBash(), hooksPlugin(), mcp()],
      model,
      cwd: dir,
      hooks: {
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: `env > ${JSON.stringify(hookFile)}` }] }],
      },
      mcpServers: {
        env: {
          command: process.execPath,
          args: [ENV_SERVER, mcpFile],
          env: { SERVER_OWN_TOKEN: "given-in-server-config" },
        },
      },
      ...options,
    }),
  );
  expect(resultOf(messages).isError).toBe(false);
  const output = (id: string) => {
    const result = ofType(messages, "tool_result").find((m) => m.toolUseId === id);
    expect(result?.output.isError, JSON.stringify(result)).toBe(false);
    return String(result!.output.content);
  };
  const text = (file: string) => readFileSync(file, "utf8");
  return {
    bash: { text: text(bashFile), vars: parseEnv(text(bashFile)), result: output("bash") },
    hook: { text: text(hookFile), vars: parseEnv(text(hookFile)) },
    mcp: { text: text(mcpFile), vars: JSON.parse(text(mcpFile)) as Record<string, string>, result: output("mcp") },
  };
}

describe("subprocess environments", () => {
  it("by default, Bash, a command hook and a stdio MCP server see none of the parent's credentials", async () => {
    const envs = await environments({});
    for (const [site, env] of Object.entries(envs)) {
      expect(env.text, site).not.toContain(MARKER);
      for (const name of Object.keys(CREDENTIALS)) expect(env.vars[name], `${site}: ${name}`).toBeUndefined();
      expect(env.vars.PATH, site).toBeTruthy(); // scrubbed, not emptied
    }
    // A variable off the allow-list reaches none of the three either; the hook still gets its project folder.
    for (const [site, env] of Object.entries(envs)) expect(env.vars.UBQ_PLAIN_VARIABLE, site).toBeUndefined();
    expect(envs.hook.vars.UBIQUITY_PROJECT_DIR).toBe(envs.bash.vars.PWD);
    // An MCP server also gets its own `env`, which is passed as configured; its result comes back masked.
    expect(envs.mcp.vars.SERVER_OWN_TOKEN).toBe("given-in-server-config");
    expect(JSON.parse(envs.mcp.result).SERVER_OWN_TOKEN).toBe("[redacted]");
  });

  it("a variable listed in `env` reaches all three, credential-named or not", async () => {
    const envs = await environments({ env: LISTED });
    for (const [site, env] of Object.entries(envs)) {
      expect(env.vars.GITHUB_TOKEN, site).toBe("listed-by-the-user");
      expect(env.vars.UBQ_ADDED, site).toBe("added-by-env");
      expect(env.text, site).not.toContain(MARKER);
    }
  });

  it('`subprocessEnv: "inherit"` gives Bash and hooks the parent environment again; MCP servers keep the allow-list', async () => {
    const envs = await environments({ subprocessEnv: "inherit", env: { UBQ_ADDED: "added-by-env" } });
    for (const site of ["bash", "hook"] as const) {
      for (const [name, value] of Object.entries(CREDENTIALS))
        expect(envs[site].vars[name], `${site}: ${name}`).toBe(value);
      expect(envs[site].vars.UBQ_ADDED).toBe("added-by-env");
      expect(envs[site].vars.UBQ_PLAIN_VARIABLE).toBe("visible-to-children");
    }
    // What the command printed comes back with the run's keys masked.
    expect(parseEnv(envs.bash.result).OPENAI_API_KEY).toBe("[redacted]");
    expect(envs.bash.result).not.toContain(CREDENTIALS.OPENAI_API_KEY);
    // Stdio MCP servers never inherited the parent's whole environment; "inherit" keeps that.
    expect(envs.mcp.text).not.toContain(MARKER);
    expect(envs.mcp.vars.UBQ_ADDED).toBe("added-by-env");
  });
});

describe("programs Ubiquity starts itself", () => {
  it("git for checkpoints sees none of the parent's credentials, and keeps what git needs", async () => {
    // A `git` first on PATH, outside every folder the agent can write, that records the
    // environment it got and hands over to the real git.
    const tools = newDir("ubq-hostenv-bin-");
    const log = join(tools, "git-env.txt");
    const real = ["/usr/bin/git", "/bin/git", "/usr/local/bin/git"].find((p) => existsSync(p))!;
    writeFileSync(
      join(tools, "git"),
      `#!/bin/sh\nenv >> ${JSON.stringify(log)}\necho ==== >> ${JSON.stringify(log)}\nexec ${real} "$@"\n`,
    );
    chmodSync(join(tools, "git"), 0o755);
    const { dir, home } = workspace();
    vi.stubEnv("PATH", `${tools}:${process.env.PATH}`);
    vi.stubEnv("GIT_SSH_COMMAND", "ssh -o BatchMode=yes");
    const messages = await scriptedRun(dir, home);
    expect(resultOf(messages).isError).toBe(false);
    const text = readFileSync(log, "utf8");
    const runs = text.split("====\n").filter((r) => r.trim() !== "");
    expect(runs.length, "the checkpoints' git never ran through the recording git").toBeGreaterThan(0);
    for (const [name, value] of Object.entries(CREDENTIALS)) {
      expect(text, `${name} reached git`).not.toContain(value);
    }
    expect(text).not.toContain(MARKER);
    const first = parseEnv(runs[0]!);
    expect(first.PATH?.split(":")[0]).toBe(tools);
    expect(first.HOME).toBe(process.env.HOME);
    expect(first.UBQ_PLAIN_VARIABLE, "a variable no allow-list names passed").toBeUndefined();
  });

  it("the host environment is an allow-list: git's settings and the SSH agent pass, no credential does", () => {
    const env = hostEnv({
      ...CREDENTIALS,
      ...PLAIN,
      PATH: "/usr/bin:bin",
      HOME: "/home/u",
      GIT_SSH_COMMAND: "ssh -i /home/u/.ssh/deploy",
      GIT_TOKEN: `git-${MARKER}`,
      SSH_AUTH_SOCK: "/run/user/1/ssh.sock",
      NODE_OPTIONS: "--require /tmp/x.js",
    });
    expect(env).toEqual({
      PATH: "/usr/bin",
      HOME: "/home/u",
      GIT_SSH_COMMAND: "ssh -i /home/u/.ssh/deploy",
      SSH_AUTH_SOCK: "/run/user/1/ssh.sock",
    });
  });
});
