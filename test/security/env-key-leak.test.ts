/**
 * A key that comes from the environment, as most users pass it: the real `ubiquity run` bin with
 * OPENAI_API_KEY set, against a fake OpenAI server on 127.0.0.1 that echoes the key back in its
 * error bodies (a 429 the retry plugin logs, then a 401 that ends the run). The agent first runs
 * Bash to print the key. The key reaches the provider and nowhere else: not Bash, not stdout or
 * stderr, not the `DEBUG=ubiquity*` log, not a file under the session and todo folders.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startProviderServer, type FakeProviderServer } from "ubiquity/testing";
import { removeTempProjects, requireDist, runCli, tempProject } from "../helpers/project";

const KEY = "sk-test-SECRET123-env-4f9a8b7c";

function filesUnder(root: string): string[] {
  return readdirSync(root).flatMap((name) => {
    const path = join(root, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

const servers: FakeProviderServer[] = [];
const homes: string[] = [];
beforeAll(requireDist);
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  for (const home of homes) rmSync(home, { recursive: true, force: true });
  removeTempProjects();
});

/** One bin run in a fresh project and HOME; returns the run's output and every file it left. */
async function runWithEnvKey(format: "text" | "stream-json") {
  const server = await startProviderServer([
    { toolCalls: [{ name: "Bash", input: { command: 'echo "key=[$OPENAI_API_KEY]"; env' }, id: "call_env" }] },
    { status: 429, headers: { "retry-after": "0" }, message: `Rate limited for key ${KEY}` },
    {
      status: 401,
      message: `Incorrect API key provided: ${KEY}. You can find your API key at https://example.invalid`,
    },
  ]);
  servers.push(server);
  const home = realpathSync(mkdtempSync(join(tmpdir(), "ubq-keyleak-home-")));
  homes.push(home);
  const cwd = tempProject({});
  const out = await runCli(
    [
      "run",
      "--model",
      "openai:gpt-4o",
      "--permission-mode",
      "bypassPermissions",
      "--output-format",
      format,
      "show the environment",
    ],
    cwd,
    { HOME: home, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: server.baseURL, DEBUG: "ubiquity*" },
  );
  const files = filesUnder(home);
  return { server, out, files, contents: files.map((f) => readFileSync(f, "utf8")).join("\n") };
}

describe("a provider key from the environment", () => {
  it.concurrent.each(["stream-json", "text"] as const)(
    "leaves no copy anywhere in a failing %s run",
    async (format) => {
      const { server, out, files, contents } = await runWithEnvKey(format);
      // The key did reach the provider, and the run got as far as the 401.
      expect(server.requests.length, out.stderr).toBe(3);
      expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(out.code, out.stderr).toBe(1);
      expect(`${out.stdout}\n${out.stderr}`).toMatch(/401.*Incorrect API key provided: \[redacted\]/);
      // The DEBUG log ran (retry lines), the Bash call ran without the key, the transcript exists.
      expect(out.stderr).toContain("[ubiquity:retry]");
      expect(files.some((f) => f.includes(join(".ubiquity", "sessions")))).toBe(true);
      expect(contents).toContain("key=[]");
      // The key is nowhere: stdout, stderr (with the DEBUG log), the session and todo folders.
      expect(out.stdout).not.toContain(KEY);
      expect(out.stderr).not.toContain(KEY);
      expect(contents).not.toContain(KEY);
      expect(`${out.stdout}${out.stderr}${contents}`).not.toContain("SECRET123");
    },
  );
});
